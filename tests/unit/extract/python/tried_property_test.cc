// A raise in an `except` handler is said to happen when the tried code
// raised: "raised when `t = 10 / b` raised `ZeroDivisionError`" names the
// statement that raised. Random try statements of one to four statements
// (each raising or not, depending on the arguments; some compound) are
// extracted; CPython, the reference, runs a copy of each function that
// records which statement of the try block was running, on random inputs.
// Whenever a handler's raise is reached, the statement the sentence names
// (if it names one) must be the one that raised.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/guards.h"
#include "core/text.h"
#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

// Statements of a try block, as lines below the `try:` (indent 2 = the
// block's); each raises for some of the inputs drawn below.
const std::vector<std::vector<std::string>> kStatements = {
    {"t = {1: 2}[a]"},                        // KeyError unless a == 1
    {"t = 10 / b"},                           // ZeroDivisionError when b == 0
    {"t = [1, 2][c]"},                        // IndexError unless -2 <= c <= 1
    {"t = int('x' if a == 2 else '3')"},      // ValueError when a == 2
    {"t = a + b"},                            // never
    {"return {1: 2}[a] + b"},                 // KeyError unless a == 1
    {"if a > 0:", "    t = 10 / b"},          // compound
    {"for v in (a, b):", "    t = 10 / v"},   // compound
    {"t = (", "    10 / c  # divides", ")"},  // one statement over lines, a comment in it
};

const char* const kHandled[] = {"KeyError",
                                "ZeroDivisionError",
                                "(KeyError, ZeroDivisionError)",
                                "LookupError",
                                "ArithmeticError",
                                "Exception",
                                "ValueError",
                                ""};

struct Case {
  std::string name;
  std::string plain;                    // what errdex reads
  std::string instrumented;             // what CPython runs: each statement records itself first
  std::vector<std::string> statements;  // the try block's statements, as errdex would quote them
  std::vector<std::pair<size_t, size_t>> tries;  // each try's statements: [first, end)
  std::map<std::string, int> message_try;        // message -> the try its handler belongs to
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  Case Function(const std::string& name) {
    Case c;
    c.name = name;
    std::string head = "def " + name + "(a, b, c):\n    t = 0\n";
    c.plain = head;
    c.instrumented = head;
    int tries = 1 + Pick(2);
    int messages = 0;
    for (int k = 0; k < tries; ++k) {
      Add(c, "    try:\n");
      size_t first = c.statements.size();
      int n = 1 + Pick(4);
      for (int i = 0; i < n; ++i) {
        const std::vector<std::string>& s = kStatements[Pick(static_cast<int>(kStatements.size()))];
        c.instrumented += "        _T.append(" + std::to_string(c.statements.size()) + ")\n";
        for (const std::string& line : s) {
          c.plain += "        " + line + "\n";
          c.instrumented += "        " + line + "\n";
        }
        c.statements.push_back(Join(s));
      }
      c.tries.emplace_back(first, c.statements.size());
      int handlers = 1 + Pick(2);
      for (int h = 0; h < handlers; ++h) {
        std::string handled = kHandled[Pick(static_cast<int>(std::size(kHandled)))];
        Add(c, handled.empty() ? "    except:\n" : "    except " + handled + ":\n");
        std::string message = name + "_" + std::to_string(messages++);
        Add(c, "        raise RuntimeError(\"" + message + "\")\n");
        c.message_try[message] = k;
        if (handled.empty()) break;  // a bare except must be last
      }
    }
    Add(c, "    return t\n");
    return c;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  static void Add(Case& c, const std::string& text) {
    c.plain += text;
    c.instrumented += text;
  }

  // A statement as one line, comments out, as a sentence quotes code.
  static std::string Join(const std::vector<std::string>& lines) {
    std::string out;
    for (std::string line : lines) {
      if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      out += " " + line;
    }
    return CollapseWhitespace(out);
  }

  std::mt19937 rng_;
};

// Runs the functions in CPython on random inputs and checks each claim.
constexpr const char* kHarness = R"PY(
import json, random, sys
rng = random.Random(int(sys.argv[1]))
report = {"runs": 0, "raised": 0, "checked": 0, "disagreements": [], "count": 0, "errors": []}
for name, f, claims in CASES:
    for _ in range(int(sys.argv[2])):
        args = (rng.choice([0, 1, 2, -1]), rng.choice([0, 1, 2]), rng.choice([-3, -1, 0, 1, 2]))
        _T.clear()
        report["runs"] += 1
        try:
            f(*args)
            continue
        except RuntimeError as e:
            message = str(e)
        except Exception as e:
            continue  # not handled: no raise of ours reached
        report["raised"] += 1
        if message not in claims:
            report["errors"].append(f"{name}{args!r}: {message} has no site")
            continue
        claimed = claims[message]
        if claimed is None:
            continue
        report["checked"] += 1
        if _T[-1] != claimed:
            report["count"] += 1
            if len(report["disagreements"]) < 20:
                report["disagreements"].append({"function": name, "args": repr(args),
                    "message": message, "claimed": claimed, "raised_in": _T[-1]})
report["errors"] = report["errors"][:20]
print(json.dumps(report))
)PY";

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

