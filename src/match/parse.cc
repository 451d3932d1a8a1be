#include "match/parse.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <optional>

#include "core/native_errors.h"
#include "core/text.h"
#include "match/parse_rust.h"
#include "match/pattern.h"

namespace errdex::match {
namespace {

constexpr size_t kMaxErrors = 64;

// A line that ends a message: what comes next belongs to another error.
constexpr std::string_view kCauseLine =
    "The above exception was the direct cause of the following exception:";
constexpr std::string_view kContextLine =
    "During handling of the above exception, another exception occurred:";
// What the interpreter prints above an error it reports and then ignores
// ("Exception ignored in: <coroutine ...>", "Exception ignored while ...").
constexpr std::string_view kIgnoredLine = "Exception ignored ";
// A traceback's header; output written without a final newline (a prompt)
// can put it in the middle of a line.
constexpr std::string_view kTracebackHeader = "Traceback (most recent call last):";
// Border lines of an exception group, replaced by this marker.
constexpr std::string_view kBorder = "\x01";

constexpr std::array<std::string_view, 8> kBuiltinNames = {
    "StopIteration", "StopAsyncIteration", "KeyboardInterrupt", "SystemExit",
    "GeneratorExit", "Exception",          "BaseException",     "BaseExceptionGroup",
};

struct Patterns {
  RE2 traceback{
      R"re(^(\s*)(?:\+ )?(?:Exception Group )?Traceback \(most recent call last\):\s*$)re"};
  RE2 frame{R"re(^\s*File "(.*)", line (\d+)(?:, in (.*?))?\s*$)re"};
  RE2 exception_line{R"re(^([A-Za-z_][\w.]*(?:<[\w.<>]+>)?[\w.]*)(?::(?: (.*))?)?\s*$)re"};
  RE2 named_exception{R"re(^\s*([A-Za-z_][\w.]*|[A-Za-z_][\w]*(?:::[\w]+)+): (.*)$)re"};
  RE2 ipython_header{R"re(^(\S+)\s+Traceback \(most recent call last\)\s*$)re"};
  RE2 ipython_frame{R"re(^File (.+?):(\d+)(?:, in ([^\s(]+))?)re"};
  RE2 ipython_cell{R"re(^(?:Cell In\s*\[(\d+)\]|Input In \[(\d+)\]), line (\d+))re"};
  RE2 ipython_old_frame{R"re(^(\S+\.py) in (\S+?)\()re"};
  RE2 ipython_marker{R"re(^-+> ?(\d+))re"};
  RE2 pytest_frame{R"re(^(\S+\.py):(\d+): in (\S+)\s*$)re"};
  RE2 pytest_raise{R"re(^(\S+\.py):(\d+): ([A-Za-z_][\w.]*)\s*$)re"};
  RE2 pytest_summary{R"re(^(?:FAILED|ERROR) \S+(?: - |\s+-\s+)([A-Za-z_][\w.]*): ?(.*)$)re"};
  RE2 terminate{R"re(terminate called after throwing an instance of '([^']+)')re"};
  RE2 what{R"re(^\s*what\(\):\s*(.*)$)re"};
  RE2 glog{R"re(^([FEW])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ ([^:\s\]]+):(\d+)\] (.*)$)re"};
  RE2 warning{R"re(^(\S.*?):(\d+): ([A-Z]\w*Warning): (.*)$)re"};
  RE2 border{R"re(^\s*\+[-+]*(?: \.*\d+\.* )?-{4,}\s*$|^\s*\+-+\+?\s*$)re"};
};

const Patterns& P() {
  static const Patterns patterns;
  return patterns;
}

bool LooksLikeExceptionName(std::string_view name) {
  std::string short_name = ShortExceptionName(name);
  if (short_name.empty()) return false;
  if (std::find(kBuiltinNames.begin(), kBuiltinNames.end(), short_name) != kBuiltinNames.end()) {
    return true;
  }
  for (std::string_view suffix : {"Error", "Exception", "Warning", "Exit", "Interrupt", "Failure",
                                  "Fault", "Err", "error", "exception"}) {
    if (EndsWith(short_name, suffix)) return true;
  }
  // Python prints a library's exception with its module: `module.path.Class`
  // (`networkx.exception.NodeNotFound`, `mpmath.libmp.libmpf.ComplexResult`).
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || !std::isupper(static_cast<unsigned char>(short_name[0])) ||
      std::none_of(short_name.begin(), short_name.end(),
                   [](char c) { return std::islower(static_cast<unsigned char>(c)); })) {
    return false;
  }
  std::string_view module = name.substr(0, dot);
  return !module.empty() && module.front() != '.' && module.back() != '.' &&
         std::all_of(module.begin(), module.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.';
         });
}

