// Line arithmetic over a source file, and the excerpts sites carry.
#include "extract/source_lines.h"

#include <gtest/gtest.h>

#include <string>

namespace errdex::extract {
namespace {

TEST(SourceLines, LinesAreClampedAndKeepTheirNewlines) {
  std::string text = "one\ntwo\nthree\nfour";
  SourceLines lines(text);
  EXPECT_EQ(lines.Lines(2, 3), "two\nthree\n");
  EXPECT_EQ(lines.Lines(0, 1), "one\n");
  EXPECT_EQ(lines.Lines(4, 10), "four");
  EXPECT_EQ(lines.Lines(9, 10), "");
}

TEST(SourceLines, ExcerptNarrowsToItsByteLimit) {
  std::string text;
  for (int i = 1; i <= 100; ++i) text += "line " + std::to_string(i) + "\n";
  SourceLines lines(text);
  Site s;
  s.line = 50;
  s.end_line = 51;
  lines.FillExcerpt(s, 20, 20, 1u << 20);
  EXPECT_EQ(s.excerpt_line, 30);
  EXPECT_EQ(s.excerpt, std::string(lines.Lines(30, 71)));
  lines.FillExcerpt(s, 20, 20, 60);
  EXPECT_LE(s.excerpt.size(), 60u);
  EXPECT_LE(s.excerpt_line, 50);
  EXPECT_NE(s.excerpt.find("line 50\n"), std::string::npos) << "the raise stays in view";
}

}  // namespace
}  // namespace errdex::extract
