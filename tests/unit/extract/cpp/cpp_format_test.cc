// The C/C++ formatting functions applied to templates.
#include "extract/cpp/cpp_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace errdex::extract::cpp {
namespace {

std::vector<Arg> Args(std::vector<std::string> expressions) {
  std::vector<Arg> out;
  for (std::string& e : expressions) out.push_back(Arg{std::move(e), std::nullopt});
  return out;
}

std::string Printf(const std::string& format, std::vector<std::string> args,
                   PrintfDialect dialect = PrintfDialect::kC) {
  return ApplyPrintf(Template::Literal(format), Args(std::move(args)), dialect).Display();
}

TEST(CppFormat, PrintfConversionsBecomeTypedPlaceholders) {
  Template t =
      ApplyPrintf(Template::Literal("index %lld of %zu: %s at %p, %5.2f%% %c %x"),
                  Args({"i", "n", "name", "ptr", "ratio", "c", "mask"}), PrintfDialect::kC);
  EXPECT_EQ(t.Display(), "index {i} of {n}: {name} at {ptr}, {ratio}% {c} {mask}");
  std::vector<ValueKind> kinds;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) kinds.push_back(p.kind);
  }
  EXPECT_EQ(kinds, (std::vector<ValueKind>{ValueKind::kInt, ValueKind::kInt, ValueKind::kStr,
                                           ValueKind::kPointer, ValueKind::kFloat, ValueKind::kChar,
                                           ValueKind::kHex}));
}

TEST(CppFormat, PythonDialectKnowsReprAndTruncation) {
  Template t = ApplyPrintf(Template::Literal("'%.200s' object has no attribute %R (%S, %U)"),
                           Args({"tp_name", "name", "obj", "u"}), PrintfDialect::kPython);
  EXPECT_EQ(t.Display(), "'{tp_name}' object has no attribute {name} ({obj}, {u})");
  EXPECT_EQ(t.pieces()[1].max_length, 200);
  EXPECT_EQ(t.pieces()[3].kind, ValueKind::kRepr);
  // %R is not a conversion for C's printf: it stays text.
  EXPECT_EQ(Printf("%R", {"x"}), "%R");
}

TEST(CppFormat, PrintfEdgeCases) {
  EXPECT_EQ(Printf("100%%", {}), "100%");
  EXPECT_EQ(Printf("%2$s then %1$s", {"a", "b"}), "{b} then {a}");
  EXPECT_EQ(Printf("width %*d", {"w", "n"}), "width {n}");
  EXPECT_EQ(Printf("trailing %", {}), "trailing %");
  EXPECT_EQ(Printf("more %d than %d", {"one"}), "more {one} than {...}");
  // Not a conversion printf accepts: printed as written.
  EXPECT_EQ(Printf("%99999999999999999999$s", {"x"}), "%99999999999999999999$s");
}

TEST(CppFormat, ResolvedArgumentsAreInlined) {
  std::vector<Arg> args = {Arg{"\"gesvd\"", Template::Literal("gesvd")},
                           Arg{"3", Template::Literal("3")}};
  EXPECT_EQ(ApplyPrintf(Template::Literal("in %s, %d times"), args, PrintfDialect::kC).Display(),
            "in gesvd, 3 times");
}

TEST(CppFormat, SubstituteAndBraces) {
  EXPECT_EQ(
      ApplySubstitute(Template::Literal("$1 at $0 costs $$5 ($2)"), Args({"i", "a"})).Display(),
      "{a} at {i} costs $5 ({...})");
  EXPECT_EQ(
      ApplyBraces(Template::Literal("{} of {:d} {{literal}} {1}"), Args({"a", "b"})).Display(),
      "{a} of {b} {{literal}} {b}");
}

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