int Indent(std::string_view line) {
  int n = 0;
  while (static_cast<size_t>(n) < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

bool IsBlank(std::string_view line) { return Trim(line).empty(); }

// Lines that end the message of an error: another error begins.
bool EndsMessage(std::string_view line) {
  std::string_view t = Trim(line);
  return t == kCauseLine || t == kContextLine || line == kBorder || StartsWith(t, kIgnoredLine) ||
         RE2::FullMatch(line, P().traceback) || RE2::PartialMatch(line, P().terminate);
}

class Parser {
 public:
  explicit Parser(std::string_view text) {
    text_ = StripAnsi(text);
    text_.erase(std::remove(text_.begin(), text_.end(), '\r'), text_.end());
    SplitLines();
  }

  std::vector<ParsedError> Run() {
    for (size_t i = 0; i < lines_.size();) i = Step(i);
    if (errors_.empty()) Fallback();
    return Finish();
  }

 private:
  void SplitLines() {
    bool group = text_.find("Exception Group Traceback") != std::string::npos ||
                 text_.find("ExceptionGroup:") != std::string::npos;
    std::string_view all = text_;
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t nl = all.find('\n', pos);
      std::string_view line = all.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      if (size_t at = HeaderInside(line); at != std::string_view::npos) {
        lines_.push_back(Line{std::string(line.substr(0, at))});
        line.remove_prefix(at);
      }
      Line l;
      l.text = std::string(line);
      // pytest's "E   " gutter marks the lines of the error it shows.
      // The gutter is followed by the indentation of the source shown above.
      if (line.size() >= 1 && line[0] == 'E' && (line.size() == 1 || line[1] == ' ')) {
        l.text = std::string(Trim(line.substr(1)));
        l.pytest = true;
      }
      if (group) StripGroupGutter(l.text);
      lines_.push_back(std::move(l));
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
  }

  // Where a traceback header starts after other text on the line
  // ("Password: Traceback (most recent call last):"), or npos. Not after
  // indentation, an exception group's gutter or "Exception Group ".
  static size_t HeaderInside(std::string_view line) {
    size_t at = line.find(kTracebackHeader);
    if (at == std::string_view::npos || at == 0) return std::string_view::npos;
    std::string_view before = Trim(line.substr(0, at));
    if (before.empty() || EndsWith(before, "Exception Group") ||
        before.find_first_not_of("+| ") == std::string_view::npos) {
      return std::string_view::npos;
    }
    return at;
  }

  // "  | ValueError: x" inside an exception group: drop the "|" gutters;
  // border lines become a marker that separates the sub-exceptions.
  void StripGroupGutter(std::string& line) {
    if (RE2::FullMatch(line, P().border)) {
      line = std::string(kBorder);
      return;
    }
    size_t i = 0;
    size_t keep = 0;
    while (true) {
      size_t j = i;
      while (j < line.size() && line[j] == ' ') ++j;
      if (j < line.size() &&
          (line[j] == '|' || (line[j] == '+' && j + 1 < line.size() && line[j + 1] == ' '))) {
        i = j + 1;
        if (i < line.size() && line[i] == ' ') ++i;
        keep = i;
        continue;
      }
      break;
    }
    if (keep > 0) line = line.substr(keep);
  }

  // Parses what starts at line i; returns the next line to look at.
  size_t Step(size_t i) {
    const std::string& line = lines_[i].text;
    // Inside an exception group, a member that was never raised has no
    // traceback: its "Type: message" follows a border line directly.
    if (line == kBorder) {
      std::string name, first;
      if (i + 1 < lines_.size() &&
          RE2::FullMatch(lines_[i + 1].text, P().exception_line, &name, &first) &&
          LooksLikeExceptionName(name)) {
        ParsedError e;
        e.source = "traceback";
        e.exception = name;
        return Message(i + 1, 0, first, std::move(e));
      }
      return i + 1;
    }
    if (StartsWith(Trim(line), kIgnoredLine)) {
      ignoring_ = true;
      return i + 1;
    }
    std::string indent;
    if (RE2::FullMatch(line, P().traceback, &indent)) return PythonTraceback(i, indent.size());
    std::string name;
    if (RE2::FullMatch(line, P().ipython_header, &name) && LooksLikeExceptionName(name)) {
      return IPythonTraceback(i);
    }
    if (RE2::PartialMatch(line, P().terminate, &name)) return Terminate(i, name);
    std::string path, number, message, severity;
    if (RE2::FullMatch(line, P().glog, &severity, &path, &number, &message)) {
      if (severity == "F") {
        ParsedError e;
        e.source = "glog";
        e.exception = "";
        e.message = message;
        e.frames.push_back(Frame{path, ToInt(number), ""});
        Add(std::move(e));
      }
      return i + 1;
    }
    std::string category;
    if (RE2::FullMatch(line, P().warning, &path, &number, &category, &message)) {
      ParsedError e;
      e.source = "warning";
      e.exception = category;
      e.message = message;
      e.frames.push_back(Frame{path, ToInt(number), ""});
      Add(std::move(e));
      return i + 1;
    }
    std::string function;
    if (RE2::FullMatch(line, P().pytest_frame, &path, &number, &function)) {
      pytest_frames_.push_back(Frame{path, ToInt(number), function});
      return i + 1;
    }
    if (lines_[i].pytest) return PytestError(i);
    if (RE2::FullMatch(line, P().pytest_summary, &name, &message)) {
      PytestSummary(name, message);
      return i + 1;
    }
    return i + 1;
  }

  size_t PythonTraceback(size_t i, size_t base) {
    ParsedError e;
    e.source = "traceback";
    e.ignored = std::exchange(ignoring_, false);
    size_t j = i + 1;
    for (; j < lines_.size(); ++j) {
      const std::string& l = lines_[j].text;
      std::string path, number, function;
      if (RE2::FullMatch(l, P().frame, &path, &number, &function)) {
        e.frames.push_back(Frame{path, ToInt(number), function});
        continue;
      }
      if (l == kBorder || RE2::FullMatch(l, P().traceback)) break;
      // Source lines, carets, "...<2 lines>...", "[Previous line repeated ...]".
      if (IsBlank(l) || static_cast<size_t>(Indent(l)) > base) continue;
      break;
    }
    if (j >= lines_.size()) return j;
    std::string line(lines_[j].text.substr(std::min(base, lines_[j].text.size())));
    std::string name, first;
    if (!RE2::FullMatch(line, P().exception_line, &name, &first)) return j;
    e.exception = name;
    return Message(j, base, first, std::move(e));
  }

  // The message starting with `first` at line j and continuing below.
  size_t Message(size_t j, size_t base, const std::string& first, ParsedError e) {
    std::string message = first;
    size_t k = j + 1;
    for (; k < lines_.size(); ++k) {
      const std::string& l = lines_[k].text;
      if (EndsMessage(l)) break;
      message.push_back('\n');
      message.append(l.substr(std::min(base, static_cast<size_t>(Indent(l)))));
    }
    e.message = std::move(message);
    Add(std::move(e));
    return k;
  }

  size_t IPythonTraceback(size_t i) {
    ParsedError e;
    e.source = "ipython";
    size_t j = i + 1;
    Frame* last = nullptr;
    for (; j < lines_.size(); ++j) {
      const std::string& l = lines_[j].text;
      std::string path, number, function, cell, input;
      if (RE2::PartialMatch(l, P().ipython_frame, &path, &number, &function)) {
        e.frames.push_back(Frame{path, ToInt(number), function});
        last = &e.frames.back();
        continue;
      }
      if (RE2::PartialMatch(l, P().ipython_cell, &cell, &input, &number)) {
        e.frames.push_back(Frame{"<cell " + cell + input + ">", ToInt(number), ""});
        last = &e.frames.back();
        continue;
      }
      if (RE2::PartialMatch(l, P().ipython_old_frame, &path, &function)) {
        e.frames.push_back(Frame{path, 0, function});
        last = &e.frames.back();
        continue;
      }
      if (RE2::PartialMatch(l, P().ipython_marker, &number)) {
        if (last != nullptr && last->line == 0) last->line = ToInt(number);
        continue;
      }
      if (IsBlank(l) || Indent(l) > 0 || StartsWith(l, "---") || StartsWith(l, "...")) continue;
      std::string name, first;
      if (RE2::FullMatch(l, P().exception_line, &name, &first) && LooksLikeExceptionName(name)) {
        e.exception = name;
        return Message(j, 0, first, std::move(e));
      }
    }
    return j;
  }

  size_t Terminate(size_t i, const std::string& type) {
    ParsedError e;
    e.source = "terminate";
    e.exception = type;
    size_t j = i + 1;
    std::string first;
    if (j < lines_.size() && RE2::FullMatch(lines_[j].text, P().what, &first)) {
      std::string message = first;
      size_t k = j + 1;
      for (; k < lines_.size(); ++k) {
        std::string_view l = lines_[k].text;
        if (IsBlank(l) || StartsWith(Trim(l), "Aborted") || StartsWith(l, "***") ||
            StartsWith(l, "Fatal Python error") || EndsMessage(l)) {
          break;
        }
        message.push_back('\n');
        message.append(l);
      }
      e.message = std::move(message);
      j = k;
    }
    Add(std::move(e));
    return j;
  }

  size_t PytestError(size_t i) {
    std::string name, first;
    const std::string& l = lines_[i].text;
    if (!RE2::FullMatch(l, P().exception_line, &name, &first) || !LooksLikeExceptionName(name)) {
      return i + 1;
    }
    ParsedError e;
    e.source = "pytest";
    e.exception = name;
    std::string message = first;
    size_t k = i + 1;
    for (; k < lines_.size() && lines_[k].pytest; ++k) {
      message.push_back('\n');
      message.append(lines_[k].text);
    }
    e.message = std::move(message);
    e.frames = std::move(pytest_frames_);
    pytest_frames_.clear();
    // "path.py:12: ValueError" after the E block is where it was raised.
    for (size_t m = k; m < lines_.size() && m < k + 3; ++m) {
      std::string path, number, raised;
      if (RE2::FullMatch(lines_[m].text, P().pytest_raise, &path, &number, &raised)) {
        e.frames.push_back(Frame{path, ToInt(number), ""});
        k = m + 1;
        break;
      }
    }
    Add(std::move(e));
    return k;
  }

  // "FAILED t.py::test - ValueError: msg" repeats an error shown above, with
  // the message cut to the terminal's width; a new error only if it does not.
  void PytestSummary(const std::string& name, const std::string& message) {
    std::string shown = NormalizeText(message);
    if (EndsWith(shown, "...")) shown.resize(shown.size() - 3);
    for (const ParsedError& e : errors_) {
      if (ShortExceptionName(e.exception) == ShortExceptionName(name) &&
          StartsWith(NormalizeText(e.message), shown)) {
        return;
      }
    }
    ParsedError e;
    e.source = "pytest";
    e.exception = name;
    e.message = message;
    Add(std::move(e));
  }

  // No structure found: lines that read "SomeError: message", or else the
  // whole text as one message of unknown type.
  void Fallback() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      std::string name, first;
      if (!RE2::FullMatch(lines_[i].text, P().named_exception, &name, &first) ||
          !LooksLikeExceptionName(name)) {
        continue;
      }
      ParsedError e;
      e.source = "message";
      e.exception = name;
      std::string message = first;
      size_t k = i + 1;
      // "... The error was:" announces what follows, blank lines between
      // or not (werkzeug's "Original exception:\n\nModuleNotFoundError:
      // ..."): an exception's text quoted inside this message, not an
      // error of its own.
      bool announced = EndsWith(Trim(first), ":");
      for (; k < lines_.size(); ++k) {
        std::string n2, f2;
        const std::string& l = lines_[k].text;
        if (!announced && RE2::FullMatch(l, P().named_exception, &n2, &f2) &&
            LooksLikeExceptionName(n2)) {
          break;
        }
        if (!IsBlank(l)) announced = EndsWith(Trim(l), ":");
        message.push_back('\n');
        message.append(l);
      }
      e.message = std::move(message);
      Add(std::move(e));
      i = k - 1;
    }
    if (!errors_.empty()) return;
    ParsedError e;
    e.source = "message";
    std::string all;
    for (const Line& l : lines_) {
      if (!all.empty()) all.push_back('\n');
      all.append(l.text);
    }
    e.message = std::string(Trim(all));
    std::string name;
    // "ValueError" alone is an exception without a message.
    // A lone name that reads as a type ("_queue.Empty") is an exception
    // raised without a message.
    bool type_like = LooksLikeExceptionName(e.message) ||
                     (e.message.find('.') != std::string::npos &&
                      std::isupper(static_cast<unsigned char>(ShortExceptionName(e.message)[0])));
    if (e.message.find_first_of(" \n:") == std::string::npos && !e.message.empty() &&
        RE2::FullMatch(e.message, P().exception_line) && type_like) {
      e.exception = std::move(e.message);
      e.message.clear();
    }
    errors_.push_back(std::move(e));
  }

  void Add(ParsedError e) {
    if (errors_.size() >= kMaxErrors) errors_.erase(errors_.begin());
    errors_.push_back(std::move(e));
  }

  static int ToInt(const std::string& s) {
    if (s.empty() || s.size() > 9) return 0;
    return std::stoi(s);
  }

  // Message clean-up, unwrapping and de-duplication.
  std::vector<ParsedError> Finish() {
    std::stable_partition(errors_.begin(), errors_.end(),
                          [](const ParsedError& e) { return e.ignored; });
    std::vector<ParsedError> out;
    for (ParsedError& e : errors_) {
      CleanMessage(e);
      // jax re-raises the original with its full stack as UnfilteredStackTrace
      // (FilteredStackTrace, JaxStackTraceBeforeTransformation in other
      // versions), whose message is "TypeError: ...": the same error.
      std::string wrapper = ShortExceptionName(e.exception);
      if (wrapper == "UnfilteredStackTrace" || wrapper == "FilteredStackTrace" ||
          wrapper == "JaxStackTraceBeforeTransformation") {
        std::string name, rest;
        if (RE2::FullMatch(e.message, P().named_exception, &name, &rest)) {
          e.exception = name;
          e.message = rest;
          CleanMessage(e);
        }
      }
      // The same error shown twice (pytest's E block and its traceback) is
      // one; a chained re-raise keeping the text under another class of the
      // same name (`json.decoder.JSONDecodeError` wrapped in
      // `requests.exceptions.JSONDecodeError`) is two.
      bool merged = false;
      std::string message = NormalizeText(e.message);
      for (ParsedError& o : out) {
        if (!SameType(o.exception, e.exception) || o.ignored != e.ignored ||
            NormalizeText(o.message) != message) {
          continue;
        }
        if (e.frames.size() > o.frames.size()) o.frames = std::move(e.frames);
        merged = true;
        break;
      }
      if (!merged) out.push_back(std::move(e));
    }
    return out;
  }

  // Equal short names, and equal modules where both print one.
  static bool SameType(std::string_view a, std::string_view b) {
    if (ShortExceptionName(a) != ShortExceptionName(b)) return false;
    bool qa = a.find('.') != std::string_view::npos, qb = b.find('.') != std::string_view::npos;
    return !qa || !qb || Trim(a) == Trim(b);
  }

  static void CleanMessage(ParsedError& e) {
    std::string& m = e.message;
    // Notes jax and Python append below the message.
    for (std::string_view note :
         {"\n--------------------", "\nThe stack trace below excludes JAX-internal frames.",
          "\nFor simplicity, JAX has removed its internal frames"}) {
      size_t at = m.find(note);
      if (at != std::string::npos) m.resize(at);
    }
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ' || m.back() == '\t')) m.pop_back();
    for (std::string_view code : kStatusCodes) {
      if (m.size() > code.size() + 1 && StartsWith(m, code) && m[code.size()] == ':') {
        e.status = std::string(code);
        m.erase(0, code.size() + 1);
        if (!m.empty() && m.front() == ' ') m.erase(0, 1);
        break;
      }
    }
  }

  struct Line {
    std::string text;
    bool pytest = false;
  };
  std::string text_;
  std::vector<Line> lines_;
  std::vector<ParsedError> errors_;
  std::vector<Frame> pytest_frames_;
  bool ignoring_ = false;  // an "Exception ignored" line announced the next traceback
};

}  // namespace

