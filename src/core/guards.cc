#include "core/guards.h"

#include <string_view>
#include <utility>

#include "core/text.h"

namespace errdex {
namespace {

std::string Tick(std::string_view s) { return "`" + std::string(s) + "`"; }

// " (valid: `a`, `b`)" for a guard that names what its subject may be.
std::string Valid(const Guard& g) {
  if (g.values.empty()) return "";
  std::string s = " (valid: ";
  for (size_t i = 0; i < g.values.size(); ++i) s += (i ? ", " : "") + Tick(g.values[i]);
  return s + ")";
}

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
  if (g.kind == "try-else") {
    return (g.subject.empty() ? std::string("the `try` block") : tick(g.subject)) +
           " raised nothing";
  }
  if (g.kind == "case") return tick(g.subject) + " matches " + tick(g.code);
  if (g.kind == "default-case") {
    std::string s = tick(g.subject) + " matches no case";
    return s + Valid(g);
  }
  if (g.kind == "for") return "iterating `for " + g.code + "`";
  // `not x` / `!x` negated is `x`.
  while (StartsWith(code, "not ") || (StartsWith(code, "!") && !StartsWith(code, "!="))) {
    code.remove_prefix(code[0] == '!' ? 1 : 4);
    negated = !negated;
  }
  if (StartsWith(code, "isinstance(") && EndsWith(code, ")")) {
    std::string_view inner = code.substr(11, code.size() - 12);
    // The first comma outside brackets splits the object from the type(s).
    size_t comma = std::string_view::npos;
    int depth = 0;
    for (size_t i = 0; i < inner.size() && comma == std::string_view::npos; ++i) {
      if (inner[i] == '(' || inner[i] == '[') ++depth;
      if (inner[i] == ')' || inner[i] == ']') --depth;
      if (inner[i] == ',' && depth == 0) comma = i;
    }
    if (comma != std::string_view::npos) {
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
    // default-case lists them already, and isinstance names the types.
    if (guards[i].kind != "default-case" &&
        guards[i].code.find("isinstance(") == std::string::npos) {
      s += Valid(guards[i]);
    }
  }
  return s;
}

bool LooksUnreachable(const std::vector<Guard>& guards) {
  for (const Guard& g : guards) {
    if (g.kind != "default-case" || g.values.size() < 2) continue;
    std::string scope;
    bool members = true;
    for (const std::string& v : g.values) {
      // Each case one member (`A.X`, `A::X`); `A.X | A.Y` alternatives too.
      size_t start = 0;
      while (members && start <= v.size()) {
        size_t bar = v.find('|', start);
        std::string_view one = Trim(std::string_view(v).substr(
            start, bar == std::string::npos ? std::string::npos : bar - start));
        size_t cut = one.rfind("::");
        size_t width = 2;
        if (cut == std::string_view::npos) {
          cut = one.rfind('.');
          width = 1;
        }
        if (cut == std::string_view::npos || cut == 0 || cut + width >= one.size()) {
          members = false;
          break;
        }
        std::string s(one.substr(0, cut));
        if (scope.empty()) scope = s;
        members = s == scope;
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
      if (!members) break;
    }
    if (members) return true;
  }
  return false;
}

void AddAssertGuard(Site& site, std::string code) {
  if (code.empty()) return;
  Guard g;
  g.kind = "assert";
  g.code = std::move(code);
  g.negated = true;
  g.line = site.line;
  site.guards.push_back(std::move(g));
  site.trigger = TriggerSentence(site.guards);
}

}  // namespace errdex
