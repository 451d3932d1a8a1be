#include "analyze/family.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "core/native_errors.h"
#include "core/text.h"

namespace errdex::analyze {
namespace {

const std::vector<Family> kFamilies = {
    {"deprecated", "Deprecated or removed API",
     "A feature that is deprecated, or has been removed, was used."},
    {"tracing-misuse", "Tracing or concretization misuse",
     "A traced, abstract value was used where a concrete Python value is needed, under jit or "
     "another transformation."},
    {"missing-dependency", "Missing optional dependency",
     "A module or package the code needs is not installed or failed to import."},
    {"version-mismatch", "Version or compatibility mismatch",
     "Components of different versions, or a version older than required, are used together."},
    {"internal-assertion", "Internal assertion",
     "A check the library makes of itself failed: a bug or a broken invariant, not a usage "
     "error."},
    {"failed-check", "Requested check failed",
     "A check the calling code asked for, through an assert function of a testing or mocking "
     "API, found values other than the ones expected."},
    {"shape-mismatch", "Shape or rank mismatch",
     "Array shapes, ranks, axes or dimensions do not fit the operation."},
    {"dtype-mismatch", "Dtype mismatch",
     "An element type is not one the operation supports, or does not match another operand's."},
    {"conflicting-arguments", "Conflicting arguments",
     "Arguments that exclude or require each other were given together, or one without the "
     "other."},
    {"invalid-choice", "Invalid choice or enum value",
     "An argument names an option, mode or enum member the code does not accept."},
    {"wrong-type", "Wrong argument type",
     "A value of one type was passed where the code requires another."},
    {"out-of-range", "Value or index out of range",
     "A number, index, size or count falls outside the bounds the code allows."},
    {"missing-attribute", "Missing attribute",
     "An object lacks an attribute or method it was asked for."},
    {"missing-key", "Missing key or name", "A key, name or entry that was looked up is not there."},
    {"not-implemented", "Unsupported feature",
     "The requested feature, combination, backend or platform is not implemented."},
    {"invalid-state", "Invalid state or call order",
     "An object was used in a state that does not allow the call: closed, not initialised, already "
     "done, out of order."},
    {"resource-exhausted", "Resource exhausted",
     "Memory, recursion depth, handles or another limited resource ran out."},
    {"parse-error", "Parse or format error",
     "Text or data could not be parsed, decoded or does not follow the expected format."},
    {"io-error", "File or I/O error", "A file, directory, stream or device operation failed."},
    {"network-timeout", "Network or timeout",
     "A connection failed, or an operation did not finish in time."},
    {"arithmetic", "Arithmetic error",
     "A numeric operation failed: division by zero, overflow, a non-finite value."},
    {"invalid-value", "Invalid argument value",
     "An argument's value is not acceptable, for a reason other than its type, range or choice."},
    {"runtime-warning", "Runtime warning",
     "A warning that the code may not behave as intended; execution goes on."},
    {"other", "Other", "Errors no rule of the taxonomy places in a family."},
};

bool Any(const std::vector<std::string>& ancestry, std::initializer_list<std::string_view> names) {
  for (const std::string& a : ancestry) {
    for (std::string_view n : names) {
      if (a == n) return true;
    }
  }
  return false;
}

// The first of `words` the lowercased message contains, or empty.
std::string_view Says(const std::string& message, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (message.find(w) != std::string::npos) return w;
  }
  return {};
}

// A whole word of the message: `words` contains "rank" but "frank" does not.
std::string_view SaysWord(const std::string& message,
                          std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    for (size_t at = message.find(w); at != std::string::npos; at = message.find(w, at + 1)) {
      bool left = at == 0 || !IsIdentChar(message[at - 1]);
      size_t end = at + w.size();
      bool right = end >= message.size() || !IsIdentChar(message[end]);
      if (left && right) return w;
    }
  }
  return {};
}

// Whether every whole-word `word` of the message ends a hyphenated name:
// "Missing Metadata-Version" names a field, not a version of anything.
bool HyphenatedOnly(const std::string& message, std::string_view word) {
  for (size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + 1)) {
    size_t end = at + word.size();
    bool whole = (at == 0 || !IsIdentChar(message[at - 1])) &&
                 (end >= message.size() || !IsIdentChar(message[end]));
    if (whole && (at == 0 || message[at - 1] != '-')) return false;
  }
  return true;
}

