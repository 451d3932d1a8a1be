// ParseBudget: one allowance for all of a file's parses, given back to the
// parser after. Timings here are one-sided (a budget already spent, a budget
// of none), so a slow machine cannot fail them.
#include "extract/ts_util.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "extract/cpp/cpp_syntax.h"
#include "extract/python/py_extractor.h"
#include "extract/rust/rust_syntax.h"

namespace errdex::extract {
namespace {

ParserPtr PythonParser(uint64_t timeout_micros) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), python::PythonLanguage());
  ts_parser_set_timeout_micros(parser.get(), timeout_micros);
  return parser;
}

std::string ManyFunctions(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "def f" + std::to_string(i) + "(x):\n    if x:\n        raise ValueError('bad')\n";
  }
  return text;
}

TEST(ParseBudget, NoTimeoutIsNoBudget) {
  ParserPtr parser = PythonParser(0);
  ParseBudget budget(parser.get());
  EXPECT_EQ(budget.RemainingMicros(), UINT64_MAX);
  TreePtr tree = budget.Parse(ManyFunctions(50));
  ASSERT_TRUE(tree);
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(tree.get())));
}

TEST(ParseBudget, ASpentBudgetParsesNothingAndTheParserGetsItsTimeoutBack) {
  ParserPtr parser = PythonParser(1'000);
  {
    ParseBudget budget(parser.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(budget.RemainingMicros(), 0u);
    // Even a one-line file: the second parse of a file must not start anew.
    EXPECT_FALSE(budget.Parse("x = 1\n"));
  }
  EXPECT_EQ(ts_parser_timeout_micros(parser.get()), 1'000u);
  // The parser is usable for the next file.
  ts_parser_set_timeout_micros(parser.get(), 0);
  TreePtr tree(ts_parser_parse_string(parser.get(), nullptr, "x = 1\n", 6));
  EXPECT_TRUE(tree);
}

TEST(ParseBudget, ARunOutParseIsNullAndResetsTheParser) {
  // Two microseconds for thousands of functions: tree-sitter gives up.
  ParserPtr parser = PythonParser(2);
  std::string big = ManyFunctions(20'000);
  {
    ParseBudget budget(parser.get());
    EXPECT_FALSE(budget.Parse(big));
  }
  ts_parser_set_timeout_micros(parser.get(), 0);
  TreePtr tree(ts_parser_parse_string(parser.get(), nullptr, "y = 2\n", 6));
  ASSERT_TRUE(tree);
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(tree.get())));
}

TEST(ParseBudget, AnotherParserIsAllowedAtMostTheCap) {
  ParserPtr parser = PythonParser(10'000'000);
  ParserPtr other = PythonParser(0);
  ParseBudget budget(parser.get());
  EXPECT_TRUE(budget.Parse(other.get(), "z = 3\n", 1'000'000));
  EXPECT_GT(ts_parser_timeout_micros(other.get()), 0u);
  EXPECT_LE(ts_parser_timeout_micros(other.get()), 1'000'000u);
  // Without a cap it gets what is left, never more than the whole budget.
  EXPECT_TRUE(budget.Parse(other.get(), "z = 3\n", 0));
  EXPECT_GT(ts_parser_timeout_micros(other.get()), 1'000'000u);
  EXPECT_LE(ts_parser_timeout_micros(other.get()), 10'000'000u);
}

// The first node of `kind` in `code`, quoted as code.
std::string Quote(const TSLanguage* language, const std::string& code, std::string_view kind) {
  ParserPtr parser(ts_parser_new());
  ts_parser_set_language(parser.get(), language);
  TreePtr tree(ts_parser_parse_string(parser.get(), nullptr, code.data(),
                                      static_cast<uint32_t>(code.size())));
  std::vector<TSNode> stack{ts_tree_root_node(tree.get())};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (ts_node_type(n) == kind) return CodeText(n, code);
    for (uint32_t i = ts_node_child_count(n); i-- > 0;) stack.push_back(ts_node_child(n, i));
  }
  return "<none>";
}

TEST(CodeText, CommentsAndContinuationsAreNotCode) {
  EXPECT_EQ(
      Quote(python::PythonLanguage(), "if (a  # why\n        and b and \\\n    c):\n    pass\n",
            "parenthesized_expression"),
      "(a and b and c)");
  // A `#` or `/` inside a string is the string's.
  EXPECT_EQ(Quote(python::PythonLanguage(), "if s == '#/' or t:\n    pass\n", "boolean_operator"),
            "s == '#/' or t");
  EXPECT_EQ(Quote(cpp::CLanguage(), "int f(int a) { return a /* half */ / 2 > 1 // tail\n; }\n",
                  "binary_expression"),
            "a / 2 > 1");
  EXPECT_EQ(Quote(cpp::CLanguage(), "int f(int a, int b) { return a > 1 && \\\n b < 2; }\n",
                  "binary_expression"),
            "a > 1 && b < 2");
  EXPECT_EQ(Quote(rust::RustLanguage(), "fn f(a: u8) -> bool { a > 1 // big\n && a < 9 }\n",
                  "binary_expression"),
            "a > 1 && a < 9");
}

}  // namespace
}  // namespace errdex::extract
