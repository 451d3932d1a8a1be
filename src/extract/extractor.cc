#include "extract/extractor.h"

#include <iconv.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include <xxhash.h>

#include "core/guards.h"
#include "core/text.h"
#include "core/threads.h"
#include "extract/cpp/cpp_extractor.h"
#include "extract/python/cy_prepass.h"
#include "extract/python/py_extractor.h"
#include "extract/python/py_linker.h"
#include "extract/python/py_prepass.h"
#include "extract/rust/rust_extractor.h"
#include "extract/source_lines.h"
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
    return AsciiLower(t.substr(b, i - b));
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

// A Tempita substitution left in a string (`'out of bounds for
// {{nptype}}'`) is a value of the generated code's message.
Template TempitaValues(const Template& t) {
  return MapLiterals(t, [](std::string_view text, Template& out) {
    size_t at = 0;
    while (at < text.size()) {
      size_t open = text.find("{{", at);
      size_t close = open == std::string_view::npos ? open : text.find("}}", open + 2);
      if (close == std::string_view::npos) {
        out.AppendText(text.substr(at));
        return;
      }
      out.AppendText(text.substr(at, open - at));
      out.AppendValue(Trim(text.substr(open + 2, close - open - 2)), ValueKind::kStr);
      at = close + 2;
    }
  });
}

// What a Cython file's sites take from the source as written rather than
// from the rewritten copy they were extracted from.
void CythonSites(std::string_view source, const python::PythonOptions& options, bool tempita,
                 python::FileResult& result) {
  SourceLines lines(source);
  auto values = [](Template& t) {
    t = TempitaValues(t);
    t.AssignNames();
  };
  for (python::ProtoSite& p : result.sites) {
    if (!p.site.excerpt.empty()) {
      lines.FillExcerpt(p.site, options.excerpt_before, options.excerpt_after,
                        options.max_excerpt_bytes);
    }
    if (!tempita) continue;
    values(p.site.message);
    // The linker builds the message again from the arguments.
    for (python::CallArg& a : p.args) {
      if (a.arg.value) values(*a.arg.value);
    }
  }
  if (!tempita) return;
  for (python::FunctionInfo& f : result.functions) {
    for (Template& t : f.returned_messages) values(t);
  }
}

// Parses and extracts one Python file with `parser`; never throws.
//
// `last`, when given, holds the path's last parse, text and tree (or none),
// which the parse starts from; it is left holding this parse, when the tree
// is one a later version can start from, or nothing.
python::FileResult ExtractOne(TSParser* parser, std::string_view path, std::string bytes,
                              python::DefinitionFactsMemo* facts_memo = nullptr,
                              python::DefinitionSitesMemo* sites_memo = nullptr,
                              ParsedText* last = nullptr) {
  ParsedText before;
  if (last != nullptr) before = std::move(*last);
  python::FileResult result;
  result.path = std::string(path);
  FileIssue issue{std::string(path), "", "", true};
  std::optional<std::string> text = DecodePython(std::move(bytes), issue);
  if (!text) {
    result.issues.push_back(std::move(issue));
    return result;
  }
  // Cython is read as the Python it rewrites to, and extracted from that
  // copy, whose names and strings are the source's at the same offsets;
  // only the excerpts are taken from the source as written.
  std::optional<std::string> cython_source;
  if (python::IsCythonPath(path)) {
    cython_source = *text;
    python::RewriteCython(*text, python::IsTempitaPath(path));
  }
  ParseBudget budget(parser);
  TreePtr tree = before.tree ? budget.Reparse(*text, std::move(before)) : nullptr;
  if (!tree) tree = budget.Parse(*text);
  // Only a tree of the text as it is, without errors, is one the file's
  // next version can start from.
  bool clean = tree && !ts_node_has_error(ts_tree_root_node(tree.get()));
  if (tree && !clean) {
    // Only a file the grammar stumbled on pays for the rewrite and a second
    // parse. The rewritten copy has the source's offsets, so its tree is read
    // against the source and sites quote what was written.
    std::string rewritten = *text;
    if (python::RewriteForGrammar(rewritten) > 0) {
      // Out of time on the second parse, the first tree, errors and all, is
      // still better than none.
      if (TreePtr second = budget.Parse(rewritten)) tree = std::move(second);
    }
  }
  if (!tree) {
    result.issues.push_back(
        FileIssue{std::string(path), "parse-timeout", "parsing took too long", true});
    return result;
  }
  TSNode root = ts_tree_root_node(tree.get());
  python::PythonOptions options;
  options.cython = cython_source.has_value();
  options.facts_memo = facts_memo;
  // A definition's text gives its tree only where the file was parsed as
  // it is.
  if (clean) options.sites_memo = sites_memo;
  result = python::ExtractPythonFile(path, *text, tree.get(), options);
  if (cython_source) CythonSites(*cython_source, options, python::IsTempitaPath(path), result);
  if (ts_node_has_error(root)) {
    result.issues.push_back(
        FileIssue{std::string(path), "syntax-error", FirstErrorLine(root), false});
  } else if (last != nullptr && clean) {
    last->text = std::move(*text);
    last->tree = std::move(tree);
  }
  return result;
}

