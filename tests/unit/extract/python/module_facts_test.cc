// The call graph's facts are read by a walk that skips expressions with no
// parenthesis in their text. Differential: on every Python fixture of the
// project and on random modules dense in expressions (tables of literals,
// lambdas, comprehensions, attribute chains, parentheses inside strings,
// calls in defaults and decorators), the facts equal those of a walk that
// enters every node.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "extract/python/py_calls.h"
#include "extract/python/py_extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract::python {
namespace {

using CountingMemo = testing::CountingMemo<ModuleFacts>;

std::string FactsOf(const std::string& source, DefinitionFactsMemo* memo, bool every_node = false) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, PythonLanguage());
  TSTree* tree =
      ts_parser_parse_string(parser, nullptr, source.data(), static_cast<uint32_t>(source.size()));
  std::string facts = FactsText(ReadModuleFacts(ts_tree_root_node(tree), source, every_node, memo));
  ts_tree_delete(tree);
  ts_parser_delete(parser);
  return facts;
}

// Both walks over one source; returns false (with the difference) when the
// facts differ.
::testing::AssertionResult SameFacts(const std::string& source) {
  std::string fast = FactsOf(source, nullptr);
  std::string full = FactsOf(source, nullptr, /*every_node=*/true);
  if (fast == full) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "skipping walk:\n" << fast << "\nfull walk:\n" << full;
}

TEST(ModuleFacts, TheSkippingWalkReadsWhatTheFullWalkReadsOnEveryFixture) {
  std::filesystem::path root = std::filesystem::path(ERRDEX_SOURCE_DIR) / "tests" / "fixtures";
  int files = 0;
  int with_calls = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext != ".py" && ext != ".pyi") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(SameFacts(source)) << entry.path();
    ++files;
    if (source.find('(') != std::string::npos) ++with_calls;
  }
  // The fixtures are many and call things: the comparison is not vacuous.
  EXPECT_GT(files, 20);
  EXPECT_GT(with_calls, 20);
}

class ModuleWriter : public RandomSource {
 public:
  using RandomSource::RandomSource;

  std::string Expression(int depth) {
    if (depth > 3) return Pick(2) == 0 ? Word() : std::to_string(Pick(100));
    switch (Pick(14)) {
      case 0:
        return Word() + "(" + Expression(depth + 1) + ")";
      case 1:
        return Word() + "." + Word() + "." + Word();
      case 2:
        return "[" + Expression(depth + 1) + ", " + Expression(depth + 1) + ", 3, 'x']";
      case 3:
        return "{'k': " + Expression(depth + 1) + ", 2: (1, 2)}";
      case 4:
        return "lambda q: " + Expression(depth + 1);
      case 5:
        return "[" + Expression(depth + 1) + " for y in " + Word() + "]";
      case 6:
        return Expression(depth + 1) + " if " + Word() + " else " + Expression(depth + 1);
      case 7:
        return "\"(\" + " + Word();
      case 8:
        return "self." + Word() + "(" + Word() + ", key=" + Word() + ")";
      case 9:
        return Word() + "[" + Expression(depth + 1) + "]";
      case 10:
        return "partial(" + Word() + ", 1)";
      case 11:
        return "not " + Word() + " and " + Expression(depth + 1);
      case 12:
        return "(" + Expression(depth + 1) + ")";
      default:
        return Word();
    }
  }

  std::string Statement(const std::string& indent, int depth) {
    std::string name = Word();
    switch (Pick(12)) {
      case 0:
        return indent + name + " = " + Expression(0) + "\n";
      case 1:
        return indent + name + " = " + Word() + "\n";  // an alias
      case 2:
        return indent + "table[" + Word() + "] = " + Word() + "\n";
      case 3:
        return indent + "register_rule(" + Word() + ", " + Word() + ")\n";
      case 4:
        return indent + "return " + Expression(0) + "\n";
      case 5:
        if (depth > 2) return indent + "pass\n";
        return indent + "@" + Word() + ".def_impl\n" + indent + "def " + name +
               "(a, b=" + Expression(2) + ", *rest):\n" + Body(indent + "    ", depth + 1);
      case 6:
        if (depth > 2) return indent + "pass\n";
        return indent + "class " + name + "(" + Word() + ", mod." + Word() + "[T]):\n" +
               Body(indent + "    ", depth + 1);
      case 7:
        return indent + "if (" + name + " := " + Expression(1) + "):\n" + indent + "    " +
               Expression(1) + "\n";
      case 8:
        return indent + "from ." + Word() + " import " + Word() + " as " + name + "\n";
      case 9:
        return indent + "__all__ = ['" + Word() + "', '" + Word() + "']\n";
      case 10:
        return indent + name + " = jit(" + Word() + ")\n" + indent + name + "(" + Word() + ")\n";
      default:
        return indent + Expression(0) + "\n";
    }
  }

