#include "extract/cpp/cpp_extractor.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include "core/guards.h"
#include "core/native_errors.h"
#include "core/text.h"
#include "extract/cpp/cpp_flow.h"
#include "extract/cpp/cpp_format.h"
#include "extract/cpp/cpp_guards.h"
#include "extract/cpp/cpp_syntax.h"
#include "extract/flow/format.h"
#include "extract/flow/sinks.h"
#include "extract/source_lines.h"
#include "extract/ts_util.h"

namespace errdex::extract::cpp {

using flow::Arg;

namespace {

constexpr int kMaxEvalDepth = 24;
constexpr int kMaxMacroDepth = 3;
constexpr int kMaxNesting = 4096;  // Nesting
constexpr int kMaxExpansionsPerFile = 4000;
constexpr size_t kMaxExpansionBytes = 64 * 1024;
// An expansion is a statement or two; one that takes longer than this to
// parse is dropped, not waited on.
constexpr uint64_t kExpansionParseMicros = 1'000'000;
constexpr int kMaxStreamOperands = 256;
// Appends followed back from a use (`m += ...` line after line); each is
// evaluated once per look-up.
constexpr int kMaxAppendChain = 512;
// Call graph facts per file: generated files hold hundreds of thousands of
// calls, none of which an entry point needs beyond this many.
constexpr size_t kMaxNativeCallsPerFile = 50000;
constexpr int kMaxEvalStepsPerFile = 200000;
constexpr int64_t kMaxFlowStatementsPerFile = 4'000'000;
constexpr size_t kMaxPieces = 128;
constexpr size_t kMaxTemplateBytes = 16384;
constexpr size_t kMaxAlternatives = 16;  // messages one sink raises (branches, `?:`)
constexpr size_t kMaxHelperCallsPerFile = 20000;
constexpr int kMaxHelperDepth = 3;  // helpers calling helpers with their parameter
constexpr std::string_view kUnsetName = "\x01unset";  // see Extractor::Unset

std::string_view LastComponent(std::string_view name) {
  size_t colon = name.rfind("::");
  return colon == std::string_view::npos ? name : name.substr(colon + 2);
}

std::string_view ScopeOf(std::string_view name) {
  size_t colon = name.rfind("::");
  if (colon == std::string_view::npos) return {};
  std::string_view scope = name.substr(0, colon);
  while (!scope.empty() && scope.front() == ':') scope.remove_prefix(1);
  return scope;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// Kinds of error sinks, by the name they are called by.
enum class Sink {
  kNone,
  kPyErrSetString,  // (type, msg)
  kPyErrFormat,     // (type, fmt, ...)
  kPyErrNoMessage,  // PyErr_SetNone(type), PyErr_NoMemory()...
  kPyErrObject,     // PyErr_SetObject(type, obj): built at run time
  kPyFixedMessage,  // PySequence_Fast(obj, msg): the type fixed by the name
  kPyWarn,          // PyErr_WarnEx(category, msg, level)
  kPyWarnFormat,    // PyErr_WarnFormat(category, level, fmt, ...)
  kNumpyDeprecate,  // DEPRECATE(msg), DEPRECATE_FUTUREWARNING(msg)
  kNbRaise,         // nb::raise(fmt, ...), nb::raise_type_error(fmt, ...)
  kNbRaiseFrom,     // nb::raise_from(e, type, fmt, ...)
  kPybindFail,      // pybind11_fail(msg)
  kAbslError,       // absl::InvalidArgumentError(msg)
  kStatusHelper,    // xla::InvalidArgument(fmt, ...) / tsl::errors::InvalidArgument(...)
  kStatusStrCat,    // xla::InvalidArgumentStrCat(...)
  kStatusCtor,      // absl::Status(absl::StatusCode::kX, msg)
  kCheck,           // CHECK(cond) << ...
  kCheckOp,         // CHECK_EQ(a, b) << ...
  kCheckOk,         // CHECK_OK(status)
  kTfCheckOk,       // TF_CHECK_OK(status)
  kCheckNotNull,    // CHECK_NOTNULL(x)
  kLogFatal,        // LOG(FATAL) << ...
  kRetCheck,        // TF_RET_CHECK(cond) << ...
  kUnreachable,     // llvm_unreachable(msg), report_fatal_error(msg)
  kTorchCheck,      // TORCH_CHECK(cond, ...) and its typed variants
  kTorchAssert,     // TORCH_INTERNAL_ASSERT(cond, ...)
  kTorchError,      // AT_ERROR(...)
  kTorchWarn,       // TORCH_WARN(...)
  kEmitError,       // emitError(loc, msg?) << ...
  kEmitOpError,     // op.emitOpError(msg?) << ...
  kEmitOptional,    // emitOptionalError(loc, args...)
};

struct SinkInfo {
  Sink sink = Sink::kNone;
  std::string exception;  // fixed by the name (status code, Python type)
  bool internal = false;
  std::string check_op;  // "==" for CHECK_EQ
};

const std::pair<std::string_view, std::string_view> kCheckOps[] = {
    {"EQ", "=="}, {"NE", "!="}, {"LT", "<"}, {"LE", "<="}, {"GT", ">"}, {"GE", ">="},
};

// The Python C-API's error sinks (and numpy's) by name: what they raise
// when the type is fixed by the name, and how they take the message.
struct CApiSink {
  std::string_view name;
  Sink sink;
  std::string_view exception;  // empty: the first argument names it
  bool internal = false;
};
constexpr CApiSink kCApiSinks[] = {
    {"PyErr_SetString", Sink::kPyErrSetString, ""},
    {"PyErr_Format", Sink::kPyErrFormat, ""},
    {"PyErr_FormatV", Sink::kPyErrFormat, ""},
    // numpy 2's PyErr_Format for code that may run without the GIL (the
    // string ufuncs): it takes the GIL and formats the same way.
    {"npy_gil_error", Sink::kPyErrFormat, ""},
    {"PyErr_SetNone", Sink::kPyErrNoMessage, ""},
    {"PyErr_SetObject", Sink::kPyErrObject, ""},
    {"PyErr_WarnEx", Sink::kPyWarn, ""},
    {"PyErr_WarnFormat", Sink::kPyWarnFormat, ""},
    {"PyErr_NoMemory", Sink::kPyErrNoMessage, "MemoryError"},
    {"PyErr_BadArgument", Sink::kPyErrNoMessage, "TypeError"},
    {"PyErr_BadInternalCall", Sink::kPyErrNoMessage, "SystemError", true},
    // PySequence_Fast(obj, msg): TypeError(msg) when obj is not iterable.
    {"PySequence_Fast", Sink::kPyFixedMessage, "TypeError"},
    {"DEPRECATE", Sink::kNumpyDeprecate, "DeprecationWarning"},
    {"DEPRECATE_FUTUREWARNING", Sink::kNumpyDeprecate, "FutureWarning"},
};

// Functions that build a string from their arguments, and how: data the
// evaluator reads, not a chain of name tests.
struct StringBuilder {
  enum class Op : uint8_t {
    kConcat,  // every argument's text in order
    kSame,    // the one argument's text (a conversion)
    kFormat,  // the first argument is a format the rest fill
  };
  std::string_view name;  // the last component of the callee
  Op op = Op::kSame;
  flow::Format format = flow::Format::kPrintf;
  std::string_view scope = {};  // when only one namespace's function of that name builds text
  int arity = -1;               // the exact argument count, -1 any (at least one)
  // `format` is too common a name: read only with a literal format.
  bool literal_format = false;
  // PyUnicode_Format(format, args), Python's `%`: the values are in one
  // object the call does not spell out, so every conversion is a value
  // named after it.
  bool opaque_args = false;
};

constexpr StringBuilder kStringBuilders[] = {
    {"StrCat", StringBuilder::Op::kConcat},
    {"str", StringBuilder::Op::kConcat, flow::Format::kPrintf, "c10"},
    {"Twine", StringBuilder::Op::kConcat},
    {"StrFormat", StringBuilder::Op::kFormat, flow::Format::kPrintf},
    {"StrPrintf", StringBuilder::Op::kFormat, flow::Format::kPrintf},
    {"Printf", StringBuilder::Op::kFormat, flow::Format::kPrintf},
    {"StringPrintf", StringBuilder::Op::kFormat, flow::Format::kPrintf},
    {"sprintf_string", StringBuilder::Op::kFormat, flow::Format::kPrintf},
    {"PyUnicode_FromFormat", StringBuilder::Op::kFormat, flow::Format::kPyPrintf},
    {"PyBytes_FromFormat", StringBuilder::Op::kFormat, flow::Format::kPyPrintf},
    {"PyUnicode_FromString", StringBuilder::Op::kSame, flow::Format::kPrintf, {}, 1},
    {"PyUnicode_Format", StringBuilder::Op::kFormat, flow::Format::kPercent, {}, 2, false, true},
    {"Substitute", StringBuilder::Op::kFormat, flow::Format::kSubstitute},
    {"format", StringBuilder::Op::kFormat, flow::Format::kBraces, {}, -1, true},
    {"formatv", StringBuilder::Op::kFormat, flow::Format::kBraces, {}, -1, true},
    {"string", StringBuilder::Op::kSame, flow::Format::kPrintf, {}, 1},
    {"string_view", StringBuilder::Op::kSame, flow::Format::kPrintf, {}, 1},
    {"StringRef", StringBuilder::Op::kSame, flow::Format::kPrintf, {}, 1},
};

const StringBuilder* FindStringBuilder(std::string_view callee, size_t arity) {
  std::string_view last = LastComponent(callee);
  for (const StringBuilder& b : kStringBuilders) {
    if (b.name != last || (!b.scope.empty() && ScopeOf(callee) != b.scope)) continue;
    if (b.arity >= 0 ? arity != static_cast<size_t>(b.arity)
                     : arity == 0 && b.op != StringBuilder::Op::kConcat) {
      continue;
    }
    return &b;
  }
  return nullptr;
}

// What calling `callee` (as written, scopes included) does; `member` for
// `x.f(...)`/`x->f(...)`.
SinkInfo ClassifyName(std::string_view callee, bool member) {
  SinkInfo info;
  std::string_view name = LastComponent(callee);
  std::string_view scope = ScopeOf(callee);
  if (member) {
    if (name == "emitError") info.sink = Sink::kEmitError;
    if (name == "emitOpError") info.sink = Sink::kEmitOpError;
    if (info.sink != Sink::kNone) info.exception = "MLIRError";
    return info;
  }
  for (const CApiSink& c : kCApiSinks) {
    if (name == c.name && scope.empty()) {
      info.sink = c.sink;
      info.exception = std::string(c.exception);
      info.internal = c.internal;
      return info;
    }
  }
  if (StartsWith(name, "PyErr_")) return info;
  bool binding = scope == "nb" || scope == "nanobind" || scope == "py" || scope == "pybind11";
  if (binding || scope.empty()) {
    if (name == "raise" && binding) {
      info.sink = Sink::kNbRaise;
      info.exception = "RuntimeError";
    } else if (name == "raise_type_error") {
      info.sink = Sink::kNbRaise;
      info.exception = "TypeError";
    } else if (name == "raise_from") {
      info.sink = Sink::kNbRaiseFrom;
    } else if (name == "pybind11_fail") {
      info.sink = Sink::kPybindFail;
      info.exception = "RuntimeError";
    }
    if (info.sink != Sink::kNone) return info;
  }
  // absl::InvalidArgumentError and the other canonical-code constructors.
  if (EndsWith(name, "Error") && name.size() > 5 &&
      (scope.empty() || scope == "absl" || scope == "tsl" || scope == "xla" ||
       scope == "tensorflow")) {
    std::string code = StatusCodeFromName(name.substr(0, name.size() - 5));
    if (!code.empty()) {
      info.sink = Sink::kAbslError;
      info.exception = code;
      return info;
    }
  }
  if (EndsWith(name, "StrCat") && name.size() > 6) {
    std::string code = StatusCodeFromName(name.substr(0, name.size() - 6));
    if (!code.empty()) {
      info.sink = Sink::kStatusStrCat;
      info.exception = code;
      return info;
    }
  }
  if (std::string code = StatusCodeFromName(name); !code.empty() && name[0] != 'k') {
    info.sink = Sink::kStatusHelper;
    info.exception = code;
    return info;
  }
  if (name == "Status" && (scope == "absl" || scope == "tsl" || scope == "xla" ||
                           scope == "tensorflow" || scope.empty())) {
    info.sink = Sink::kStatusCtor;
    return info;
  }
  if (name == "emitError") info.sink = Sink::kEmitError;
  if (name == "emitOpError") info.sink = Sink::kEmitOpError;
  if (name == "emitOptionalError") info.sink = Sink::kEmitOptional;
  if (info.sink != Sink::kNone) {
    info.exception = "MLIRError";
    return info;
  }
  if (!scope.empty()) return info;  // the macros below are never qualified
  std::string_view check = name;
  bool debug = false;
  if (StartsWith(check, "D") && StartsWith(check.substr(1), "CHECK")) {
    debug = true;
    check.remove_prefix(1);
  } else if (StartsWith(check, "Q") && StartsWith(check.substr(1), "CHECK")) {
    check.remove_prefix(1);
  } else if (StartsWith(check, "P") && check == "PCHECK") {
    check.remove_prefix(1);
  }
  if (check == "CHECK") {
    info.sink = Sink::kCheck;
  } else if (check == "CHECK_OK") {
    info.sink = Sink::kCheckOk;
  } else if (check == "CHECK_NOTNULL") {
    info.sink = Sink::kCheckNotNull;
  } else if (StartsWith(check, "CHECK_")) {
    for (const auto& [suffix, op] : kCheckOps) {
      if (check.substr(6) == suffix) {
        info.sink = Sink::kCheckOp;
        info.check_op = std::string(op);
      }
    }
  }
  if (info.sink != Sink::kNone) {
    info.internal = debug;
    return info;
  }
  if (name == "TF_CHECK_OK") info.sink = Sink::kTfCheckOk;
  if (name == "LOG") info.sink = Sink::kLogFatal;  // only LOG(FATAL): checked at the call
  if (name == "TF_RET_CHECK" || name == "RET_CHECK" || name == "XLA_RET_CHECK") {
    info.sink = Sink::kRetCheck;
    info.exception = "INTERNAL";
  }
  if (name == "llvm_unreachable" || name == "report_fatal_error") {
    info.sink = Sink::kUnreachable;
    info.internal = name == "llvm_unreachable";
  }
  if (info.sink != Sink::kNone) return info;
  std::string_view torch = name;
  if (StartsWith(torch, "STD_")) torch.remove_prefix(4);
  if (torch == "TORCH_CHECK") {
    info.sink = Sink::kTorchCheck;
    info.exception = "RuntimeError";
  } else if (StartsWith(torch, "TORCH_CHECK_")) {
    std::string_view variant = torch.substr(12);
    static constexpr std::pair<std::string_view, std::string_view> kTyped[] = {
        {"VALUE", "ValueError"},   {"TYPE", "TypeError"},
        {"INDEX", "IndexError"},   {"NOT_IMPLEMENTED", "NotImplementedError"},
        {"LINALG", "LinAlgError"}, {"WITH", "RuntimeError"},
    };
    for (const auto& [suffix, type] : kTyped) {
      if (variant == suffix) {
        info.sink = Sink::kTorchCheck;
        info.exception = std::string(type);
      }
    }
    for (const auto& [suffix, op] : kCheckOps) {
      if (variant == suffix) {
        info.sink = Sink::kCheckOp;
        info.check_op = std::string(op);
      }
    }
  } else if (torch == "TORCH_INTERNAL_ASSERT" || torch == "TORCH_INTERNAL_ASSERT_DEBUG_ONLY") {
    info.sink = Sink::kTorchAssert;
    info.exception = "RuntimeError";
    info.internal = true;
  } else if (name == "AT_ERROR") {
    info.sink = Sink::kTorchError;
    info.exception = "RuntimeError";
  } else if (name == "TORCH_WARN" || name == "TORCH_WARN_ONCE") {
    info.sink = Sink::kTorchWarn;
    info.exception = "UserWarning";
  }
  return info;
}

// Whether an argument written `written` (its Python type `type`, as
// PythonTypeOf reads it) passes an exception class: PyExc_*, or a class
// named like one (`npy_static_pydata._UFuncInputCastingError`).
bool NamesExceptionType(std::string_view written, std::string_view type) {
  return !type.empty() && (StartsWith(Trim(written), "PyExc_") || EndsWith(type, "Error") ||
                           EndsWith(type, "Exception") || EndsWith(type, "Warning"));
}

}  // namespace

std::string PythonTypeOf(std::string_view expression) {
  std::string_view e = Trim(expression);
  while (!e.empty() && (e.front() == '(' || e.front() == '*' || e.front() == '&')) {
    e.remove_prefix(1);
  }
  while (!e.empty() && e.back() == ')') e.remove_suffix(1);
  size_t cut = std::max({e.rfind('.') == std::string_view::npos ? 0 : e.rfind('.') + 1,
                         e.rfind("->") == std::string_view::npos ? 0 : e.rfind("->") + 2,
                         e.rfind("::") == std::string_view::npos ? 0 : e.rfind("::") + 2});
  e = e.substr(cut);
  if (StartsWith(e, "PyExc_")) e.remove_prefix(6);
  std::string out;
  for (char c : e) {
    if (!IsIdentChar(c)) break;
    out.push_back(c);
  }
  return out;
}

std::optional<CApiCall> PythonCApiCall(std::string_view name) {
  for (const CApiSink& c : kCApiSinks) {
    if (name != c.name) continue;
    CApiCall call;
    call.exception = std::string(c.exception);
    call.internal = c.internal;
    // Where each kind of sink takes its text, as Visit reads it.
    switch (c.sink) {
      case Sink::kPyErrSetString:
      case Sink::kPyErrObject:
      case Sink::kPyFixedMessage:
        call.message_at = 1;
        break;
      case Sink::kPyErrFormat:
        call.message_at = 1;
        call.printf = true;
        break;
      case Sink::kPyWarn:
        call.message_at = 1;
        call.kind = SiteKind::kWarning;
        break;
      case Sink::kPyWarnFormat:
        call.message_at = 2;
        call.printf = true;
        call.kind = SiteKind::kWarning;
        break;
      case Sink::kNumpyDeprecate:
        call.message_at = 0;
        call.kind = SiteKind::kWarning;
        break;
      default:
        break;
    }
    return call;
  }
  return std::nullopt;
}

namespace {

// Splits a macro invocation's argument text at top-level commas.
std::vector<std::string> SplitMacroArguments(std::string_view inner) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < inner.size() && inner[j] != c) j += inner[j] == '\\' ? 2 : 1;
      j = std::min(j, inner.size() - 1);
      current.append(inner.substr(i, j + 1 - i));
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back(Trim(current));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!Trim(current).empty() || !out.empty()) out.emplace_back(Trim(current));
  return out;
}

