#include "extract/extractor.h"

#include <iconv.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "core/text.h"
#include "extract/cpp/cpp_extractor.h"
#include "extract/cpp/cpp_syntax.h"
#include "extract/python/py_extractor.h"
#include "extract/python/py_linker.h"
#include "extract/ts_util.h"

namespace errdex::extract {
namespace {

// The encoding a PEP 263 cookie in the first two lines declares, lowercased.
std::string CodingCookie(std::string_view text) {
  size_t line_start = 0;
  for (int line = 0; line < 2 && line_start < text.size(); ++line) {
    size_t end = text.find('\n', line_start);
    std::string_view l =
        text.substr(line_start, end == std::string_view::npos ? end : end - line_start);
    line_start = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view t = Trim(l);
    if (t.empty() || t.front() != '#') {
      if (!t.empty()) break;  // code: a cookie after it does not count
      continue;
    }
    size_t at = t.find("coding");
    if (at == std::string_view::npos || at + 6 >= t.size()) continue;
    size_t i = at + 6;
    if (t[i] != ':' && t[i] != '=') continue;
    ++i;
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
    size_t b = i;
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '-' ||
                            t[i] == '_' || t[i] == '.')) {
      ++i;
    }
    std::string name(t.substr(b, i - b));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
  }
  return "";
}

bool IsUtf8Name(const std::string& name) {
  return name.empty() || name == "utf-8" || name == "utf8" || name == "utf_8" ||
         name.rfind("utf-8-", 0) == 0 || name == "ascii" || name == "us-ascii";
}

// iconv's name for a Python codec name: Python accepts "latin-1" and
// "iso8859_15" where glibc wants "ISO-8859-1" and "ISO-8859-15".
iconv_t OpenDecoder(std::string name) {
  for (char& c : name) c = c == '_' ? '-' : c;
  if (name == "latin-1" || name == "latin1" || name == "l1" || name == "cp819" ||
      name == "iso8859-1" || name == "8859") {
    name = "ISO-8859-1";
  } else if (name.rfind("iso8859-", 0) == 0) {
    name = "ISO-8859-" + name.substr(8);
  }
  return iconv_open("UTF-8", name.c_str());
}

std::optional<std::string> Transcode(std::string_view text, const std::string& from) {
  iconv_t cd = OpenDecoder(from);
  if (cd == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  std::string out(text.size() * 4 + 16, '\0');
  char* in_ptr = const_cast<char*>(text.data());
  size_t in_left = text.size();
  char* out_ptr = out.data();
  size_t out_left = out.size();
  size_t rc = iconv(cd, &in_ptr, &in_left, &out_ptr, &out_left);
  iconv_close(cd);
  if (rc == static_cast<size_t>(-1)) return std::nullopt;
  out.resize(out.size() - out_left);
  return out;
}

// Python source bytes as UTF-8 text, per PEP 263 and PEP 3120; nullopt with
// `issue` set when Python itself could not read the file.
std::optional<std::string> DecodePython(std::string bytes, FileIssue& issue) {
  if (bytes.size() >= 3 && bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) bytes.erase(0, 3);
  std::string cookie = CodingCookie(bytes);
  if (!IsUtf8Name(cookie)) {
    bool ascii = std::all_of(bytes.begin(), bytes.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii) return bytes;
    if (auto text = Transcode(bytes, cookie)) return text;
    issue.reason = "encoding";
    issue.detail = "cannot decode as declared coding " + cookie;
    return std::nullopt;
  }
  if (!IsValidUtf8(bytes)) {
    issue.reason = "not-utf8";
    issue.detail = "invalid UTF-8 and no coding declaration";
    return std::nullopt;
  }
  return bytes;
}

// Where the first syntax error is: the first MISSING node or innermost ERROR
// node in source order (an ERROR node can span most of a file).
std::string FirstErrorLine(TSNode root) {
  TSNode n = root;
  for (int guard = 0; guard < 100000; ++guard) {
    if (ts_node_is_missing(n)) break;
    TSNode next{};
    for (TSNode c : Children(n)) {
      if (ts_node_has_error(c) || ts_node_is_missing(c) ||
          ts_node_symbol(c) == static_cast<TSSymbol>(-1)) {
        next = c;
        break;
      }
    }
    if (ts_node_is_null(next)) break;
    n = next;
  }
  return "syntax error at line " + std::to_string(StartLine(n));
}

// Parses and extracts one Python file with `parser`; never throws.
python::FileResult ExtractOne(TSParser* parser, std::string_view path, std::string bytes) {
  python::FileResult result;
  result.path = std::string(path);
  FileIssue issue{std::string(path), "", "", true};
  std::optional<std::string> text = DecodePython(std::move(bytes), issue);
  if (!text) {
    result.issues.push_back(std::move(issue));
    return result;
  }
  TreePtr tree(
      ts_parser_parse_string(parser, nullptr, text->data(), static_cast<uint32_t>(text->size())));
  if (!tree) {
    ts_parser_reset(parser);
    result.issues.push_back(
        FileIssue{std::string(path), "parse-timeout", "parsing took too long", true});
    return result;
  }
  TSNode root = ts_tree_root_node(tree.get());
  python::PythonOptions options;
  result = python::ExtractPythonFile(path, *text, tree.get(), options);
  if (ts_node_has_error(root)) {
    result.issues.push_back(
        FileIssue{std::string(path), "syntax-error", FirstErrorLine(root), false});
  }
  return result;
}

ParserPtr NewPythonParser(uint64_t timeout_micros) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  ts_parser_set_timeout_micros(parser.get(), timeout_micros);
  return parser;
}

}  // namespace