// A message template is at most this big; the largest of any error in the
// Python 3.11 stdlib or its site-packages has 19 pieces and 1,266 bytes of
// literal text. Generated code can have megabytes: a template of thousands
// of placeholders is no error message, costs memory at every later step and
// compiles to no RE2 program. What is cut becomes one open value at the end,
// so the template still matches the start of the message.
constexpr size_t kMaxTemplatePieces = 256;
constexpr size_t kMaxTemplateLiteral = 32u << 10;

// Cuts `t` to the limits above; false when it was within them.
bool CapTemplate(Template& t) {
  std::vector<Piece>& pieces = t.mutable_pieces();
  size_t literal = 0;
  bool cut = false;
  for (size_t i = 0; i < pieces.size() && !cut; ++i) {
    if (i + 1 >= kMaxTemplatePieces) {
      pieces.resize(i);  // room for the open value
      cut = true;
    } else if (!pieces[i].is_value) {
      if (literal + pieces[i].text.size() > kMaxTemplateLiteral) {
        pieces[i].text = std::string(TruncateUtf8(pieces[i].text, kMaxTemplateLiteral - literal));
        pieces.resize(i + 1);
        cut = true;
      }
      literal += pieces[i].text.size();
    }
  }
  if (!cut) return false;
  t.AppendValue("...", ValueKind::kAny);
  t.AssignNames();
  return true;
}

// Caps every site's template, one recovered-file note per file that had any.
void CapMessages(Extraction& out) {
  std::map<std::string, std::pair<int, int>> cut;  // path -> (count, first line)
  for (Site& s : out.sites) {
    if (!CapTemplate(s.message)) continue;
    auto [it, fresh] = cut.try_emplace(s.path, 0, s.line);
    ++it->second.first;
    it->second.second = std::min(it->second.second, s.line);
  }
  for (const auto& [path, n] : cut) {
    out.issues.push_back(FileIssue{path, "long-message",
                                   std::to_string(n.first) + " message template(s) cut to " +
                                       std::to_string(kMaxTemplatePieces) + " pieces or " +
                                       std::to_string(kMaxTemplateLiteral) +
                                       " bytes (first at line " + std::to_string(n.second) + ")",
                                   false});
  }
}

// Every site's trigger in the words of its language and kind: the front
// ends and the helpers they share write "raised when" for all (a C++
// `throw` is thrown, a warning issued, a Rust panic panics).
void VoiceTriggers(Extraction& out) {
  for (Site& s : out.sites) {
    if (!s.trigger.empty()) s.trigger = Revoiced(s.trigger, s.guards, VoiceOf(s));
  }
}

// What every extraction ends with, whichever front ends wrote it.
void Finish(Extraction& out) {
  CapMessages(out);
  VoiceTriggers(out);
}