// A whole-word "shape" or "shapes" of the message that is an array's, or "".
// A distribution's "shape parameter", botocore's model shapes ("shape
// map", "shape reference", "error shape") and turtle's ("no shape named
// turtle") are other shapes.
std::string_view SaysArrayShape(const std::string& message) {
  static constexpr std::string_view kOtherAfter[] = {
      " parameter", " named", " name",   " type",      " map",   " model",
      " reference", " ref",   " matrix", " transform", " object"};
  static constexpr std::string_view kOtherBefore[] = {"error ", "no ", "missing "};
  for (size_t at = message.find("shape"); at != std::string::npos;
       at = message.find("shape", at + 1)) {
    size_t end = at + 5;
    if (end < message.size() && message[end] == 's') ++end;
    bool whole = (at == 0 || !IsIdentChar(message[at - 1])) &&
                 (end >= message.size() || !IsIdentChar(message[end]));
    if (!whole) continue;
    std::string_view after = std::string_view(message).substr(end);
    std::string_view before = std::string_view(message).substr(0, at);
    bool other = std::any_of(std::begin(kOtherAfter), std::end(kOtherAfter),
                             [&](std::string_view w) { return StartsWith(after, w); }) ||
                 std::any_of(std::begin(kOtherBefore), std::end(kOtherBefore),
                             [&](std::string_view w) { return EndsWith(before, w); });
    if (!other) return end - at == 5 ? "shape" : "shapes";
  }
  return {};
}

// "PyYAML is not installed", "matplotlib is not installed", "{cmd} is not
// installed" (a value names it): a package or a program is missing. What
// a library installs of its own is no package: asyncio's "subprocess
// support is not installed", a handler, a hook, a watcher.
bool SaysAPackageIsNotInstalled(const std::string& m) {
  static constexpr std::string_view kOwnParts[] = {"support", "handler", "handlers", "hook",
                                                   "hooks",   "watcher", "policy",   "callback"};
  for (std::string_view phrase : {" is not installed", " are not installed"}) {
    for (size_t at = m.find(phrase); at != std::string::npos; at = m.find(phrase, at + 1)) {
      size_t start = at;
      while (start > 0 && m[start - 1] != ' ') --start;
      std::string_view word = std::string_view(m).substr(start, at - start);
      if (std::find(std::begin(kOwnParts), std::end(kOwnParts), word) == std::end(kOwnParts)) {
        return true;
      }
    }
  }
  // The literal text starts with the phrase where a value named the thing.
  return StartsWith(m, "is not installed") || StartsWith(m, "are not installed");
}

// Words with which a message says an object was used in a state or an
// order that does not allow the call. Not "not called" alone: mock's
// "Actual: not called" reports a call a test expected.
const std::initializer_list<std::string_view> kStateWords = {
    "already",          "not initialized", "not initialised", "before calling", "must be called",
    "must call",        "has been closed", "is closed",       "not started",    "not running",
    "cannot be called", "in progress",     "not open",        "was not called", "() not called",
    "finalized",        "re-entr"};

// Words with which a message says the library itself went wrong.
const std::initializer_list<std::string_view> kInternalWords = {
    "internal error", "internal failure", "should not happen", "should never happen",
    "unreachable",    "this is a bug",    "please report",     "invariant"};

FamilyAssignment By(std::string_view slug, std::string reason) {
  return {std::string(slug), std::move(reason)};
}

FamilyAssignment ByType(std::string_view slug, const std::vector<std::string>& ancestry,
                        std::initializer_list<std::string_view> names) {
  for (const std::string& a : ancestry) {
    for (std::string_view n : names) {
      if (a == n) {
        return By(slug, a == ancestry.front() ? "the exception type is " + a
                                              : ancestry.front() + " is a subclass of " + a);
      }
    }
  }
  return {};
}

FamilyAssignment ByWords(std::string_view slug, std::string_view word) {
  return By(slug, "the message says \"" + std::string(word) + "\"");
}

