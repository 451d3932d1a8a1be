// Indexing revisions, the extraction of a top-level function or class of a
// changed file comes from a memo of what earlier revisions' extractions made
// (PythonOptions::sites_memo) when the rest of the module would answer its
// questions alike. Differential: whatever the memo holds, a file's result
// must be the one extracting it whole gives, every field, on every fixture
// of the project and on random modules edited as revisions edit them.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "extract/python/py_extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract::python {
namespace {

using CountingMemo = testing::CountingMemo<DefinitionSites>;

std::string Extract(const std::string& source, DefinitionSitesMemo* memo) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, PythonLanguage());
  TSTree* tree =
      ts_parser_parse_string(parser, nullptr, source.data(), static_cast<uint32_t>(source.size()));
  PythonOptions options;
  options.sites_memo = memo;
  std::string out = FileResultText(ExtractPythonFile("pkg/mod.py", source, tree, options));
  ts_tree_delete(tree);
  ts_parser_delete(parser);
  return out;
}

// The file's result with the memo, and without.
::testing::AssertionResult SameWithMemo(const std::string& source, CountingMemo& memo) {
  std::string with = Extract(source, &memo);
  std::string whole = Extract(source, nullptr);
  if (with == whole) return ::testing::AssertionSuccess();
  size_t at = 0;
  while (at < with.size() && at < whole.size() && with[at] == whole[at]) ++at;
  size_t from = with.rfind('\n', at);
  from = from == std::string::npos ? 0 : from + 1;
  return ::testing::AssertionFailure() << "first difference, with the memo:\n"
                                       << with.substr(from, 600) << "\nextracted whole:\n"
                                       << whole.substr(from, 600);
}

// Each fixture is extracted into the memo from a copy moved down three
// lines under an extra import (lines, excerpts, guard lines and trigger
// sentences are all rebased), then as it is, then with each class changed.
TEST(SitesMemo, DefinitionsTakenFromTheMemoGiveTheWholeFilesResultOnEveryFixture) {
  int found = 0;
  int methods = 0;
  int files = 0;
  for (const auto& [path, source] : testing::PythonFixtures()) {
    CountingMemo memo;
    std::string moved = "import os\n\n\n" + source;
    EXPECT_TRUE(SameWithMemo(moved, memo)) << path;
    int before = memo.found;
    memo.keeping = false;  // the last revision of a run: found, not put
    int puts = memo.puts;
    EXPECT_TRUE(SameWithMemo(source, memo)) << path;
    EXPECT_EQ(memo.puts, puts) << path;
    found += memo.found - before;
    ++files;
    // Each class grown by a line at the top of its body: walked again, its
    // methods taken from the memo.
    std::string grown;
    std::istringstream lines(source);
    for (std::string line; std::getline(lines, line);) {
      grown += line + "\n";
      if (line.rfind("class ", 0) == 0 && line.back() == ':') grown += "    _grown = 1\n";
    }
    before = memo.found;
    EXPECT_TRUE(SameWithMemo(grown, memo)) << path;
    methods += memo.found - before;
  }
  EXPECT_GT(files, 20);
  EXPECT_GT(found, 100);   // definitions came from the memo, not walked again
  EXPECT_GT(methods, 50);  // so did methods of classes that changed
}

// Modules whose definitions read the rest of their file in every way the
// front end does: module constants and lists appended to, import aliases,
// a module helper inlined, exception classes defined before or after, a
// membership test against a module tuple, raises at class level, defaults.
class ModuleWriter : public RandomSource {
 public:
  using RandomSource::RandomSource;

  std::string Name() { return std::string(1, static_cast<char>('a' + Pick(4))); }
  std::string Class() { return std::string(Pick(2) == 0 ? "Bad" : "Odd") + "Error"; }

  std::string TopLevel() {
    std::string n = Name();
    switch (Pick(16)) {
      case 0:
        return "MSG_" + n + " = \"message " + std::to_string(Pick(5)) + " %s\"\n";
      case 1:
        return "MSG_" + n + " = PREFIX + \"joined\"\n";
      case 2:
        return "PREFIX = \"pre-" + std::to_string(Pick(3)) + ": \"\n";
      case 3:
        return "from errors import " + Class() + " as " + Class() + "\n";
      case 4:
        return "import warnings as " + n + "w\n";
      case 5:
        return "class " + Class() + "(" + (Pick(2) == 0 ? "ValueError" : "object") + "):\n" +
               "    pass\n";
      case 6:
        return "def describe_" + n + "(x):\n    return \"described \" + str(x) + \"" +
               std::to_string(Pick(3)) + "\"\n";
      case 7:
        return "VALID_" + n + " = (\"" + Name() + "\", \"" + Name() + "\")\n";
      case 8:
        return "PARTS = []\nPARTS.append(\"part " + std::to_string(Pick(3)) + "\")\n";
      case 9:
        return "if flag_" + n + ":\n    MSG_" + n + " = \"flagged %s\"\n";
      case 10:
        return "def build_" + n + "(x):\n    return " + Class() + "(\"built \" + x)\n";
      case 11:
        return "# a comment " + n + "\n";
      default:
        return Function();
    }
  }

