#include "core/text.h"

#include <gtest/gtest.h>

namespace errdex {
namespace {

TEST(PythonRepr, QuotesLikePython) {
  EXPECT_EQ(PythonRepr("key"), "'key'");
  EXPECT_EQ(PythonRepr("it's"), "\"it's\"");
  EXPECT_EQ(PythonRepr("both ' and \""), "'both \\' and \"'");
  EXPECT_EQ(PythonRepr("a\nb\tc\\d"), "'a\\nb\\tc\\\\d'");
  EXPECT_EQ(PythonRepr(std::string("nul\0x", 5)), "'nul\\x00x'");
  EXPECT_EQ(PythonRepr("é"), "'é'");
}

TEST(Utf8, ValidatesAndRepairs) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("größer ∞ 𝄞"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // surrogate
  EXPECT_EQ(ToValidUtf8("a\xff"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
}

TEST(Text, CollapseWhitespaceAndTrim) {
  EXPECT_EQ(CollapseWhitespace("  a \n\t b  "), "a b");
  EXPECT_EQ(Trim("  x y \n"), "x y");
  EXPECT_EQ(Trim("   "), "");
}

}  // namespace
}  // namespace errdex
