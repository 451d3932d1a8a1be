// C/C++ escape sequences.
#include "extract/cpp/cpp_format.h"

#include <gtest/gtest.h>

#include <string>

namespace errdex::extract::cpp {
namespace {

TEST(CppFormat, Escapes) {
  std::string out;
  for (const char* e :
       {"\\n", "\\t", "\\\"", "\\\\", "\\x41", "\\101", "\\u00e9", "\\xff", "\\?"}) {
    AppendEscape(e, out);
  }
  EXPECT_EQ(out, "\n\t\"\\AA\u00e9\uFFFD?");
}

}  // namespace
}  // namespace errdex::extract::cpp