  std::string Raise() {
    std::string n = Name();
    switch (Pick(12)) {
      case 0:
        return "raise ValueError(MSG_" + n + " % x)";
      case 1:
        return "raise " + Class() + "(describe_" + n + "(x))";
      case 2:
        return "raise TypeError(\" \".join(PARTS))";
      case 3:
        return "return build_" + n + "(x)";
      case 4:
        return "raise " + Class() + "(f\"bad {x!r}\")";
      case 5:
        return n + "w.warn(\"careful \" + PREFIX)";
      case 6:
        return "self.fail(\"failed \" + MSG_" + n + ")";
      case 7:
        return "assert x, MSG_" + n;
      case 8:
        return "raise KeyError(x)";
      default:
        return "raise RuntimeError(PREFIX + \"" + std::to_string(Pick(4)) + "\")";
    }
  }

  std::string Function() {
    std::string n = Name();
    std::string body;
    for (int i = 1 + Pick(3); i > 0; --i) {
      switch (Pick(3)) {
        case 0:
          body += "    if x not in VALID_" + Name() + ":\n        " + Raise() + "\n";
          break;
        case 1:
          body += "    if x is None:\n        " + Raise() + "\n";
          break;
        default:
          body += "    " + Raise() + "\n";
      }
    }
    switch (Pick(4)) {
      case 0:
        return "def check_" + n + "(x, msg=MSG_" + Name() + "):\n" + body;
      case 1:
        return "@decorated\ndef check_" + n + "(self, x):\n" + body;
      case 2: {
        std::string cls = "class Check" + n + "(" + Class() + "):\n";
        if (Pick(3) == 0) cls += "    if flag:\n        raise ValueError(MSG_" + Name() + ")\n";
        std::string method;
        std::istringstream lines(body);
        for (std::string line; std::getline(lines, line);) method += "    " + line + "\n";
        return cls + "    def fail(self, msg):\n        raise " + Class() +
               "(msg)\n    def check(self, x):\n" + method;
      }
      default:
        return "def check_" + n + "(x):\n" + body;
    }
  }
};

// Random modules, each then edited as a revision edits a file: statements
// inserted, dropped and rewritten, a method of a class changed, lines added
// above. The edited module
// extracted with the memo of the one before gives the whole file's result.
TEST(SitesMemo, DefinitionsTakenFromTheMemoGiveTheWholeFilesResultAfterRandomEdits) {
  int found = 0;
  int used = 0;
  uint32_t seed0 = testing::PropertySeed(0);
  for (uint32_t seed = seed0; seed < seed0 + 400; ++seed) {
    ModuleWriter w(seed);
    auto [before, after] = EditedModule(
        w, 4 + w.Pick(12), [&] { return w.TopLevel(); },
        [](std::string& statement) {
          // One method of a class changed, the others not.
          size_t check = statement.find("    def check(self, x):\n");
          if (check != std::string::npos) statement.insert(check + 24, "        note(x)\n");
        });
    CountingMemo memo;
    ASSERT_TRUE(SameWithMemo(before, memo)) << "seed " << seed << ":\n" << before;
    int puts = memo.puts;
    ASSERT_TRUE(SameWithMemo(after, memo)) << "seed " << seed << ", before:\n"
                                           << before << "\nafter:\n"
                                           << after;
    found += memo.found;
    // A definition found and not walked again is not put again.
    used += memo.found - (memo.puts - puts);
  }
  EXPECT_GT(found, 400);
  EXPECT_GT(used, 200);
}

