// An example fix is a call that really passes the value to the parameter the
// check reads. Random functions — module functions, methods, classmethods,
// staticmethods, constructors, local functions — with random signatures
// (positional-only, defaults, *args, keyword-only, **kwargs) check one name
// against a tuple of allowed values. errdex extracts them, analyses the
// catalog and writes the fix; CPython, the reference, binds each fix's call
// to the real callable with inspect.signature and says whether the checked
// parameter receives the value. A fix must also exist exactly where one can
// be written: the name is a named parameter of a function a caller can name.
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

struct Case {
  std::string message;    // the raise's text, unique
  std::string subject;    // the name the check reads
  std::string owner;      // the class a method is in, or ""
  bool expect_fix = false;
};

// One random function (inside a class or another function where the shape
// asks) whose body rejects `subject` unless it is "a" or "b".
std::string Generate(std::mt19937& rng, int index, Case& c) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  enum Shape { kFunction, kMethod, kClassMethod, kStatic, kInit, kLocal } shape =
      static_cast<Shape>(pick(6));
  std::vector<std::string> names;
  std::string params;
  auto add = [&](const std::string& text, const std::string& name) {
    params += (params.empty() ? "" : ", ") + text;
    if (!name.empty()) names.push_back(name);
  };
  if (shape == kMethod || shape == kInit) add("self", "");
  if (shape == kClassMethod) add("cls", "");
  int positional_only = pick(3), regular = pick(3), keyword_only = pick(3);
  bool star = pick(2) == 0, double_star = pick(3) == 0;
  // Defaults only on the trailing positional parameters, as Python requires.
  int defaults_from = positional_only + regular - pick(positional_only + regular + 1);
  int n = 0;
  for (int i = 0; i < positional_only + regular; ++i, ++n) {
    std::string name = "p" + std::to_string(n);
    add(name + (i >= defaults_from ? "=None" : ""), name);
    if (i + 1 == positional_only) params += ", /";
  }
  if (star) add("*args", "args");
  if (keyword_only > 0 && !star) add("*", "");
  for (int i = 0; i < keyword_only; ++i, ++n) {
    std::string name = "p" + std::to_string(n);
    add(name + (pick(2) ? "=None" : ""), name);
  }
  if (double_star) add("**kwargs", "kwargs");

  // The checked name: a parameter, or now and then a local variable.
  bool local_variable = names.empty() || pick(8) == 0;
  c.subject = local_variable ? "chosen" : names[static_cast<size_t>(pick(int(names.size())))];
  bool variadic = c.subject == "args" || c.subject == "kwargs";
  c.message = "case " + std::to_string(index);
  // Module functions are written at the left margin, the others one level in.
  std::string in = shape == kFunction ? "    " : "        ";
  std::string body = local_variable ? in + "chosen = str(len(dir()))\n" : "";
  body += in + "if " + c.subject + " not in (\"a\", \"b\"):\n" + in + "    raise ValueError(\"" +
          c.message + "\")\n";
  std::string name = shape == kInit ? "__init__" : "f" + std::to_string(index);
  c.expect_fix = !local_variable && !variadic && shape != kLocal;
  if (shape == kFunction) return "def " + name + "(" + params + "):\n" + body;
  std::string def = "    def " + name + "(" + params + "):\n" + body;
  if (shape == kLocal)
    return "def outer" + std::to_string(index) + "():\n" + def + "    return " + name + "\n";
  c.owner = "C" + std::to_string(index);
  std::string decorator = shape == kClassMethod ? "    @classmethod\n"
                          : shape == kStatic    ? "    @staticmethod\n"
                                                : "";
  return "class " + c.owner + ":\n" + decorator + def;
}

constexpr const char* kHarness = R"py(
import ast, inspect, json, sys

def target_of(call, owner):
    f = call.func
    if isinstance(f, ast.Name):
        return globals()[f.id]
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        cls = globals()[owner]
        if f.value.id == "obj":
            return getattr(object.__new__(cls), f.attr)
        if f.value.id == owner:
            return getattr(cls, f.attr)
    raise ValueError("callee " + ast.dump(f))

