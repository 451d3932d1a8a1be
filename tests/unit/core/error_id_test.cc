#include "core/error_id.h"

#include <gtest/gtest.h>

namespace errdex {
namespace {

TEST(ErrorId, IsStableAcrossBuilds) {
  // Pinned: URLs /errors/<id> must survive any change to errdex.
  EXPECT_EQ(ErrorId("jax-ml/jax", "ValueError", "Invalid TMEMLayout: {self}"), "1c14a62d9897091b");
}

TEST(ErrorId, EveryPartCounts) {
  std::string base = ErrorId("a/b", "ValueError", "msg");
  EXPECT_NE(base, ErrorId("a/c", "ValueError", "msg"));
  EXPECT_NE(base, ErrorId("a/b", "TypeError", "msg"));
  EXPECT_NE(base, ErrorId("a/b", "ValueError", "msg2"));
  // The separator keeps field boundaries: no ambiguity by concatenation.
  EXPECT_NE(ErrorId("a/b", "Value", "Errormsg"), ErrorId("a/b", "ValueError", "msg"));
}

TEST(ErrorId, Format) {
  std::string id = ErrorId("x/y", "E", "");
  EXPECT_TRUE(IsErrorId(id));
  EXPECT_FALSE(IsErrorId("0123456789ABCDEF"));
  EXPECT_FALSE(IsErrorId("0123456789abcde"));
  EXPECT_FALSE(IsErrorId("0123456789abcdeg"));
}

}  // namespace
}  // namespace errdex
