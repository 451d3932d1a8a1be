// Whether a template fits a text the reference printed (CPython, a program
// g++ built), as the matcher reads it: shared by the property tests.
#pragma once

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <string>

#include "core/template.h"
#include "match/pattern.h"

namespace errdex::extract {

inline bool Fits(Template t, const std::string& printed) {
  t.AssignNames();
  RE2::Options o;
  o.set_dot_nl(true);
  RE2 re(match::TemplateRegex(t), o);
  EXPECT_TRUE(re.ok()) << match::TemplateRegex(t);
  return RE2::FullMatch(match::NormalizeText(printed), re);
}

}  // namespace errdex::extract