// What "must be a ..." names when it does not name a kind of value: a sign
// or a bound (`n must be a positive integer`), a rank (`z must be a 1D
// array`), or a property of a value of the right type (`K must be a
// multiple of 16`, `... must be a tree prefix of ...`), which no rule here
// names better than the broad ones after it (an empty slug). Longer
// prefixes first: "positive power of" is not a sign.
struct Qualifier {
  std::string_view words;
  std::string_view slug;
};
const Qualifier kQualifiers[] = {
    {"positive power of", ""},
    {"positive definite", ""},
    {"positive semidefinite", ""},
    {"positive semi-definite", ""},
    // A sign before a number's noun ("positive definite" is no sign).
    {"positive integer", "out-of-range"},
    {"positive int", "out-of-range"},
    {"positive number", "out-of-range"},
    {"positive value", "out-of-range"},
    {"positive float", "out-of-range"},
    {"strictly positive", "out-of-range"},
    {"non-negative integer", "out-of-range"},
    {"non-negative int", "out-of-range"},
    {"non-negative number", "out-of-range"},
    {"non-negative value", "out-of-range"},
    {"nonnegative integer", "out-of-range"},
    {"nonnegative int", "out-of-range"},
    {"nonnegative number", "out-of-range"},
    {"negative integer", "out-of-range"},
    {"negative number", "out-of-range"},
    {"non-zero integer", "out-of-range"},
    {"non-zero number", "out-of-range"},
    {"nonzero integer", "out-of-range"},
    {"number between", "out-of-range"},
    {"value between", "out-of-range"},
    {"1d", "shape-mismatch"},
    {"2d", "shape-mismatch"},
    {"3d", "shape-mismatch"},
    {"4d", "shape-mismatch"},
    {"1-d", "shape-mismatch"},
    {"2-d", "shape-mismatch"},
    {"n-d", "shape-mismatch"},
    {"1-dim", "shape-mismatch"},
    {"2-dim", "shape-mismatch"},
    {"3-dim", "shape-mismatch"},
    {"4-dim", "shape-mismatch"},
    {"one-dimensional", "shape-mismatch"},
    {"two-dimensional", "shape-mismatch"},
    {"()-shaped", "shape-mismatch"},
    {"square matrix", "shape-mismatch"},
    {"multiple of", ""},
    {"power of", ""},
    {"divisor of", ""},
    {"factor of", ""},
    {"even ", ""},
    {"odd ", ""},
    {"tree prefix", ""},
    {"prefix of", ""},
    {"subset of", ""},
    {"superset of", ""},
    {"permutation", ""},
    {"non-empty", ""},
    {"nonempty", ""},
    {"valid ", ""},
    {"unique ", ""},
};

// Words after "must be a" that name a form of text or a count, not a kind
// of value: a number (`a 2 character country code`), `single` (`expected a
// single document`), acronyms as written with no noun after them (`an HTTPS
// URL`, `a UUID`; `a CUDA tensor` names a kind).
bool NamesAForm(std::string_view rest, std::string_view written) {
  if (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) return true;
  if (rest.substr(0, 7) == "single ") return true;
  auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  size_t at = 0, acronyms = 0;
  for (;;) {
    size_t n = at;
    while (n < written.size() && upper(written[n])) ++n;
    bool ends = n == written.size() || !std::isalnum(static_cast<unsigned char>(written[n]));
    if (n - at < 2 || !ends) break;
    ++acronyms;
    at = n;
    while (at < written.size() && written[at] == ' ') ++at;
  }
  bool noun_follows = at < written.size() && std::isalpha(static_cast<unsigned char>(written[at]));
  return acronyms > 0 && !noun_follows;
}

// "x must be a str" names the kind of value x must be: a wrong type, unless
// every such phrase of the message goes on with a qualifier (kQualifiers)
// or a form (NamesAForm); then the first qualifier's family, or none (the
// rules after decide). `m` is `written` lowercased.
FamilyAssignment ByArticle(const std::string& m, std::string_view written) {
  FamilyAssignment qualified;
  bool any = false;
  for (std::string_view phrase : {"must be a ", "must be an ", "expected a ", "expected an "}) {
    for (size_t at = m.find(phrase); at != std::string::npos; at = m.find(phrase, at + 1)) {
      std::string_view rest = std::string_view(m).substr(at + phrase.size());
      const Qualifier* q = nullptr;
      for (const Qualifier& candidate : kQualifiers) {
        if (rest.substr(0, candidate.words.size()) == candidate.words) {
          q = &candidate;
          break;
        }
      }
      if (q == nullptr &&
          NamesAForm(rest, written.substr(std::min(written.size(), at + phrase.size())))) {
        continue;
      }
      if (q == nullptr) return ByWords("wrong-type", phrase);
      if (!any && !q->slug.empty()) {
        qualified = ByWords(q->slug, std::string(phrase) + std::string(q->words));
      }
      any = any || !q->slug.empty();
    }
  }
  return qualified;
}

}  // namespace

const std::vector<Family>& Families() { return kFamilies; }

