#include "core/guards.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text.h"

namespace errdex {
namespace {

std::string Tick(std::string_view s) { return "`" + std::string(s) + "`"; }

// " (valid: `a`, `b`)" for a guard that names what its subject may be.
std::string Valid(const Guard& g) {
  if (g.values.empty()) return "";
  // `x != 0` names its one value already.
  if (g.values.size() == 1 && g.meanings.empty() &&
      (g.when.find("!= " + g.values[0]) != std::string::npos ||
       g.code.find("!= " + g.values[0]) != std::string::npos)) {
    return "";
  }
  std::string s = " (valid: ";
  for (size_t i = 0; i < g.values.size(); ++i) {
    s += (i ? ", " : "") + Tick(g.values[i]);
    if (i < g.meanings.size() && !g.meanings[i].empty()) s += " → " + Tick(g.meanings[i]);
  }
  return s + ")";
}

// Where the bracket opened at `open` closes, skipping string literals;
// npos if it does not.
size_t Closing(std::string_view code, size_t open) {
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < code.size(); ++i) {
    char c = code[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Offsets of `token` outside brackets and string literals.
std::vector<size_t> TopLevel(std::string_view code, std::string_view token) {
  std::vector<size_t> out;
  char quote = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      size_t end = Closing(code, i);
      if (end == std::string_view::npos) return out;
      i = end;
      continue;
    }
    if (code.substr(i, token.size()) == token) out.push_back(i);
  }
  return out;
}

// `name(...)` and nothing around it.
bool IsCallOf(std::string_view code, std::string_view name) {
  return code.size() > name.size() + 1 && StartsWith(code, name) && code[name.size()] == '(' &&
         Closing(code, name.size()) == code.size() - 1;
}

// "`x` is (not) an instance of `T`" for isinstance(x, T); empty otherwise.
std::string Instance(std::string_view call, bool negated) {
  if (!IsCallOf(call, "isinstance")) return "";
  std::string_view inner = call.substr(11, call.size() - 12);
  std::vector<size_t> commas = TopLevel(inner, ",");
  if (commas.size() != 1) return "";
  return Tick(Trim(inner.substr(0, commas[0]))) + (negated ? " is not" : " is") +
         " an instance of " + Tick(Trim(inner.substr(commas[0] + 1)));
}

// Operators whose presence outside brackets makes `not X` not a prefix that
// can be dropped: X would be read as only the first operand.
bool Compound(std::string_view code, bool c_like) {
  for (std::string_view op : {" and ", " or ", " if ", "lambda", "&&", "||", "?", ","}) {
    if (!TopLevel(code, op).empty()) return true;
  }
  if (!c_like) return false;
  // `!` binds tighter than any binary operator of C and C++.
  for (std::string_view op : {" ", "=", "<", ">", "&", "|", "^", "+", "-", "*", "/", "%", "~"}) {
    for (size_t at : TopLevel(code, op)) {
      // `->` is member access, not a comparison or a subtraction; a leading
      // `-` is a sign, which binds as tightly as `!`.
      bool arrow = (op == ">" && at > 0 && code[at - 1] == '-') ||
                   (op == "-" && at + 1 < code.size() && code[at + 1] == '>');
      bool sign = op == "-" && at == 0;
      if (!arrow && !sign) return true;
    }
  }
  return false;
}

// A guard a front end wrote no exact condition for (C and C++, catalogs
// from before conditions were written): a leading `not`/`!` is dropped only
// from a single operand, only the flips that hold for every operand are
// made, and anything else is "not `code`".
std::string RenderWritten(const Guard& g) {
  std::string_view code = g.code;
  bool negated = g.negated;
  for (;;) {
    bool c_not = StartsWith(code, "!") && !StartsWith(code, "!=");
    bool py_not = StartsWith(code, "not ");
    if (!c_not && !py_not) break;
    std::string_view rest = Trim(code.substr(c_not ? 1 : 4));
    if (rest.empty() || Compound(rest, c_not)) break;
    code = rest;
    negated = !negated;
  }
  if (std::string words = Instance(code, negated); !words.empty()) return words;
  if (!negated) return Tick(code);
  static constexpr std::pair<std::string_view, std::string_view> kFlips[] = {
      {" is not ", " is "}, {" not in ", " in "}, {" == ", " != "},
      {" != ", " == "},     {" is ", " is not "}, {" in ", " not in "}};
  static constexpr std::string_view kComparisons[] = {" is ", " in ", "==", "!=", "<", ">"};
  if (!Compound(code, false)) {
    size_t comparisons = 0;
    for (std::string_view c : kComparisons) comparisons += TopLevel(code, c).size();
    for (const auto& [from, to] : kFlips) {
      std::vector<size_t> at = TopLevel(code, from);
      // One comparison only: `a == b == c` is a chain. (`is not` counts
      // once, as " is ", and `not in` as " in ".)
      if (at.size() != 1 || comparisons != 1) continue;
      std::string flipped(code);
      flipped.replace(at[0], from.size(), to);
      return Tick(flipped);
    }
  }
  return "not " + Tick(code);
}

// Whether a guard says the code runs only where another module's does not
// (extract/python/py_replaced.h).
bool Replacement(const Guard& g) {
  return g.kind == "replaced" || g.kind == "replaced-if-defined" || g.kind == "stands-in";
}

// Renders one condition as words around code.
std::string Render(const Guard& g, const Voice& voice) {
  if (g.kind == "replaced" || g.kind == "replaced-if-defined") {
    std::string s = Tick(g.code) + " at line " + std::to_string(g.line) + " fails";
    if (g.kind == "replaced-if-defined") s += " or does not define " + Tick(g.subject);
    return s;
  }
  if (g.kind == "stands-in") {
    return Tick(g.code) + " at line " + std::to_string(g.line) + " of " + Tick(g.subject) +
           " fails (this module stands in for it), or the module is imported by its own name";
  }
  if (g.kind == "except" || g.kind == "catch") {
    std::string what = g.subject.empty() ? "the `try` block" : Tick(g.subject);
    return what + (g.kind == "catch" ? " threw " : " raised ") +
           (g.code.empty() ? std::string("an exception") : Tick(g.code));
  }
  if (g.kind == "caught") {
    std::string what = g.subject.empty()
                           ? "the `try` block at line " + std::to_string(g.line)
                           : Tick(g.subject) + " (line " + std::to_string(g.line) + ")";
    return what + " " + std::string(voice.tried) + " " +
           (g.code.empty() ? std::string("an exception") : Tick(g.code));
  }
  if (g.kind == "try-else" || g.kind == "no-exception") {
    std::string did = " " + std::string(voice.tried) + " ";
    // An earlier try is named by its line: "the `try` block raised no
    // `KeyError` and the `try` block raised `KeyError`" reads as one block.
    std::string block = "the `try` block";
    if (g.kind == "no-exception" && g.line > 0) block += " at line " + std::to_string(g.line);
    return (g.subject.empty() ? block : Tick(g.subject)) + did +
           (g.code.empty() ? std::string("nothing") : "no " + Tick(g.code));
  }
  if (g.kind == "opaque") {
    return "the " + (g.code.empty() ? std::string("statement") : Tick(g.code) + " statement") +
           " at line " + std::to_string(g.line) + " runs to its end";
  }
  if (g.kind == "label") {
    return "control reaches " + Tick(g.code + ":") + " (line " + std::to_string(g.line) +
           "; a `goto` jumps there)";
  }
  if (g.kind == "case-or-above") {
    return "either " + Tick(g.subject) + " matches " +
           (g.code.empty() ? "no other case" : Tick(g.code)) + " or the cases from line " +
           std::to_string(g.line) + " run into it";
  }
  if (g.kind == "case-entry") {
    return Tick(g.subject) + " selects a case that leads here (the `switch` at line " +
           std::to_string(g.line) + " has case labels inside its statements)";
  }
  if (g.kind == "asserts") {
    return "the " + g.code + " assertions before it from line " + std::to_string(g.line) + " held";
  }
  if (g.kind == "case") return Tick(g.subject) + " matches " + Tick(g.code);
  if (g.kind == "default-case") return Tick(g.subject) + " matches no case" + Valid(g);
  if (g.kind == "for") return "iterating `for " + g.code + "`";
  if (g.kind == "loop-else") return "the loop `for " + g.code + "` ran to its end";
  if (g.when.empty()) return RenderWritten(g);
  std::string_view when = g.when;
  bool negated = StartsWith(when, "not ");
  std::string_view operand = negated ? when.substr(4) : when;
  if (std::string words = Instance(operand, negated); !words.empty()) return words;
  // not `x < 5` shows the condition as the code writes it; the word stays
  // outside the code so that "`a` and not `b`" cannot read as not (a and b).
  if (negated && !Compound(operand, false)) return "not " + Tick(operand);
  return Tick(when);
}

// "raised when `c`, and 5 more conditions on the path" for a chain longer
// than `shown`: the innermost condition decides, the rest are counted.
std::string Fold(const std::vector<Guard>& guards, size_t shown, const Voice& voice) {
  size_t real = 0;
  bool cut = false;
  for (const Guard& g : guards) {
    if (g.kind == "cut") cut = true;
    else ++real;
  }
  std::string s = std::string(voice.happens) + " when ";
  if (real <= shown && !cut) {
    bool first = true;
    for (const Guard& g : guards) {
      s += (first ? "" : " and ") + Render(g, voice);
      first = false;
      // default-case lists them already, and isinstance names the types.
      if (g.kind != "default-case" && g.code.find("isinstance(") == std::string::npos) {
        s += Valid(g);
      }
    }
    return s;
  }
  const Guard& last = guards.back();
  s += Render(last, voice);
  if (last.kind != "default-case" && last.code.find("isinstance(") == std::string::npos) {
    // The values the conditions left out accept too (`elif mode in ("w",
    // "wb")` before the last `elif`): one list of all of them, not the last
    // test's alone, which read as the only valid ones. Only beside a list
    // of the last test's own: without it, theirs would read as all.
    Guard valid = last;
    for (size_t i = 0; i + 1 < guards.size() && !last.values.empty() && !last.subject.empty();
         ++i) {
      const Guard& g = guards[i];
      if (g.subject != last.subject || g.kind == "default-case" ||
          g.code.find("isinstance(") != std::string::npos) {
        continue;
      }
      for (const std::string& v : g.values) {
        if (std::find(valid.values.begin(), valid.values.end(), v) == valid.values.end()) {
          valid.values.push_back(v);
        }
      }
    }
    // Meanings stand beside the last test's values alone.
    if (valid.values.size() != last.values.size()) valid.meanings.clear();
    s += Valid(valid);
  }
  size_t more = real - 1;
  return s + ", and " + (cut ? "more than " : "") + std::to_string(more) + " more condition" +
         (more == 1 && !cut ? "" : "s") + " on the path";
}

}  // namespace

std::string TriggerSentence(const std::vector<Guard>& guards, size_t shown, const Voice& voice) {
  if (guards.empty()) return "";
  for (const Guard& g : guards) {
    if (g.kind == "never") {
      return "never " + std::string(voice.happens) + ": the " +
             (g.code.empty() ? std::string() : "`" + g.code + "` ") + "statement at line " +
             std::to_string(g.line) + " always leaves before it";
    }
  }
  // Where another module's code runs instead is said first, whatever the
  // fold of the rest leaves out.
  auto replacement = std::find_if(guards.begin(), guards.end(), Replacement);
  if (replacement == guards.end()) return Fold(guards, shown, voice);
  std::string s = std::string(voice.happens) + " only when " + Render(*replacement, voice);
  std::vector<Guard> rest;
  std::copy_if(guards.begin(), guards.end(), std::back_inserter(rest),
               [](const Guard& g) { return !Replacement(g); });
  if (rest.empty()) return s;
  return s + ", and then " + Fold(rest, shown, voice).substr(voice.happens.size() + 1);
}

Voice VoiceOf(std::string_view language, std::string_view kind, std::string_view statement) {
  Voice v;
  bool native = language == "c" || language == "cpp";
  if (language == "cpp") v.tried = "threw";
  if (kind == "warning") {
    v.happens = "issued";
  } else if (kind == "return" || kind == "status") {
    v.happens = "returned";
  } else if (language == "rust" && (kind == "fatal" || kind == "assert")) {
    v.happens = "panics";
  } else if (native && kind == "fatal") {
    v.happens = "aborts";
  } else if (language == "cpp" && StartsWith(Trim(statement), "throw")) {
    v.happens = "thrown";
  }
  return v;
}

Voice VoiceOf(const Site& site) {
  return VoiceOf(site.language, SiteKindName(site.kind), site.statement);
}

std::string Revoiced(const std::string& trigger, const std::vector<Guard>& guards,
                     const Voice& voice) {
  constexpr Voice kDefault;
  if (voice.happens == kDefault.happens && voice.tried == kDefault.tried) return trigger;
  // The helper's words (", and only when a condition inside `h` also
  // holds") follow the sentence the guards make.
  std::string plain = TriggerSentence(guards, kTriggerConditionsShown, kDefault);
  if (!plain.empty() && StartsWith(trigger, plain)) {
    return TriggerSentence(guards, kTriggerConditionsShown, voice) + trigger.substr(plain.size());
  }
  for (std::string_view lead : {"raised ", "never raised"}) {
    if (!StartsWith(trigger, lead)) continue;
    size_t verb = lead == "raised " ? 0 : 6;  // where "raised" starts
    return trigger.substr(0, verb) + std::string(voice.happens) + trigger.substr(verb + 6);
  }
  return trigger;
}

bool NeverRaised(const std::vector<Guard>& guards) {
  return std::any_of(guards.begin(), guards.end(),
                     [](const Guard& g) { return g.kind == "never"; });
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

void AddAssertGuard(Site& site, std::string code, std::string when) {
  // `assert False, "Cannot infer the keyword"` fails wherever it is
  // reached: its test is no condition ("raised when `True`").
  if (code.empty() || code == "False" || code == "false" || code == "0" || code == "None") return;
  Guard g;
  g.kind = "assert";
  g.code = std::move(code);
  g.negated = true;
  g.when = std::move(when);
  g.line = site.line;
  site.guards.push_back(std::move(g));
  site.trigger = TriggerSentence(site.guards);
}

}  // namespace errdex
