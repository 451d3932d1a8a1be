#include "match/pattern.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

namespace errdex::match {
namespace {

Template Make(std::initializer_list<std::pair<bool, std::string>> parts,
              ValueKind kind = ValueKind::kStr) {
  Template t;
  for (const auto& [is_value, text] : parts) {
    if (is_value) {
      t.AppendValue(text, kind);
    } else {
      t.AppendText(text);
    }
  }
  t.AssignNames();
  return t;
}

bool Full(const Template& t, std::string_view message) {
  RE2::Options o;
  o.set_dot_nl(true);
  RE2 re(TemplateRegex(t), o);
  EXPECT_TRUE(re.ok()) << TemplateRegex(t);
  return RE2::FullMatch(NormalizeText(message), re);
}

TEST(Pattern, NormalizeText) {
  EXPECT_EQ(NormalizeText("  a\n  b\t\tc  "), "a b c");
  EXPECT_EQ(NormalizeText("\x1b[1;31mred\x1b[0m text"), "red text");
  EXPECT_EQ(StripAnsi("a\x1b]0;title\x07"
                      "b"),
            "ab");
}

TEST(Pattern, LiteralsAreQuotedAndValuesAreGroups) {
  Template t = Make({{false, "Invalid TMEMLayout: "}, {true, "self"}});
  EXPECT_EQ(TemplateRegex(t), "Invalid\\ TMEMLayout\\: ?(?P<self>.*?)");
  EXPECT_TRUE(Full(t, "Invalid TMEMLayout: TMEMLayout.FOO"));
  EXPECT_FALSE(Full(t, "Invalid TMEMLayouts: X"));
  Template meta = Make({{false, "a.b(c)*[d] "}, {true, "x"}});
  EXPECT_TRUE(Full(meta, "a.b(c)*[d] 1"));
  EXPECT_FALSE(Full(meta, "aXb(c)*[d] 1"));
}

TEST(Pattern, ValueKindsConstrainWhatMatches) {
  Template n = Make({{false, "got "}, {true, "n"}, {false, " items"}}, ValueKind::kInt);
  EXPECT_TRUE(Full(n, "got 12 items"));
  EXPECT_TRUE(Full(n, "got -3 items"));
  EXPECT_FALSE(Full(n, "got many items"));
  Template f = Make({{false, "ratio "}, {true, "r"}}, ValueKind::kFloat);
  for (const char* ok : {"ratio 0.5", "ratio 1e-05", "ratio inf", "ratio 3"}) {
    EXPECT_TRUE(Full(f, ok)) << ok;
  }
  EXPECT_FALSE(Full(f, "ratio abc"));
  Template trunc;
  trunc.AppendText("'");
  trunc.AppendValue("name", ValueKind::kStr, "%.3s", 3);
  trunc.AppendText("' object");
  trunc.AssignNames();
  EXPECT_TRUE(Full(trunc, "'abc' object"));
  EXPECT_FALSE(Full(trunc, "'abcd' object"));
}

TEST(Pattern, WhitespaceAndWrappingAreForgiven) {
  Template t = Make({{false, "first line\nsecond   line "}, {true, "x"}});
  EXPECT_TRUE(Full(t, "first line second line 5"));
  EXPECT_TRUE(Full(t, "first   line\n  second line\n5"));
}

TEST(Pattern, TruncatableTemplateAcceptsEveryPieceBoundaryPrefix) {
  Template t = Make({{false, "Cannot calculate indices from sharding: "},
                     {true, "sharding"},
                     {false, ". Please create a device put."}});
  RE2::Options o;
  o.set_dot_nl(true);
  RE2 re(TruncatableTemplateRegex(t), o);
  ASSERT_TRUE(re.ok()) << TruncatableTemplateRegex(t);
  EXPECT_TRUE(RE2::FullMatch("Cannot calculate indices from sharding: ", re));
  EXPECT_TRUE(RE2::FullMatch("Cannot calculate indices from sharding: S(1)", re));
  EXPECT_TRUE(RE2::FullMatch(
      "Cannot calculate indices from sharding: S(1). Please create a device put.", re));
  // Cut inside the first literal is not a prefix at a piece boundary.
  EXPECT_FALSE(RE2::FullMatch("Cannot calculate indices", re));
  EXPECT_FALSE(RE2::FullMatch("Different words: S(1)", re));
}

TEST(Pattern, LeadingLiteralsStopAtTheFirstPieceMissing) {
  Template t = Make({{false, "Abstract value: "},
                     {true, "x"},
                     {false, "\nThe axis must be static."},
                     {true, "origin"},
                     {false, "\n\nSee "},
                     {true, "url"}});
  // "Abstract value:" 15, "The axis must be static." 24, "See" 3.
  LeadingLiterals older = FindLeadingLiterals(t, "Abstract value: T with v = 1 The axis must be "
                                                 "static. created on line 7");
  EXPECT_EQ(older.found, 39u);
  EXPECT_EQ(older.total, 42u);
  LeadingLiterals now = FindLeadingLiterals(t, "Abstract value: T The axis must be static. See u");
  EXPECT_EQ(now.found, 42u);
  // Out of order, or not at the start: found up to there only.
  EXPECT_EQ(FindLeadingLiterals(t, "Abstract value: See The axis").found, 15u);
  EXPECT_EQ(FindLeadingLiterals(t, "x Abstract value: The axis must be static.").found, 0u);
  // A template starting with a value may start anywhere.
  Template v = Make({{true, "name"}, {false, " is not defined"}});
  EXPECT_EQ(FindLeadingLiterals(v, "foo is not defined").found, 14u);
  EXPECT_EQ(FindLeadingLiterals(Template::Literal(""), "text").total, 0u);
}

TEST(Pattern, Fragments) {
  Template t = Make({{false, "Unsupported pipeline mode: "}, {true, "m"}, {false, "."}});
  EXPECT_EQ(PrefilterFragments(t), std::vector<std::string>{"Unsupported pipeline mode:"});
  std::string longer(60, 'a');
  longer += "bcd";
  std::vector<std::string> f = PrefilterFragments(Template::Literal(longer));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1].size(), kWindow);
  EXPECT_EQ(f[2], std::string(21, 'a') + "bcd");
  EXPECT_TRUE(PrefilterFragments(Make({{false, "ab "}, {true, "x"}})).empty());
  EXPECT_TRUE(PrefilterFragments(Template()).empty());
}

TEST(Pattern, LongLiteralsKeepTheirRegexAndCapTheirFragments) {
  std::string literal;
  for (int i = 0; literal.size() < 20'000; ++i) literal += "word" + std::to_string(i) + " ";
  Template t = Template::Literal(literal + "in ");
  t.AppendValue("x", ValueKind::kStr);
  std::vector<std::string> f = PrefilterFragments(t);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].size(), kMaxFragment);
  EXPECT_EQ(NormalizeText(literal).rfind(f[0], 0), 0u) << "the start of the literal";
  // RE2 as the matcher compiles it: the whole literal is confirmed there.
  RE2::Options options;
  options.set_dot_nl(true);
  options.set_max_mem(16 << 20);
  RE2 re(TemplateRegex(t), options);
  ASSERT_TRUE(re.ok()) << re.error();
  EXPECT_TRUE(RE2::FullMatch(NormalizeText(literal + "in 42"), re));
  EXPECT_FALSE(RE2::FullMatch(NormalizeText(literal.substr(1) + "in 42"), re));
}

}  // namespace
}  // namespace errdex::match