// Sites the linker made at calls into sinks carry no excerpt (the call was
// kept light while its file was parsed): their files' texts again, read or
// kept in the blob cache.
void FillMissingExcerpts(
    Extraction& out,
    const std::function<std::shared_ptr<const std::string>(const std::string&)>& read) {
  std::map<std::string, std::vector<Site*>> missing;
  for (Site& s : out.sites) {
    if (s.excerpt.empty() && s.language == "python" && s.line > 0) missing[s.path].push_back(&s);
  }
  for (auto& [path, sites] : missing) {
    std::shared_ptr<const std::string> text = read(path);
    if (text == nullptr) continue;
    SourceLines lines(*text);
    const python::PythonOptions excerpt;  // the bounds every other site had
    for (Site* s : sites) {
      lines.FillExcerpt(*s, excerpt.excerpt_before, excerpt.excerpt_after,
                        excerpt.max_excerpt_bytes);
    }
  }
}

ParserPtr NewPythonParser(uint64_t timeout_micros) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  ts_parser_set_timeout_micros(parser.get(), timeout_micros);
  return parser;
}

}  // namespace

bool IsSourcePath(std::string_view path) {
  return EndsWith(path, ".py") || python::IsCythonPath(path) || cpp::IsCppSourcePath(path) ||
         rust::IsRustSourcePath(path);
}

struct FileCache::Impl {
  template <typename T>
  struct Entry {
    T value;
    uint64_t used = 0;  // the last run (revision) that read it
  };
  template <typename T>
  using Map = std::unordered_map<std::string, Entry<T>>;

  std::mutex mutex;
  // Keys are "blob\0path": a front end's result names its file. Python's
  // results are only read after, by the linker: shared, not copied.
  Map<std::shared_ptr<const python::FileResult>> python;
  Map<std::vector<cpp::MacroDef>> macros;
  // And "\0macros" on top: C/C++ results depend on every file's sink macros.
  Map<cpp::FileResult> native;
  Map<rust::FileResult> rust;
  uint64_t run = 0;
  size_t hits = 0;
  size_t misses = 0;
  // The text of each Python file with calls that may reach a sink, for the
  // excerpts of the sites the linker makes there: put when the file is
  // parsed (or read by the linker), found by this revision's link and the
  // next, which would otherwise inflate the same blobs again (a few hundred
  // a jax release). Swept by the link's own runs: links run one at a time,
  // beside the next revision's parse, and a text put by that parse is kept
  // for the link after.
  Map<std::shared_ptr<const std::string>> texts;
  uint64_t link_run = 0;
  // The call graph's facts of Python functions and methods, by a digest of
  // their text and place: a changed file's unchanged functions are not read
  // again. An entry goes once kDefinitionRuns runs after the one that last
  // read it have not (about 35 MB of facts a jax release): a file that a
  // revision leaves unchanged is found whole above and does not read its
  // own, and files that change every other revision keep them.
  static constexpr uint64_t kDefinitionRuns = 1;
  Map<std::shared_ptr<const python::ModuleFacts>> definitions;
  // And what the sites' walk made of each top-level Python function and
  // class, by a digest of its text and path (python::PythonOptions::
  // sites_memo; an entry says in which module around it it holds), kept as
  // long.
  Map<std::shared_ptr<const python::DefinitionSites>> definition_sites;
  template <typename T>
  struct Memo final : DefinitionMemo<T> {
    Memo(Impl& cache, Map<std::shared_ptr<const T>> Impl::*entries) : owner(cache), map(entries) {}
    std::shared_ptr<const T> Find(const std::string& key) override {
      std::shared_ptr<const T> out;
      owner.Find(owner.*map, key, out);
      return out;
    }
    void Put(const std::string& key, std::shared_ptr<const T> value) override {
      owner.Put(owner.*map, key, value);
    }
    bool Keeping() const override { return keep; }
    Impl& owner;
    Map<std::shared_ptr<const T>> Impl::*map;
    bool keep = true;  // set by each run, which is one at a time
  };
  // The memo for a run, or null when it has nothing to find and is to keep
  // nothing (one revision alone): its definitions are then not even digested.
  template <typename T>
  DefinitionMemo<T>* MemoFor(Memo<T>& memo, bool later_runs) {
    std::lock_guard<std::mutex> lock(mutex);
    memo.keep = later_runs;
    return later_runs || !(this->*memo.map).empty() ? &memo : nullptr;
  }
  Memo<python::ModuleFacts> definition_memo{*this, &Impl::definitions};
  Memo<python::DefinitionSites> definition_sites_memo{*this, &Impl::definition_sites};

