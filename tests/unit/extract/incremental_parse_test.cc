// A file's next version parsed from its last tree (ParseBudget::Reparse) must
// be the tree a parse from scratch gives, node for node: the front ends read
// byte offsets and rows, so a wrong edit would move sites without failing.
// LineEdits is checked against the texts themselves, Reparse against
// tree-sitter parsing the new text alone, on every Python fixture edited the
// ways revisions edit files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "extract/python/py_extractor.h"
#include "extract/ts_util.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

// Where the end of `text` is, counted another way than the library does:
// rows are its newlines, the column what follows the last one.
TSPoint PointOf(std::string_view text) {
  auto rows = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
  size_t last = text.rfind('\n');
  auto column =
      static_cast<uint32_t>(last == std::string_view::npos ? text.size() : text.size() - last - 1);
  return TSPoint{rows, column};
}

bool SamePoint(TSPoint a, TSPoint b) { return a.row == b.row && a.column == b.column; }

// Empty when `edits`, applied in order to `before`, describe `after`; else
// what is wrong. Each edit's bytes and points are checked against the text
// as it stands when the edit is applied.
std::string CheckEdits(const std::string& before, const std::string& after,
                       const std::vector<TSInputEdit>& edits) {
  // Last first: in ascending order, the parts between edits are equal in
  // both texts and each replacement is `after`'s bytes at its place.
  size_t at_before = 0;
  size_t at_after = 0;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    const TSInputEdit& e = *it;
    if (e.start_byte < at_before || e.old_end_byte < e.start_byte ||
        e.new_end_byte < e.start_byte || e.old_end_byte > before.size()) {
      return "edits out of order or out of range at byte " + std::to_string(e.start_byte);
    }
    size_t equal = e.start_byte - at_before;
    if (before.compare(at_before, equal, after, at_after, equal) != 0) {
      return "an unedited part differs before byte " + std::to_string(e.start_byte);
    }
    at_after += equal;
    std::string replacement = after.substr(at_after, e.new_end_byte - e.start_byte);
    at_after += replacement.size();
    at_before = e.old_end_byte;
    std::string head = before.substr(0, e.start_byte);
    if (!SamePoint(e.start_point, PointOf(head)) ||
        !SamePoint(e.old_end_point, PointOf(before.substr(0, e.old_end_byte))) ||
        !SamePoint(e.new_end_point, PointOf(head + replacement))) {
      return "wrong points at byte " + std::to_string(e.start_byte);
    }
  }
  if (before.compare(at_before, std::string::npos, after, at_after, std::string::npos) != 0) {
    return "the unedited end differs";
  }
  return "";
}

class LineWriter {
 public:
  explicit LineWriter(uint32_t seed) : rng_(seed) {}
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  // Few distinct lines, so that the diff has many equal lines to choose from.
  std::string Line() {
    static const char* const kLines[] = {"a\n", "b\n", "    c\n", "\n", "def f():\n", "x = 1\n"};
    return kLines[Pick(static_cast<int>(std::size(kLines)))];
  }
  std::string Text() {
    std::string out;
    for (int n = Pick(12); n > 0; --n) out += Line();
    if (!out.empty() && Pick(3) == 0) out.pop_back();  // no newline at the end
    if (Pick(4) == 0) out += "tail";
    return out;
  }
  std::string Edit(std::string text) {
    for (int n = 1 + Pick(4); n > 0; --n) {
      std::vector<size_t> starts{0};
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') starts.push_back(i + 1);
      }
      size_t at = starts[static_cast<size_t>(Pick(static_cast<int>(starts.size())))];
      size_t end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      switch (Pick(4)) {
        case 0:
          text.insert(at, Line());
          break;
        case 1:
          text.erase(at, end - at);
          break;
        case 2:
          text.replace(at, end - at, Line());
          break;
        default:
          if (!text.empty() && text.back() == '\n') {
            text.pop_back();
          } else {
            text += "\n";
          }
      }
    }
    return text;
  }

 private:
  std::mt19937 rng_;
};

TEST(LineEdits, AppliedInOrderTheyTurnTheOldTextIntoTheNew) {
  int edited = 0;
  for (uint32_t seed = 0; seed < 3000; ++seed) {
    LineWriter w(seed);
    std::string before = w.Text();
    std::string after = w.Pick(10) == 0 ? w.Text() : w.Edit(before);
    std::vector<TSInputEdit> edits = LineEdits(before, after);
    ASSERT_EQ(CheckEdits(before, after, edits), "") << "seed " << seed << "\nbefore:\n"
                                                    << before << "\nafter:\n"
                                                    << after;
    // One edit for all when the diff would be longer than allowed.
    std::vector<TSInputEdit> capped = LineEdits(before, after, 1);
    ASSERT_EQ(CheckEdits(before, after, capped), "") << "capped, seed " << seed;
    EXPECT_LE(capped.size(), 1u);
    if (before == after) {
      EXPECT_TRUE(edits.empty());
    }
    if (edits.size() > 1) ++edited;
  }
  // Texts edited in several places: the hunks are not vacuous.
  EXPECT_GT(edited, 300);
}