TEST(TriedProperty, TheStatementASentenceSaysRaisedIsTheOneThatRaised) {
  constexpr int kFunctions = 1500;
  Generator gen(testing::PropertySeed(20261206u));
  std::string program = "_T = []\n";
  std::string plain;
  std::vector<Case> cases;
  for (int i = 0; i < kFunctions; ++i) {
    cases.push_back(gen.Function("g" + std::to_string(i)));
    program += cases.back().instrumented + "\n";
    plain += cases.back().plain + "\n";
  }
  std::map<std::string, const Case*> case_of;  // message -> its function
  for (const Case& c : cases) {
    for (const auto& [message, k] : c.message_try) case_of[message] = &c;
  }
  std::map<std::string, std::string> claims_of;  // function -> its claims as a Python dict body
  int sites = 0, named = 0, unnamed = 0, several = 0;
  for (const Site& s : ExtractPythonSource("gen.py", plain).sites) {
    std::string message = s.message.Display();
    auto it = case_of.find(message);
    ASSERT_NE(it, case_of.end()) << "a site no raise wrote: " << message;
    const Case& c = *it->second;
    ++sites;
    const Guard* except = nullptr;
    for (const Guard& g : s.guards) {
      if (g.kind == "except") except = &g;
    }
    ASSERT_NE(except, nullptr) << message << ": no except guard";
    std::string claim = "None";
    if (!except->subject.empty()) {
      // The statement it names, by its text (`return` dropped), among the
      // statements of the try its handler belongs to.
      int index = -1;
      auto [first, end] = c.tries[c.message_try.at(message)];
      for (size_t k = first; k < end; ++k) {
        std::string text = c.statements[k];
        if (text.rfind("return ", 0) == 0) text.erase(0, 7);
        if (text == except->subject) index = static_cast<int>(k);
      }
      ASSERT_GE(index, 0) << message << ": names `" << except->subject << "`, no statement of\n"
                          << c.plain;
      claim = std::to_string(index);
      ++named;
    } else {
      ++unnamed;
    }
    EXPECT_NE(s.trigger.find(except->subject.empty() ? "the `try` block raised"
                                                     : "`" + except->subject + "` raised"),
              std::string::npos)
        << s.trigger;
    claims_of[c.name] += Quoted(message) + ": " + claim + ", ";
  }
  // Not vacuous: both kinds of sentence, and try blocks of several
  // statements among the raises reached.
  for (const Case& c : cases) {
    for (auto [first, end] : c.tries) several += end - first > 1 ? 1 : 0;
  }
  EXPECT_GE(named, sites / 10) << "sites " << sites;
  EXPECT_GE(unnamed, sites / 3) << "sites " << sites;
  std::string list = "CASES = [\n";
  for (const auto& [name, claims] : claims_of) {
    list += "(" + Quoted(name) + ", " + name + ", {" + claims + "}),\n";
  }
  list += "]\n";
  testing::TempDir dir;
  auto script = dir.Write("check.py", program + list + kHarness);
  testing::CommandResult run =
      testing::RunPython(script, std::to_string(testing::PropertySeed(20261206u)) + " 40");
  ASSERT_EQ(run.exit_code, 0) << run.out.substr(0, 4000);
  nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.out.substr(0, 4000);
  EXPECT_EQ(report["count"], 0) << report["disagreements"].dump(1);
  EXPECT_TRUE(report["errors"].empty()) << report["errors"].dump(1);
  EXPECT_GE(report["checked"].get<int>(), 2000);
  std::printf(
      "functions %d (%d try blocks of several statements), sites %d (%d name a statement), "
      "raises reached %d, claims checked %d\n",
      kFunctions, several, sites, named, report["raised"].get<int>(), report["checked"].get<int>());
}

}  // namespace
}  // namespace errdex::extract