  std::string Body(const std::string& indent, int depth) {
    std::string out;
    int n = 1 + Pick(5);
    for (int i = 0; i < n; ++i) out += Statement(indent, depth);
    return out;
  }
};

TEST(ModuleFacts, TheSkippingWalkReadsWhatTheFullWalkReadsOnRandomModules) {
  for (uint32_t seed = 0; seed < 300; ++seed) {
    ModuleWriter w(seed);
    std::string source = w.Body("", 0);
    ASSERT_TRUE(SameFacts(source)) << "seed " << seed << ":\n" << source;
  }
}

// Indexing revisions, the facts of a top-level definition or of a method
// come from a memo of definitions read before, anywhere: they must be what
// reading the file whole gives. Each fixture is read with a memo filled
// from the same file moved down three lines (every kept line and function
// index is rebased), then with each class grown by a line at the top of its
// body (the class is read again, its methods come from the memo).
TEST(ModuleFacts, DefinitionsTakenFromTheMemoGiveTheFactsOfTheWholeFileOnEveryFixture) {
  int hits = 0;
  int method_hits = 0;
  for (const auto& [path, source] : testing::PythonFixtures()) {
    CountingMemo memo;
    std::string moved = "import os\n\n\n" + source;
    EXPECT_EQ(FactsOf(moved, &memo), FactsOf(moved, nullptr)) << path;
    EXPECT_EQ(FactsOf(source, &memo), FactsOf(source, nullptr)) << path;
    hits += memo.found;
    std::string grown;
    std::istringstream lines(source);
    for (std::string line; std::getline(lines, line);) {
      grown += line + "\n";
      if (line.rfind("class ", 0) == 0 && line.back() == ':') grown += "    _grown = 1\n";
    }
    int before = memo.found;
    int puts = memo.puts;
    memo.keeping = false;  // the last revision of a run: found, not put
    EXPECT_EQ(FactsOf(grown, &memo), FactsOf(grown, nullptr)) << path;
    EXPECT_EQ(memo.puts, puts) << path;
    method_hits += memo.found - before;
  }
  EXPECT_GT(hits, 100);  // definitions were taken from the memo, not read again
  EXPECT_GT(method_hits, 50);
}

// Random modules, then each edited as a revision edits a file: statements
// inserted, dropped and rewritten, lines added above, a class's body grown
// at its top. Read with the memo of the module before, the edited module's
// facts are those of reading it whole.
TEST(ModuleFacts, DefinitionsTakenFromTheMemoGiveTheFactsOfTheWholeFileAfterRandomEdits) {
  int hits = 0;
  for (uint32_t seed = 0; seed < 300; ++seed) {
    ModuleWriter w(seed);
    int n = 3 + w.Pick(12);
    auto [before, after] = EditedModule(
        w, n, [&] { return w.Statement("", 0); },
        [&](std::string& statement) {
          // A class's body grown at its top.
          if (statement.rfind("class ", 0) == 0) {
            statement.insert(statement.find(":\n") + 2, w.Statement("    ", 3));
          }
        });
    CountingMemo memo;
    ASSERT_EQ(FactsOf(before, &memo), FactsOf(before, nullptr)) << "seed " << seed << ":\n"
                                                                << before;
    ASSERT_EQ(FactsOf(after, &memo), FactsOf(after, nullptr)) << "seed " << seed << ", before:\n"
                                                              << before << "\nafter:\n"
                                                              << after;
    hits += memo.found;
  }
  EXPECT_GT(hits, 150);
}

// The same method text in two classes, or under a class docstring that
// documents `__init__`'s parameters differently in the next revision: what
// the memo keeps of one must not stand for the other.
TEST(ModuleFacts, AMethodTakenFromTheMemoKeepsItsOwnClassAndDocstring) {
  auto module = [](const std::string& first, const std::string& second) {
    auto cls = [](const std::string& name, const std::string& doc) {
      return "class " + name + ":\n    \"\"\"" + name +
             ".\n\n    Parameters\n    ----------\n    x : int\n        " + doc +
             "\n    \"\"\"\n    def __init__(self, x):\n        check(x)\n"
             "    def run(self, y):\n        self.go(y)\n";
    };
    return cls("A", first) + cls("B", second);
  };
  std::string before = module("The first.", "The other.");
  std::string after = module("Reworded.", "The other.");
  CountingMemo memo;
  std::string whole = FactsOf(before, nullptr);
  ASSERT_NE(whole.find("The other."), std::string::npos) << whole;
  EXPECT_EQ(FactsOf(before, &memo), whole);
  EXPECT_EQ(FactsOf(before, &memo), whole);
  EXPECT_EQ(FactsOf(after, &memo), FactsOf(after, nullptr));
  EXPECT_GT(memo.found, 0);
}

}  // namespace
}  // namespace errdex::extract::python
