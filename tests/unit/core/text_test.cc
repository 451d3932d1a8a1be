#include "core/text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

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

// CPython is the reference: every assigned code point, in one text, and
// texts that pick each kind of quote.
TEST(PythonRepr, EscapesWhatCPythonEscapes) {
  nlohmann::json printed = testing::RunPythonForJson(R"PY(
import json, unicodedata
every = "".join(chr(cp) for cp in range(0x110000)
                if unicodedata.category(chr(cp)) not in ("Cn", "Cs"))
texts = [every, "it's \x85", "both ' \" \u200b", "\U000e0041 \xa0\xad"]
print(json.dumps([[t, repr(t)] for t in texts]))
)PY");
  ASSERT_TRUE(printed.is_array());
  for (const nlohmann::json& pair : printed) {
    std::string text = pair[0].get<std::string>();
    std::string want = pair[1].get<std::string>();
    std::string got = PythonRepr(text);
    if (got == want) continue;
    size_t at = 0;
    while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
    size_t from = at > 20 ? at - 20 : 0;
    ADD_FAILURE() << "repr differs at byte " << at << ": errdex \"" << got.substr(from, 60)
                  << "\", CPython \"" << want.substr(from, 60) << "\"";
  }
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

TEST(Text, AssertFunctionsAreNamedForTheWord) {
  for (const char* yes : {"TestCase.assertEqual", "assert_called_with", "testing.assert_allclose",
                          "assert_", "NonCallableMock.assertNotCalled", "assert"}) {
    EXPECT_TRUE(NamedForAssert(yes)) << yes;
  }
  for (const char* no : {"asserts", "check_assertions", "assertion", "reassert", "Assert.run", "",
                         "ASSERTING", "test_assert", "_baseAssertEqual", "_assert_valid"}) {
    EXPECT_FALSE(NamedForAssert(no)) << no;
  }
}

TEST(Text, CollapseWhitespaceAndTrim) {
  EXPECT_EQ(CollapseWhitespace("  a \n\t b  "), "a b");
  EXPECT_EQ(Trim("  x y \n"), "x y");
  EXPECT_EQ(Trim("   "), "");
}

TEST(Text, TestPathsAreTheTestsDirectoriesAndFiles) {
  EXPECT_TRUE(IsTestPath("tests/test_core.py"));
  EXPECT_TRUE(IsTestPath("pkg/test/helpers.py"));
  EXPECT_TRUE(IsTestPath("idlelib/idle_test/mock_tk.py"));
  EXPECT_TRUE(IsTestPath("pkg/test_io.py"));
  EXPECT_TRUE(IsTestPath("pkg/io_test.py"));
  EXPECT_TRUE(IsTestPath("trio/_core/_tests/test_io.py"));
  EXPECT_TRUE(IsTestPath("sniffio/_tests/helpers.py"));
  EXPECT_TRUE(IsTestPath("pkg/conftest.py"));
  EXPECT_FALSE(IsTestPath("pkg/my_tests/io.py"));
  EXPECT_FALSE(IsTestPath("pkg/contest/io.py"));  // a directory only ending in "test"
  EXPECT_FALSE(IsTestPath("pkg/latest/io.py"));
  EXPECT_FALSE(IsTestPath("pkg/testing.py"));
  EXPECT_FALSE(IsTestPath("unittest/case.py"));
}

TEST(Text, CommonPrefixAndSuffixStopAtTheShorterText) {
  EXPECT_EQ(CommonPrefix("raise ValueError", "raise TypeError"), 6u);
  EXPECT_EQ(CommonSuffix("raise ValueError", "raise TypeError"), 6u);  // "eError"
  EXPECT_EQ(CommonPrefix("ab", "abc"), 2u);
  EXPECT_EQ(CommonSuffix("bc", "abc"), 2u);
  EXPECT_EQ(CommonPrefix("", "abc"), 0u);
  EXPECT_EQ(CommonSuffix("abc", ""), 0u);
  EXPECT_EQ(CommonSuffix("same", "same"), 4u);
}

TEST(Text, CountedNounsAgreeWithTheirNumber) {
  EXPECT_EQ(Counted(1, "library"), "1 library");
  EXPECT_EQ(Counted(2, "library"), "2 libraries");
  EXPECT_EQ(Counted(0, "error"), "0 errors");
  EXPECT_EQ(Counted(1, "error"), "1 error");
  EXPECT_EQ(Counted(-1, "site"), "-1 sites");
  EXPECT_EQ(Counted(3, "family"), "3 families");
  EXPECT_EQ(Counted(3, "day"), "3 days");
  EXPECT_EQ(Counted(2, "match"), "2 matches");
  EXPECT_EQ(Counted(2, "class"), "2 classes");
  EXPECT_EQ(Counted(2, "analysis", "analyses"), "2 analyses");
  EXPECT_EQ(Counted(1, "analysis", "analyses"), "1 analysis");
  EXPECT_EQ(Counted(12345, "file"), "12345 files");
}

}  // namespace
}  // namespace errdex
