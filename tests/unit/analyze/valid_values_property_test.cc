// "It takes 'a' or 'b'", "pass `x` as an instance of `int`": a value the
// page lists as one the code accepts must be one it accepts. Random Python
// functions of `x` and `y` check `x` with isinstance and membership tests in
// nested if/elif/else branches and early exits, whose arms raise, return or
// go on; errdex extracts and analyses them. CPython, the reference, then
// calls each function with every listed value (for a type, with values of
// that type) and every `y`: a listed value for which no call returns is a
// wrong sentence. The first version of this test found the values of a test
// whose own arm raises another error (`if isinstance(a, tuple): raise
// TypeError` before the `elif` whose error this is) listed as accepted.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::analyze {
namespace {

// Tests of `x` that give valid values when negated or as written, and
// others that do not; tests of `y` decide besides.
const char* const kTests[] = {
    "isinstance(x, int)",
    "not isinstance(x, int)",
    "isinstance(x, (str, list))",
    "not isinstance(x, (str, list))",
    "isinstance(x, tuple)",
    "x in ('a', 'b')",
    "x not in ('a', 'b')",
    "x in (1, 2)",
    "x not in (1, 2, 'c')",
    "x is None",
    "x == 'c'",
    // Two tests of y that every combination of truths is drawn for (YS):
    // errdex takes tests it cannot decide as independent of each other.
    "y > 0",
    "y % 2 == 0",
    "not y > 0",
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  std::string Function(const std::string& name) {
    name_ = name;
    raises_ = 0;
    std::string out = "def " + name + "(x, y):\n";
    Block(0, 1, out);
    // The end of the body: the function returns, or every path that gets
    // there raises.
    if (Chance(70)) {
      Line(1, "return 0", out);
    } else {
      Line(1, Raise(), out);
    }
    return out;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::string Raise() {
    std::string type = Chance(50) ? "ValueError" : "TypeError";
    return "raise " + type + "(\"" + name_ + "_" + std::to_string(raises_++) + "\")";
  }

  std::string Test() {
    std::string t = kTests[Pick(static_cast<int>(std::size(kTests)))];
    if (Chance(15)) {
      t += std::string(Chance(50) ? " and " : " or ") +
           kTests[Pick(static_cast<int>(std::size(kTests)))];
    }
    return t;
  }

  void Line(int indent, const std::string& text, std::string& out) {
    out += std::string(4 * indent, ' ') + text + "\n";
  }

  // An arm: a raise, a return, nothing, or more tests.
  void Arm(int depth, int indent, std::string& out) {
    int what = Pick(100);
    if (depth < 2 && what < 25) {
      Block(depth + 1, indent, out);
    } else if (what < 70) {
      Line(indent, Raise(), out);
    } else if (what < 85) {
      Line(indent, "return 1", out);
    } else {
      Line(indent, "pass", out);
    }
  }

  void Block(int depth, int indent, std::string& out) {
    int n = 1 + Pick(3);
    for (int i = 0; i < n; ++i) {
      Line(indent, "if " + Test() + ":", out);
      Arm(depth, indent + 1, out);
      for (int elifs = Pick(3); elifs > 0; --elifs) {
        Line(indent, "elif " + Test() + ":", out);
        Arm(depth, indent + 1, out);
      }
      if (Chance(40)) {
        Line(indent, "else:", out);
        Arm(depth, indent + 1, out);
      }
    }
  }

  std::mt19937 rng_;
  std::string name_;
  int raises_ = 0;
};

// Two claims, checked in CPython for each listed value (for a type, each
// value of that type among XS) and every y: the raise is never reached with
// it (the values are the right side of the test), and the if statement
// whose test lists it does not send it into an arm that always raises
// (they are no other error's values).
constexpr const char* kHarness = R"py(
import ast, inspect, json, sys
SRC = open(__file__).read()
LINES = SRC.splitlines()
XS = [None, 0, 1, 2, True, 2.5, "a", "b", "c", "", [1], [], (1,), ()]
YS = [0, 1, -1, 2]

def arms(node):
    out = []
    while True:
        out.append((node.test, node.body))
        nxt = node.orelse[0] if len(node.orelse) == 1 else None
        if isinstance(nxt, ast.If) and LINES[nxt.lineno - 1].lstrip().startswith("elif"):
            node = nxt
            continue
        if node.orelse:
            out.append((None, node.orelse))
        return out

def always_raises(stmts):
    for s in stmts:
        if isinstance(s, ast.Raise):
            return True
        if isinstance(s, ast.Return):
            return False
        if isinstance(s, ast.If):
            chain = arms(s)
            if any(isinstance(n, ast.Return) for _, body in chain for b in body for n in ast.walk(b)):
                return False
            if chain[-1][0] is None and all(always_raises(body) for _, body in chain):
                return True
    return False

CHAIN = {}  # the line of an if or elif test -> its whole chain
for node in ast.walk(ast.parse(SRC)):
    if isinstance(node, ast.If) and not LINES[node.lineno - 1].lstrip().startswith("elif"):
        chain = arms(node)
        for test, _ in chain:
            if test is not None:
                CHAIN[test.lineno] = chain

def arm_taken(chain, x, y):
    for test, body in chain:
        if test is None or eval(compile(ast.Expression(test), "<test>", "eval"), {"x": x, "y": y}):
            return body
    return None

wrong, checked = [], 0
for name, message, source, values, line in CASES:
    f = globals()[name]
    for text in values:
        v = eval(text)
        xs = [x for x in XS if isinstance(x, v)] if source == "types" else [v]
        checked += 1
        for x in xs:
            for y in YS:
                try:
                    f(x, y)
                except (ValueError, TypeError) as e:
                    if str(e) == message:
                        wrong.append([message, text, "raised with x=%r, y=%r" % (x, y)])
        chain = CHAIN.get(line)
        if chain is None:
            wrong.append([message, text, "no if statement at line %d" % line])
            continue
        if all(always_raises(arm_taken(chain, x, y) or []) for x in xs for y in YS):
            wrong.append([message, text, "line %d sends it into a raise: %s" % (line, LINES[line - 1].strip())] +
                         (inspect.getsource(f).splitlines() if len(wrong) < 5 else []))
print(json.dumps({"checked": checked, "wrong": wrong[:30], "count": len(wrong)}))
)py";

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

TEST(ValidValuesProperty, EveryValueThePageSaysTheCodeTakesItTakes) {
  constexpr int kFunctions = 600;
  Generator gen(testing::PropertySeed(20261206u));
  std::string program;
  for (int i = 0; i < kFunctions; ++i) program += gen.Function("f" + std::to_string(i)) + "\n";

  testing::TempDir dir;
  auto db = (dir.path() / "c.db").string();
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  catalog::SnapshotInfo info;
  info.library = "test/valid";
  info.rev = "r1";
  info.kind = "dir";
  ASSERT_TRUE(
      cat->WriteSnapshot(info, extract::ExtractPythonSource("valid.py", program)).has_value());
  ASSERT_TRUE(AnalyzeCatalog(*cat, "").has_value());

  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  ASSERT_TRUE(all.has_value());
  std::string cases = "CASES = [\n";
  int errors = 0, listed = 0, types = 0;
  for (const catalog::ErrorRecord& r : *all) {
    Result<catalog::ErrorRecord> e = cat->Get(r.id);
    ASSERT_TRUE(e.has_value() && e->analysis.has_value());
    ++errors;
    std::string name = r.template_text.substr(0, r.template_text.find('_'));
    for (const ValidValues& v : e->analysis->valid) {
      ASSERT_EQ(v.subject, "x") << r.template_text;
      ++listed;
      if (v.source == "types") ++types;
      std::string values = "[";
      for (const std::string& value : v.values) values += Quoted(value) + ", ";
      cases += "(" + Quoted(name) + ", " + Quoted(r.template_text) + ", " + Quoted(v.source) +
               ", " + values + "], " + std::to_string(v.line) + "),\n";
    }
  }
  cases += "]\n";
  auto script = dir.Write("check.py", program + cases + kHarness);
  testing::CommandResult run = testing::RunPython(script);
  ASSERT_EQ(run.exit_code, 0) << run.out.substr(0, 4000);
  nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.out.substr(0, 4000);
  EXPECT_EQ(report["count"], 0) << report["wrong"].dump(1);
  // Not vacuous: many errors list values, types and sets both.
  EXPECT_GE(listed, errors / 10) << "errors " << errors;
  EXPECT_GE(types, listed / 5) << "listed " << listed;
  std::printf("functions %d, errors %d, with values listed %d (%d types), values checked %d\n",
              kFunctions, errors, listed, types, report["checked"].get<int>());
}

}  // namespace
}  // namespace errdex::analyze
