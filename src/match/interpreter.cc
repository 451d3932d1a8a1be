#include "match/interpreter.h"

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "core/text.h"
#include "match/parse.h"
#include "match/pattern.h"

namespace errdex::match {
namespace {

// Each pattern is matched whole against the message. A quoted name is any
// text without its quote; the "Did you mean" hints are 3.10's and later.
struct Wording {
  std::string_view type;
  std::string_view pattern;
};

// The suggestion CPython prints after a name error's text.
constexpr std::string_view kSuggestion = R"(\. Did you mean: '[^'\n]+'\?)";

const Wording kWordings[] = {
    {"AttributeError", R"('[^']+' object has no attribute '[^']+'{hint})"},
    {"AttributeError", R"(type object '[^']+' has no attribute '[^']+'{hint})"},
    {"AttributeError", R"(module '[^']+' has no attribute '[^']+'{hint})"},
    {"AttributeError", R"('[^']+' object attribute '[^']+' is read-only)"},
    {"AttributeError", R"(can't set attribute(?: '[^']+')?)"},
    {"AttributeError", R"(attribute '[^']+' of '[^']+' objects is not writable)"},
    {"AttributeError", R"(property '[^']+' of '[^']+' object has no setter)"},
    {"NameError", R"(name '[^']+' is not defined{hint})"},
    {"NameError", R"((?:free variable|cannot access free variable) '[^']+' .*)"},
    {"UnboundLocalError", R"(local variable '[^']+' referenced before assignment)"},
    {"UnboundLocalError",
     R"(cannot access local variable '[^']+' where it is not associated with a value)"},
    {"TypeError",
     R"('[^']+' object is not (?:subscriptable|callable|iterable|an iterator|a mapping))"},
    {"TypeError", R"('[^']+' object (?:does not|doesn't) support item (?:assignment|deletion))"},
    {"TypeError", R"('[^']+' object cannot be interpreted as an integer)"},
    {"TypeError", R"(unsupported operand type\(s\) for [^:]+: '[^']+' and '[^']+')"},
    {"TypeError", R"(bad operand type for (?:unary [-+~]|abs\(\)): '[^']+')"},
    {"TypeError", R"('[^']+' not supported between instances of '[^']+' and '[^']+')"},
    {"TypeError",
     R"(can only concatenate (?:str|list|tuple) \(not "[^"]+"\) to (?:str|list|tuple))"},
    {"TypeError", R"(can't multiply sequence by non-int of type '[^']+')"},
    {"TypeError", R"(object of type '[^']+' has no len\(\))"},
    {"TypeError", R"(unhashable type: '[^']+')"},
    {"TypeError",
     R"((?:list|tuple|string|str|range|bytes|bytearray|memoryview) indices must be integers(?: or slices)?, not '?[\w.]+'?)"},
    {"TypeError",
     R"([\w.<>]+\(\) takes (?:from \d+ to \d+|\d+|no) (?:positional )?arguments? but \d+ (?:positional arguments? )?(?:was|were) given)"},
    {"TypeError",
     R"([\w.<>]+\(\) missing \d+ required (?:positional|keyword-only) arguments?: .+)"},
    {"TypeError", R"([\w.<>]+\(\) got an unexpected keyword argument '[^']+')"},
    {"TypeError", R"([\w.<>]+\(\) got multiple values for argument '[^']+')"},
    {"TypeError", R"(argument of type '[^']+' is not iterable)"},
    {"TypeError", R"(cannot unpack non-iterable [\w.]+ object)"},
    {"IndexError", R"((?:list|tuple|string|range object) index out of range)"},
    {"IndexError", R"(list assignment index out of range)"},
    {"IndexError", R"(pop from empty list)"},
    {"ZeroDivisionError",
     R"(division by zero|integer division or modulo by zero|float division by zero|float modulo|integer modulo by zero|float floor division by zero|float divmod\(\))"},
    {"ValueError", R"(invalid literal for int\(\) with base \d+: .+)"},
    {"ValueError", R"(could not convert string to float: .+)"},
    {"ValueError", R"(too many values to unpack \(expected \d+(?:, got \d+)?\))"},
    {"ValueError", R"(not enough values to unpack \(expected \d+, got \d+\))"},
    {"ValueError", R"(math domain error)"},
    {"RecursionError", R"(maximum recursion depth exceeded.*)"},
    // What the C builtins and the standard library's C modules raise when a
    // library line hands them the wrong value: `int(None)`, `os.fspath(1)`,
    // `b''.join([...])`, `datetime.date(2020, 2, 30)`, `open(path)`.
    {"TypeError", R"(a bytes-like object is required, not '[^']+')"},
    {"TypeError", R"(decoding str is not supported)"},
    {"TypeError", R"(decoding to str: need a bytes-like object, [\w.]+ found)"},
    {"TypeError",
     R"(int\(\) argument must be a string, a bytes-like object or (?:a real number|a number), not '[^']+')"},
    {"TypeError", R"(int\(\) can't convert non-string with explicit base)"},
    {"TypeError", R"(float\(\) argument must be a string or a (?:real )?number, not '[^']+')"},
    {"TypeError", R"(complex\(\) first argument must be a string or a number, not '[^']+')"},
    {"TypeError", R"(cannot convert '[^']+' object to bytes(?:array)?)"},
    {"TypeError", R"(expected str, bytes or os\.PathLike object, not [\w.]+)"},
    {"TypeError", R"(expected string or bytes-like object(?:, got '[^']+')?)"},
    {"TypeError", R"(not all arguments converted during (?:string|bytes) formatting)"},
    {"TypeError", R"((?:issubclass|isinstance)\(\) arg 1 must be a class)"},
    {"TypeError",
     R"((?:issubclass|isinstance)\(\) arg 2 must be a (?:type, a tuple of types, or a union|type or tuple of types|class, a tuple of classes, or a union|class or tuple of classes))"},
    {"TypeError", R"(can't concat [\w.]+ to (?:bytes|bytearray))"},
    {"TypeError", R"('in <string>' requires string as left operand, not [\w.]+)"},
    {"TypeError", R"(must be real number, not [\w.]+)"},
    {"TypeError",
     R"(sequence item \d+: expected (?:a bytes-like object|str instance), [\w.]+ found)"},
    {"TypeError", R"([\w.]+\(\) argument (?:\d+|'[^']+') must be str, not [\w.]+)"},
    {"TypeError",
     R"(unsupported type for timedelta (?:days|seconds|microseconds|milliseconds|minutes|hours|weeks) component: [\w.]+)"},
    {"ValueError", R"(slice step cannot be zero)"},
    {"ValueError", R"(range\(\) arg 3 must not be zero)"},
    {"ValueError", R"(negative shift count)"},
    {"ValueError", R"(negative file descriptor)"},
    {"ValueError", R"(year -?\d+ is out of range)"},
    {"ValueError", R"((?:month must be in 1\.\.12|day is out of range for month))"},
    {"ValueError", R"((?:hour|minute|second|microsecond) must be in 0\.\.\d+)"},
    {"OverflowError", R"(int too big to convert)"},
    {"OverflowError",
     R"((?:signed|unsigned) integer is (?:greater than maximum|less than minimum))"},
    {"LookupError", R"(unknown encoding: .*)"},
    {"IndexError", R"(bytearray index out of range)"},
    {"IndexError", R"(index out of range)"},  // bytes
    {"IndexError", R"(pop from (?:empty list|an empty deque))"},
    // KeyError prints its argument's repr, quotes included.
    {"KeyError", R"('(?:popitem\(\): dictionary is empty|pop from an empty set)')"},
    {"TypeError", R"(must be str, not [\w.]+)"},  // str.find(None), str.count(1)...
    {"IndexError", R"(index out of bounds on dimension \d+)"},
    // A C function called with the wrong arguments (its argument clinic's
    // or PyArg_Parse's words, not a Python function's above).
    {"TypeError",
     R"([\w.]+\(\) takes (?:exactly one|no|exactly \d+|at (?:least|most) \d+) (?:positional )?arguments? \(\d+ given\))"},
    {"TypeError", R"([\w.]+\(\) takes no arguments)"},
    {"TypeError", R"([\w.]+ expected (?:at (?:least|most) )?\d+ arguments?, got \d+)"},
    {"TypeError", R"((?:[\w.]+\(\)|function) missing required argument '[^']+' \(pos \d+\))"},
    {"TypeError", R"('[^']+' is an invalid keyword argument for [\w.]+\(\))"},
    {"TypeError", R"(unbound method [\w.]+\(\) needs an argument)"},
    // What the C library says through errno, for the path or descriptor a
    // library line passed to open(), os.stat()...
    {"OSError", R"(\[Errno \d+\] .+)"},
    {"FileNotFoundError", R"(\[Errno \d+\] .+)"},
    {"FileExistsError", R"(\[Errno \d+\] .+)"},
    {"PermissionError", R"(\[Errno \d+\] .+)"},
    {"IsADirectoryError", R"(\[Errno \d+\] .+)"},
    {"NotADirectoryError", R"(\[Errno \d+\] .+)"},
};

struct Compiled {
  std::string_view type;
  std::unique_ptr<RE2> re;
};

const std::vector<Compiled>& Table() {
  static const std::vector<Compiled> table = [] {
    std::vector<Compiled> out;
    RE2::Options o;
    o.set_dot_nl(true);
    o.set_log_errors(false);
    for (const Wording& w : kWordings) {
      std::string p(w.pattern);
      if (size_t at = p.find("{hint}"); at != std::string::npos) {
        p.replace(at, 6, "(?:" + std::string(kSuggestion) + ")?");
      }
      out.push_back({w.type, std::make_unique<RE2>(p, o)});
    }
    return out;
  }();
  return table;
}

}  // namespace

std::string WithoutSuggestion(std::string_view type, std::string message) {
  static const RE2 suggested("(?s)(.+)" + std::string(kSuggestion));
  if (type != "AttributeError" && type != "NameError" && type != "ImportError") return message;
  std::string text;
  if (RE2::FullMatch(message, suggested, &text)) return text;
  return message;
}

bool IsInterpreterWording(std::string_view type, std::string_view message) {
  for (const Compiled& c : Table()) {
    if (c.type == type && c.re->ok() && RE2::FullMatch(message, *c.re)) return true;
  }
  return false;
}

bool IsInterpreterWording(const ParsedError& e) {
  return IsInterpreterWording(ShortExceptionName(e.exception),
                              NormalizeText(ToValidUtf8(e.message)));
}

}  // namespace errdex::match