TEST(LineEdits, ALineChangedInALongFileIsOneSmallEdit) {
  std::string before;
  for (int i = 0; i < 2000; ++i) before += "line " + std::to_string(i) + "\n";
  std::string after = before;
  after.replace(after.find("line 1000\n"), 10, "line one thousand\n");
  std::vector<TSInputEdit> edits = LineEdits(before, after);
  ASSERT_EQ(edits.size(), 1u);
  // Only the bytes that differ: "1000" became "one thousand".
  EXPECT_EQ(edits[0].start_point.row, 1000u);
  EXPECT_EQ(edits[0].start_point.column, 5u);
  EXPECT_EQ(edits[0].old_end_byte - edits[0].start_byte, 4u);
  EXPECT_EQ(edits[0].new_end_byte - edits[0].start_byte, 12u);
  EXPECT_EQ(CheckEdits(before, after, edits), "");
}

// A line inserted or deleted whole is described as far right as the text
// allows, never into the next edit.
TEST(LineEdits, LinesInsertedOrDeletedWholeArePlacedAsFarRightAsTheTextAllows) {
  std::string before = "class T:\n  @jit\n  def f(self):\n    pass\n";
  std::string after = "class T:\n  @skip('slow')\n  @jit\n  def f(self):\n    pass\n";
  std::vector<TSInputEdit> inserted = LineEdits(before, after);
  ASSERT_EQ(inserted.size(), 1u);
  // "  @skip('slow')\n" before "  @jit" is "skip('slow')\n  @" after "  @".
  EXPECT_EQ(inserted[0].start_byte, before.find("jit"));
  EXPECT_EQ(inserted[0].start_point.row, 1u);
  EXPECT_EQ(inserted[0].start_point.column, 3u);
  EXPECT_EQ(inserted[0].old_end_byte, inserted[0].start_byte);
  EXPECT_EQ(CheckEdits(before, after, inserted), "");
  std::vector<TSInputEdit> deleted = LineEdits(after, before);
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].start_byte, after.find("skip"));
  EXPECT_EQ(deleted[0].new_end_byte, deleted[0].start_byte);
  EXPECT_EQ(CheckEdits(after, before, deleted), "");
  // Two insertions of the same line: the first stops where the second is.
  std::string twice = "a\nb\na\nb\n";
  std::string both = "a\nb\nb\na\nb\nb\n";
  std::vector<TSInputEdit> two = LineEdits(twice, both);
  EXPECT_EQ(CheckEdits(twice, both, two), "");
  for (size_t i = 1; i < two.size(); ++i) EXPECT_LE(two[i].old_end_byte, two[i - 1].start_byte);
}

TreePtr ParseAlone(TSParser* parser, const std::string& text) {
  return TreePtr(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
}

// Line-level edits of real Python, as revisions make them: lines dropped,
// repeated, moved, and statements added at any indentation.
std::string EditPython(std::mt19937& rng, std::string text) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, end - at));
    at = end;
  }
  if (lines.empty()) lines.emplace_back();
  for (size_t n = 1 + pick(5); n > 0; --n) {
    size_t at = pick(lines.size());
    std::string indent = lines[at].substr(0, lines[at].find_first_not_of(' '));
    if (indent.size() == lines[at].size()) indent.clear();
    switch (pick(5)) {
      case 0:
        lines.erase(lines.begin() + static_cast<long>(at));
        if (lines.empty()) lines.emplace_back();
        break;
      case 1:
        lines.insert(lines.begin() + static_cast<long>(at), lines[at]);
        break;
      case 2:
        lines.insert(lines.begin() + static_cast<long>(at),
                     indent + "x = check(value, 'changed in this version')\n");
        break;
      case 3:
        lines.insert(lines.begin() + static_cast<long>(at),
                     indent + "if x:\n" + indent + "    raise ValueError(f'bad {x}')\n");
        break;
      default:
        std::swap(lines[at], lines[pick(lines.size())]);
    }
  }
  std::string out;
  for (const std::string& l : lines) out += l;
  return out;
}

