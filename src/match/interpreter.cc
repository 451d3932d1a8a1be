#include "match/interpreter.h"

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

namespace errdex::match {
namespace {

// Each pattern is matched whole against the message. A quoted name is any
// text without its quote; the "Did you mean" hints are 3.10's and later.
struct Wording {
  std::string_view type;
  std::string_view pattern;
};

constexpr std::string_view kHint = R"((?:\. Did you mean: '[^']+'\?)?)";

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
      if (size_t at = p.find("{hint}"); at != std::string::npos) p.replace(at, 6, kHint);
      out.push_back({w.type, std::make_unique<RE2>(p, o)});
    }
    return out;
  }();
  return table;
}

}  // namespace

bool IsInterpreterWording(std::string_view type, std::string_view message) {
  for (const Compiled& c : Table()) {
    if (c.type == type && c.re->ok() && RE2::FullMatch(message, *c.re)) return true;
  }
  return false;
}

}  // namespace errdex::match
