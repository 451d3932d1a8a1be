// The trigger sentence of a raise is true exactly when the raise is reached.
// Random Python functions (nested if/elif/else, early returns, asserts,
// compound conditions with not/and/or, comparisons, membership, identity,
// isinstance, any/all over generators) are extracted; each raise's sentence
// is read back into a Python expression and CPython, the reference, runs
// the function and the expression on random inputs — NaN among them, where
// `not x < 5` and `x >= 5` part ways. Any input where the two disagree is a
// wrong sentence.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/guards.h"
#include "extract/extractor.h"
#include "test_util.h"
#include "trigger_parts.h"

namespace errdex::extract {
namespace {

enum Prec { kOr = 1, kAnd, kNot, kCmp, kOperand };

struct Cond {
  std::string text;
  int prec;
};

// Conditions that never raise on the inputs drawn below.
const Cond kAtoms[] = {
    {"x < y", kCmp},
    {"x <= 0", kCmp},
    {"y > z", kCmp},
    {"z >= 1", kCmp},
    {"x == y", kCmp},
    {"y != 0", kCmp},
    {"x < y <= z", kCmp},
    {"x == y == z", kCmp},
    {"x + y > z", kCmp},
    {"-x < y", kCmp},
    {"(x if o else y) > 0", kCmp},
    {"x in xs", kCmp},
    {"y not in xs", kCmp},
    {"z in (0, 1)", kCmp},
    {"x not in (1, 2)", kCmp},
    {"o is None", kCmp},
    {"o is not None", kCmp},
    {"s in ('a', 'b')", kCmp},
    {"len(xs) > 1", kCmp},
    {"isinstance(o, int)", kOperand},
    {"isinstance(o, (str, list))", kOperand},
    {"any(v > x for v in xs)", kOperand},
    {"all(v != y for v in xs)", kOperand},
    {"any(v == z for v in xs if v > 0)", kOperand},
    {"s.startswith('a')", kOperand},
    {"x", kOperand},
    {"xs", kOperand},
    {"o", kOperand},
    {"True", kOperand},
    {"not o", kNot},
    {"not xs", kNot},
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  // Whether tests chose `message` among the texts of one raise.
  bool Chosen(const std::string& message) const { return chosen_.count(message) > 0; }

  // def NAME(x, y, z, xs, o, s): ... with its raises' messages NAME_0, ...
  // and, in `extra`, the messages made by appending to one of those.
  std::string Function(const std::string& name, int* raises, std::vector<std::string>* extra) {
    name_ = name;
    raises_ = 0;
    extra_.clear();
    std::string out = "def " + name + "(x, y, z, xs, o, s):\n";
    Block(0, 1, out);
    if (raises_ == 0) out += "    raise ValueError(\"" + Message() + "\")\n";
    *raises = raises_;
    *extra = extra_;
    return out;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Pick(100) < percent; }
  std::string Message() { return name_ + "_" + std::to_string(raises_++); }

  std::string Wrap(const Cond& c, int at_least) {
    return c.prec < at_least || (c.prec < kOperand && Chance(10)) ? "(" + c.text + ")" : c.text;
  }

  // Most conditions in real code are one or two tests; some are more.
  int Depth() { return Chance(20) ? 2 : 1; }

  Cond Condition(int depth) {
    if (depth == 0 || Chance(40)) return kAtoms[Pick(std::size(kAtoms))];
    int what = Pick(10);
    if (what < 2) return {"not " + Wrap(Condition(depth - 1), kNot), kNot};
    int p = what < 6 ? kAnd : kOr;
    Cond left = Condition(depth - 1);
    Cond right = Condition(depth - 1);
    return {Wrap(left, p) + (p == kAnd ? " and " : " or ") + Wrap(right, p), p};
  }

  void Line(int indent, const std::string& text, std::string& out) {
    out += std::string(4 * indent, ' ') + text + "\n";
  }

  // Whether the block certainly leaves the function (or is `dead`, never
  // reached). After a raise or return its statements are dead: a message
  // built there reaches no raise, nor is one.
  bool Block(int depth, int indent, std::string& out, bool dead = false) {
    int n = 1 + Pick(3);
    bool left = dead;
    for (int i = 0; i < n; ++i) {
      int what = Pick(100);
      if (depth < 3 && what < 40 - 8 * depth) {
        Line(indent, "if " + Condition(Depth()).text + ":", out);
        bool every_arm_leaves = Block(depth + 1, indent + 1, out, left);
        for (int elifs = Pick(3); elifs > 0; --elifs) {
          if (!Chance(50)) break;
          Line(indent, "elif " + Condition(Depth()).text + ":", out);
          every_arm_leaves &= Block(depth + 1, indent + 1, out, left);
        }
        if (Chance(40)) {
          Line(indent, "else:", out);
          left |= Block(depth + 1, indent + 1, out, left) && every_arm_leaves;
        }
      } else if (what < 65 && !left && Chance(25)) {
        MessageChosenByTests(indent, out);
        left = true;
      } else if (what < 65) {
        Line(indent, "raise ValueError(\"" + Message() + "\")", out);
        left = true;
      } else if (what < 75) {
        Line(indent, "assert " + Condition(Depth()).text + ", \"" + Message() + "\"", out);
      } else if (what < 87) {
        Line(indent, "return 1", out);
        left = true;
      } else if (what < 90) {
        // A loop that cannot leave the function says nothing.
        Line(indent, "for v in xs:", out);
        Line(indent + 1, "t = v", out);
      } else {
        Line(indent, Chance(50) ? "pass" : "t = 1", out);
      }
    }
    return left;
  }

  // One raise whose text tests choose: the arm of a conditional
  // expression, or a message that an if/elif chain replaces or appends to.
  // Each text is a site of its own, whose sentence must hold exactly when
  // the raise runs with that text.
  void MessageChosenByTests(int indent, std::string& out) {
    size_t first = static_cast<size_t>(raises_);
    if (Chance(30)) {
      std::string a = Message();
      Line(indent,
           "raise ValueError(\"" + a + "\" if " + Condition(Depth()).text + " else \"" + Message() +
               "\")",
           out);
    } else {
      ChainedMessage(indent, out);
    }
    for (size_t k = first; k < static_cast<size_t>(raises_); ++k) {
      chosen_.insert(name_ + "_" + std::to_string(k));
    }
    chosen_.insert(extra_.begin(), extra_.end());
  }

  void ChainedMessage(int indent, std::string& out) {
    std::string base = Message();
    Line(indent, "m = \"" + base + "\"", out);
    for (int arm = 0, arms = 1 + Pick(3); arm < arms; ++arm) {
      Line(indent, std::string(arm == 0 ? "if " : "elif ") + Condition(Depth()).text + ":", out);
      if (Chance(30)) Line(indent + 1, "t = 1", out);
      if (Chance(40)) {
        std::string tail = "_" + std::to_string(arm);
        Line(indent + 1, "m += \"" + tail + "\"", out);
        extra_.push_back(base + tail);
      } else {
        Line(indent + 1, "m = \"" + Message() + "\"", out);
      }
    }
    Line(indent, "raise ValueError(m)", out);
  }

  std::mt19937 rng_;
  std::string name_;
  int raises_ = 0;
  std::vector<std::string> extra_;
  std::set<std::string> chosen_;
};

std::vector<std::string> Parts(std::string_view conditions) {
  return testing::TriggerParts(conditions);
}

// One condition of a sentence as Python; none if it is not one the
// sentences write for Boolean conditions.
std::optional<std::string> PartToPython(std::string part) {
  if (size_t valid = part.rfind(" (valid: "); valid != std::string::npos && part.back() == ')') {
    part.resize(valid);
  }
  bool negated = part.rfind("not `", 0) == 0;
  if (negated) part.erase(0, 4);
  if (part.size() < 2 || part[0] != '`') return std::nullopt;
  size_t close = part.find('`', 1);
  if (close == std::string::npos) return std::nullopt;
  std::string code = part.substr(1, close - 1);
  std::string rest = part.substr(close + 1);
  if (rest.empty()) return negated ? "(not (" + code + "))" : "(" + code + ")";
  if (negated) return std::nullopt;
  for (const char* words : {" is not an instance of `", " is an instance of `"}) {
    std::string w = words;
    if (rest.rfind(w, 0) == 0 && rest.back() == '`') {
      std::string type = rest.substr(w.size(), rest.size() - w.size() - 1);
      return std::string(w.find("not") != std::string::npos ? "(not " : "(") + "isinstance(" +
             code + ", " + type + "))";
    }
  }
  return std::nullopt;
}

std::optional<std::string> SentenceToPython(const std::string& sentence) {
  if (sentence.empty()) return "True";
  if (sentence.rfind("never raised", 0) == 0) return "False";
  const std::string lead = "raised when ";
  if (sentence.rfind(lead, 0) != 0) return std::nullopt;
  std::string out;
  for (const std::string& part : Parts(std::string_view(sentence).substr(lead.size()))) {
    std::optional<std::string> p = PartToPython(part);
    if (!p) return std::nullopt;
    out += (out.empty() ? "" : " and ") + *p;
  }
  return out;
}

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// A sentence without its " (valid: ...)" lists.
std::string WithoutValid(std::string s) {
  for (size_t at = s.find(" (valid: "); at != std::string::npos; at = s.find(" (valid: ", at)) {
    size_t close = s.find(')', at);
    if (close == std::string::npos) break;
    s.erase(at, close + 1 - at);
  }
  return s;
}

// Runs the functions and the triggers in CPython on random inputs.
constexpr const char* kHarness = R"PY(
import json, math, random, sys
rng = random.Random(int(sys.argv[1]))
NUMBERS = [-2, -1, 0, 1, 2, math.nan]
def draw():
    return (rng.choice(NUMBERS), rng.choice(NUMBERS), rng.choice(NUMBERS[:-1]),
            [rng.randint(-2, 2) for _ in range(rng.randint(0, 3))],
            rng.choice([None, 0, 1, 2.5, "", "a", [1]]), rng.choice(["", "a", "ab", "b", "c"]))
report = {"checks": 0, "fired": 0, "disagreements": [], "count": 0, "errors": []}
fired = set()
for name, f, sites in CASES:
    for _ in range(int(sys.argv[2])):
        args = draw()
        try:
            f(*args)
            got = None
        except (ValueError, AssertionError) as e:
            got = str(e)
        except Exception as e:
            report["errors"].append(f"{name}{args!r}: {e!r}")
            continue
        if got is not None and all(got != m for m, _, _ in sites):
            report["count"] += 1
            if len(report["disagreements"]) < 20:
                report["disagreements"].append({"raised with no site": got, "args": repr(args)})
        for message, sentence, trigger in sites:
            if trigger is None:  # a sentence that names a condition, not spells it out
                continue
            report["checks"] += 1
            try:
                want = bool(trigger(*args))
            except Exception as e:
                report["errors"].append(f"{message} trigger{args!r}: {e!r}")
                continue
            if want:
                fired.add(message)
            if want != (got == message):
                report["count"] += 1
                if len(report["disagreements"]) < 20:
                    report["disagreements"].append(
                        {"site": message, "sentence": sentence, "args": repr(args),
                         "raised": got, "trigger": want})
report["fired"] = len(fired)
report["errors"] = report["errors"][:20]
print(json.dumps(report))
)PY";

uint32_t Seed() { return testing::PropertySeed(20261201u); }

TEST(TriggerProperty, SentenceIsTrueExactlyWhenTheRaiseIsReached) {
  constexpr int kFiles = 10;
  constexpr int kFunctionsPerFile = 520;
  Generator gen(Seed());
  std::string program;
  std::string cases = "CASES = [\n";
  int functions = 0, sites = 0, untranslatable = 0, folded = 0, multi = 0, opaque = 0;
  for (int file = 0; file < kFiles; ++file) {
    std::string code;
    std::map<std::string, std::string> function_of;  // message -> function
    std::map<std::string, int> raises;
    for (int i = 0; i < kFunctionsPerFile; ++i) {
      std::string name = "f" + std::to_string(file) + "_" + std::to_string(i);
      std::vector<std::string> extra;
      code += gen.Function(name, &raises[name], &extra) + "\n";
      for (int k = 0; k < raises[name]; ++k) function_of[name + "_" + std::to_string(k)] = name;
      for (const std::string& m : extra) function_of[m] = name;
      ++functions;
    }
    program += code;
    std::map<std::string, std::string> entries;  // function -> its sites as Python
    std::map<std::string, int> seen;
    for (const Site& s : ExtractPythonSource("gen.py", code).sites) {
      std::string message = s.message.Display();
      // Every text a raise of `m` can have is dropped on a path whose tests
      // contradict each other (`o` falsy, then `o is not None`): the raise
      // is dead, and its sentence must never hold.
      if (message == "{m}") function_of[message] = s.function;
      auto fn = function_of.find(message);
      ASSERT_NE(fn, function_of.end()) << "a site no raise wrote: " << message;
      ++seen[message];
      ++sites;
      if (s.guards.size() >= 2) ++multi;
      std::string full = TriggerSentence(s.guards, SIZE_MAX);
      EXPECT_EQ(s.trigger, TriggerSentence(s.guards)) << message;
      // A folded sentence leads with the innermost condition and counts
      // the others (its valid values may take in those of the tests it
      // folds away, so they are left out of the comparison).
      std::vector<std::string> parts =
          full.rfind("raised when ", 0) == 0 ? Parts(full.substr(12)) : std::vector<std::string>{};
      if (parts.size() > kTriggerConditionsShown && full.find("never") != 0) {
        ++folded;
        size_t more = parts.size() - 1;
        EXPECT_EQ(WithoutValid(s.trigger),
                  WithoutValid("raised when " + parts.back() + ", and " + std::to_string(more) +
                               " more condition" + (more == 1 ? "" : "s") + " on the path"));
      }
      // Named, not spelled out: a fall-through too large to write (more
      // than a dozen conditions), a run of asserts, or a condition cut for
      // length.
      if (full.find("runs to its end") != std::string::npos ||
          full.find("assertions before it") != std::string::npos ||
          full.find("\u2026") != std::string::npos) {
        ++opaque;
        entries[fn->second] += "(" + Quoted(message) + ", " + Quoted(full) + ", None), ";
        continue;
      }
      std::optional<std::string> expr = SentenceToPython(full);
      if (!expr) {
        ++untranslatable;
        ADD_FAILURE() << message << ": no Python for " << full;
        continue;
      }
      entries[fn->second] += "(" + Quoted(message) + ", " + Quoted(full) +
                             ", lambda x, y, z, xs, o, s: " + *expr + "), ";
    }
    for (const auto& [message, name] : function_of) {
      // A text chosen by tests that contradict the path is not listed: the
      // harness checks no raise ever has a text that is not.
      if (message == "{m}" || (gen.Chosen(message) && seen[message] == 0)) continue;
      EXPECT_EQ(seen[message], 1) << "raise " << message << " extracted " << seen[message] << "x";
    }
    for (const auto& [name, list] : entries) cases += "(" + Quoted(name) + ", " + name + ", [" + list + "]),\n";
  }
  cases += "]\n";
  ASSERT_GE(functions, 5000);
  testing::TempDir dir;
  auto script = dir.Write("check.py", program + cases + kHarness);
  testing::CommandResult run = testing::RunPython(script, std::to_string(Seed()) + " 80");
  const std::string& out = run.out;
  ASSERT_EQ(run.exit_code, 0) << out.substr(0, 4000);
  nlohmann::json report = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << out.substr(0, 4000);
  EXPECT_EQ(report["count"], 0) << report["disagreements"].dump(1);
  EXPECT_TRUE(report["errors"].empty()) << report["errors"].dump(1);
  EXPECT_EQ(untranslatable, 0);
  EXPECT_LE(opaque, sites / 100) << "sites " << sites;
  // Not vacuous: most sites have a chain of conditions, many get raised.
  EXPECT_GE(multi, sites / 3) << "sites " << sites;
  EXPECT_GE(report["fired"].get<int>(), sites / 5) << "sites " << sites;
  std::printf(
      "functions %d, sites %d (%d with 2+ conditions, %d folded, %d not spelled out), checks %d, "
      "fired %d\n",
      functions, sites, multi, folded, opaque, report["checks"].get<int>(),
              report["fired"].get<int>());
}

}  // namespace
}  // namespace errdex::extract