  // The last parse, text and tree, of each Python path the last revision
  // parsed: when the next one changes the file again, its parse starts from
  // that tree, and tree-sitter parses again only what the changed lines
  // touch (37% less parse time over jax's 146 releases). A tree takes about
  // 30 bytes per byte of source and is freed late, when it is cold: keeping
  // the trees of files a revision left unchanged, for the revision that
  // changes them, cost more CPU than it saved over jax's releases (3–5%,
  // measured). The last revision of a run keeps none.
  Map<ParsedText> trees;
  ParsedText TakeTree(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = trees.find(path);
    if (it == trees.end()) return {};
    ParsedText out = std::move(it->second.value);
    trees.erase(it);
    return out;
  }
  void KeepTree(const std::string& path, ParsedText parsed) {
    std::lock_guard<std::mutex> lock(mutex);
    trees.insert_or_assign(path, Entry<ParsedText>{std::move(parsed), run});
  }

  // `clock` is the counter that stamps the map's entries: `run` for the
  // parses' maps, `link_run` for `texts`.
  template <typename T>
  bool Find(Map<T>& map, const std::string& key, T& out, uint64_t Impl::*clock = &Impl::run) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = map.find(key);
    if (it == map.end()) return false;
    out = it->second.value;
    it->second.used = this->*clock;
    return true;
  }
  template <typename T>
  void Put(Map<T>& map, const std::string& key, const T& value,
           uint64_t Impl::*clock = &Impl::run) {
    std::lock_guard<std::mutex> lock(mutex);
    map.insert_or_assign(key, Entry<T>{value, this->*clock});
  }
  // Drops the entries not read since the clock last moved.
  template <typename T>
  static void Sweep(Map<T>& map, uint64_t clock) {
    for (auto it = map.begin(); it != map.end();) {
      it = it->second.used < clock ? map.erase(it) : std::next(it);
    }
  }
  // Keeps the texts the last link read.
  void EndLink() {
    std::lock_guard<std::mutex> lock(mutex);
    Sweep(texts, link_run);
    ++link_run;
  }
  void Count(bool hit) {
    std::lock_guard<std::mutex> lock(mutex);
    ++(hit ? hits : misses);
  }
  // Keeps what the last run read: revisions come oldest first, and a file
  // that one revision no longer has rarely comes back, so memory stays near
  // one revision's results instead of growing with every revision.
  void EndRun() {
    std::lock_guard<std::mutex> lock(mutex);
    Sweep(python, run);
    Sweep(macros, run);
    Sweep(native, run);
    Sweep(rust, run);
    Sweep(trees, run);
    if (run >= kDefinitionRuns) {
      Sweep(definitions, run - kDefinitionRuns);
      Sweep(definition_sites, run - kDefinitionRuns);
    }
    ++run;
  }
};

FileCache::FileCache() : impl_(std::make_unique<Impl>()) {}
FileCache::~FileCache() = default;
size_t FileCache::hits() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->hits;
}
size_t FileCache::misses() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->misses;
}

namespace {

std::string CacheKey(const source::SourceFile& f) { return f.blob + '\0' + f.path; }

// What the sink macros of a revision are, as one cache key part: C/C++
// results are reused only under the same macros.
std::string MacroDigest(const cpp::MacroTable& macros) {
  std::vector<const cpp::MacroDef*> defs;
  for (const auto& [name, def] : macros) defs.push_back(&def);
  std::sort(defs.begin(), defs.end(),
            [](const cpp::MacroDef* a, const cpp::MacroDef* b) { return a->name < b->name; });
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  auto add = [&](const std::string& s) { XXH3_64bits_update(state, s.data(), s.size() + 1); };
  for (const cpp::MacroDef* d : defs) {
    add(d->name);
    for (const std::string& p : d->params) add(p);
    add(d->body);
    add(d->path);
  }
  uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return std::to_string(h);
}

Result<std::string> ReadSource(const source::SourceFile& f, const Options& options) {
  return options.read ? options.read(f, options.max_file_size)
                      : source::ReadFile(f.absolute, options.max_file_size);
}

}  // namespace

struct ParsedFiles::Impl {
  std::vector<std::shared_ptr<const python::FileResult>> results;
  std::vector<cpp::FileResult> native;
  std::vector<rust::FileResult> rusts;
};