TEST(Reparse, GivesTheTreeOfAParseFromScratchOnEveryFixtureEdited) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  std::mt19937 rng(7);
  int compared = 0;
  int files = 0;
  for (const auto& [path, source] : testing::PythonFixtures()) {
    ++files;
    std::string before = source;
    // Each version parsed from the last one's tree, as revisions are.
    TreePtr last = ParseAlone(parser.get(), before);
    for (int version = 0; version < 10; ++version) {
      std::string after = EditPython(rng, before);
      TreePtr alone = ParseAlone(parser.get(), after);
      ASSERT_TRUE(alone);
      bool last_broken = ts_node_has_error(ts_tree_root_node(last.get()));
      ParseBudget budget(parser.get());
      TreePtr reparsed = budget.Reparse(after, ParsedText{before, std::move(last)});
      if (reparsed) {
        ASSERT_EQ(TreeText(reparsed.get()), TreeText(alone.get()))
            << path << " version " << version << "\nbefore:\n"
            << before << "\nafter:\n"
            << after;
        ++compared;
      } else {
        // Only a tree with a syntax error, either side, or a text mostly new.
        EXPECT_TRUE(last_broken || ts_node_has_error(ts_tree_root_node(alone.get())) ||
                    !WorthReparsing(before.size(), after.size(), LineEdits(before, after)))
            << path << " version " << version;
      }
      // A broken version is dropped, as a release would not keep it.
      if (ts_node_has_error(ts_tree_root_node(alone.get()))) {
        last = ParseAlone(parser.get(), before);
      } else {
        before = after;
        last = std::move(alone);
      }
    }
  }
  EXPECT_GT(files, 20);
  // Most edits keep the fixtures valid Python: the comparison is not vacuous.
  EXPECT_GT(compared, 200);
}

// A parser's next file is parsed as if it had never parsed from an old tree:
// each fixture reparsed with the parser, then every other fixture parsed from
// scratch with it, must give the trees a parser that did nothing else gives.
TEST(Reparse, LeavesTheParserAsItFoundIt) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  ParserPtr clean(ts_parser_new());
  ts_parser_set_language(clean.get(), python::PythonLanguage());
  std::vector<std::pair<std::filesystem::path, std::string>> fixtures = testing::PythonFixtures();
  std::vector<std::string> alone;
  for (const auto& [path, source] : fixtures) {
    alone.push_back(TreeText(ParseAlone(clean.get(), source).get()));
  }
  std::mt19937 rng(11);
  int reparsed = 0;
  for (const auto& [path, source] : fixtures) {
    std::string edited = EditPython(rng, source);
    ParseBudget budget(parser.get());
    if (budget.Reparse(edited, ParsedText{source, ParseAlone(parser.get(), source)})) ++reparsed;
    for (size_t i = 0; i < fixtures.size(); ++i) {
      ASSERT_EQ(TreeText(ParseAlone(parser.get(), fixtures[i].second).get()), alone[i])
          << fixtures[i].first << " after " << path << " was parsed from its old tree";
    }
  }
  EXPECT_GT(reparsed, 15);
}

// Found in jax's history (jax/_src/errors.py parsed from its old tree, then
// tests/sparsify_test.py from scratch on the same parser: test methods read
// as nested in a function), reduced, every word of the docstring replaced.
// With tree-sitter 0.20.7 the third text was read wrongly by a parser that
// had parsed the second from the first's tree, ts_parser_reset or not.
TEST(Reparse, AParserThatHelpedReparseReadsTheNextFileRight) {
  auto read = [](const char* name) {
    std::ifstream in(testing::FixtureDir("incremental") / name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string before = read("parser_state_old.txt");
  std::string after = read("parser_state_new.txt");
  std::string next = read("parser_state_next.txt");
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  ParserPtr clean(ts_parser_new());
  ts_parser_set_language(clean.get(), python::PythonLanguage());
  ParseBudget budget(parser.get());
  TreePtr reparsed = budget.Reparse(after, ParsedText{before, ParseAlone(parser.get(), before)});
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(TreeText(reparsed.get()), TreeText(ParseAlone(clean.get(), after).get()));
  EXPECT_EQ(TreeText(ParseAlone(parser.get(), next).get()),
            TreeText(ParseAlone(clean.get(), next).get()));
}

TEST(Reparse, RefusesAnOldTreeWithASyntaxError) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  std::string before = "def f(:\n    pass\n";
  TreePtr broken = ParseAlone(parser.get(), before);
  ASSERT_TRUE(ts_node_has_error(ts_tree_root_node(broken.get())));
  ParseBudget budget(parser.get());
  EXPECT_FALSE(budget.Reparse("def f():\n    pass\n", ParsedText{before, std::move(broken)}));
}

TEST(Reparse, AFileCutDownToAStubOrWrittenAnewIsParsedFromScratch) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  std::string big;
  for (int i = 0; i < 500; ++i) big += "def f" + std::to_string(i) + "(x):\n    return x\n";
  std::string stub = "from .moved import *\n";
  ParseBudget budget(parser.get());
  EXPECT_FALSE(budget.Reparse(stub, ParsedText{big, ParseAlone(parser.get(), big)}));
  std::string anew;
  for (int i = 0; i < 500; ++i)
    anew += "y" + std::to_string(i) + " = g(" + std::to_string(i) + ")\n";
  EXPECT_FALSE(budget.Reparse(anew, ParsedText{big, ParseAlone(parser.get(), big)}));
  // One function added: worth it, and the same tree as alone.
  std::string grown = big + "def g():\n    pass\n";
  TreePtr reparsed = budget.Reparse(grown, ParsedText{big, ParseAlone(parser.get(), big)});
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(TreeText(reparsed.get()), TreeText(ParseAlone(parser.get(), grown).get()));
}

}  // namespace
}  // namespace errdex::extract