Frame ResolveCythonFrame(const Frame& frame) {
  std::string_view path = frame.path;
  size_t slash = path.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t ext = base.rfind('.');
  if (ext == std::string_view::npos || ext == 0) return frame;
  std::string_view suffix = base.substr(ext);
  if (suffix != ".pyx" && suffix != ".pxd" && suffix != ".pxi") return frame;
  std::string_view stem = base.substr(0, ext);
  // The module is the last component equal to the file's stem that has a
  // function after it: numpy.random.mtrand.RandomState.choice.
  std::string_view function = frame.function;
  size_t module_end = std::string_view::npos;
  for (size_t at = 0; at < function.size();) {
    size_t dot = function.find('.', at);
    if (dot == std::string_view::npos) break;
    if (function.substr(at, dot - at) == stem) module_end = dot;
    at = dot + 1;
  }
  if (module_end == std::string_view::npos) return frame;
  size_t module_start = module_end - stem.size();
  Frame out = frame;
  out.function = std::string(function.substr(module_end + 1));
  if (base.size() == path.size()) {  // a bare file name: the package gives the directories
    std::string dirs(function.substr(0, module_start));
    std::replace(dirs.begin(), dirs.end(), '.', '/');
    out.path = dirs + std::string(base);
  }
  return out;
}

std::vector<ParsedError> ParseRuntimeText(std::string_view text) {
  if (std::optional<std::vector<ParsedError>> panics = ParseRustPanics(text)) return *panics;
  std::vector<ParsedError> errors = Parser(text).Run();
  ExpandRustReports(errors);
  // Notes printed by libraries that cut their own frames out of a traceback.
  static constexpr std::string_view kHiddenFrameNotes[] = {
      "has removed its internal frames",  // jax
      "excludes JAX-internal frames",     // jax before 0.4
      "UnfilteredStackTrace",             // jax's chained unfiltered copy
  };
  for (std::string_view note : kHiddenFrameNotes) {
    if (text.find(note) == std::string_view::npos) continue;
    for (ParsedError& e : errors) e.frames_hidden = true;
    break;
  }
  return errors;
}

std::string ShortExceptionName(std::string_view printed) {
  std::string_view s = Trim(printed);
  size_t colons = s.rfind("::");
  if (colons != std::string_view::npos) s = s.substr(colons + 2);
  size_t dot = s.rfind('.');
  if (dot != std::string_view::npos) s = s.substr(dot + 1);
  return std::string(s);
}

}  // namespace errdex::match