ParsedFiles::ParsedFiles() : impl_(std::make_unique<Impl>()) {}
ParsedFiles::~ParsedFiles() = default;
ParsedFiles::ParsedFiles(ParsedFiles&&) noexcept = default;
ParsedFiles& ParsedFiles::operator=(ParsedFiles&&) noexcept = default;

Extraction ExtractFiles(const std::vector<source::SourceFile>& files, const Options& options) {
  return LinkFiles(ParseFiles(files, options), files, options);
}

ParsedFiles ParseFiles(const std::vector<source::SourceFile>& files, const Options& options) {
  int jobs = options.jobs > 0 ? options.jobs
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(
      std::min<size_t>(static_cast<size_t>(jobs), std::max<size_t>(1, files.size())));
  auto read = [&](const source::SourceFile& f) { return ReadSource(f, options); };
  FileCache::Impl* cache = options.cache != nullptr ? &options.cache->impl() : nullptr;
  auto cached = [&](const source::SourceFile& f) { return cache != nullptr && !f.blob.empty(); };
  python::DefinitionFactsMemo* facts_memo =
      cache != nullptr ? cache->MemoFor(cache->definition_memo, options.later_runs) : nullptr;
  python::DefinitionSitesMemo* sites_memo =
      cache != nullptr ? cache->MemoFor(cache->definition_sites_memo, options.later_runs) : nullptr;

  // C/C++ files first, read once and kept: their sink macros are needed
  // before any file is extracted (a header's #define is used in the files
  // that include it). Peak memory is the size of the C/C++ sources.
  std::vector<std::optional<Result<std::string>>> native_bytes(files.size());
  std::vector<std::vector<cpp::MacroDef>> defined(files.size());
  std::atomic<size_t> next{0};
  OnThreads(jobs, [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      if (!cpp::IsCppSourcePath(files[i].path)) continue;
      if (cached(files[i]) && cache->Find(cache->macros, CacheKey(files[i]), defined[i])) continue;
      native_bytes[i] = read(files[i]);
      if (!*native_bytes[i]) continue;
      cpp::CollectMacros(files[i].path, **native_bytes[i], defined[i]);
      if (cached(files[i])) cache->Put(cache->macros, CacheKey(files[i]), defined[i]);
    }
  });
  std::vector<cpp::MacroDef> all_defined;
  for (std::vector<cpp::MacroDef>& defs : defined) {
    for (cpp::MacroDef& d : defs) all_defined.push_back(std::move(d));
  }
  cpp::MacroTable macros = cpp::SinkMacros(std::move(all_defined));
  std::string macro_digest = cache != nullptr ? MacroDigest(macros) : "";
  ParsedFiles parsed;
  std::vector<std::shared_ptr<const python::FileResult>>& results = parsed.impl().results;
  std::vector<cpp::FileResult>& native = parsed.impl().native;
  std::vector<rust::FileResult>& rusts = parsed.impl().rusts;
  results.resize(files.size());
  native.resize(files.size());
  rusts.resize(files.size());
  // Largest files first: a large file picked up last kept one core busy
  // while the others had nothing left (longest processing time first).
  // Results stay at their file's index, so the order changes nothing else.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return files[a].size > files[b].size; });
  next = 0;
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  OnThreads(jobs, [&] {
    ParserPtr parser = NewPythonParser(options.parse_timeout_micros);
    ParserPtr native_parser(ts_parser_new());
    ts_parser_set_timeout_micros(native_parser.get(), options.parse_timeout_micros);
    ParserPtr rust_parser(ts_parser_new());
    ts_parser_set_timeout_micros(rust_parser.get(), options.parse_timeout_micros);
    for (size_t k = next++; k < files.size(); k = next++) {
      size_t i = order[k];
      const source::SourceFile& f = files[i];
      bool is_native = cpp::IsCppSourcePath(f.path);
      // Rust files link to nothing else: their results join the others as they are.
      bool is_rust = rust::IsRustSourcePath(f.path);
      std::string key = cached(f) ? CacheKey(f) : "";
      if (!key.empty() && is_native) key += '\0' + macro_digest;
      bool hit = !key.empty() && (is_rust     ? cache->Find(cache->rust, key, rusts[i])
                                  : is_native ? cache->Find(cache->native, key, native[i])
                                              : cache->Find(cache->python, key, results[i]));
      if (!key.empty()) cache->Count(hit);
      // What the linker reads of a C/C++ or Rust file, or one not read.
      auto named = [&](std::vector<FileIssue> issues = {}) {
        auto r = std::make_shared<python::FileResult>();
        r->path = f.path;
        r->issues = std::move(issues);
        return r;
      };
      if (hit) {
        if (is_native || is_rust) results[i] = named();
        native_bytes[i].reset();
      } else {
        Result<std::string> bytes =
            native_bytes[i].has_value() ? std::move(*native_bytes[i]) : read(f);
        native_bytes[i].reset();
        if (!bytes) {
          bool too_large = bytes.error().code == ErrorCode::kInvalidArgument;
          results[i] = named({FileIssue{f.path, too_large ? "too-large" : "unreadable",
                                        bytes.error().message, true}});
        } else if (size_t nul = bytes->find('\0'); nul != std::string::npos) {
          // Not source text: CPython refuses such a file, git calls it
          // binary, and a catalog's text never holds a NUL (PostgreSQL
          // refuses one; SQLite would keep it), so both backends skip it.
          results[i] = named(
              {FileIssue{f.path, "nul-byte", "a NUL byte at offset " + std::to_string(nul), true}});
        } else if (is_rust) {
          results[i] = named();
          rusts[i] = rust::ExtractRustBytes(rust_parser.get(), f.path, std::move(*bytes));
          if (!key.empty()) cache->Put(cache->rust, key, rusts[i]);
        } else if (is_native) {
          results[i] = named();
          native[i] = cpp::ExtractCppBytes(native_parser.get(), f.path, std::move(*bytes), macros);
          if (!key.empty()) cache->Put(cache->native, key, native[i]);
        } else {
          // The link reads a file again for the excerpts of the sites it
          // makes at calls into sinks: it finds this copy instead.
          std::shared_ptr<const std::string> text;
          if (!key.empty()) text = std::make_shared<const std::string>(*bytes);
          ParsedText last;
          if (!key.empty()) last = cache->TakeTree(f.path);
          results[i] = std::make_shared<const python::FileResult>(
              ExtractOne(parser.get(), f.path, std::move(*bytes), facts_memo, sites_memo,
                         key.empty() ? nullptr : &last));
          if (!key.empty() && options.later_runs && last.tree) {
            cache->KeepTree(f.path, std::move(last));
          }
          if (!key.empty()) {
            cache->Put(cache->python, key, results[i]);
            if (!results[i]->calls.empty()) {
              cache->Put(cache->texts, key, text, &FileCache::Impl::link_run);
            }
          }
        }
      }
      size_t n = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        options.progress(n, files.size());
      }
    }
  });
  if (cache != nullptr) cache->EndRun();
  return parsed;
}

