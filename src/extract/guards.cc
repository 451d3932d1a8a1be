#include "extract/guards.h"

#include <string_view>
#include <utility>

#include "core/text.h"

namespace errdex::extract {
namespace {

// Renders one condition, negated or not, as words around code.
std::string Render(const Guard& g) {
  auto tick = [](std::string_view s) { return "`" + std::string(s) + "`"; };
  std::string_view code = g.code;
  bool negated = g.negated;
  if (g.kind == "except" || g.kind == "catch") {
    std::string what = g.subject.empty() ? "the `try` block" : tick(g.subject);
    return what + (g.kind == "catch" ? " threw " : " raised ") +
           (g.code.empty() ? std::string("an exception") : tick(g.code));
  }
  if (g.kind == "case") return tick(g.subject) + " matches " + tick(g.code);
  if (g.kind == "default-case") {
    std::string s = tick(g.subject) + " matches no case";
    if (!g.values.empty()) {
      s += " (listed: ";
      for (size_t i = 0; i < g.values.size(); ++i) s += (i ? ", " : "") + tick(g.values[i]);
      s += ")";
    }
    return s;
  }
  if (g.kind == "for") return "iterating `for " + g.code + "`";
  // `not x` / `!x` negated is `x`.
  while (StartsWith(code, "not ") || (StartsWith(code, "!") && !StartsWith(code, "!="))) {
    code.remove_prefix(code[0] == '!' ? 1 : 4);
    negated = !negated;
  }
  if (StartsWith(code, "isinstance(") && EndsWith(code, ")")) {
    std::string_view inner = code.substr(11, code.size() - 12);
    size_t comma = inner.find(',');
    if (comma != std::string_view::npos && inner.find(',', comma + 1) == std::string_view::npos) {
      return tick(Trim(inner.substr(0, comma))) + (negated ? " is not" : " is") +
             " an instance of " + tick(Trim(inner.substr(comma + 1)));
    }
  }
  if (!negated) return tick(code);
  // Flip a single comparison; anything else is "... is false".
  static constexpr std::pair<std::string_view, std::string_view> kFlips[] = {
      {" is not ", " is "}, {" not in ", " in "}, {" == ", " != "}, {" != ", " == "},
      {" <= ", " > "},      {" >= ", " < "},      {" < ", " >= "},  {" > ", " <= "},
      {" is ", " is not "}, {" in ", " not in "}};
  bool simple =
      code.find(" and ") == std::string_view::npos && code.find(" or ") == std::string_view::npos;
  if (simple) {
    for (const auto& [from, to] : kFlips) {
      size_t at = code.find(from);
      if (at != std::string_view::npos && code.find(from, at + 1) == std::string_view::npos) {
        std::string flipped(code);
        flipped.replace(at, from.size(), to);
        return tick(flipped);
      }
    }
  }
  return tick(code) + " is false";
}

}  // namespace

std::string TriggerSentence(const std::vector<Guard>& guards) {
  if (guards.empty()) return "";
  std::string s = "raised when ";
  for (size_t i = 0; i < guards.size(); ++i) {
    if (i > 0) s += " and ";
    s += Render(guards[i]);
  }
  return s;
}

}  // namespace errdex::extract
