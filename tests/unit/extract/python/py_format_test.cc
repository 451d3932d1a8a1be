#include "extract/python/py_format.h"

#include <gtest/gtest.h>

namespace errdex::extract::python {
namespace {

std::string Segment(std::string_view s, bool raw = false, bool fstring = false) {
  Template t;
  AppendStringSegment(s, raw, fstring, t);
  return t.Display();
}

TEST(StringSegment, DecodesEscapes) {
  EXPECT_EQ(Segment(R"(a\tb\nc\\d\'e\"f)"), "a\tb\nc\\d'e\"f");
  EXPECT_EQ(Segment(R"(\x41\101\u00e9\U0001D11E)"), "AAé𝄞");
  EXPECT_EQ(Segment("line\\\ncontinued"), "linecontinued");
  EXPECT_EQ(Segment(R"(unknown \d escape)"), "unknown \\d escape");
  EXPECT_EQ(Segment(R"(bad \x4 hex)"), "bad \\x4 hex");
}

TEST(StringSegment, RawKeepsBackslashes) {
  EXPECT_EQ(Segment(R"(raw \d+ \n)", true), "raw \\d+ \\n");
}

TEST(StringSegment, FStringBracesAreSingleAndPlainBracesText) {
  EXPECT_EQ(Segment("{{x}}", false, true), "{{x}}");  // displayed doubled: literal braces
  Template t;
  AppendStringSegment("{{x}}", false, true, t);
  EXPECT_EQ(t.pieces()[0].text, "{x}");
  Template plain;
  AppendStringSegment("{{x}}", false, false, plain);
  EXPECT_EQ(plain.pieces()[0].text, "{{x}}");
}

TEST(StringSegment, NamedCharacterIsOneCharacterValue) {
  Template t;
  AppendStringSegment(R"(a\N{BULLET}b)", false, false, t);
  ASSERT_EQ(t.pieces().size(), 3u);
  EXPECT_EQ(t.pieces()[1].kind, ValueKind::kChar);
}

}  // namespace
}  // namespace errdex::extract::python