def value_of(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return object()  # an argument the fix leaves to the caller
    raise ValueError("argument " + ast.dump(node))

wrong = []
for message, subject, owner, fix in CASES:
    try:
        call = ast.parse(fix, mode="eval").body
        args = [value_of(a) for a in call.args
                if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
        kwargs = {k.arg: value_of(k.value) for k in call.keywords}
        bound = inspect.signature(target_of(call, owner)).bind_partial(*args, **kwargs)
        if bound.arguments.get(subject) != "a":
            wrong.append([message, fix, "binds " + repr(dict(bound.arguments))])
    except Exception as e:
        wrong.append([message, fix, type(e).__name__ + ": " + str(e)])
print(json.dumps({"checked": len(CASES), "wrong": wrong}))
)py";

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

TEST(FixProperty, EveryFixBindsTheCheckedParameterInCPython) {
  std::mt19937 rng(20261201);
  std::vector<Case> cases;
  std::string program;
  for (int i = 0; i < 600; ++i) {
    Case c;
    program += Generate(rng, i, c) + "\n";
    cases.push_back(c);
  }
  testing::TempDir dir;
  auto db = (dir.path() / "c.db").string();
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  catalog::SnapshotInfo info;
  info.library = "test/fixes";
  info.rev = "r1";
  info.kind = "dir";
  ASSERT_TRUE(
      cat->WriteSnapshot(info, extract::ExtractPythonSource("fixes.py", program)).has_value());
  ASSERT_TRUE(AnalyzeCatalog(*cat, "").has_value());

  std::map<std::string, std::string> fix_of;  // message → fix_after
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  ASSERT_TRUE(all.has_value());
  for (const catalog::ErrorRecord& r : *all) {
    Result<catalog::ErrorRecord> e = cat->Get(r.id);
    ASSERT_TRUE(e.has_value() && e->analysis.has_value());
    const Prose& p = e->analysis->prose;
    fix_of[r.template_text] = p.fix_after;
    if (!p.fix_after.empty()) {
      // The before form is the same call with the value left out.
      EXPECT_NE(p.fix_before.find("<a value not listed>"), std::string::npos) << p.fix_before;
    }
  }
  std::string list = "CASES = [\n";
  int with_fix = 0, missing = 0, extra = 0;
  for (const Case& c : cases) {
    auto at = fix_of.find(c.message);
    ASSERT_NE(at, fix_of.end()) << c.message;
    const std::string& fix = at->second;
    if (c.expect_fix && fix.empty()) {
      ++missing;
      ADD_FAILURE() << c.message << ": no fix for parameter " << c.subject;
    } else if (!c.expect_fix && !fix.empty()) {
      ++extra;
      ADD_FAILURE() << c.message << ": a fix for " << c.subject << " where none is right: "
                    << fix;
    }
    if (fix.empty()) continue;
    ++with_fix;
    list += "(" + Quoted(c.message) + ", " + Quoted(c.subject) + ", " + Quoted(c.owner) + ", " +
            Quoted(fix) + "),\n";
  }
  list += "]\n";
  // Not vacuous: most cases get a fix, and some are rightly refused one.
  EXPECT_GE(with_fix, 300);
  EXPECT_GE(static_cast<int>(cases.size()) - with_fix, 60);

  auto script = dir.Write("check.py", program + list + kHarness);
  testing::CommandResult run = testing::RunPython(script);
  const std::string& out = run.out;
  ASSERT_EQ(run.exit_code, 0) << out.substr(0, 4000);
  nlohmann::json report = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << out.substr(0, 4000);
  EXPECT_EQ(report["checked"], with_fix);
  EXPECT_TRUE(report["wrong"].empty()) << report["wrong"].dump(1);
  std::printf("cases %zu, fixes %d checked in CPython, missing %d, extra %d\n", cases.size(),
              with_fix, missing, extra);
}

}  // namespace
}  // namespace errdex::analyze