Extraction LinkFiles(ParsedFiles parsed, const std::vector<source::SourceFile>& files,
                     const Options& options) {
  std::vector<std::shared_ptr<const python::FileResult>>& results = parsed.impl().results;
  std::vector<cpp::FileResult>& native = parsed.impl().native;
  std::vector<rust::FileResult>& rusts = parsed.impl().rusts;
  Extraction out;
  for (const source::SourceFile& f : files) {
    out.bytes_scanned += static_cast<int64_t>(f.size);
  }
  out.files_scanned = static_cast<int64_t>(files.size());
  cpp::LinkHelpers(native);  // C helpers that raise with their caller's text
  rust::LinkHelpers(rusts);  // and Rust's
  std::vector<Site> native_sites;
  for (cpp::FileResult& r : native) {
    for (Site& s : r.sites) native_sites.push_back(std::move(s));
    for (NonSite& s : r.non_sites) out.non_sites.push_back(std::move(s));
    for (FileIssue& i : r.issues) out.issues.push_back(std::move(i));
  }
  // C raising a Python class of the library by name (numpy's
  // _UFuncNoLoopError): the class's __str__ says what the user reads.
  std::vector<python::NativeFile> native_files;
  for (size_t i = 0; i < native.size(); ++i) {
    if (!native[i].facts.functions.empty())
      native_files.push_back({results[i]->path, &native[i].facts});
  }
  std::vector<const python::FileResult*> linked;
  linked.reserve(results.size());
  for (const auto& r : results) linked.push_back(r.get());
  python::LinkPython(linked, out, &native_sites, &native_files);
  for (Site& s : native_sites) out.sites.push_back(std::move(s));
  for (rust::FileResult& r : rusts) {
    for (Site& s : r.sites) out.sites.push_back(std::move(s));
    for (NonSite& s : r.non_sites) out.non_sites.push_back(std::move(s));
    for (FileIssue& i : r.issues) out.issues.push_back(std::move(i));
    for (ExceptionClass& c : r.classes) out.classes.push_back(std::move(c));
  }
  std::map<std::string, const source::SourceFile*> by_path;
  for (const source::SourceFile& f : files) by_path.emplace(f.path, &f);
  FileCache::Impl* cache = options.cache != nullptr ? &options.cache->impl() : nullptr;
  FillMissingExcerpts(out, [&](const std::string& path) -> std::shared_ptr<const std::string> {
    auto it = by_path.find(path);
    if (it == by_path.end()) return nullptr;
    const source::SourceFile& f = *it->second;
    std::shared_ptr<const std::string> text;
    bool cached = cache != nullptr && !f.blob.empty();
    if (cached && cache->Find(cache->texts, CacheKey(f), text, &FileCache::Impl::link_run)) {
      return text;
    }
    Result<std::string> bytes = ReadSource(f, options);
    if (!bytes) return nullptr;
    text = std::make_shared<const std::string>(std::move(*bytes));
    if (cached) cache->Put(cache->texts, CacheKey(f), text, &FileCache::Impl::link_run);
    return text;
  });
  if (cache != nullptr) cache->EndLink();
  Finish(out);
  return out;
}