bool IsSourcePath(std::string_view path) {
  return EndsWith(path, ".py") || cpp::IsCppSourcePath(path);
}

namespace {

// C and C++ have no declared encoding; text that is not UTF-8 is read as
// Latin-1 (every byte a character), so a stray byte in a comment costs nothing.
std::string DecodeNative(std::string bytes, std::vector<FileIssue>& issues, std::string_view path) {
  if (IsValidUtf8(bytes)) return bytes;
  issues.push_back(FileIssue{std::string(path), "not-utf8", "read as Latin-1", false});
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(0xC0 | (u >> 6)));
      out.push_back(static_cast<char>(0x80 | (u & 0x3F)));
    }
  }
  return out;
}

// `TF_ASSIGN_OR_RETURN(auto x, f());` declares inside a macro's arguments,
// which no C++ grammar accepts: the parser gives up on the rest of the
// function, sites included. Blanking the declaration (bytes and lines kept)
// leaves `TF_ASSIGN_OR_RETURN(        f());`, a call it reads.
void BlankAssignOrReturn(std::string& text) {
  static constexpr std::string_view kSuffix = "ASSIGN_OR_RETURN";
  for (size_t at = text.find(kSuffix); at != std::string::npos; at = text.find(kSuffix, at + 1)) {
    size_t open = at + kSuffix.size();
    while (open < text.size() && (text[open] == ' ' || text[open] == '\t')) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    int depth = 0;
    size_t comma = std::string::npos;
    for (size_t i = open + 1; i < text.size() && i < open + 512; ++i) {
      char c = text[i];
      if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
      if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
      if (depth < 0 || c == ';' || c == '"') break;
      if (c == ',' && depth == 0) {
        comma = i;
        break;
      }
    }
    if (comma == std::string::npos) continue;
    for (size_t i = open + 1; i <= comma; ++i) {
      if (text[i] != '\n') text[i] = ' ';
    }
  }
}

// A header is C++ when it says so; numpy's and CPython's headers are C, and
// the C grammar reads their `"%" NPY_INTP_FMT` splices that C++'s rejects.
bool LooksLikeCpp(std::string_view text) {
  for (std::string_view token : {"::", "namespace ", "template <", "template<", "class ",
                                 "public:", "private:", "#include <string>", "nullptr"}) {
    if (text.find(token) != std::string_view::npos) return true;
  }
  return false;
}

struct NativeResult {
  cpp::FileResult extracted;
  std::vector<FileIssue> issues;
};

NativeResult ExtractNativeOne(TSParser* parser, std::string_view path, std::string bytes,
                              const cpp::MacroTable& macros) {
  NativeResult result;
  bool is_c = false;
  cpp::IsCppSourcePath(path, &is_c);
  std::string text = DecodeNative(std::move(bytes), result.issues, path);
  if (!is_c && EndsWith(path, ".h") && !LooksLikeCpp(text)) is_c = true;
  // The tree is of the blanked copy; offsets agree, and sites quote the source.
  std::string parsed = text;
  if (!is_c) BlankAssignOrReturn(parsed);
  ts_parser_set_language(parser, is_c ? cpp::CLanguage() : cpp::CppLanguage());
  TreePtr tree(
      ts_parser_parse_string(parser, nullptr, parsed.data(), static_cast<uint32_t>(parsed.size())));
  if (!tree) {
    ts_parser_reset(parser);
    result.issues.push_back(
        FileIssue{std::string(path), "parse-timeout", "parsing took too long", true});
    return result;
  }
  result.extracted = cpp::ExtractCppFile(path, text, tree.get(), is_c, macros);
  TSNode root = ts_tree_root_node(tree.get());
  // Macros and templates defeat the grammar often; the sites around an error
  // are still found, so this is noted, not fatal.
  if (ts_node_has_error(root)) {
    result.issues.push_back(
        FileIssue{std::string(path), "syntax-error", FirstErrorLine(root), false});
  }
  return result;
}