const Family* FindFamily(std::string_view slug) {
  for (const Family& f : kFamilies) {
    if (f.slug == slug) return &f;
  }
  return nullptr;
}

FamilyAssignment ClassifyFamily(const FamilyFacts& facts) {
  const std::vector<std::string>& t = facts.ancestry;
  std::string m = AsciiLower(facts.message);
  FamilyAssignment f;

  // The exception type first where it is specific: it is what the library
  // chose to say.
  // IPython's ProvisionalWarning subclasses DeprecationWarning to be shown
  // by default; what it says is that a feature is new and may change.
  bool provisional =
      !t.empty() && !Says(AsciiLower(t.front()), {"provisional", "experimental"}).empty();
  if (!provisional &&
      !(f = ByType("deprecated", t,
                   {"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"}))
           .slug.empty())
    return f;
  if (!(f = ByType("tracing-misuse", t,
                   {"ConcretizationTypeError", "TracerBoolConversionError",
                    "TracerIntegerConversionError", "TracerArrayConversionError",
                    "UnexpectedTracerError", "NonConcreteBooleanIndexError"}))
           .slug.empty())
    return f;
  // ModuleNotFoundError says a module is not there. Another ImportError is
  // an import that failed for a reason its words give: a relative import
  // out of its package, a zip archive without the module, a platform the
  // module is not for. Only words about a missing module or installing
  // make it a missing package, whose page then says to install it.
  // An import the import system stopped (`None in sys.modules`), one of a
  // submodule of a plain module, or of a module found in the wrong place
  // has nothing to install.
  bool no_install =
      !Says(m, {"halted", "is not a package", "__path__", "incorrectly imported"}).empty();
  if (!no_install && !(f = ByType("missing-dependency", t, {"ModuleNotFoundError"})).slug.empty()) {
    return f;
  }
  if (!no_install && Any(t, {"ImportError"})) {
    // "email-validator version >= 2.0 required, run pip install -U ...":
    // the package imported; it is too old.
    if (auto w = SaysWord(m, {"version"});
        !w.empty() && !Says(m, {">=", "or later", "or newer", "or above", "at least", "upgrade",
                                "-u ", "too old", "older than"})
                           .empty()) {
      return ByWords("version-mismatch", w);
    }
    if (auto w = Says(m, {"install", "no module named", "no package named", "is required",
                          "are required", "requires", "optional dependency", "could not import",
                          "failed to import", "cannot import", "can't import", "unable to import"});
        !w.empty()) {
      return ByWords("missing-dependency", w);
    }
  }
  if (facts.asserts_for_caller && facts.kind == "raise" && Any(t, {"AssertionError"})) {
    return By("failed-check", "it is raised by an assert function that callers run");
  }
  if (facts.kind == "assert" && facts.asserts_callers_input) {
    if (auto w = Says(m, kInternalWords); !w.empty()) return ByWords("internal-assertion", w);
    // Half of the standard library's such asserts check a caller's value
    // (wsgiref's status, warnings' action), half an invariant on it (a
    // timedelta's days after their conversion): filed by what the test
    // refuses, and no page says which.
    FamilyAssignment input =
        facts.own_test_refuses_type
            ? By("wrong-type", "its assert tests the type of what a caller passes")
            : By("invalid-value", "its assert tests what a caller passes");
    input.weak = true;
    return input;
  }
  // threading's `assert self._initialized, "Thread.__init__() not called"`:
  // the words say how the object was used, by a subclass or a caller.
  if (facts.kind == "assert") {
    if (auto w = Says(m, kStateWords); !w.empty()) return ByWords("invalid-state", w);
    return By("internal-assertion", "it is an assert statement");
  }
  // A library's own subclass of AssertionError is an answer it gives
  // (jsonpatch's JsonPatchTestFailed: a patch's test found another value),
  // not its own broken invariant.
  if (!t.empty() && t.front() == "AssertionError") {
    return By("internal-assertion", "the exception type is AssertionError");
  }
  if (!(f = ByType("internal-assertion", t, {"SystemError", "INTERNAL"})).slug.empty()) return f;
  if (facts.kind == "fatal") return By("internal-assertion", "it is a fatal check that aborts");

  // Words that name the failure outright, whatever the type.
  if (auto w = Says(m, {"deprecated", "is deprecated", "has been removed", "no longer supported",
                        "will be removed", "will not be supported", "will no longer be supported"});
      !w.empty())
    return ByWords("deprecated", w);
  if (auto w = Says(m, {"tracer", "concrete value", "abstract value", "non-concrete"}); !w.empty())
    return ByWords("tracing-misuse", w);
  if (auto w = Says(m, {"pip install", "no module named", "could not import", "failed to import",
                        "requires the optional", "library is required", "package is required",
                        "module is required"});
      !w.empty())
    return ByWords("missing-dependency", w);
  if (SaysAPackageIsNotInstalled(m)) {
    return ByWords("missing-dependency", "is not installed");
  }
  // Versions that do not go together are said as a requirement, a
  // comparison or (in)compatibility: "requires numpy version 1.22 or
  // later", "protocol version 3 is not supported". The word alone names a
  // field, a string or an argument as often ("{name}.version must be
  // string", "could not get version information", "Expected glibc version
  // with 2 components"). A version string that does not parse, or one not
  // given, is a bad value (`invalid version number`); a KeyError's words
  // are a key's, and `--upgrade` is an option's name.
  if (auto w = SaysWord(m, {"version", "versions", "upgrade", "downgrade"});
      !w.empty() && !Any(t, {"KeyError"}) && m.find("--upgrade") == std::string::npos &&
      !HyphenatedOnly(m, w) &&
      (w == "upgrade" || w == "downgrade" ||
       !SaysWord(
            m, {"require", "requires",     "required",   "minimum",       "newer",    "older",
                "later",   "incompatible", "compatible", "compatibility", "mismatch", "mismatched",
                "support", "supports",     "supported",  "unsupported",   "upgrade",  "downgrade",
                "since",   "prior",        "before"})
            .empty() ||
       !Says(m, {">=", "<=", "at least", "too old", "too new", "only works", "only available",
                 "with version", "for version", "of version", "available in", "added in",
                 "introduced in", "not match", "doesn't match", "does not match"})
            .empty()) &&
      Says(m, {"parse", "invalid", "illegal", "non digit", "non-digit", "unreasonable", "malformed",
               "should be", "doesn't specify", "no version specified", "unable to determine",
               "future version", "could not determine", "cannot determine"})
          .empty())
    return ByWords("version-mismatch", w);
  if (auto w = Says(m, {"built with", "compiled with", "newer jaxlib", "requires jaxlib"});
      !w.empty())
    return ByWords("version-mismatch", w);
  if (auto w = Says(m, kInternalWords); !w.empty()) return ByWords("internal-assertion", w);

  // Types whose meaning is one family.
  // An AttributeError that refuses to set, delete or show an attribute
  // (networkx's config `__setattr__`, xmlrpc's "attempt to access private
  // attribute") says nothing is missing: the rules after the types place
  // it, or none does.
  bool refused_attribute =
      Says(m, {"has no attribute", "no such attribute"}).empty() &&
      (std::any_of(facts.functions.begin(), facts.functions.end(),
                   [](const std::string& fn) {
                     return EndsWith(fn, "__setattr__") || EndsWith(fn, "__delattr__") ||
                            EndsWith(fn, "_on_setattr");
                   }) ||
       !Says(m, {"can't set", "cannot set", "can not set", "read-only", "readonly", "read only",
                 "not writable", "immutable", "can't delete", "cannot delete", "can not delete",
                 "cannot be deleted", "cannot be set", "cannot be modified", "can't be modified",
                 "private attribute", "frozen"})
            .empty());
  if (!refused_attribute &&
      !(f = ByType("missing-attribute", t, {"AttributeError"})).slug.empty()) {
    return f;
  }
  if (!(f = ByType("out-of-range", t, {"IndexError", "OUT_OF_RANGE", "AxisError"})).slug.empty())
    return f;
  if (!(f = ByType("missing-key", t,
                   {"KeyError", "NOT_FOUND", "LookupError", "NameError", "UnboundLocalError"}))
           .slug.empty())
    return f;
  if (!(f = ByType("not-implemented", t, {"NotImplementedError", "UNIMPLEMENTED"})).slug.empty()) {
    // libcst's NotImplementedError("nonlocal declaration not allowed at
    // module level") refuses what it was given: the type files it, the
    // words do not say a feature is missing.
    f.weak = !Says(m, {"not allowed", "invalid", "must be", "must not"}).empty();
    return f;
  }
  if (!(f = ByType("resource-exhausted", t,
                   {"MemoryError", "RecursionError", "RESOURCE_EXHAUSTED"}))
           .slug.empty())
    return f;
  if (!(f = ByType("arithmetic", t,
                   {"ZeroDivisionError", "OverflowError", "FloatingPointError", "ArithmeticError"}))
           .slug.empty())
    return f;
  // requests' errors are OSErrors; one of them that is an HTTP error is the
  // server's answer (a 404), no failed connection or file operation.
  // And one that names ValueError or TypeError before the OSError its
  // library base brings (requests' InvalidURL(RequestException,
  // ValueError), a bad percent-escape) is a bad value, no I/O.
  std::vector<std::string> transport = t;
  if (auto cut = std::find_if(transport.begin(), transport.end(),
                              [](const std::string& a) {
                                return a == "HTTPError" || a == "ValueError" || a == "TypeError";
                              });
      cut != transport.end()) {
    transport.erase(cut, transport.end());
  }
  if (!(f = ByType("network-timeout", transport,
                   {"TimeoutError", "ConnectionError", "ConnectionRefusedError",
                    "ConnectionResetError", "BrokenPipeError", "URLError", "DEADLINE_EXCEEDED",
                    "UNAVAILABLE", "timeout", "gaierror", "herror"}))
           .slug.empty())
    return f;
  // codecs raise a bare UnicodeError for an `errors` argument they do not
  // handle ("Unsupported error handling ..."), before anything is decoded.
  bool error_handler =
      !t.empty() && t.front() == "UnicodeError" && !Says(m, {"error handling", "errors="}).empty();
  if (!error_handler &&
      !(f = ByType("parse-error", t,
                   {"SyntaxError", "IndentationError", "JSONDecodeError", "UnicodeDecodeError",
                    "UnicodeEncodeError", "UnicodeError", "ParseError", "ParserError",
                    "ScannerError", "ExpatError", "Incomplete", "BadZipFile", "ReadError"}))
           .slug.empty())
    return f;
  if (!(f = ByType("io-error", transport,
                   {"FileNotFoundError", "FileExistsError", "IsADirectoryError",
                    "NotADirectoryError", "PermissionError", "OSError", "IOError", "EOFError",
                    "BlockingIOError", "PERMISSION_DENIED", "DATA_LOSS"}))
           .slug.empty()) {
    // importlib's `FileNotFoundError('MultiplexedPath must contain at least
    // one path')` refuses an empty argument before any file is touched:
    // words of a requirement leave the type a filing, not a sentence.
    f.weak = !Says(m, {"must ", "must not", "at least one", "cannot be empty", "can't be empty",
                       "should be "})
                  .empty();
    return f;
  }
  if (!(f = ByType("invalid-state", t, {"FAILED_PRECONDITION", "ALREADY_EXISTS", "ABORTED"}))
           .slug.empty())
    return f;

  // A library's own exception class often names its family.
  for (const std::string& name : t) {
    // INVALID_ARGUMENT names the status code, not a family: the message decides.
    if (IsStatusCode(name)) continue;
    std::string lower = AsciiLower(name);
    auto named = [&](std::string_view slug, std::initializer_list<std::string_view> parts) {
      for (std::string_view p : parts) {
        if (lower.find(p) != std::string::npos) {
          return By(slug, "the exception class " + name + " is named for it");
        }
      }
      return FamilyAssignment{};
    };
    for (const FamilyAssignment& by :
         {named("missing-key", {"notfound", "nosuch", "missing"}),
          named("parse-error", {"parse", "syntax", "decode", "scanner", "lexer", "grammar"}),
          named("network-timeout", {"timeout", "connection"}),
          named("not-implemented", {"notimplemented", "unsupported"}),
          named("invalid-value", {"option", "argument", "parameter", "usage", "config"})}) {
      if (by.slug.empty()) continue;
      // A class named for bad arguments is broad: words that say the type
      // was wrong are more precise (pygments' OptionError "Invalid type
      // ... you must give a list value").
      if (by.slug == "invalid-value") {
        if (auto w = Says(m, {"invalid type", "wrong type"}); !w.empty()) {
          return ByWords("wrong-type", w);
        }
      }
      return by;
    }
  }

  // The message, most specific words first.
  if (auto w = SaysArrayShape(m); !w.empty()) return ByWords("shape-mismatch", w);
  if (auto w =
          SaysWord(m, {"rank", "ndim", "dimension", "dimensions", "broadcast", "axis", "axes"});
      !w.empty())
    return ByWords("shape-mismatch", w);
  if (auto w = SaysWord(m, {"dtype", "dtypes", "data type", "element type"}); !w.empty())
    return ByWords("dtype-mismatch", w);
  if (auto w = Says(m, {"mutually exclusive", "only one of", "at most one of", "exactly one of",
                        "cannot be used together", "cannot be combined", "cannot specify both",
                        "not both", "cannot be specified together", "must be specified together",
                        "cannot pass both", "both specified", "either or both", "together"});
      !w.empty())
    return ByWords("conflicting-arguments", w);
  for (const Guard& g : facts.guards) {
    if (g.kind == "default-case" && !g.values.empty()) {
      return By("invalid-choice", "`" + g.subject + "` matched none of the cases listed");
    }
    if (!g.values.empty() && g.code.find("isinstance") == std::string::npos &&
        g.code.find(" in ") != std::string::npos) {
      return By("invalid-choice", "`" + g.subject + "` is not in the set `" + g.code + "` checks");
    }
  }
  // Before words of a choice: multiprocessing's "address type of ...
  // unrecognized" is raised in the else of isinstance tests.
  if (facts.own_test_refuses_type) {
    return By("wrong-type", "the raise's own test is a failed isinstance");
  }
  if (auto w = Says(m, {"must be one of", "expected one of", "should be one of", "not one of",
                        "valid options", "valid values", "valid choices", "invalid choice",
                        "invalid mode", "invalid option", "unknown mode", "unrecognized",
                        "unrecognised", "unknown value", "unsupported mode", "supported values"});
      !w.empty())
    return ByWords("invalid-choice", w);
  if (!(f = ByType("wrong-type", t, {"TypeError"})).slug.empty()) {
    // The type alone is broad; a failed isinstance or words naming a kind
    // of value say it.
    f.weak = true;
    for (const Guard& g : facts.guards) {
      if (g.code.find("isinstance") != std::string::npos && !g.values.empty()) f.weak = false;
    }
    if (!Says(m, {"instance of", "got type", "not callable", "wrong type", "invalid type"})
             .empty() ||
        ByArticle(m, facts.message).slug == "wrong-type") {
      f.weak = false;
    }
    return f;
  }
  for (const Guard& g : facts.guards) {
    if (g.code.find("isinstance") != std::string::npos && !g.values.empty()) {
      std::string types;
      for (const std::string& v : g.values) types += (types.empty() ? "`" : ", `") + v + "`";
      return By("wrong-type",
                "the raise needs `" + g.subject + "` not to be an instance of " + types);
    }
  }
  if (auto w = Says(m, {"instance of", "got type", "not callable", "wrong type", "invalid type"});
      !w.empty())
    return ByWords("wrong-type", w);
  if (FamilyAssignment by = ByArticle(m, facts.message); !by.slug.empty()) return by;
  if (auto w = Says(m, {"out of range",
                        "out of bounds",
                        "must be positive",
                        "must be non-negative",
                        "must be nonnegative",
                        "must be greater",
                        "must be less",
                        "must be at least",
                        "must be at most",
                        "must be between",
                        "must be >",
                        "must be <",
                        "too large",
                        "too small",
                        "too big",
                        "too long",
                        "too short",
                        "too many",
                        "too few",
                        "exceeds",
                        "negative",
                        "larger than",
                        "smaller than",
                        "greater than",
                        "less than",
                        "overflow"});
      // "negative" of what is no number: pyasn1's "Key in negative map" (the
      // types a map skips), networkx's negative cycles (a graph's property),
      // getopt's negative aliases (options that turn another off).
      !w.empty() &&
      (w != "negative" || Says(m, {"negative map", "negative cycle", "negative alias"}).empty()))
    return ByWords("out-of-range", w);
  // A file, directory or path that is not there is the file system's answer.
  if (auto w = Says(m, {"does not exist", "doesn't exist", "not found"}); !w.empty()) {
    if (auto what = SaysWord(m, {"file", "directory", "folder"}); !what.empty()) {
      return By("io-error",
                "the message says \"" + std::string(what) + "\" and \"" + std::string(w) + "\"");
    }
  }
  // "hits() not defined for graphs with multiedges" refuses a kind of input;
  // "overlap() not defined when sigma is zero" a value.
  if (auto w =
          Says(m, {"not defined for", "is undefined for", "not defined when", "is undefined when"});
      !w.empty())
    return ByWords("not-implemented", w);
  if (auto w = Says(
          m, {"not found", "no such", "does not exist", "doesn't exist", "missing", "is not in the",
              "not in g", "not in graph", "can't find", "cannot find", "could not find",
              "unable to find", "unknown key", "unknown name", "not defined"});
      !w.empty())
    return ByWords("missing-key", w);
  // A word, not part of a class name (`UndefinedFunction`).
  if (auto w = SaysWord(m, {"undefined"}); !w.empty()) return ByWords("missing-key", w);
  if (auto w = Says(m, {"has no attribute", "no attribute"}); !w.empty())
    return ByWords("missing-attribute", w);
  // "dict contains fields not in fieldnames": keys there are too many, not
  // one missing.
  if (auto w = Says(m, {" not in "}); !w.empty() && Says(m, {"contains", "contain "}).empty())
    return ByWords("missing-key", w);
  if (auto w = Says(m, {"not implemented", "not supported", "unsupported", "is not yet",
                        "only supported", "not available", "cannot handle", "can't handle"});
      !w.empty())
    return ByWords("not-implemented", w);
  if (auto w = SaysWord(m, {"supported"}); !w.empty()) return ByWords("not-implemented", w);
  if (auto w = Says(m, kStateWords); !w.empty()) return ByWords("invalid-state", w);
  // Whole words: an "unclosed file" (a ResourceWarning) is a leak.
  if (auto w = SaysWord(m, {"a closed", "closed file", "closed files", "closed pipe",
                            "closed stream", "closed socket", "closed connection"});
      !w.empty())
    return ByWords("invalid-state", w);
  // A state matrix, vector or space is a model's, no object's state.
  if (auto w = SaysWord(m, {"state", "event loop"});
      !w.empty() && Says(m, {"state matrix", "state vector", "state space", "state-space"}).empty())
    return ByWords("invalid-state", w);
  if (auto w = SaysWord(m, {"parse", "parsing", "parsed", "syntax"}); !w.empty())
    return ByWords("parse-error", w);
  if (auto w = Says(m, {"malformed", "but found", "invalid literal", "unexpected token",
                        "unexpected character", "unexpected end", "decode", "encode",
                        "invalid format", "bad format", "format string", "unterminated",
                        "invalid escape", "expected '", "invalid json"});
      !w.empty())
    return ByWords("parse-error", w);
  if (auto w = SaysWord(m, {"format", "encoding"}); !w.empty()) return ByWords("parse-error", w);
  if (auto w =
          Says(m, {"out of memory", "recursion", "resource exhausted", "too many open", "memory"});
      !w.empty())
    return ByWords("resource-exhausted", w);
  // A connection that failed, not any use of the word (a plot's connection
  // style, a control system's series connection).
  if (auto w = Says(m, {"timed out", "timeout", "socket", "connection refused", "connection reset",
                        "connection aborted", "connection closed", "connection lost",
                        "connection error", "connection failed", "connection was closed",
                        "connection broken", "failed to connect", "could not connect",
                        "unable to connect", "max retries exceeded"});
      !w.empty())
    return ByWords("network-timeout", w);
  if (auto w = Says(m, {"no such file", "permission denied", "cannot open", "could not open",
                        "failed to open", "failed to read", "failed to write", "is a directory",
                        "not a directory", "directory not empty", "create directory",
                        "remove directory", "file "});
      !w.empty())
    return ByWords("io-error", w);
  if (auto w = Says(m, {"division by zero", "divide by zero", "non-finite"}); !w.empty())
    return ByWords("arithmetic", w);
  // "infinite" alone names a path length or a loop as often as a number.
  if (auto w = SaysWord(m, {"nan", "nans", "inf"}); !w.empty()) return ByWords("arithmetic", w);
  if (auto w =
          Says(m, {"infinite result", "infinite value", "is infinite", "are infinite", "infinity"});
      !w.empty())
    return ByWords("arithmetic", w);
  // The broad types last. A comparison before the raise, or a word such as
  // "must" or "cannot", placed errors too: an independent labelling of 320
  // errors of jax, numpy and the standard library agreed with 3 of 18 and
  // 2 of 14 of them (bench/README.md), so neither places any now.
  if (!(f = ByType("invalid-value", t, {"ValueError", "INVALID_ARGUMENT"})).slug.empty()) {
    f.weak = true;
    return f;
  }
  if (facts.kind == "warning" || Any(t, {"Warning", "UserWarning", "RuntimeWarning"})) {
    return By("runtime-warning", "it is a warning");
  }
  if (facts.internal) return By("internal-assertion", "the raise should be unreachable");
  return By("other", "no rule applies");
}

}  // namespace errdex::analyze