// The memo answers by what a definition read: the same function, its
// module constant reworded, is walked again; an unrelated statement added
// above it, or a function that nothing calls, leaves it taken from the memo.
TEST(SitesMemo, ADefinitionIsWalkedAgainExactlyWhenWhatItReadChanged) {
  std::string check = "def check(x):\n    if x is None:\n        raise ValueError(MSG % x)\n";
  std::string module = "MSG = \"bad value %s\"\n" + check;
  CountingMemo memo;
  ASSERT_TRUE(SameWithMemo(module, memo));
  ASSERT_GT(memo.puts, 0);

  int found = memo.found;
  std::string unrelated = "OTHER = 1\n\ndef helper():\n    pass\n\n" + module;
  EXPECT_TRUE(SameWithMemo(unrelated, memo));
  EXPECT_EQ(memo.found - found, 1);  // `check` came from the memo, moved
  EXPECT_NE(Extract(unrelated, nullptr).find("mod.py|9:9"), std::string::npos);

  std::string reworded = "MSG = \"wrong value %s\"\n" + check;
  std::string whole = Extract(reworded, nullptr);
  ASSERT_NE(whole.find("wrong value "), std::string::npos) << whole;
  EXPECT_TRUE(SameWithMemo(reworded, memo));

  // A method raising what another method of its class stores reads its
  // class's body: taken from the memo beside the other method changed, it
  // would raise the old text.
  auto conn = [](const std::string& text) {
    return "class Conn:\n    def setup(self):\n        self._error = ValueError(\"" + text +
           "\")\n    def fail(self):\n        raise self._error\n";
  };
  ASSERT_TRUE(SameWithMemo(conn("first text"), memo));
  ASSERT_NE(Extract(conn("second text"), nullptr).find("[second text"), std::string::npos);
  EXPECT_TRUE(SameWithMemo(conn("second text"), memo));

  // Two functions read the same module constant, built from another: the
  // second takes the look-up the first worked out, and what it read.
  auto shared = [](const std::string& prefix, const std::string& made) {
    return "def make():\n    return '" + made + "'\n\nPREFIX = '" + prefix +
           "' + make()\nMSG = PREFIX + ': bad'\n\ndef a():\n    raise ValueError(MSG)\n\n"
           "def b():\n    raise ValueError(MSG)\n";
  };
  ASSERT_TRUE(SameWithMemo(shared("p", "old"), memo));
  EXPECT_TRUE(SameWithMemo(shared("q", "old"), memo));
  ASSERT_NE(Extract(shared("q", "new"), nullptr).find("[qnew: bad"), std::string::npos);
  EXPECT_TRUE(SameWithMemo(shared("q", "new"), memo));

  // A one-line method of a class indented otherwise: the same text, another
  // column.
  auto indented = [](const std::string& indent) {
    return "class A:\n" + indent + "x = 1\n" + indent + "def f(self): raise ValueError('x')\n";
  };
  ASSERT_TRUE(SameWithMemo(indented("    "), memo));
  EXPECT_TRUE(SameWithMemo(indented("  "), memo));

  // A class defined earlier in the file, where no top-level statement names
  // it (inside a function), makes the returned call an exception: a
  // question the walk asks of the file's classes, and answered otherwise.
  std::string factory = "def make(x):\n    return Broken(x)\n";
  ASSERT_TRUE(SameWithMemo(factory, memo));
  std::string with_class = "def setup():\n    class Broken(ValueError):\n        pass\n" + factory;
  std::string alone = Extract("\n\n\n" + factory, nullptr);
  std::string after_class = Extract(with_class, nullptr);
  ASSERT_NE(alone.find("proto Broken|1110"), std::string::npos) << alone;  // tentative
  ASSERT_NE(after_class.find("proto Broken|1100"), std::string::npos) << after_class;
  EXPECT_TRUE(SameWithMemo(with_class, memo));
}

// Names built from each other in a loop at module level: the evaluation
// cuts the cycle where it meets a name under way, so what one function
// reads must not depend on which function of the file read the cycle first
// (the function walked first may come from the memo, the other not).
TEST(SitesMemo, NamesBuiltFromEachOtherAtModuleLevelReadAlikeWhateverWasWalkedBefore) {
  std::string names = "A = 'a'\nB = 'b'\nfor k in KEYS:\n    A = B + 'x'\n    B = A + 'y'\n\n";
  std::string first = "def first(x):\n    raise ValueError(A)\n\n";
  std::string second = "def second(x):\n    raise ValueError(B)\n";
  std::string second_changed = "def second(x, y):\n    raise ValueError(B)\n";
  CountingMemo memo;
  ASSERT_TRUE(SameWithMemo(names + first + second, memo));
  int found = memo.found;
  EXPECT_TRUE(SameWithMemo(names + first + second_changed, memo));
  EXPECT_GT(memo.found, found);  // `first` from the memo, `second` walked
  EXPECT_TRUE(SameWithMemo(names + second + "\n" + first, memo));
  // Alone or after the other, a function reads the cycle the same.
  std::string alone = Extract(names + second, nullptr);
  std::string after = Extract(names + first + second, nullptr);
  auto site_of_second = [](const std::string& dump) {
    size_t at = dump.find("|second|");
    return dump.substr(dump.rfind("site ", at), dump.find("\n", at) - dump.rfind("site ", at));
  };
  EXPECT_EQ(site_of_second(alone).substr(0, 60), site_of_second(after).substr(0, 60));
}

}  // namespace
}  // namespace errdex::extract::python

namespace errdex::extract::python {
namespace {

// A table is a list of its texts only while no code of the file adds to
// it, which TableChanged reads from the whole text: a function registering
// an entry (a top-level definition, which the memo's surroundings count by
// its name alone) or a comment changes the answer, not the raising
// function's surroundings.
TEST(SitesMemo, ATableAddedToElsewhereInTheFileIsReadAgain) {
  std::string raising =
      "MESSAGES = {'a': 'first message here', 'b': 'second message here'}\n\n"
      "def fail(code):\n    raise ValueError(MESSAGES[code])\n\n";
  CountingMemo memo;
  ASSERT_TRUE(SameWithMemo(raising + "def register():\n    pass\n", memo));
  ASSERT_NE(Extract(raising, nullptr).find("first message here"), std::string::npos);
  EXPECT_TRUE(SameWithMemo(raising + "def register():\n    MESSAGES['c'] = 'third'\n", memo));
  EXPECT_TRUE(SameWithMemo(raising + "# MESSAGES['c'] = 'third'\n", memo));
}

}  // namespace
}  // namespace errdex::extract::python
