// A page's failure class says "`Error` is a subclass of `OSError`" from the
// classes the catalog holds, which it keys by short name; many modules
// define an `Error` (or a `ParseError`), each on its own base. Random
// packages of modules defining such classes, and raising their own,
// another module's (`m1.Error`) and builtin ones, are indexed; CPython, the
// reference, raises each and reports the exception's real `__mro__`. Every
// base a page names must be in it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::analyze {
namespace {

const char* const kNames[] = {"Error", "Failure", "Bad"};
const char* const kBuiltins[] = {"Exception",   "OSError",   "ValueError",     "KeyError",
                                 "LookupError", "TypeError", "ArithmeticError"};

struct Module {
  std::string path;  // relative to the package's parent
  std::string text;
  std::vector<std::string> classes;
};

struct Package {
  std::vector<Module> modules;
  std::vector<std::string> calls;  // "pkg.m0.r3"
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  Package Make(int n) {
    Package p;
    // Two directories: a name defined in the raising file, elsewhere in its
    // directory, or only in the other one.
    for (int m = 0; m < 4; ++m) {
      Module mod;
      mod.path = std::string(m < 3 ? "pkg" : "pkg/sub") + "/m" + std::to_string(m) + ".py";
      std::vector<std::string> names(std::begin(kNames), std::end(kNames));
      std::shuffle(names.begin(), names.end(), rng_);
      int count = 1 + Pick(3);
      for (int c = 0; c < count; ++c) {
        std::string base =
            Pick(3) == 0 && c > 0 ? mod.classes[Pick(c)] : kBuiltins[Pick(std::size(kBuiltins))];
        mod.text += "class " + names[c] + "(" + base + "):\n    pass\n\n";
        mod.classes.push_back(names[c]);
      }
      p.modules.push_back(std::move(mod));
    }
    for (int m = 0; m < 4; ++m) {
      Module& mod = p.modules[m];
      std::string module = mod.path.substr(0, mod.path.size() - 3);
      std::replace(module.begin(), module.end(), '/', '.');
      for (int r = 0; r < 4; ++r) {
        std::string fn = "r" + std::to_string(r);
        std::string message = "case " + std::to_string(n) + " " + std::to_string(m) + " " + fn;
        int how = Pick(3);
        std::string body;
        if (how == 0) {  // its own class, unqualified
          body = "    raise " + mod.classes[Pick(mod.classes.size())] + "('" + message + "')\n";
        } else if (how == 1) {  // another module's, qualified
          int o = Pick(4);
          const Module& other = p.modules[o];
          std::string other_module = other.path.substr(0, other.path.size() - 3);
          std::replace(other_module.begin(), other_module.end(), '/', '.');
          size_t dot = other_module.rfind('.');
          body = "    from " + other_module.substr(0, dot) + " import " +
                 other_module.substr(dot + 1) + " as other\n    raise other." +
                 other.classes[Pick(other.classes.size())] + "('" + message + "')\n";
        } else {  // another module's, imported by name
          int o = Pick(4);
          const Module& other = p.modules[o];
          std::string other_module = other.path.substr(0, other.path.size() - 3);
          std::replace(other_module.begin(), other_module.end(), '/', '.');
          std::string cls = other.classes[Pick(other.classes.size())];
          // A module does not import a name it defines itself.
          bool own = std::find(mod.classes.begin(), mod.classes.end(), cls) != mod.classes.end();
          if (own) {
            body = "    raise " + mod.classes[0] + "('" + message + "')\n";
          } else {
            body = "    from " + other_module + " import " + cls + "\n" + "    raise " + cls +
                   "('" + message + "')\n";
          }
        }
        mod.text += "def " + fn + "():\n" + body + "\n";
        p.calls.push_back(module + "." + fn);
      }
    }
    return p;
  }

 private:
  int Pick(size_t n) {
    return std::uniform_int_distribution<int>(0, static_cast<int>(n) - 1)(rng_);
  }
  std::mt19937 rng_;
};

TEST(AncestryProperty, EveryBaseAPageNamesIsInTheRaisedClassesMro) {
  uint32_t seed = testing::PropertySeed(20261207u);
  Generator gen(seed);
  int checked = 0;
  int named = 0;
  for (int round = 0; round < 25; ++round) {
    testing::TempDir dir;
    Package p = gen.Make(round);
    std::filesystem::create_directories(dir.path() / "pkg" / "sub");
    std::ofstream(dir.path() / "pkg" / "__init__.py");
    std::ofstream(dir.path() / "pkg" / "sub" / "__init__.py");
    Extraction all;
    for (const Module& m : p.modules) {
      std::ofstream(dir.path() / m.path) << m.text;
      Extraction one = extract::ExtractPythonSource(m.path, m.text);
      for (Site& s : one.sites) all.sites.push_back(std::move(s));
      for (ExceptionClass& c : one.classes) all.classes.push_back(std::move(c));
    }
    // CPython: message -> the names of the raised class's __mro__.
    std::string program = "import sys, json, importlib\nsys.path.insert(0, " +
                          nlohmann::json(dir.path().string()).dump() + ")\nout = {}\n";
    for (const std::string& call : p.calls) {
      size_t dot = call.rfind('.');
      program += "try:\n    importlib.import_module('" + call.substr(0, dot) + "')." +
                 call.substr(dot + 1) +
                 "()\nexcept Exception as e:\n    out[e.args[0]] = [c.__name__ for c in "
                 "type(e).__mro__]\n";
    }
    program += "print(json.dumps(out))\n";
    nlohmann::json mro = testing::RunPythonForJson(program);
    ASSERT_TRUE(mro.is_object());

    Result<catalog::Catalog> cat =
        catalog::Catalog::Open((dir.path() / "c.db").string(), catalog::OpenMode::kReadWrite);
    ASSERT_TRUE(cat.has_value());
    catalog::SnapshotInfo info;
    info.library = "test/pkg";
    info.rev = "r1";
    info.kind = "dir";
    ASSERT_TRUE(cat->WriteSnapshot(info, all).has_value());
    ASSERT_TRUE(AnalyzeCatalog(*cat, "").has_value());
    Result<std::vector<catalog::ErrorRecord>> errors = cat->List({});
    ASSERT_TRUE(errors.has_value());
    static const std::regex kSubclass("(\\S+) is a subclass of (\\S+)");
    for (const catalog::ErrorRecord& r : *errors) {
      Result<catalog::ErrorRecord> e = cat->Get(r.id);
      ASSERT_TRUE(e.has_value() && e->analysis.has_value());
      // str() of a KeyError quotes its message; whether the template does
      // depends on what the extractor knew of the class.
      std::string text = r.template_text;
      if (text.size() > 2 && text.front() == '\'' && text.back() == '\'') {
        text = text.substr(1, text.size() - 2);
      }
      ASSERT_TRUE(mro.contains(text)) << r.template_text;
      std::vector<std::string> real = mro[text].get<std::vector<std::string>>();
      ++checked;
      std::smatch m;
      const std::string& reason = e->analysis->family.reason;
      if (!std::regex_match(reason, m, kSubclass)) continue;
      ++named;
      EXPECT_NE(std::find(real.begin(), real.end(), m[2].str()), real.end())
          << r.template_text << ": the page says " << reason << " (seed " << seed << ")\n"
          << e->sites.front().path;
    }
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(named, 30);
}

}  // namespace
}  // namespace errdex::analyze
