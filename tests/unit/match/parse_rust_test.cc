// Rust panics and pydantic's validation report, in the forms they print.
#include "match/parse_rust.h"

#include <gtest/gtest.h>

#include <string>

#include "match/parse.h"
#include "test_util.h"

namespace errdex::match {
namespace {

std::vector<ParsedError> ParseFixture(const std::string& name) {
  return ParseRuntimeText(testing::ReadFileOrEmpty(testing::FixtureDir("runtime") / name));
}

TEST(ParseRust, CapturedPydanticReportAndPanic) {
  std::vector<ParsedError> report = ParseFixture("pydantic_report.txt");  // pydantic 2.13.4
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(report[1].key, "string_too_long");
  EXPECT_EQ(report[2].message,
            "Input should be a valid integer, unable to parse string as an integer");
  std::vector<ParsedError> panic = ParseFixture("rust_panic.txt");
  ASSERT_EQ(panic.size(), 1u);
  EXPECT_EQ(panic[0].message, "internal error: entered unreachable code: i is 0 or 1, got 7");
  ASSERT_EQ(panic[0].frames.size(), 5u);
  EXPECT_EQ(panic[0].frames[1].function, "shapes::cli::pick");
}

TEST(ParseRust, PanicSince173WithBacktrace) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "thread 'main' panicked at src/main.rs:12:5:\n"
      "index 7 out of range\n"
      "stack backtrace:\n"
      "   0: rust_begin_unwind\n"
      "             at /rustc/abc/library/std/src/panicking.rs:597:5\n"
      "   1: mycrate::parse\n"
      "             at ./src/parse.rs:40:9\n"
      "   2: mycrate::main\n"
      "             at ./src/main.rs:12:5\n"
      "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "panic");
  EXPECT_EQ(e[0].source, "panic");
  EXPECT_EQ(e[0].message, "index 7 out of range");
  ASSERT_EQ(e[0].frames.size(), 4u);
  EXPECT_EQ(e[0].frames[0].path, "./src/main.rs");
  EXPECT_EQ(e[0].frames[0].function, "mycrate::main");
  EXPECT_EQ(e[0].frames[1].path, "./src/parse.rs");
  EXPECT_EQ(e[0].frames[1].line, 40);
  EXPECT_EQ(e[0].frames.back().path, "src/main.rs");
  EXPECT_EQ(e[0].frames.back().line, 12);
}

TEST(ParseRust, OldPanicFormThreadIdAndAssertOperands) {
  std::vector<ParsedError> old = ParseRuntimeText(
      "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', "
      "src/x.rs:3:7\nnote: run with `RUST_BACKTRACE=1`\n");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].message, "called `Option::unwrap()` on a `None` value");
  ASSERT_EQ(old[0].frames.size(), 1u);
  EXPECT_EQ(old[0].frames[0].path, "src/x.rs");
  EXPECT_EQ(old[0].frames[0].line, 3);
  std::vector<ParsedError> eq = ParseRuntimeText(
      "thread 'worker' (4242) panicked at crates/core/src/a.rs:9:1:\n"
      "assertion `left == right` failed: sizes differ\n"
      "  left: 1\n"
      " right: 2\n");
  ASSERT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq[0].message, "assertion `left == right` failed: sizes differ");
  EXPECT_EQ(eq[0].frames.back().path, "crates/core/src/a.rs");
}

TEST(ParseRust, PydanticReportIsOneErrorPerEntryWithItsType) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "Traceback (most recent call last):\n"
      "  File \"/tmp/pv.py\", line 6, in <module>\n"
      "    Model(x='a', y='abcdef')\n"
      "pydantic_core._pydantic_core.ValidationError: 2 validation errors for Model\n"
      "x\n"
      "  Input should be a valid integer, unable to parse string as an integer "
      "[type=int_parsing, input_value='a', input_type=str]\n"
      "    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing\n"
      "y.0\n"
      "  String should have at most 3 characters [type=string_too_long, "
      "input_value='ab]cdef', input_type=str]\n"
      "    For further information visit https://errors.pydantic.dev/2.13/v/string_too_long\n");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].message, "Input should be a valid integer, unable to parse string as an integer");
  EXPECT_EQ(e[0].key, "int_parsing");
  EXPECT_EQ(e[0].exception, "");
  EXPECT_EQ(e[0].frames.size(), 1u);
  EXPECT_EQ(e[1].message, "String should have at most 3 characters");
  EXPECT_EQ(e[1].key, "string_too_long");
}

TEST(ParseRust, PydanticReportPastedWithoutTracebackAndMultiLineMessage) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "1 validation error for Model\n"
      "  Value error, first line\n"
      "  second line [type=value_error, input_value=3, input_type=int]\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].message, "Value error, first line\nsecond line");
  EXPECT_EQ(e[0].key, "value_error");
}

TEST(ParseRust, PyO3PanicExceptionIsAPanic) {
  std::vector<ParsedError> e = ParseRuntimeText("pyo3_runtime.PanicException: boom 3\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "panic");
  EXPECT_EQ(e[0].message, "boom 3");
}

TEST(ParseRust, NoPanicLineIsNoPanic) {
  EXPECT_FALSE(ParseRustPanics("a message that says panicked at nothing").has_value());
  // A report header with no entries stays one error, as it was.
  std::vector<ParsedError> e = ParseRuntimeText("3 validation errors for Model\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].key, "");
}

}  // namespace
}  // namespace errdex::match