namespace {

// One in-memory file's extraction from a front end's result.
template <typename FileResult>
Extraction OneFile(std::string_view text, FileResult& r) {
  Extraction out;
  out.files_scanned = 1;
  out.bytes_scanned = static_cast<int64_t>(text.size());
  out.sites = std::move(r.sites);
  out.non_sites = std::move(r.non_sites);
  out.issues = std::move(r.issues);
  Finish(out);
  return out;
}

}  // namespace

Extraction ExtractCppSource(std::string_view path, std::string_view text,
                            uint64_t parse_timeout_micros) {
  std::vector<cpp::MacroDef> defs;
  cpp::CollectMacros(path, text, defs);
  cpp::MacroTable macros = cpp::SinkMacros(std::move(defs));
  ParserPtr parser(ts_parser_new());
  ts_parser_set_timeout_micros(parser.get(), parse_timeout_micros);
  std::vector<cpp::FileResult> one(1);
  one[0] = cpp::ExtractCppBytes(parser.get(), path, std::string(text), macros);
  cpp::LinkHelpers(one);
  return OneFile(text, one[0]);
}

Extraction ExtractRustSource(std::string_view path, std::string_view text,
                             uint64_t parse_timeout_micros) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_timeout_micros(parser.get(), parse_timeout_micros);
  std::vector<rust::FileResult> one(1);
  one[0] = rust::ExtractRustBytes(parser.get(), path, std::string(text));
  rust::LinkHelpers(one);
  rust::FileResult& r = one[0];
  Extraction out = OneFile(text, r);
  out.classes = std::move(r.classes);
  return out;
}

Extraction ExtractPythonSource(std::string_view path, std::string_view text,
                               uint64_t parse_timeout_micros) {
  ParserPtr parser = NewPythonParser(parse_timeout_micros);
  python::FileResult result = ExtractOne(parser.get(), path, std::string(text));
  std::vector<const python::FileResult*> results{&result};
  Extraction out;
  out.files_scanned = 1;
  out.bytes_scanned = static_cast<int64_t>(text.size());
  python::LinkPython(results, out);
  auto shared = std::make_shared<const std::string>(text);
  FillMissingExcerpts(out, [&](const std::string&) { return shared; });
  Finish(out);
  return out;
}

}  // namespace errdex::extract