// Runs `work(worker_parser)` on `jobs` threads (the caller's among them).
template <typename Work>
void OnThreads(int jobs, Work work) {
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace

Extraction ExtractFiles(const std::vector<source::SourceFile>& files, const Options& options) {
  int jobs = options.jobs > 0 ? options.jobs
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(
      std::min<size_t>(static_cast<size_t>(jobs), std::max<size_t>(1, files.size())));

  // Sink macros first, from every C/C++ file: a header's #define is used in
  // the files that include it.
  std::vector<std::vector<cpp::MacroDef>> defined(files.size());
  std::atomic<size_t> next{0};
  OnThreads(jobs, [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      if (!cpp::IsCppSourcePath(files[i].path)) continue;
      Result<std::string> bytes = source::ReadFile(files[i].absolute, options.max_file_size);
      if (bytes) cpp::CollectMacros(files[i].path, *bytes, defined[i]);
    }
  });
  std::vector<cpp::MacroDef> all_defined;
  for (std::vector<cpp::MacroDef>& defs : defined) {
    for (cpp::MacroDef& d : defs) all_defined.push_back(std::move(d));
  }
  cpp::MacroTable macros = cpp::SinkMacros(std::move(all_defined));

  std::vector<python::FileResult> results(files.size());
  std::vector<NativeResult> native(files.size());
  next = 0;
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  OnThreads(jobs, [&] {
    ParserPtr parser = NewPythonParser(options.parse_timeout_micros);
    ParserPtr native_parser(ts_parser_new());
    ts_parser_set_timeout_micros(native_parser.get(), options.parse_timeout_micros);
    for (size_t i = next++; i < files.size(); i = next++) {
      const source::SourceFile& f = files[i];
      Result<std::string> bytes = source::ReadFile(f.absolute, options.max_file_size);
      if (!bytes) {
        results[i].path = f.path;
        bool too_large = bytes.error().code == ErrorCode::kInvalidArgument;
        results[i].issues.push_back(
            FileIssue{f.path, too_large ? "too-large" : "unreadable", bytes.error().message, true});
      } else if (cpp::IsCppSourcePath(f.path)) {
        results[i].path = f.path;
        native[i] = ExtractNativeOne(native_parser.get(), f.path, std::move(*bytes), macros);
      } else {
        results[i] = ExtractOne(parser.get(), f.path, std::move(*bytes));
      }
      size_t n = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        options.progress(n, files.size());
      }
    }
  });

  Extraction out;
  for (const source::SourceFile& f : files) {
    out.bytes_scanned += static_cast<int64_t>(f.size);
  }
  out.files_scanned = static_cast<int64_t>(files.size());
  python::LinkPython(results, out);
  for (NativeResult& r : native) {
    for (Site& s : r.extracted.sites) out.sites.push_back(std::move(s));
    for (NonSite& s : r.extracted.non_sites) out.non_sites.push_back(std::move(s));
    for (FileIssue& i : r.issues) out.issues.push_back(std::move(i));
  }
  return out;
}

Extraction ExtractCppSource(std::string_view path, std::string_view text) {
  std::vector<cpp::MacroDef> defs;
  cpp::CollectMacros(path, text, defs);
  cpp::MacroTable macros = cpp::SinkMacros(std::move(defs));
  ParserPtr parser(ts_parser_new());
  ts_parser_set_timeout_micros(parser.get(), 20'000'000);
  NativeResult r = ExtractNativeOne(parser.get(), path, std::string(text), macros);
  Extraction out;
  out.files_scanned = 1;
  out.bytes_scanned = static_cast<int64_t>(text.size());
  out.sites = std::move(r.extracted.sites);
  out.non_sites = std::move(r.extracted.non_sites);
  out.issues = std::move(r.issues);
  return out;
}

Extraction ExtractPythonSource(std::string_view path, std::string_view text) {
  ParserPtr parser = NewPythonParser(20'000'000);
  std::vector<python::FileResult> results;
  results.push_back(ExtractOne(parser.get(), path, std::string(text)));
  Extraction out;
  out.files_scanned = 1;
  out.bytes_scanned = static_cast<int64_t>(text.size());
  python::LinkPython(results, out);
  return out;
}

}  // namespace errdex::extract