// A C string literal holding `text` (what `#x` makes of an argument).
std::string Stringify(std::string_view text) {
  std::string out = "\"";
  for (char c : CollapseWhitespace(text)) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// Substitutes a macro's parameters in its body, with `#p` and `##`.
std::string ExpandBody(const MacroDef& def, const std::vector<std::string>& args) {
  auto arg_of = [&](std::string_view name) -> std::optional<std::string> {
    for (size_t i = 0; i < def.params.size(); ++i) {
      if (def.params[i] == "...") {
        if (name != "__VA_ARGS__") continue;
        std::string joined;
        for (size_t k = i; k < args.size(); ++k) {
          if (k > i) joined += ", ";
          joined += args[k];
        }
        return joined;
      }
      if (def.params[i] == name) return i < args.size() ? args[i] : std::string();
    }
    return std::nullopt;
  };
  const std::string& b = def.body;
  std::string out;
  for (size_t i = 0; i < b.size();) {
    char c = b[i];
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < b.size() && b[j] != c) j += b[j] == '\\' ? 2 : 1;
      j = std::min(j, b.size() - 1);
      out.append(b, i, j + 1 - i);
      i = j + 1;
      continue;
    }
    if (c == '#' && i + 1 < b.size() && b[i + 1] == '#') {
      while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
      i += 2;
      while (i < b.size() && (b[i] == ' ' || b[i] == '\t')) ++i;
      continue;
    }
    if (c == '#') {
      size_t j = i + 1;
      while (j < b.size() && (b[j] == ' ' || b[j] == '\t')) ++j;
      size_t k = j;
      while (k < b.size() && IsIdentChar(b[k])) ++k;
      if (auto a = arg_of(std::string_view(b).substr(j, k - j)); a && k > j) {
        out += Stringify(*a);
        i = k;
        continue;
      }
    }
    if (IsIdentStart(c)) {
      size_t k = i;
      while (k < b.size() && IsIdentChar(b[k])) ++k;
      std::string_view word = std::string_view(b).substr(i, k - i);
      if (auto a = arg_of(word)) {
        out += *a;
      } else {
        out += word;
      }
      i = k;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

bool HasLiteral(const Template& t) {
  for (const errdex::Piece& p : t.pieces()) {
    if (!p.is_value && !Trim(p.text).empty()) return true;
  }
  return false;
}

// What the whole file, its macro expansions included, may spend.
struct Limits {
  int expansions = 0;
  ParseBudget* budget = nullptr;
};

class Extractor {
 public:
  Extractor(std::string_view path, std::string_view source, bool is_c, const MacroTable& macros,
            int macro_depth, Limits* limits)
      : path_(path),
        src_(source),
        is_c_(is_c),
        macros_(macros),
        symbols_(Symbols(is_c)),
        macro_depth_(macro_depth),
        limits_(limits) {}

  FileResult Run(TSNode root) {
    result_.helpers.path = path_;
    // The walk keeps the path from the root to the node it is at:
    // ts_node_parent walks down from the root each time, too slow to ask
    // repeatedly on deep trees.
    std::vector<std::pair<TSNode, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto [n, depth] = stack.back();
      stack.pop_back();
      ancestors_.resize(depth);
      ancestors_.push_back(n);
      uint16_t k = K(n);
      if (k == kPreprocDef || k == kPreprocFunctionDef || k == kComment) continue;
      if (k == kThrow) Throw(n);
      if (k == kFunctionDefinition) OnFunctionFact(n);
      if (k == kLambda) OnLambdaFact(n);
      if (k == kCall) {
        OnCallFact(n);
        Call(n);
      }
      std::vector<TSNode> kids = NamedChildren(n);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.emplace_back(*it, depth + 1);
    }
    return std::move(result_);
  }

 private:
  uint16_t K(TSNode n) const {
    return ts_node_is_null(n) ? static_cast<uint16_t>(kOther) : symbols_.Kind(n);
  }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  std::vector<TSNode> Args(TSNode call) const {
    std::vector<TSNode> out;
    TSNode list = Field(call, "arguments");
    if (ts_node_is_null(list)) return out;
    for (TSNode a : NamedChildren(list)) {
      if (K(a) != kComment) out.push_back(a);
    }
    return out;
  }

  // ------------------------------------------------------- call graph facts

  // The innermost function or bound lambda around the walk's node.
  int CurrentFunctionFact() const {
    for (size_t i = ancestors_.size(); i-- > 0;) {
      uint16_t k = K(ancestors_[i]);
      if (k != kFunctionDefinition && k != kLambda) continue;
      auto it = function_at_.find(ts_node_start_byte(ancestors_[i]));
      if (it != function_at_.end()) return it->second;
    }
    return -1;
  }

  void OnFunctionFact(TSNode f) {
    std::string name = FunctionName();
    if (name.empty() || (IsMacroName(name) && EnclosingFunctionIndex(ancestors_.size() - 1) !=
                                                  std::string::npos)) {
      return;
    }
    NativeFunction fn;
    fn.name = name;
    fn.line = static_cast<int>(ts_node_start_point(f).row) + 1;
    for (TSNode c : NamedChildren(f)) {
      if (SameNode(c, Field(f, "body"))) break;
      if (Text(c) == "static") fn.file_local = true;
    }
    TSNode d = Field(f, "declarator");
    TSNode params = Field(d, "parameters");
    if (name == "NB_MODULE" || name == "PYBIND11_MODULE" || name == "NANOBIND_MODULE") {
      std::vector<TSNode> p = NamedChildren(params);
      if (p.size() != 2) return;
      fn.module = CollapseWhitespace(Text(p[0]));
      fn.module_var = CollapseWhitespace(Text(p[1]));
    } else {
      for (TSNode p : NamedChildren(params)) {
        std::string_view type = Text(Field(p, "type"));
        if (type.find("module") != std::string_view::npos) {
          fn.module_var = std::string(DeclaredName(Field(p, "declarator")));
        }
      }
    }
    function_at_[ts_node_start_byte(f)] = static_cast<int>(result_.facts.functions.size());
    result_.facts.functions.push_back(std::move(fn));
  }

  // `m.def("name", ...)` with `m` a plain name: the receiver and the name.
  std::optional<std::pair<std::string, std::string>> BindingCall(TSNode call) const {
    TSNode fn = Field(call, "function");
    if (K(fn) != kFieldExpression) return std::nullopt;
    std::string_view field = Text(Field(fn, "field"));
    TSNode receiver = Field(fn, "argument");
    if ((field != "def" && field != "def_static") || K(receiver) != kIdentifier) return std::nullopt;
    std::vector<TSNode> args = Args(call);
    if (args.size() < 2 || K(args[0]) != kStringLiteral) return std::nullopt;
    std::string name;
    AppendLiteral(args[0], name);
    if (name.empty()) return std::nullopt;
    return std::make_pair(std::string(Text(receiver)), std::move(name));
  }

  void OnLambdaFact(TSNode lambda) {
    size_t i = ancestors_.size() - 1;
    if (i < 2 || K(ancestors_[i - 1]) != kArgumentList || K(ancestors_[i - 2]) != kCall) return;
    auto binding = BindingCall(ancestors_[i - 2]);
    if (!binding) return;
    int where = CurrentFunctionFact();
    NativeFunction fn;
    fn.name = binding->second;
    fn.line = static_cast<int>(ts_node_start_point(lambda).row) + 1;
    fn.bound = true;
    fn.params = BindingNames();
    int index = static_cast<int>(result_.facts.functions.size());
    function_at_[ts_node_start_byte(lambda)] = index;
    result_.facts.functions.push_back(std::move(fn));
    result_.facts.bindings.push_back({where, binding->first, binding->second, "", index});
  }

  // A callee by name: `f`, `ns::f`, `f<T>`, `this->f`; "" for anything else.
  std::string CalleeName(TSNode fn) const {
    uint16_t k = K(fn);
    if (k == kFieldExpression) {
      return K(Field(fn, "argument")) == kThis ? std::string(Text(Field(fn, "field"))) : "";
    }
    if (k == kTemplateFunction) fn = Field(fn, "name");
    k = K(fn);
    if (k != kIdentifier && k != kQualifiedIdentifier) return "";
    std::string name = CollapseWhitespace(Text(fn));
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    if (name.find('<') != std::string::npos) return "";  // ns::f<T>::g: left out
    return name;
  }

  void OnCallFact(TSNode call) {
    int caller = CurrentFunctionFact();
    if (caller < 0) return;
    if (auto binding = BindingCall(call)) {
      std::vector<TSNode> args = Args(call);
      TSNode target = args[1];
      if (K(target) == kPointerExpression || K(target) == kUnaryExpression) {
        target = Field(target, "argument");  // &f
      }
      std::string name = CalleeName(target);
      if (!name.empty()) {
        result_.facts.bindings.push_back({caller, binding->first, binding->second, name, -1});
      }
      return;
    }
    if (result_.facts.calls.size() >= kMaxNativeCallsPerFile) return;
    std::string callee = CalleeName(Field(call, "function"));
    if (!callee.empty()) result_.facts.calls.push_back({caller, std::move(callee)});
  }

  // --------------------------------------------------------------- sinks

  void Call(TSNode call) {
    alternatives_.clear();
    if (consumed_.count(ts_node_start_byte(call)) != 0) return;
    TSNode fn = Field(call, "function");
    bool member = K(fn) == kFieldExpression;
    std::string callee =
        member ? std::string(Text(Field(fn, "field")))
               : CollapseWhitespace(Text(K(fn) == kTemplateFunction ? Field(fn, "name") : fn));
    if (callee.empty()) return;
    if (!member && K(fn) == kIdentifier) {
      auto it = macros_.find(callee);
      // A macro defined in another source file (not a header) is not visible
      // here, and one of another arity is not the macro being called.
      if (it != macros_.end() && MacroApplies(it->second, call)) {
        Expand(call, it->second);
        return;
      }
    }
    SinkInfo info = ClassifyName(callee, member);
    if (info.sink == Sink::kNone) {
      if (!member && K(fn) == kIdentifier) RecordCall(call, callee);
      return;
    }
    std::vector<TSNode> args = Args(call);
    Site site = BaseSite(call, SiteKind::kRaise);
    NoteHelper(info, callee, args, !site.guards.empty());
    site.exception = info.exception;
    site.exception_written = callee;
    site.internal = site.internal || info.internal;
    Template msg;
    auto streamed = [&] { return Streamed(call); };
    auto strcat = [&](size_t from) {
      Template t;
      for (size_t i = from; i < args.size(); ++i) t.Append(Part(args[i]));
      return t;
    };
    switch (info.sink) {
      case Sink::kPyErrSetString:
      case Sink::kPyErrFormat:
      case Sink::kPyErrObject:
      case Sink::kPyErrNoMessage:
        if (info.exception.empty()) {
          if (args.empty()) return;
          site.exception = PythonTypeOf(Text(args[0]));
          if (K(args[0]) == kIdentifier) {
            std::string imported = CachedImport(Text(args[0]));
            if (!imported.empty()) site.exception = imported;
          }
        }
        if (info.sink == Sink::kPyErrSetString && args.size() >= 2) msg = Message(args[1]);
        if (info.sink == Sink::kPyErrFormat && args.size() >= 2) msg = Printf(args, 1, true);
        // PyErr_SetObject(type, msg) where msg holds text built before
        // (PyUnicode_FromFormat); an exception object or tuple stays a value.
        if (info.sink == Sink::kPyErrObject && args.size() >= 2) {
          msg = Message(args[1]);
          // The type its caller passes and a value without words: the
          // callers raise it (LinkHelpers), this line says nothing itself.
          std::vector<std::string> params = ParamList();
          std::string type(Trim(Text(Unwrapped(args[0]))));
          if (info.exception.empty() && msg.IsDynamic() &&
              std::find(params.begin(), params.end(), type) != params.end()) {
            NonSiteAt(call, "forwards-parameter");
            return;
          }
        }
        break;
      case Sink::kPyFixedMessage:
        if (args.size() < 2) return;
        msg = Message(args[1]);
        break;
      case Sink::kPyWarn:
      case Sink::kPyWarnFormat:
        if (args.empty()) return;
        site.kind = SiteKind::kWarning;
        site.exception = PythonTypeOf(Text(args[0]));
        if (info.sink == Sink::kPyWarn && args.size() >= 2) msg = Message(args[1]);
        if (info.sink == Sink::kPyWarnFormat && args.size() >= 3) msg = Printf(args, 2, true);
        break;
      case Sink::kNumpyDeprecate:
        site.kind = SiteKind::kWarning;
        if (!args.empty()) msg = Message(args[0]);
        break;
      case Sink::kNbRaise:
        if (!args.empty()) msg = Printf(args, 0, false);
        break;
      case Sink::kNbRaiseFrom:
        if (args.size() < 3) return;
        site.exception = PythonTypeOf(Text(args[1]));
        site.cause = CollapseWhitespace(Text(args[0]));
        msg = Printf(args, 2, true);
        break;
      case Sink::kPybindFail:
        if (!args.empty()) msg = Message(args[0]);
        break;
      case Sink::kAbslError:
      case Sink::kStatusHelper:
      case Sink::kStatusStrCat:
      case Sink::kStatusCtor: {
        std::optional<Template> status = StatusMessage(call, info, site.exception);
        if (!status) return;
        site.kind = SiteKind::kStatus;
        msg = std::move(*status);
        break;
      }
      case Sink::kCheck:
        if (args.empty()) return;
        site.kind = SiteKind::kFatal;
        msg.AppendText("Check failed: " + CollapseWhitespace(Text(args[0])));
        AddAssertGuard(site, CollapseWhitespace(Text(args[0])));
        AppendSpaced(msg, streamed());
        break;
      case Sink::kCheckOp: {
        if (args.size() < 2) return;
        site.kind = SiteKind::kFatal;
        std::string a = CollapseWhitespace(Text(args[0]));
        std::string b = CollapseWhitespace(Text(args[1]));
        msg.AppendText("Check failed: " + a + " " + info.check_op + " " + b + " (");
        AddAssertGuard(site, a + " " + info.check_op + " " + b);
        msg.AppendValue(a, ValueKind::kStr);
        msg.AppendText(" vs. ");
        msg.AppendValue(b, ValueKind::kStr);
        msg.AppendText(")");
        AppendSpaced(msg, streamed());
        site.exception = info.exception;
        break;
      }
      case Sink::kCheckOk:
      case Sink::kTfCheckOk: {
        if (args.empty()) return;
        site.kind = SiteKind::kFatal;
        std::string e = CollapseWhitespace(Text(args[0]));
        bool simple = e.find_first_of(" +-*/&|?:<>=!") == std::string::npos;
        AddAssertGuard(site, simple ? e + ".ok()" : "(" + e + ").ok()");
        if (info.sink == Sink::kCheckOk) {
          msg.AppendText("Check failed: " + e + " is OK (");
          msg.AppendValue(e, ValueKind::kStr);
          msg.AppendText(")");
        } else {
          msg.AppendText("Non-OK-status: " + e + " status: ");
          msg.AppendValue(e, ValueKind::kStr);
        }
        AppendSpaced(msg, streamed());
        break;
      }
      case Sink::kCheckNotNull:
        if (args.empty()) return;
        site.kind = SiteKind::kFatal;
        msg.AppendText("'" + CollapseWhitespace(Text(args[0])) + "' Must be non NULL");
        break;
      case Sink::kLogFatal: {
        if (args.size() != 1) return;
        std::string_view severity = Text(args[0]);
        if (severity != "FATAL" && severity != "QFATAL" && severity != "DFATAL") return;
        site.kind = SiteKind::kFatal;
        site.internal = severity == "DFATAL";
        msg = streamed();
        break;
      }
      case Sink::kRetCheck:
        if (args.empty()) return;
        site.kind = SiteKind::kStatus;
        msg.AppendText("RET_CHECK failure (" + path_ + ":" + std::to_string(site.line) + ") " +
                       CollapseWhitespace(Text(args[0])));
        AddAssertGuard(site, CollapseWhitespace(Text(args[0])));
        AppendSpaced(msg, streamed());
        break;
      case Sink::kUnreachable:
        site.kind = SiteKind::kFatal;
        if (!args.empty()) msg = Message(args[0]);
        break;
      case Sink::kTorchCheck:
        if (args.empty()) return;
        AddAssertGuard(site, CollapseWhitespace(Text(args[0])));
        if (args.size() == 1) {
          msg.AppendText("Expected " + CollapseWhitespace(Text(args[0])) +
                         " to be true, but got false.  (Could this error message be improved?  "
                         "If so, please report an enhancement request to PyTorch.)");
        } else {
          msg = strcat(1);
        }
        break;
      case Sink::kTorchAssert:
        if (args.empty()) return;
        AddAssertGuard(site, CollapseWhitespace(Text(args[0])));
        msg.AppendText(CollapseWhitespace(Text(args[0])) + " INTERNAL ASSERT FAILED at \"");
        msg.AppendValue("__FILE__", ValueKind::kStr);
        msg.AppendText("\":");
        msg.AppendValue("__LINE__", ValueKind::kInt);
        msg.AppendText(", please report a bug to PyTorch. ");
        msg.Append(strcat(1));
        break;
      case Sink::kTorchError:
        msg = strcat(0);
        break;
      case Sink::kTorchWarn:
        site.kind = SiteKind::kWarning;
        msg = strcat(0);
        break;
      case Sink::kEmitError:
        site.kind = SiteKind::kStatus;
        msg = strcat(member ? 0 : 1);
        msg.Append(streamed());
        break;
      case Sink::kEmitOpError:
        site.kind = SiteKind::kStatus;
        msg.AppendText("'");
        msg.AppendValue(member ? CollapseWhitespace(Text(Field(fn, "argument"))) : "op",
                        ValueKind::kStr);
        msg.AppendText("' op ");
        msg.Append(strcat(0));
        msg.Append(streamed());
        break;
      case Sink::kEmitOptional:
        site.kind = SiteKind::kStatus;
        msg = strcat(1);
        break;
      case Sink::kNone:
        return;
    }
    if (info.sink == Sink::kPyErrSetString || info.sink == Sink::kPyErrFormat ||
        info.sink == Sink::kPyWarn || info.sink == Sink::kPyWarnFormat) {
      NoteTemplateHelper(site, msg);
      for (const Template& t : alternatives_) NoteTemplateHelper(site, t);
    }
    Emit(std::move(site), std::move(msg), call);
  }

  // The names some condition of function `fn` tests (if, while, do, for,
  // switch), kept for the function last asked.
  const std::unordered_set<std::string>& TestedNames(TSNode fn) {
    return tested_.Of(
        fn, src_,
        [&](TSNode x) {
          uint16_t k = K(x);
          return k == kIfStatement || k == kWhileStatement || k == kDoStatement || k == kSwitch ||
                         k == kForStatement
                     ? Field(x, "condition")
                     : TSNode{};
        },
        [&](TSNode x) { return K(x) == kIdentifier; });
  }

  // A Python C-API raise whose text fills a parameter of the function
  // around it into words of its own (`PyErr_Format(PyExc_ValueError, "bad
  // %s value", what)`): the function is a helper, and a caller passing text
  // raises the whole sentence. The message passed whole is NoteHelper's.
  void NoteTemplateHelper(const Site& site, const Template& t) {
    if (macro_depth_ > 0 || site.exception.empty() || t.IsDynamic()) return;
    std::vector<std::string> params = ParamList();
    auto is_param = [&](std::string_view name) {
      return std::find(params.begin(), params.end(), name) != params.end();
    };
    // A parameter it only prints: one the function tests (numpy's
    // _parse_signature parsing `signature`) decides whether it raises, and
    // the literal a caller passes is most likely one that passes.
    const std::unordered_set<std::string>& tested = TestedNames(EnclosingFunction());
    if (is_param(site.exception) ||
        std::none_of(t.pieces().begin(), t.pieces().end(), [&](const errdex::Piece& p) {
          return p.is_value && is_param(p.text) && tested.count(p.text) == 0;
        })) {
      return;
    }
    auto [name, is_static] = PlainFunction();
    if (name.empty()) return;
    flow::HelperSink h;
    h.name = std::move(name);
    h.path = path_;
    h.file_local = is_static;
    h.exception = site.exception;
    h.kind = site.kind;
    h.message = t;
    h.params = std::move(params);
    h.guarded = !site.guards.empty();
    result_.helpers.sinks.push_back(std::move(h));
  }

  // The message of a status-creating call, or nullopt when the call is not
  // one after all (a same-named function that takes no message).
  std::optional<Template> StatusMessage(TSNode call, const SinkInfo& info, std::string& code) {
    std::vector<TSNode> args = Args(call);
    Template t;
    switch (info.sink) {
      case Sink::kAbslError:
        if (args.size() != 1) return std::nullopt;
        return Message(args[0]);
      case Sink::kStatusStrCat:
        for (TSNode a : args) t.Append(Part(a));
        return t;
      case Sink::kStatusHelper: {
        if (args.empty() || !IsMessageLike(args[0])) return std::nullopt;
        std::string scope(ScopeOf(CollapseWhitespace(Text(Field(call, "function")))));
        // tsl::errors::X concatenates; xla::X is printf-style (absl::FormatSpec
        // needs a literal format, so anything else concatenates too).
        bool strcat = EndsWith(scope, "errors") || !IsLiteral(args[0]);
        if (strcat) {
          for (TSNode a : args) t.Append(Part(a));
          return t;
        }
        return Printf(args, 0, false);
      }
      case Sink::kStatusCtor: {
        if (args.size() != 2) return std::nullopt;
        std::string code_text = CollapseWhitespace(Text(args[0]));
        std::string_view c = LastComponent(code_text);
        std::string name = StatusCodeFromName(c);
        if (name.empty()) return std::nullopt;
        code = name;
        return Eval(args[1], 0);
      }
      default:
        return std::nullopt;
    }
  }

  void Throw(TSNode node) {
    alternatives_.clear();
    TSNode e{};
    for (TSNode c : NamedChildren(node)) {
      if (K(c) != kComment) {
        e = c;
        break;
      }
    }
    if (ts_node_is_null(e)) {
      NonSiteAt(node, "reraise");
      return;
    }
    TSNode type{};
    std::vector<TSNode> args;
    if (K(e) == kCall) {
      type = Field(e, "function");
      args = Args(e);
    } else if (K(e) == kCompoundLiteral) {
      type = Field(e, "type");
      TSNode init = Field(e, "value");
      for (TSNode a : NamedChildren(init)) {
        if (K(a) != kComment) args.push_back(a);
      }
    } else {
      NonSiteAt(node, "reraise-variable");
      return;
    }
    std::string written = CollapseWhitespace(Text(type));
    std::string_view last = LastComponent(written);
    if (last == "python_error" || last == "error_already_set") {
      NonSiteAt(node, "reraise");
      return;
    }
    // `throw obj.error()`, `throw (e)`: an object built elsewhere.
    if (K(type) == kFieldExpression || last.empty() || !IsIdentStart(last[0])) {
      NonSiteAt(node, "reraise-variable");
      return;
    }
    Site site = BaseSite(node, SiteKind::kRaise);
    site.exception_written = written;
    std::string_view python = PythonTypeOfCpp(written);
    size_t lt = last.find('<');
    site.exception = python.empty() ? std::string(last.substr(0, lt)) : std::string(python);
    Template msg;
    if (!args.empty()) {
      // throw XlaRuntimeError(InvalidArgument(...)): the status is the message.
      TSNode a = args[0];
      SinkInfo inner;
      if (K(a) == kCall) {
        TSNode fn = Field(a, "function");
        if (K(fn) != kFieldExpression) inner = ClassifyName(CollapseWhitespace(Text(fn)), false);
      }
      std::optional<Template> status;
      if (inner.sink == Sink::kAbslError || inner.sink == Sink::kStatusHelper ||
          inner.sink == Sink::kStatusStrCat || inner.sink == Sink::kStatusCtor) {
        std::string code = inner.exception;
        status = StatusMessage(a, inner, code);
        if (status) {
          consumed_.insert(ts_node_start_byte(a));
          site.exception = code;
        }
      }
      msg = status ? std::move(*status) : Message(a);
    }
    Emit(std::move(site), std::move(msg), e);
  }

  // ------------------------------------------------------------ messages

  // The whole message argument of a sink. Every alternative is raised at
  // the same site: the first is returned, the others queued in
  // alternatives_ (`cond ? "a" : "b"`, a local assigned in branches).
  Template Message(TSNode n) {
    std::vector<Template> all = Alternatives(n);
    Template first = std::move(all.front());
    for (size_t i = 1; i < all.size(); ++i) alternatives_.push_back(std::move(all[i]));
    return first;
  }

  // What a message or format expression can be: both arms of `?:`, every
  // definition of a local that reaches it; one template otherwise. Text
  // with no literal of its own (a NULL a branch replaces) is left out when
  // another alternative has some.
  // `m.c_str()`, `s.data()`, `oss.str()`, `(m)`: the name holding the text.
  TSNode TextName(TSNode n) const {
    for (int guard = 0; guard < 8; ++guard) {
      if (K(n) == kParenthesized && ts_node_named_child_count(n) == 1) {
        n = ts_node_named_child(n, 0);
        continue;
      }
      if (K(n) == kCall && Args(n).empty() && K(Field(n, "function")) == kFieldExpression) {
        std::string_view method = Text(Field(Field(n, "function"), "field"));
        if (method == "c_str" || method == "data" || method == "str") {
          n = Field(Field(n, "function"), "argument");
          continue;
        }
      }
      break;
    }
    return n;
  }

  std::vector<Template> Alternatives(TSNode n, int depth = 0) {
    n = TextName(n);
    std::vector<Template> out;
    if (K(n) == kConditional && depth < 4) {
      out = Alternatives(Field(n, "consequence"), depth + 1);
      for (Template& t : Alternatives(Field(n, "alternative"), depth + 1)) {
        out.push_back(std::move(t));
      }
    } else if (K(n) == kIdentifier) {
      out = ResolveAll(n, 0);
    } else {
      out.push_back(Eval(n, 0));
    }
    KeepLiteralAlternatives(out);
    return out;
  }

  static bool HasLiteralText(const Template& t) { return HasLiteral(t); }

  // A string declared without a value (`std::string m;`, `char buf[64];`):
  // empty, but not a text of its own beside what branches assign to it.
  static Template Unset() { return Template::Value(std::string(kUnsetName), ValueKind::kAny); }
  static bool IsUnset(const Template& t) {
    return t.pieces().size() == 1 && t.pieces()[0].is_value && t.pieces()[0].text == kUnsetName;
  }

  // A value with no text of its own (a NULL, a parameter, Unset): left out
  // when another alternative has text. `""` from `c ? "" : "s"` is kept.
  static bool NoText(const Template& t) {
    return IsUnset(t) || (t.IsDynamic() && !HasLiteralText(t));
  }

  static void KeepLiteralAlternatives(std::vector<Template>& all) {
    if (all.empty()) all.emplace_back();
    bool any = std::any_of(all.begin(), all.end(), HasLiteralText);
    std::vector<Template> kept;
    std::unordered_set<std::string> seen;
    for (Template& t : all) {
      if (any && NoText(t)) continue;
      if (kept.size() >= kMaxAlternatives || !seen.insert(t.Display()).second) continue;
      kept.push_back(std::move(t));
    }
    if (kept.empty()) kept.push_back(std::move(all.front()));
    for (Template& t : kept) {
      if (IsUnset(t)) t = Template();
    }
    all = std::move(kept);
  }

  // One argument of a concatenation as template text.
  Template Part(TSNode n) { return Eval(n, 0); }

  Template Value(TSNode n, ValueKind kind = ValueKind::kStr) {
    return Template::Value(CollapseWhitespace(Text(n)), kind);
  }

  // printf-style: every alternative of the format, and of an argument that
  // is `cond ? "a" : "b"`, is a message of its own (queued as Message does).
  Template Printf(const std::vector<TSNode>& args, size_t format_at, bool python) {
    if (format_at >= args.size()) return {};
    std::vector<Template> formats = Alternatives(args[format_at]);
    std::vector<std::vector<Arg>> arg_sets(1);
    for (size_t i = format_at + 1; i < args.size(); ++i) {
      TSNode a = TextName(args[i]);
      std::vector<Arg> choices;
      if (K(a) != kIdentifier) choices.push_back(ArgOf(args[i]));
      if (K(a) == kConditional && IsStringExpression(a)) {
        choices.clear();
        for (TSNode arm : {Field(a, "consequence"), Field(a, "alternative")}) {
          Arg c = ArgOf(arm);
          if (!c.value) c.expression = CollapseWhitespace(Text(args[i]));
          choices.push_back(std::move(c));
        }
      } else if (K(a) == kIdentifier) {
        // `"%s at position %d", parse_error, i`: each text the local holds.
        // One scan of the function: what ArgOf would find is the last one.
        std::vector<Template> held = ResolveAll(a, 0);
        std::vector<Template> texts = held;
        KeepLiteralAlternatives(texts);
        if (texts.size() > 1 &&
            std::none_of(texts.begin(), texts.end(), [](const Template& t) { return NoText(t); })) {
          for (Template& t : texts) choices.push_back(Arg{std::string(Text(a)), std::move(t)});
        } else {
          Arg one;
          one.expression = CollapseWhitespace(Text(args[i]));
          Template t = texts.size() == 1 ? std::move(texts[0]) : Value(a);
          Cap(t, a);
          if (!t.IsDynamic()) {
            one.value = std::move(t);
          } else if (t.pieces().size() == 1) {
            one.expression = t.pieces()[0].text;
          }
          choices.push_back(std::move(one));
        }
      }
      std::vector<std::vector<Arg>> next;
      for (const std::vector<Arg>& set : arg_sets) {
        for (const Arg& c : choices) {
          if (next.size() >= kMaxAlternatives) break;
          next.push_back(set);
          next.back().push_back(c);
        }
      }
      arg_sets = std::move(next);
    }
    std::vector<Template> all;
    for (const Template& f : formats) {
      for (const std::vector<Arg>& set : arg_sets) {
        all.push_back(flow::ApplyFormat(python ? flow::Format::kPyPrintf : flow::Format::kPrintf, f,
                                        flow::FormatArgs::Positional(set)));
      }
    }
    KeepLiteralAlternatives(all);
    Template first = std::move(all.front());
    for (size_t i = 1; i < all.size(); ++i) alternatives_.push_back(std::move(all[i]));
    return first;
  }

  Arg ArgOf(TSNode n) {
    Arg a;
    a.expression = CollapseWhitespace(Text(n));
    if (IsMessageLike(n) || K(n) == kNumberLiteral) {
      Template t = Eval(n, 0);
      if (!t.IsDynamic()) {
        a.value = std::move(t);
      } else if (t.pieces().size() == 1) {
        a.expression = t.pieces()[0].text;  // `what.c_str()` is `what`
      }
    }
    return a;
  }

  // `msg = other`, `msg = c ? "a" : other`: text, or names that may hold
  // some (numbers are left to be values).
  bool TextOrNames(TSNode n, int depth = 0) const {
    while (K(n) == kParenthesized && ts_node_named_child_count(n) == 1) {
      n = ts_node_named_child(n, 0);
    }
    if (K(n) == kIdentifier) return true;
    if (K(n) == kConditional && depth < 4) {
      return TextOrNames(Field(n, "consequence"), depth + 1) &&
             TextOrNames(Field(n, "alternative"), depth + 1);
    }
    return IsStringExpression(n);
  }

  // An expression whose value is text: literals, string-building calls,
  // concatenations of them.
  bool IsStringExpression(TSNode n) const {
    for (int guard = 0; guard < kMaxEvalDepth; ++guard) {
      switch (K(n)) {
        case kStringLiteral:
        case kConcatenatedString:
        case kRawStringLiteral:
        case kUserDefinedLiteral:
          return true;
        case kParenthesized:
          n = ts_node_named_child(n, 0);
          continue;
        case kBinaryExpression: {
          std::string_view o = Text(Field(n, "operator"));
          if (o != "+" && o != "<<") return false;
          if (IsStringExpression(Field(n, "right"))) return true;
          n = Field(n, "left");
          continue;
        }
        case kConditional:
          return IsStringExpression(Field(n, "consequence")) ||
                 IsStringExpression(Field(n, "alternative"));
        case kCall:
          return StringBuildingCall(n);
        default:
          return false;
      }
    }
    return false;
  }

  // The declaration's type holds text: std::string, a stream, char*, ...
  bool IsStringType(TSNode declaration) const {
    std::string_view type = Text(Field(declaration, "type"));
    for (std::string_view t : {"string", "stream", "char", "StringRef", "Twine", "Cord"}) {
      if (type.find(t) != std::string_view::npos) return true;
    }
    return false;
  }

  bool IsLiteral(TSNode n) const {
    uint16_t k = K(n);
    return k == kStringLiteral || k == kConcatenatedString || k == kRawStringLiteral;
  }

  // A call whose result is text: absl::StrCat/StrFormat/Substitute,
  // c10::str, fmt::format, std::string(...), `x.c_str()`, `oss.str()`.
  bool StringBuildingCall(TSNode n) const {
    if (K(n) != kCall) return false;
    TSNode fn = Field(n, "function");
    std::string_view name =
        LastComponent(Text(K(fn) == kFieldExpression ? Field(fn, "field") : fn));
    return name == "StrCat" || name == "StrFormat" || name == "Substitute" || name == "str" ||
           name == "c_str" || name == "data" || name == "format" || name == "string" ||
           name == "PyUnicode_FromFormat" || name == "PyUnicode_FromString" ||
           name == "PyBytes_FromFormat" || name == "PyUnicode_FromStringAndSize" ||
           name == "PyUnicode_Format";
  }

  // What a message argument can be: text, or a name that may hold some.
  bool IsMessageLike(TSNode n) const { return IsStringExpression(n) || K(n) == kIdentifier; }

  void AppendLiteral(TSNode lit, std::string& out) const {
    uint16_t k = K(lit);
    if (k == kRawStringLiteral) {
      TSNode content{};
      for (TSNode c : NamedChildren(lit)) {
        if (K(c) == kRawStringContent) content = c;
      }
      if (!ts_node_is_null(content)) {
        out.append(Text(content));
        return;
      }
      std::string_view t = Text(lit);
      size_t open = t.find('(');
      size_t close = t.rfind(')');
      if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
        out.append(t.substr(open + 1, close - open - 1));
      }
      return;
    }
    for (TSNode c : Children(lit)) {
      uint16_t ck = K(c);
      if (ck == kStringContent) out.append(Text(c));
      if (ck == kEscapeSequence) AppendEscape(Text(c), out);
    }
  }

  // The printf conversion a format macro spliced into a literal stands for:
  // PRId64 -> "d", NPY_INTP_FMT -> "d".
  static std::optional<std::string> FormatMacro(std::string_view name) {
    if (StartsWith(name, "PRI") && name.size() >= 4) return std::string(1, name[3]);
    if (EndsWith(name, "_FMT") || EndsWith(name, "_fmt")) return std::string("d");
    return std::nullopt;
  }

  Template Eval(TSNode n, int depth) {
    if (ts_node_is_null(n)) return {};
    // Bounded work per file, whatever the source: deep nesting, long chains
    // of `m += m`, names that refer to themselves.
    if (depth > kMaxEvalDepth || ++eval_steps_ > kMaxEvalStepsPerFile) return Value(n);
    Template t = EvalUncapped(n, depth);
    Cap(t, n);
    return t;
  }

  // A template past kMaxPieces pieces or kMaxTemplateBytes of text keeps its
  // start and ends in a value: what follows is unknown.
  void Cap(Template& t, TSNode n) const {
    std::vector<errdex::Piece>& pieces = t.mutable_pieces();
    size_t bytes = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
      bytes += pieces[i].text.size();
      if (i + 1 >= kMaxPieces || bytes > kMaxTemplateBytes) {
        pieces.resize(i);
        t.AppendValue(CollapseWhitespace(TruncateUtf8(Text(n), 200)), ValueKind::kAny);
        return;
      }
    }
  }

  Template EvalUncapped(TSNode n, int depth) {
    switch (K(n)) {
      case kStringLiteral:
      case kRawStringLiteral: {
        std::string text;
        AppendLiteral(n, text);
        return Template::Literal(text);
      }
      case kConcatenatedString: {
        Template t;
        std::vector<TSNode> parts;
        for (TSNode c : NamedChildren(n)) {
          // tree-sitter-cpp wraps a macro between literals in an ERROR node.
          if (ts_node_symbol(c) == static_cast<TSSymbol>(-1)) {
            for (TSNode g : NamedChildren(c)) parts.push_back(g);
          } else {
            parts.push_back(c);
          }
        }
        for (TSNode c : parts) {
          if (IsLiteral(c)) {
            std::string text;
            AppendLiteral(c, text);
            t.AppendText(text);
          } else if (K(c) == kIdentifier) {
            if (auto spec = FormatMacro(Text(c))) {
              t.AppendText(*spec);
            } else {
              t.AppendValue(Text(c), ValueKind::kStr);
            }
          }
        }
        return t;
      }
      case kUserDefinedLiteral: {
        TSNode first = ts_node_named_child(n, 0);
        return IsLiteral(first) ? Eval(first, depth + 1) : Value(n);
      }
      case kCharLiteral: {
        std::string text;
        for (TSNode c : Children(n)) {
          if (K(c) == kEscapeSequence) AppendEscape(Text(c), text);
          if (ts_node_is_named(c) && K(c) != kEscapeSequence) text.append(Text(c));
        }
        if (text.empty()) {
          std::string_view t = Text(n);
          if (t.size() == 3) text.push_back(t[1]);
        }
        return text.empty() ? Value(n, ValueKind::kChar) : Template::Literal(text);
      }
      case kNumberLiteral: {
        std::string_view t = Text(n);
        while (!t.empty() &&
               (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L')) {
          t.remove_suffix(1);
        }
        bool plain = !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
        return plain ? Template::Literal(t) : Value(n, ValueKind::kFloat);
      }
      case kParenthesized: {
        TSNode inner = ts_node_named_child(n, 0);
        return ts_node_named_child_count(n) == 1 ? Eval(inner, depth + 1) : Value(n);
      }
      case kCastExpression:
        return Eval(Field(n, "value"), depth + 1);
      case kBinaryExpression: {
        TSNode op = Field(n, "operator");
        std::string_view o = Text(op);
        if (o != "+" && o != "<<") return Value(n);
        // `row_count + 1` is arithmetic; only string operands concatenate.
        if (!IsStringExpression(Field(n, "left")) && !IsStringExpression(Field(n, "right"))) {
          return Value(n);
        }
        Template left = Eval(Field(n, "left"), depth + 1);
        Template right = Eval(Field(n, "right"), depth + 1);
        if (left.IsDynamic() && right.IsDynamic()) return Value(n);
        left.Append(right);
        return left;
      }
      case kIdentifier:
        return Resolve(n, depth);
      case kCall:
        return EvalCall(n, depth);
      default:
        return Value(n);
    }
  }

  Template EvalCall(TSNode call, int depth) {
    TSNode fn = Field(call, "function");
    std::vector<TSNode> args = Args(call);
    if (K(fn) == kFieldExpression) {
      std::string_view method = Text(Field(fn, "field"));
      if ((method == "c_str" || method == "data" || method == "str") && args.empty()) {
        return Eval(Field(fn, "argument"), depth + 1);
      }
      return Value(call);
    }
    std::string name =
        CollapseWhitespace(Text(K(fn) == kTemplateFunction ? Field(fn, "name") : fn));
    const StringBuilder* builder = FindStringBuilder(name, args.size());
    if (builder == nullptr) return Value(call);
    if (builder->op == StringBuilder::Op::kConcat) {
      Template t;
      for (TSNode a : args) t.Append(Eval(a, depth + 1));
      return t;
    }
    if (builder->op == StringBuilder::Op::kSame) return Eval(args[0], depth + 1);
    if (builder->literal_format && !IsLiteral(args[0])) return Value(call);
    Template format = Eval(args[0], depth + 1);
    flow::FormatArgs rest;
    if (builder->opaque_args) {
      if (format.IsDynamic()) return Value(call);
      rest.expression = CollapseWhitespace(Text(args[1]));
    } else {
      for (size_t i = 1; i < args.size(); ++i) rest.positional.push_back(ArgOf(args[i]));
    }
    return flow::ApplyFormat(builder->format, format, rest);
  }

  // A local string or stream: its definitions before `use` in the enclosing
  // function that reach it, with what was appended to it since (+=,
  // StrAppend, `<<`, snprintf into it), or a constant at namespace scope.
  // One template (a value when branches give several); ResolveAll gives them all.
  Template Resolve(TSNode use, int depth) {
    std::vector<Template> all = ResolveAll(use, depth);
    KeepLiteralAlternatives(all);
    // Where one template must stand for all (a StrFormat argument), texts
    // chosen in branches are a value.
    if (all.size() > 1) return Value(use);
    return std::move(all.front());
  }

  std::vector<Template> ResolveAll(TSNode use, int depth) {
    // Names defined through one another (`a = c ? a : "x"`) end here.
    if (resolving_ >= kMaxEvalDepth || depth > kMaxEvalDepth) return {Value(use)};
    // Each use of a name is resolved once (`a = b; b = a; ...` would
    // otherwise resolve the same uses again and again).
    uint32_t key = ts_node_start_byte(use);
    if (auto it = resolved_.find(key); it != resolved_.end()) return it->second;
    ++resolving_;
    std::vector<Template> out = ResolveAllUncapped(use, depth);
    --resolving_;
    resolved_.emplace(key, out);
    return out;
  }

  std::vector<Template> ResolveAllUncapped(TSNode use, int depth) {
    std::string_view name = Text(use);
    TSNode scope = EnclosingFunction();
    std::optional<std::vector<Template>> value;
    bool from_entry = true;  // some path reaches the use with no local definition
    if (!ts_node_is_null(scope)) {
      TSNode body = Field(scope, "body");
      if (!ts_node_is_null(body)) {
        flow::DefList defs =
            flow::ReachingDefinitions(Lowered(body), name, use, &flow_budget_, &from_entry);
        if (!defs.empty() && flow_budget_ >= 0) value = EvalDefs(defs, name, depth);
      }
    }
    if (!value || from_entry) {
      // A file-level name the function reassigns only on some paths
      // (`static const char *m = "default"; ... if (c) m = "other";`)
      // still holds its own text on the others.
      auto it = globals_.find(std::string(name));
      if (it == globals_.end()) {
        std::optional<std::vector<Template>> global;
        flow::DefList defs =
            flow::ReachingDefinitions(Lowered(Root()), name, TSNode{}, &flow_budget_);
        if (!defs.empty() && flow_budget_ >= 0) global = EvalDefs(defs, name, depth);
        it = globals_.emplace(std::string(name), std::move(global)).first;
      }
      if (!value) {
        value = it->second;
      } else if (it->second) {
        for (const Template& t : *it->second) {
          if (value->size() < kMaxAlternatives) value->push_back(t);
        }
      }
    }
    if (!value || value->empty() ||
        std::all_of(value->begin(), value->end(),
                    [](const Template& t) { return t.empty() || IsUnset(t); })) {
      return {Value(use)};
    }
    return *value;  // an Unset among them is dropped (or emptied) by KeepLiteralAlternatives
  }

  // `body` (a function's or the translation unit) as the shared data flow reads it.
  const flow::FlowBody& Lowered(TSNode body) {
    return flow_bodies_.Get(body, [&](TSNode b) { return LowerFlow(src_, symbols_, b); });
  }

  // What the definitions reaching a use can hold, each its alternatives.
  // One walk's definitions share their appends' bases: each is evaluated
  // once (a chain of conditional appends would otherwise double per link).
  using DefMemo = std::unordered_map<const flow::Def*, std::vector<Template>>;
  std::vector<Template> EvalDefs(const flow::DefList& defs, std::string_view name, int depth) {
    std::vector<Template> out;
    DefMemo memo;
    for (const flow::DefPtr& d : defs) {
      for (Template& t : EvalDef(*d, name, depth, memo)) {
        if (out.size() < kMaxAlternatives) out.push_back(std::move(t));
      }
    }
    return out;
  }

  // One definition's alternatives: a declaration (with its initializer, or
  // an empty string to start with), an assignment, or what an append
  // (`+=`, `<<`, StrAppend) adds to each alternative of what it appends to.
  // Past kMaxAppendChain appends followed (`m += ...` line after line), a
  // base is a value named by the variable.
  std::vector<Template> EvalDef(const flow::Def& d, std::string_view name, int depth,
                                DefMemo& memo) {
    using Texts = std::vector<Template>;
    auto settled = [&](const flow::Def& def, int chain) -> std::optional<Texts> {
      if (auto it = memo.find(&def); it != memo.end()) return it->second;
      if (depth > kMaxEvalDepth || chain > kMaxAppendChain ||
          ++eval_steps_ > kMaxEvalStepsPerFile) {
        Texts any{Template::Value(name, ValueKind::kAny)};
        memo.emplace(&def, any);
        return any;
      }
      return std::nullopt;
    };
    auto combine = [&](const flow::Def& def, std::vector<Texts> base_values) {
      Texts out = def.type == flow::Def::Type::kAppend
                      ? EvalAppend(def, name, depth, std::move(base_values))
                      : EvalDefValue(def, name, depth);
      memo.emplace(&def, out);
      return out;
    };
    return flow::EvalDefChain<Texts>(d, settled, combine);
  }

  // An append's alternatives: each of its bases' with what it appends.
  std::vector<Template> EvalAppend(const flow::Def& d, std::string_view name, int depth,
                                   std::vector<std::vector<Template>> base_values) {
    std::vector<Template> bases;
    if (d.base.empty()) bases.push_back(Template::Value(name, ValueKind::kAny));
    for (std::vector<Template>& ts : base_values) {
      for (Template& t : ts) {
        if (bases.size() < kMaxAlternatives) bases.push_back(std::move(t));
      }
    }
    TSNode v = d.value;
    Template tail = Appended(v, depth);
    for (Template& t : bases) {
      if (IsUnset(t)) t = Template();
      t.Append(tail);
      Cap(t, v);
    }
    return bases;
  }

  std::vector<Template> EvalDefValue(const flow::Def& d, std::string_view name, int depth) {
    std::vector<Template> out;
    TSNode v = d.value;
    if (d.type != flow::Def::Type::kValue) {
      out.push_back(Template::Value(name, ValueKind::kAny));
      return out;
    }
    uint16_t k = K(v);
    if (k == kInitDeclarator) {
      TSNode init = Field(v, "value");
      if (K(init) == kArgumentList || K(init) == kInitializerList) {
        std::vector<TSNode> inits = NamedChildren(init);
        init = inits.size() == 1 ? inits[0] : TSNode{};
      }
      // `std::string m(...)`, `std::string m{}`: an empty string to start with.
      bool string_type = IsStringType(d.stmt);
      if (ts_node_is_null(init)) {
        out.push_back(string_type ? Unset() : Template::Value(name, ValueKind::kAny));
      } else if ((string_type && K(init) == kIdentifier) ||
                 (K(init) == kConditional && TextOrNames(init))) {
        out = Alternatives(init, 1);
        if (!std::any_of(out.begin(), out.end(), HasLiteralText)) {
          out = {string_type ? Template() : Template::Value(name, ValueKind::kAny)};
        }
      } else {
        // Numbers change after their definition; only strings are followed.
        out.push_back(IsStringExpression(init) ? Eval(init, depth + 1)
                                               : Template::Value(name, ValueKind::kAny));
      }
    } else if (k == kAssignment) {
      TSNode r = Field(v, "right");
      if (TextOrNames(r)) {
        out = Alternatives(r, 1);  // `msg = other_msg`: what that one holds
        // `val = tmp` between numbers: still a value named by this name.
        if (!std::any_of(out.begin(), out.end(), HasLiteralText)) {
          out = {Template::Value(name, ValueKind::kAny)};
        }
      } else {
        out.push_back(IsStringExpression(r) ? Eval(r, depth + 1)
                                            : Template::Value(name, ValueKind::kAny));
      }
    } else if (k == kCall) {
      // snprintf(buf, size, fmt, ...), PyOS_snprintf, sprintf(buf, fmt, ...): buf holds
      // the formatted text (each alternative of the format).
      std::vector<TSNode> args = Args(v);
      size_t format_at = FormatIntoBuffer(LastComponent(Text(Field(v, "function"))));
      if (format_at == 0 || args.size() <= format_at) {
        out.push_back(Template::Value(name, ValueKind::kAny));
        return out;
      }
      flow::FormatArgs rest;
      for (size_t i = format_at + 1; i < args.size(); ++i)
        rest.positional.push_back(ArgOf(args[i]));
      for (const Template& f : Alternatives(args[format_at], 1)) {
        out.push_back(flow::ApplyFormat(flow::Format::kPrintf, f, rest));
      }
    } else {
      // Declared without a value: `std::string m;` is empty to start with.
      out.push_back(IsStringType(d.stmt) ? Unset() : Template::Value(name, ValueKind::kAny));
    }
    for (Template& t : out) Cap(t, v);
    return out;
  }

  // What an append adds: the right of `m += ...` (what it holds, else a
  // value named by it), the operands of `m << a << b`, StrAppend's.
  Template Appended(TSNode v, int depth) {
    Template tail;
    uint16_t k = K(v);
    if (k == kAssignment) {
      TSNode r = Field(v, "right");
      // Not resolved: `m += m` a thousand times would be as many look-ups.
      return IsStringExpression(r) ? Eval(r, depth + 1)
                                   : Template::Value(CollapseWhitespace(Text(r)), ValueKind::kAny);
    }
    if (k == kBinaryExpression) {
      std::vector<TSNode> operands;
      TSNode left = v;
      while (K(left) == kBinaryExpression && Text(Field(left, "operator")) == "<<" &&
             operands.size() < static_cast<size_t>(kMaxStreamOperands)) {
        operands.push_back(Field(left, "right"));
        left = Field(left, "left");
      }
      for (auto it = operands.rbegin(); it != operands.rend(); ++it)
        tail.Append(Eval(*it, depth + 1));
      return tail;
    }
    if (k == kCall) {
      std::vector<TSNode> args = Args(v);
      for (size_t i = 1; i < args.size(); ++i) tail.Append(Eval(args[i], depth + 1));
    }
    return tail;
  }

  std::string_view DeclaredName(TSNode d) const { return cpp::DeclaredName(d, src_, symbols_); }

  // The `<<` operands that follow a sink call: CHECK(c) << "a" << x.
  Template Streamed(TSNode call) {
    Template t;
    TSNode cur = call;
    for (size_t i = ancestors_.empty() ? 0 : ancestors_.size() - 1;
         i-- > 0 && t.pieces().size() < kMaxPieces;) {
      TSNode p = ancestors_[i];
      if (K(p) != kBinaryExpression || Text(Field(p, "operator")) != "<<" ||
          !SameNode(Field(p, "left"), cur)) {
        break;
      }
      t.Append(Eval(Field(p, "right"), 0));
      cur = p;
    }
    return t;
  }

  static void AppendSpaced(Template& t, const Template& tail) {
    if (tail.empty()) return;
    t.AppendText(" ");
    t.Append(tail);
  }

  // -------------------------------------------------------------- macros

  bool MacroApplies(const MacroDef& def, TSNode call) const {
    bool header = !IsCppSourcePath(def.path) || EndsWith(def.path, ".h") ||
                  EndsWith(def.path, ".hh") || EndsWith(def.path, ".hpp") ||
                  EndsWith(def.path, ".cuh") || EndsWith(def.path, ".inc");
    if (!header && def.path != path_) return false;
    size_t args = Args(call).size();
    bool variadic = !def.params.empty() && def.params.back() == "...";
    size_t fixed = def.params.size() - (variadic ? 1 : 0);
    return variadic ? args >= fixed : args == fixed;
  }

  void Expand(TSNode call, const MacroDef& def) {
    if (macro_depth_ >= kMaxMacroDepth || ++limits_->expansions > kMaxExpansionsPerFile) return;
    TSNode list = Field(call, "arguments");
    std::string_view inner = Text(list);
    if (inner.size() >= 2) inner = inner.substr(1, inner.size() - 2);
    std::string body = ExpandBody(def, SplitMacroArguments(inner));
    if (body.size() > kMaxExpansionBytes) return;
    // Parse the expansion as a function body and take its sites, placed at
    // the invocation.
    std::string snippet = "void errdex_expansion(void) {\n" + body + ";\n}\n";
    ParserPtr parser(ts_parser_new());
    ts_parser_set_language(parser.get(), is_c_ ? CLanguage() : CppLanguage());
    TreePtr tree = limits_->budget->Parse(parser.get(), snippet, kExpansionParseMicros);
    if (!tree) return;
    Extractor sub(path_, snippet, is_c_, macros_, macro_depth_ + 1, limits_);
    FileResult expanded = sub.Run(ts_tree_root_node(tree.get()));
    for (Site& s : expanded.sites) {
      Site site = BaseSite(call, s.kind);
      site.exception = std::move(s.exception);
      site.exception_written = std::move(s.exception_written);
      site.internal = site.internal || s.internal;
      site.cause = std::move(s.cause);
      site.via = def.name;
      // Messages that name the expansion's own location move to the invocation.
      Template msg;
      for (errdex::Piece& p : s.message.mutable_pieces()) {
        if (!p.is_value) {
          std::string from = path_ + ":" + std::to_string(s.line) + ")";
          size_t at = p.text.find(from);
          if (at != std::string::npos) {
            p.text.replace(at, from.size(), path_ + ":" + std::to_string(site.line) + ")");
          }
        }
        msg.AppendPiece(std::move(p));
      }
      Emit(std::move(site), std::move(msg), call);
    }
  }

  // ---------------------------------------------------------------- sites

  // The ancestors of the node the walk is at (it included, last).
  TSNode Root() const { return ancestors_.empty() ? TSNode{} : ancestors_.front(); }

  // Index in ancestors_ of the innermost function or lambda at or above `from`.
  size_t EnclosingFunctionIndex(size_t from) const {
    for (size_t i = from; i-- > 0;) {
      if (K(ancestors_[i]) == kFunctionDefinition || K(ancestors_[i]) == kLambda) return i;
    }
    return std::string::npos;
  }

  TSNode EnclosingFunction() const {
    size_t i = EnclosingFunctionIndex(ancestors_.size());
    return i == std::string::npos ? TSNode{} : ancestors_[i];
  }

  std::string DeclaratorName(TSNode d) const {
    for (int guard = 0; guard < 8 && !ts_node_is_null(d); ++guard) {
      uint16_t k = K(d);
      if (k == kFunctionDeclarator || k == kPointerDeclarator || k == kReferenceDeclarator) {
        d = Field(d, "declarator");
        continue;
      }
      return CollapseWhitespace(Text(d));
    }
    return "";
  }

  // "Class::method", "function", or the name a binding gives a lambda
  // (`m.def("register_xla_transform", [](...) {...})`).
  std::string FunctionName() const {
    std::string name;
    for (size_t i = ancestors_.size(); i-- > 0;) {
      TSNode p = ancestors_[i];
      uint16_t k = K(p);
      if (k == kLambda && name.empty()) {
        if (i >= 2 && K(ancestors_[i - 1]) == kArgumentList && K(ancestors_[i - 2]) == kCall) {
          TSNode first = ts_node_named_child(ancestors_[i - 1], 0);
          if (K(first) == kStringLiteral && !SameNode(first, p)) {
            std::string text;
            AppendLiteral(first, text);
            return text;
          }
        }
        name = "<lambda>";
      }
      if (k == kFunctionDefinition) {
        std::string f = DeclaratorName(Field(p, "declarator"));
        // `TF_ASSIGN_OR_RETURN(auto x, f()) {...}` inside a body reads as a
        // function definition to the grammar: a macro, not a function.
        if (IsMacroName(f) && EnclosingFunctionIndex(i) != std::string::npos) continue;
        name = name.empty() ? f : f + "::" + name;
        for (size_t j = i; j-- > 0;) {
          if (K(ancestors_[j]) == kClassSpecifier || K(ancestors_[j]) == kStructSpecifier) {
            name = std::string(Text(Field(ancestors_[j], "name"))) + "::" + name;
          }
        }
        return name;
      }
    }
    return name;
  }

  // The Python signature a binding gives the lambda around the walk's node
  // (`m.def("f", [](int a, int b) {...}, nb::arg("a"), nb::arg("b") = 1)`), as
  // Site::signature's JSON; "" unless every parameter is named by an arg.
  std::string BindingSignature() const {
    std::string out;
    for (const std::string& n : BindingNames()) {
      out += (out.empty() ? "[" : ",") + ("[\"" + n + "\",\"any\"]");
    }
    return out.empty() ? out : out + "]";
  }

  // The names of that signature, in order; none unless all are named.
  std::vector<std::string> BindingNames() const {
    for (size_t i = ancestors_.size(); i-- > 2;) {
      if (K(ancestors_[i]) != kLambda) continue;
      if (K(ancestors_[i - 1]) != kArgumentList || K(ancestors_[i - 2]) != kCall) return {};
      std::vector<std::string> names;
      bool after = false;
      for (TSNode a : NamedChildren(ancestors_[i - 1])) {
        if (SameNode(a, ancestors_[i])) {
          after = true;
          continue;
        }
        if (!after) continue;
        TSNode call = K(a) == kAssignment ? Field(a, "left") : a;  // nb::arg("x") = default
        if (K(call) != kCall) continue;
        std::string fn = CollapseWhitespace(Text(Field(call, "function")));
        if (fn != "nb::arg" && fn != "py::arg" && fn != "nanobind::arg" && fn != "pybind11::arg") {
          continue;
        }
        TSNode args = Field(call, "arguments");
        TSNode literal = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : TSNode{};
        if (K(literal) != kStringLiteral) return {};
        std::string name;
        AppendLiteral(literal, name);
        if (name.empty() || name.find_first_of("\"\\") != std::string::npos) return {};
        names.push_back(std::move(name));
      }
      TSNode declarator = Field(ancestors_[i], "declarator");
      TSNode params = ts_node_is_null(declarator) ? TSNode{} : Field(declarator, "parameters");
      if (names.empty() || ts_node_is_null(params) ||
          ts_node_named_child_count(params) != names.size()) {
        return {};
      }
      return names;
    }
    return {};
  }

  static bool IsMacroName(std::string_view name) {
    return name.empty() || std::all_of(name.begin(), name.end(), [](char c) {
             return std::isupper(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || c == '_';
           });
  }

  // Parameter names of the function around the walk's node.
  std::vector<std::string> Parameters() const {
    std::vector<std::string> out;
    TSNode f = EnclosingFunction();
    if (ts_node_is_null(f)) return out;
    TSNode d = Field(f, "declarator");
    for (int guard = 0; guard < 8 && !ts_node_is_null(d) && K(d) != kFunctionDeclarator &&
                        ts_node_is_null(Field(d, "parameters"));
         ++guard) {
      d = Field(d, "declarator");
    }
    TSNode params = Field(d, "parameters");
    for (TSNode p : NamedChildren(params)) {
      std::string_view name = DeclaredName(Field(p, "declarator"));
      if (!name.empty()) out.emplace_back(name);
    }
    return out;
  }

  // ------------------------------------------------------------- helpers

  // The class numpy's `npy_cache_import("numpy.core._exceptions",
  // "AxisError", &cls)` stores in `cls`, looked for in the function around
  // the walk's node, then in the file; "" when there is none.
  std::string CachedImport(std::string_view variable) const {
    const std::vector<ImportedClass>& all = ImportedClasses();
    if (all.empty()) return "";
    std::string target = "&" + std::string(variable);
    TSNode f = EnclosingFunction();
    if (!ts_node_is_null(f)) {
      for (const ImportedClass& c : all) {
        if (c.at >= ts_node_start_byte(f) && c.at < ts_node_end_byte(f) && c.target == target) {
          return c.name;
        }
      }
    }
    // A parameter holds whatever the caller passed: no file-wide guess.
    std::vector<std::string> params = ParamList();
    if (std::find(params.begin(), params.end(), variable) != params.end()) return "";
    for (const ImportedClass& c : all) {
      if (c.target == target) return c.name;
    }
    return "";
  }

  struct ImportedClass {
    size_t at = 0;       // where the call is in the file
    std::string target;  // its third argument, `&cls`
    std::string name;    // the class
  };

  // Every `npy_cache_import` of the file, read once: a lookup per argument
  // of every call scanned the whole file again (twice numpy 1.24's index
  // time).
  const std::vector<ImportedClass>& ImportedClasses() const {
    if (imports_read_) return imports_;
    imports_read_ = true;
    static constexpr std::string_view kCall = "npy_cache_import";
    for (size_t at = src_.find(kCall); at != std::string_view::npos;
         at = src_.find(kCall, at + 1)) {
      size_t open = src_.find('(', at);
      size_t close = src_.find(')', open == std::string_view::npos ? at : open);
      if (open == std::string_view::npos || close == std::string_view::npos || close - open > 400) {
        continue;
      }
      std::vector<std::string> args = SplitMacroArguments(src_.substr(open + 1, close - open - 1));
      if (args.size() != 3) continue;
      std::string name = args[1];
      if (name.size() < 3 || name.front() != '"' || name.back() != '"') continue;
      name = name.substr(1, name.size() - 2);
      if (!std::all_of(name.begin(), name.end(), IsIdentChar)) continue;
      imports_.push_back({at, CollapseWhitespace(args[2]), std::move(name)});
    }
    return imports_;
  }

  // Parameter names of the function around the walk's node, `...` for a
  // variadic one, "" for an unnamed one (positions kept).
  std::vector<std::string> ParamList() const {
    std::vector<std::string> out;
    TSNode f = EnclosingFunction();
    if (ts_node_is_null(f) || K(f) != kFunctionDefinition) return out;
    TSNode d = Field(f, "declarator");
    for (int guard = 0; guard < 8 && !ts_node_is_null(d) && ts_node_is_null(Field(d, "parameters"));
         ++guard) {
      d = Field(d, "declarator");
    }
    for (TSNode p : Children(Field(d, "parameters"))) {
      if (K(p) == kVariadicParameterDeclaration || Text(p) == "...") {
        out.emplace_back("...");
      } else if (K(p) == kParameterDeclaration || K(p) == kOptionalParameterDeclaration) {
        out.emplace_back(DeclaredName(Field(p, "declarator")));
      }
    }
    return out;
  }

  // The plain name of the function around the walk's node and whether it is
  // `static` (visible in its own file only).
  std::pair<std::string, bool> PlainFunction() const {
    TSNode f = EnclosingFunction();
    if (ts_node_is_null(f) || K(f) != kFunctionDefinition) return {"", false};
    std::string name = DeclaratorName(Field(f, "declarator"));
    size_t open = name.find('(');
    if (open != std::string::npos)
      name = DeclaratorName(Field(Field(f, "declarator"), "declarator"));
    bool is_static = false;
    for (TSNode c : NamedChildren(f)) {
      if (SameNode(c, Field(f, "body"))) break;
      if (Text(c) == "static") is_static = true;
    }
    return {std::string(LastComponent(name)), is_static};
  }

  TSNode Unwrapped(TSNode n) const {
    for (int guard = 0; guard < 8; ++guard) {
      if (K(n) == kParenthesized && ts_node_named_child_count(n) == 1) {
        n = ts_node_named_child(n, 0);
      } else if (K(n) == kCastExpression) {
        n = Field(n, "value");
      } else {
        break;
      }
    }
    return n;
  }

  // A Python C-API sink whose message or format is a parameter of the
  // function around it: that function is a helper its callers raise through.
  void NoteHelper(const SinkInfo& info, std::string_view callee, const std::vector<TSNode>& args,
                  bool guarded) {
    size_t msg_at = 1;
    flow::HelperSink h;
    bool printf = false;
    switch (info.sink) {
      case Sink::kPyErrSetString:
        break;
      case Sink::kPyErrFormat:
        printf = true;
        break;
      case Sink::kPyWarn:
        h.kind = SiteKind::kWarning;
        break;
      case Sink::kPyWarnFormat:
        h.kind = SiteKind::kWarning;
        printf = true;
        msg_at = 2;
        break;
      case Sink::kNumpyDeprecate:
        h.kind = SiteKind::kWarning;
        h.exception = info.exception;
        msg_at = 0;
        break;
      case Sink::kPyErrObject:
        if (!info.exception.empty()) return;
        break;
      default:
        return;
    }
    if (args.size() <= msg_at) return;
    TSNode m = Unwrapped(args[msg_at]);
    std::vector<std::string> params = ParamList();
    auto is_param = [&](std::string_view name) {
      return std::find(params.begin(), params.end(), name) != params.end();
    };
    if (info.sink == Sink::kPyErrObject) {
      // Only the type passed in: the value is the helper's own object.
      std::string type(Trim(Text(Unwrapped(args[0]))));
      if (!is_param(type) || (K(m) == kIdentifier && is_param(Text(m)))) return;
      h.type_param = std::move(type);
      h.message = Message(args[msg_at]);
    } else {
      if (K(m) != kIdentifier || !is_param(Text(m))) return;
      h.message = Template::Value(std::string(Text(m)), ValueKind::kAny);
    }
    auto [name, is_static] = PlainFunction();
    if (name.empty()) return;
    h.name = name;
    h.path = path_;
    h.file_local = is_static;
    if (info.sink != Sink::kNumpyDeprecate && info.sink != Sink::kPyErrObject) {
      if (!info.exception.empty()) {
        h.exception = info.exception;
      } else if (std::string type(Trim(Text(Unwrapped(args[0])))); is_param(type)) {
        h.type_param = std::move(type);
      } else {
        h.exception = PythonTypeOf(Text(args[0]));
      }
    }
    if (printf) {
      flow::SinkRaise::Fill fill;
      fill.format = flow::Format::kPyPrintf;
      if (EndsWith(callee, "FormatV")) {
        // `...`, or the va_list parameter its own caller fills.
        fill.variadic = is_param("...") || (args.size() > msg_at + 1 &&
                                            is_param(Trim(Text(Unwrapped(args[msg_at + 1])))));
      } else {
        for (size_t i = msg_at + 1; i < args.size(); ++i) {
          fill.args.push_back(Arg{CollapseWhitespace(Text(args[i])), std::nullopt});
        }
      }
      h.fill = std::move(fill);
    }
    h.params = std::move(params);
    h.guarded = guarded;
    result_.helpers.sinks.push_back(std::move(h));
  }

  // A call of a plain function that passes text (or one of its caller's
  // parameters, for chains of helpers): kept for LinkHelpers.
  void RecordCall(TSNode call, std::string_view callee) {
    if (macro_depth_ > 0 || IsMacroName(callee) ||
        result_.helpers.calls.size() >= kMaxHelperCallsPerFile) {
      return;
    }
    std::vector<TSNode> args = Args(call);
    if (args.empty()) return;
    std::vector<std::string> params = ParamList();
    bool useful = false;
    bool text = false;  // else only a parameter passed on: a chain, never a site
    bool typed = false;  // an exception type passed: a site of a type-only helper
    flow::HelperCall c;
    for (TSNode a : args) {
      TSNode u = Unwrapped(a);
      c.args.push_back(CollapseWhitespace(Text(a)));
      c.values.emplace_back();
      if (K(u) == kIdentifier || K(u) == kFieldExpression) {
        std::string type = PythonTypeOf(Text(u));
        // numpy 1.x: a class npy_cache_import stored in a local.
        if (K(u) == kIdentifier) {
          std::string imported = CachedImport(Text(u));
          if (!imported.empty()) type = c.args.back() = imported;
        }
        typed = typed || NamesExceptionType(Text(u), type);
      }
      if (IsStringExpression(u) && !IsLiteralFreeCall(u)) {
        c.values.back() = Alternatives(u);
        text = text || std::any_of(c.values.back().begin(), c.values.back().end(), HasLiteralText);
        useful = useful || text;
      } else if (K(u) == kIdentifier &&
                 std::find(params.begin(), params.end(), Text(u)) != params.end()) {
        useful = true;
      }
    }
    if (!useful) return;
    c.callee = std::string(callee);
    auto fn = PlainFunction();
    c.caller = fn.first;
    c.caller_file_local = fn.second;
    c.caller_params = std::move(params);
    if (text || typed) {
      c.site = BaseSite(call, SiteKind::kRaise);
    } else {
      c.site.path = path_;  // where LinkHelpers looks the callee up
    }
    result_.helpers.calls.push_back(std::move(c));
  }

  // `x.c_str()`, `s.data()`: text, but none of the call's own.
  bool IsLiteralFreeCall(TSNode n) const {
    return K(n) == kCall && K(Field(n, "function")) == kFieldExpression;
  }

  // ------------------------------------------------------------- guards

  // The conditions on the way from the enclosing function's body to the
  // node the walk is at, outermost first.
  std::vector<Guard> Guards() {
    size_t fn = EnclosingFunctionIndex(ancestors_.size());
    if (fn == std::string::npos || fn + 1 >= ancestors_.size()) return {};
    return CppGuards(ancestors_[fn], ancestors_.back(), src_, is_c_, guards_);
  }

  Site BaseSite(TSNode at, SiteKind kind) {
    TSNode stmt = at;
    for (size_t i = ancestors_.size(); i-- > 0;) {
      uint16_t k = K(ancestors_[i]);
      if (k == kExpressionStatement || k == kReturn || k == kThrow || k == kDeclaration) {
        stmt = ancestors_[i];
        break;
      }
      if (k == kCompoundStatement || k == kFunctionDefinition) break;
    }
    Site s;
    s.kind = kind;
    s.language = is_c_ ? "c" : "cpp";
    s.path = path_;
    s.line = StartLine(at);
    s.column = StartColumn(at);
    s.end_line = std::max(s.line, EndLine(stmt));
    s.function = FunctionName();
    s.signature = BindingSignature();
    s.statement = std::string(TruncateUtf8(Text(stmt), kMaxStatementBytes));
    lines_.FillExcerpt(s, kExcerptBefore, kExcerptAfter, kMaxExcerptBytes);
    s.guards = Guards();
    s.trigger = TriggerSentence(s.guards);
    s.internal = LooksUnreachable(s.guards);
    return s;
  }

  void Emit(Site site, Template msg, TSNode at) {
    std::vector<Template> others = std::move(alternatives_);
    alternatives_.clear();
    EmitOne(site, std::move(msg), at);
    for (Template& other : others) EmitOne(site, std::move(other), at);
  }

  void EmitOne(Site site, Template msg, TSNode at) {
    // A helper that only forwards its parameters (`Status InvalidArgument(
    // format, args...)`, `type_error(msg, obj)`) is not an error of its own.
    if (msg.IsDynamic()) {
      std::vector<std::string> params = Parameters();
      bool forwards = !params.empty();
      for (const errdex::Piece& p : msg.pieces()) {
        std::string_view expr = p.text;
        size_t cut = expr.find_first_of(".(-[ ");
        std::string_view head = expr.substr(0, cut);
        if (EndsWith(head, "...")) head.remove_suffix(3);
        forwards = forwards && std::find(params.begin(), params.end(), head) != params.end();
      }
      if (forwards) {
        NonSiteAt(at, "forwards-parameter");
        return;
      }
    }
    site.message = std::move(msg);
    site.message.AssignNames();
    // A macro that expands to the same sink twice raises one error there.
    std::string key = std::to_string(site.line) + ":" + std::to_string(site.column) + ":" +
                      site.exception + ":" + site.message.Display();
    if (!emitted_.insert(std::move(key)).second) return;
    result_.sites.push_back(std::move(site));
  }

  void NonSiteAt(TSNode n, const char* reason) {
    result_.non_sites.push_back(NonSite{path_, StartLine(n), reason});
  }

  TestedNameCache tested_;  // the names the function around the walk tests
  std::string path_;
  std::string_view src_;
  flow::GuardCache guards_;  // early exits of the blocks, read once per file
  mutable bool imports_read_ = false;
  mutable std::vector<ImportedClass> imports_;  // ImportedClasses()
  bool is_c_;
  const MacroTable& macros_;
  const SymbolTable& symbols_;
  int macro_depth_;
  Limits* limits_;
  SourceLines lines_{src_};
  FileResult result_;
  std::unordered_set<uint32_t> consumed_;
  std::unordered_map<uint32_t, int> function_at_;  // start byte → facts.functions
  std::unordered_set<std::string> emitted_;
  std::vector<Template> alternatives_;
  std::vector<TSNode>
      ancestors_;  // root ... the node the walk is at  // other messages of the sink being handled
  int eval_steps_ = 0;
  int resolving_ = 0;  // ResolveAll calls under way (names that refer to each other)
  std::unordered_map<uint32_t, std::vector<Template>> resolved_;  // by the use's offset
  flow::FlowBodies flow_bodies_;
  int64_t flow_budget_ = kMaxFlowStatementsPerFile;  // statements the data flow may visit
  std::unordered_map<std::string, std::optional<std::vector<Template>>> globals_;
};

// Names that make a macro body a sink, for SinkMacros.
bool MentionsSink(std::string_view body) {
  for (size_t i = 0; i < body.size();) {
    if (body[i] == '"') {
      size_t j = i + 1;
      while (j < body.size() && body[j] != '"') j += body[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (!IsIdentStart(body[i]) || (i > 0 && IsIdentChar(body[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && IsIdentChar(body[j])) ++j;
    std::string_view word = body.substr(i, j - i);
    if (word == "throw") return true;
    // A qualified name: take the scope with it.
    size_t b = i;
    while (b >= 2 && body[b - 1] == ':' && body[b - 2] == ':') {
      size_t s = b - 2;
      while (s > 0 && IsIdentChar(body[s - 1])) --s;
      b = s;
    }
    SinkInfo info = ClassifyName(body.substr(b, j - b), false);
    if (info.sink != Sink::kNone && info.sink != Sink::kLogFatal &&
        info.sink != Sink::kStatusHelper && info.sink != Sink::kStatusCtor) {
      return true;
    }
    i = j;
  }
  return false;
}

}  // namespace

void LinkHelpers(std::vector<FileResult>& files) {
  flow::HelperLanguage c;
  c.type_named = [](std::string_view written, int) -> std::optional<std::string> {
    std::string type = PythonTypeOf(written);
    if (!NamesExceptionType(written, type)) return std::nullopt;
    return type;
  };
  c.max_depth = kMaxHelperDepth;
  flow::LinkHelpers(files, c);
}

bool IsCppSourcePath(std::string_view path, bool* is_c) {
  static constexpr std::string_view kCpp[] = {".cc",  ".cpp", ".cxx", ".h",   ".hh",
                                              ".hpp", ".cu",  ".cuh", ".inc", ".c++"};
  // numpy's .c.src/.h.src templates are C with @TYPE@ markers, which the
  // parser recovers from.
  if (EndsWith(path, ".c") || EndsWith(path, ".c.src") || EndsWith(path, ".h.src")) {
    if (is_c != nullptr) *is_c = true;
    return true;
  }
  for (std::string_view ext : kCpp) {
    if (EndsWith(path, ext)) {
      if (is_c != nullptr) *is_c = false;
      return true;
    }
  }
  return false;
}

void CollectMacros(std::string_view path, std::string_view text, std::vector<MacroDef>& out) {
  size_t line_no = 1;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(i, end - i);
    size_t this_line = line_no;
    std::string logical(line);
    // Line splices: a #define continues while a line ends with a backslash.
    size_t next = end + 1;
    ++line_no;
    std::string_view t = Trim(line);
    if (StartsWith(t, "#")) {
      while (!logical.empty() && (logical.back() == '\\' || logical.back() == '\r') &&
             next < text.size()) {
        if (logical.back() == '\r') {
          logical.pop_back();
          continue;
        }
        logical.pop_back();
        size_t e2 = text.find('\n', next);
        if (e2 == std::string_view::npos) e2 = text.size();
        logical.push_back(' ');
        logical.append(text.substr(next, e2 - next));
        next = e2 + 1;
        ++line_no;
        if (logical.size() > kMaxExpansionBytes) break;
      }
      std::string_view d = Trim(std::string_view(logical));
      d.remove_prefix(1);
      d = Trim(d);
      if (StartsWith(d, "define") && d.size() > 6 && (d[6] == ' ' || d[6] == '\t')) {
        d.remove_prefix(6);
        d = Trim(d);
        size_t k = 0;
        while (k < d.size() && IsIdentChar(d[k])) ++k;
        if (k > 0 && k < d.size() && d[k] == '(') {
          size_t close = d.find(')', k);
          if (close != std::string_view::npos) {
            MacroDef def;
            def.name = std::string(d.substr(0, k));
            for (const std::string& p : SplitMacroArguments(d.substr(k + 1, close - k - 1))) {
              if (!p.empty()) def.params.push_back(EndsWith(p, "...") ? "..." : p);
            }
            def.body = std::string(Trim(d.substr(close + 1)));
            def.path = std::string(path);
            def.line = static_cast<int>(this_line);
            out.push_back(std::move(def));
          }
        }
      }
    }
    i = next;
  }
}

MacroTable SinkMacros(std::vector<MacroDef> defs) {
  MacroTable sinks;
  std::vector<MacroDef> rest;
  for (MacroDef& d : defs) {
    if (sinks.count(d.name) != 0) continue;
    if (MentionsSink(d.body)) {
      sinks.emplace(d.name, std::move(d));
    } else {
      rest.push_back(std::move(d));
    }
  }
  // A macro that calls a sink macro is one too (`A(x)` -> `B(x)` -> PyErr).
  for (int round = 0; round < kMaxMacroDepth; ++round) {
    std::vector<MacroDef> still;
    for (MacroDef& d : rest) {
      bool calls = false;
      for (size_t i = 0; i < d.body.size() && !calls;) {
        if (!IsIdentStart(d.body[i]) || (i > 0 && IsIdentChar(d.body[i - 1]))) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < d.body.size() && IsIdentChar(d.body[j])) ++j;
        calls = j < d.body.size() && d.body[j] == '(' && sinks.count(d.body.substr(i, j - i)) != 0;
        i = j;
      }
      if (calls && sinks.count(d.name) == 0) {
        sinks.emplace(d.name, std::move(d));
      } else {
        still.push_back(std::move(d));
      }
    }
    if (still.size() == rest.size()) break;
    rest = std::move(still);
  }
  return sinks;
}

namespace {

// C and C++ have no declared encoding; text that is not UTF-8 is read as
// Latin-1 (every byte a character), so a stray byte in a comment costs nothing.
std::string DecodeNative(std::string bytes, std::vector<FileIssue>& issues, std::string_view path) {
  if (IsValidUtf8(bytes)) return bytes;
  issues.push_back(FileIssue{std::string(path), "not-utf8", "read as Latin-1", false});
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char c : bytes) AppendUtf8(static_cast<unsigned char>(c), out);
  return out;
}

// What the directive whose `#` is at `hash` does to the `#if` groups.
enum class GroupStep { kNone, kOpen, kArm, kClose };
GroupStep DirectiveStep(std::string_view text, size_t hash) {
  size_t word = hash + 1;
  while (word < text.size() && (text[word] == ' ' || text[word] == '\t')) ++word;
  size_t end = word;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  std::string_view name = text.substr(word, end - word);
  if (name == "if" || name == "ifdef" || name == "ifndef") return GroupStep::kOpen;
  if (name == "else" || name == "elif" || name == "elifdef" || name == "elifndef") {
    return GroupStep::kArm;
  }
  return name == "endif" ? GroupStep::kClose : GroupStep::kNone;
}

// `#if` inside a call's parentheses (one message for macOS, another for the
// rest) splits an expression where no C grammar accepts a directive: the
// call became a site whose message was the directive's text. Inside
// parentheses, each directive line is blanked and so is every branch after
// the first (`#elif`, `#else`), bytes and line breaks kept, so the first
// branch reads as the argument it is. Directives outside parentheses are
// the grammar's to read, both branches included. Returns whether anything
// changed.
bool BlankDirectivesInExpressions(std::string& text) {
  struct Frame {
    bool ours = false;  // opened inside parentheses
    bool later = false;  // past the first branch
  };
  std::vector<Frame> frames;
  int depth = 0;
  bool changed = false;
  bool line_start = true;
  auto blanking = [&] { return !frames.empty() && frames.back().ours && frames.back().later; };
  auto blank_line = [&](size_t from) {  // to the end of the line, `\` splices included
    size_t at = from;
    while (at < text.size() && text[at] != '\n') {
      if (text[at] == '\\' && at + 1 < text.size() && text[at + 1] == '\n') {
        text[at] = ' ';
        at += 2;
        continue;
      }
      text[at++] = ' ';
    }
    changed = true;
    return at;
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && (c == ' ' || c == '\t')) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {
      GroupStep step = DirectiveStep(text, i);
      bool inside = depth > 0 || blanking();
      if (step == GroupStep::kOpen) {
        frames.push_back({inside, false});
      } else if (step == GroupStep::kArm && !frames.empty()) {
        if (frames.back().ours) frames.back().later = true;
        inside = inside || frames.back().ours;
      } else if (step == GroupStep::kClose && !frames.empty()) {
        inside = inside || frames.back().ours;
        frames.pop_back();
      }
      if (inside) {
        i = blank_line(i);
      } else {
        while (i < text.size() && text[i] != '\n') {
          i += (text[i] == '\\' && i + 1 < text.size()) ? 2 : 1;
        }
      }
      continue;
    }
    line_start = false;
    if (blanking()) {
      text[i++] = ' ';
      changed = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t close = text.find("*/", i + 2);
      i = close == std::string::npos ? text.size() : close + 2;
    } else {
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && depth > 0) --depth;
      // A brace ends whatever unbalanced parentheses a macro left open.
      if (c == '{' || c == '}' || c == ';') depth = 0;
      ++i;
    }
  }
  return changed;
}

// Whether a string or character literal starts at `i`: a quote, but not
// the digit separator of C++14's `1'000`.
bool StartsLiteral(std::string_view text, size_t i) {
  if (text[i] == '"') return true;
  return text[i] == '\'' && (i == 0 || !IsIdentChar(text[i - 1]));
}

// Where the literal starting at `i` ends: its closing quote, the line
// break that ends it unclosed (which is the caller's to read), or the
// text's end. C++'s raw strings (`R"d(...)d"`, with `L`, `u`, `U` or `u8`
// before the `R`) may hold line breaks and quotes.
size_t SkipLiteral(std::string_view text, size_t i) {
  const size_t n = text.size();
  char quote = text[i];
  auto ident_before = [&](size_t at) { return at > 0 && IsIdentChar(text[at - 1]); };
  bool raw = false;
  if (quote == '"' && i > 0 && text[i - 1] == 'R') {
    size_t r = i - 1;
    size_t prefix = r;
    if (prefix >= 2 && text[prefix - 2] == 'u' && text[prefix - 1] == '8') {
      prefix -= 2;
    } else if (prefix >= 1 &&
               (text[prefix - 1] == 'L' || text[prefix - 1] == 'u' || text[prefix - 1] == 'U')) {
      prefix -= 1;
    }
    raw = !ident_before(prefix) || !ident_before(r);
  }
  if (raw) {
    // A delimiter is at most 16 characters: looked for no further.
    size_t open = text.substr(i, 18).find('(');
    if (open != std::string_view::npos) {
      open += i;
      std::string close = ")" + std::string(text.substr(i + 1, open - i - 1)) + "\"";
      size_t end = text.find(close, open);
      return end == std::string_view::npos ? n : end + close.size() - 1;
    }
  }
  for (++i; i < n && text[i] != quote && text[i] != '\n'; ++i) {
    if (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
  }
  return i;
}

// Walks C/C++ text by the preprocessor's lines: `on_directive(step, at)`
// for each directive (its `#` at `at`; a spliced one is one directive) and
// `on_brace(c)` for each `{` or `}` outside directives, literals and
// comments.
template <typename OnDirective, typename OnBrace>
void WalkDirectivesAndBraces(std::string_view text, OnDirective on_directive, OnBrace on_brace) {
  bool line_start = true;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && (c == ' ' || c == '\t' || c == '\r')) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {
      on_directive(DirectiveStep(text, i), i);
      // A splice (`\` before `\n` or `\r\n`) goes on to the next line.
      while (i < text.size() && text[i] != '\n') {
        if (text[i++] != '\\') continue;
        if (i < text.size() && text[i] == '\r') ++i;
        if (i < text.size()) ++i;
      }
      continue;
    }
    line_start = false;
    if (StartsLiteral(text, i)) {
      i = SkipLiteral(text, i);
      if (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t close = text.find("*/", i + 2);
      i = close == std::string_view::npos ? text.size() : close + 2;
    } else {
      if (c == '{' || c == '}') on_brace(c);
      ++i;
    }
  }
}

// `#if A` / `if (x) {` / `#else` / `if (y) {` / `#endif` opens one brace
// in each branch: read both, as the grammar does, the function has a `{`
// too many and is lost, with the names of the functions its sites are in
// (numpy's arr_add_docstring). A compiler reads one branch; so does the
// second parse: of a group where a branch after the first changes the
// brace depth as the first does, the branches after the first are
// blanked, bytes and line breaks kept. Returns whether anything changed.
bool BlankBranchesThatChangeBraces(std::string& text) {
  struct Group {
    size_t later = std::string::npos;  // the first `#elif`/`#else`
    int branch = 0;
    int first = 0;  // the first branch's change of depth
    int depth = 0;  // the current branch's
    bool others_change = false;
  };
  std::vector<Group> groups;
  std::vector<std::pair<size_t, size_t>> blank;
  // An arm opening what the first opens too: `#if 0` / `#else` / `{`
  // changes nothing in its first arm, and its other arm is what compiles.
  auto end_branch = [&](Group& g) {
    if (g.branch == 0) {
      g.first = g.depth;
    } else if (g.depth != 0 && g.depth == g.first) {
      g.others_change = true;
    }
    g.depth = 0;
    ++g.branch;
  };
  WalkDirectivesAndBraces(
      text,
      [&](GroupStep step, size_t at) {
        if (step == GroupStep::kOpen) {
          groups.emplace_back();
        } else if (step == GroupStep::kArm && !groups.empty()) {
          if (groups.back().later == std::string::npos) groups.back().later = at;
          end_branch(groups.back());
        } else if (step == GroupStep::kClose && !groups.empty()) {
          Group g = groups.back();
          groups.pop_back();
          end_branch(g);
          if (g.others_change) blank.emplace_back(g.later, at);
          if (!groups.empty()) groups.back().depth += g.first;
        }
      },
      [&](char brace) {
        if (!groups.empty()) groups.back().depth += brace == '{' ? 1 : -1;
      });
  // A group inside a blanked arm is blanked with it: each byte once.
  std::sort(blank.begin(), blank.end());
  size_t done = 0;
  for (auto [from, to] : blank) {
    for (size_t k = std::max(from, done); k < to && k < text.size(); ++k) {
      if (text[k] != '\n') text[k] = ' ';
    }
    done = std::max(done, to);
  }
  return !blank.empty();
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

// tree-sitter's C and C++ grammars end a directive's text at a `/* */`
// comment. In numpy's `#define _ADDDOC(doc, name) ... Py_INCREF(str); /*
// hold on to string */ \` the rest of the body was read as code of the
// function around it, which became a function named `if`, and the
// function's later sites had none. The preprocessor reads a comment as a
// space; so does the parse: each comment inside a directive is blanked, a
// line break inside one kept with a splice before it so that the directive
// goes on. Only inside a function's braces: at file level, the rest of a
// macro read as code is most often a function's text (numpy's
// DECLARE_TO_INT), whose sites that misreading is what finds. Strings,
// character literals and comments outside directives are skipped, so that
// a `#` inside them starts nothing. The copy is only parsed: every text is
// read from the source.
bool BlankCommentsInDirectives(std::string& text) {
  bool changed = false;
  bool line_start = true, directive = false;
  int depth = 0;  // of braces outside directives
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c == '\n') {
      size_t b = i > 0 && text[i - 1] == '\r' ? i - 1 : i;
      if (!(b > 0 && text[b - 1] == '\\')) directive = false;
      line_start = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') continue;
    if (line_start && c == '#') directive = true;
    line_start = false;
    if (StartsLiteral(text, i)) {
      size_t end = SkipLiteral(text, i);
      // A directive's text is opaque to the grammar: a `/*` in a string
      // there opened a comment that ran to the next `*/` of the file.
      for (size_t k = i + 1; directive && depth > 0 && k < end && k + 1 < n; ++k) {
        if (text[k] == '/' && text[k + 1] == '*') {
          text[k] = ' ';
          changed = true;
        }
      }
      i = end;
      if (i < n && text[i] == '\n') --i;  // the line break is the loop's
      continue;
    }
    if (!directive && c == '{') ++depth;
    if (!directive && c == '}' && depth > 0) --depth;
    if (c != '/' || i + 1 >= n) continue;
    if (text[i + 1] == '/') {
      while (i + 1 < n && text[i + 1] != '\n') ++i;
      continue;
    }
    if (text[i + 1] != '*') continue;
    size_t end = text.find("*/", i + 2);
    end = end == std::string::npos ? n : end + 2;
    if (directive && depth > 0) {
      for (size_t k = i; k < end; ++k) {
        // `\r\n`: the `\r`, blanked already, becomes the splice. After a
        // blank line inside the comment none fits: the directive ends there.
        if (text[k] == '\n') {
          if (text[k - 1] != '\n') text[k - 1] = '\\';
        } else {
          text[k] = ' ';
        }
      }
      changed = true;
    }
    i = end - 1;
  }
  return changed;
}

// How deep `#if` groups and braces nest. tree-sitter 0.20.7 frees a
// tree some 15,000 levels deep twice (ASan: a double free in
// ts_subtree_release; found by hostile files, 17,000 nested `#if A {`
// groups, or 15,000 `#ifdef A` / `if (x) {` / `#endif` in a row; 10,000
// are freed). No source nests either more than a few dozen deep. Strings,
// character literals and comments are skipped.
int Nesting(std::string_view text) {
  int groups = 0, braces = 0, deepest = 0;
  WalkDirectivesAndBraces(
      text,
      [&](GroupStep step, size_t) {
        if (step == GroupStep::kOpen) deepest = std::max(deepest, ++groups);
        if (step == GroupStep::kClose && groups > 0) --groups;
      },
      [&](char brace) {
        if (brace == '{') deepest = std::max(deepest, ++braces);
        if (brace == '}' && braces > 0) --braces;
      });
  return deepest;
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

}  // namespace

FileResult ExtractCppBytes(TSParser* parser, std::string_view path, std::string bytes,
                           const MacroTable& macros) {
  FileResult result;
  bool is_c = false;
  IsCppSourcePath(path, &is_c);
  std::string text = DecodeNative(std::move(bytes), result.issues, path);
  if (!is_c && EndsWith(path, ".h") && !LooksLikeCpp(text)) is_c = true;
  if (int deepest = Nesting(text); deepest > kMaxNesting) {
    result.issues.push_back(FileIssue{std::string(path), "too-deep",
                                      "#if groups or braces nested " + std::to_string(deepest) +
                                          " deep, over " + std::to_string(kMaxNesting),
                                      true});
    return result;
  }
  // The tree is of the blanked copy; offsets agree, and sites quote the source.
  std::string parsed = text;
  BlankCommentsInDirectives(parsed);
  if (!is_c) BlankAssignOrReturn(parsed);
  ts_parser_set_language(parser, is_c ? CLanguage() : CppLanguage());
  ParseBudget budget(parser);
  TreePtr tree = budget.Parse(parsed);
  bool again = false;
  if (tree && ts_node_has_error(ts_tree_root_node(tree.get()))) {
    again = BlankDirectivesInExpressions(parsed);
    again = BlankBranchesThatChangeBraces(parsed) || again;
  }
  if (again) {
    // Out of time on the second parse, the first tree, errors and all, is
    // still better than none; blanking keeps offsets, so it reads the same.
    if (TreePtr second = budget.Parse(parsed)) tree = std::move(second);
  }
  if (!tree) {
    result.issues.push_back(
        FileIssue{std::string(path), "parse-timeout", "parsing took too long", true});
    return result;
  }
  Limits limits{0, &budget};
  Extractor x(path, text, is_c, macros, 0, &limits);
  std::vector<FileIssue> issues = std::move(result.issues);
  result = x.Run(ts_tree_root_node(tree.get()));
  result.issues = std::move(issues);
  TSNode root = ts_tree_root_node(tree.get());
  // Macros and templates defeat the grammar often; the sites around an error
  // are still found, so this is noted, not fatal.
  if (ts_node_has_error(root)) {
    result.issues.push_back(
        FileIssue{std::string(path), "syntax-error", FirstErrorLine(root), false});
  }
  return result;
}

}  // namespace errdex::extract::cpp
