// What the pre-pass tests of Python (py_prepass_test.cc) and Cython
// (cy_prepass_test.cc) both check after a rewrite.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "extract/extractor.h"

namespace errdex::extract::testing {

// `code` followed by a raise, extracted as the file `path`: it parses
// without recovery and its one site is that raise, with the message and the
// line it has in the source.
inline void ParsesAndFindsTheRaise(const std::string& path, const std::string& code, int line) {
  Extraction x = ExtractPythonSource(path, code + "raise ValueError('after')\n");
  for (const FileIssue& i : x.issues) ADD_FAILURE() << i.reason << ": " << i.detail << "\n" << code;
  ASSERT_EQ(x.sites.size(), 1u) << code;
  EXPECT_EQ(x.sites[0].message.Display(), "after");
  EXPECT_EQ(x.sites[0].line, line);
}

}  // namespace errdex::extract::testing
