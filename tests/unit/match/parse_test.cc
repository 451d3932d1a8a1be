// Runtime text in the forms users paste, most captured from real runs.
#include "match/parse.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace errdex::match {
namespace {

std::vector<ParsedError> ParseFixture(const std::string& name) {
  return ParseRuntimeText(testing::ReadFileOrEmpty(testing::FixtureDir("runtime") / name));
}

TEST(Parse, BareMessageAndTypedMessage) {
  std::vector<ParsedError> bare = ParseRuntimeText("Invalid TMEMLayout: TMEMLayout.FOO\n");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].exception, "");
  EXPECT_EQ(bare[0].message, "Invalid TMEMLayout: TMEMLayout.FOO");
  std::vector<ParsedError> typed = ParseRuntimeText("ValueError: Invalid TMEMLayout: X");
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(typed[0].exception, "ValueError");
  EXPECT_EQ(typed[0].message, "Invalid TMEMLayout: X");
  std::vector<ParsedError> alone = ParseRuntimeText("NotImplementedError");
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].exception, "NotImplementedError");
  EXPECT_EQ(alone[0].message, "");
}

TEST(Parse, ModuleQualifiedExceptionsWithoutAnErrorSuffix) {
  std::vector<ParsedError> e =
      ParseRuntimeText("networkx.exception.NodeNotFound: Source y is not in G\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "networkx.exception.NodeNotFound");
  EXPECT_EQ(e[0].message, "Source y is not in G");
  // Not every "a.b: text" is an exception: a lowercase or unqualified word is text.
  EXPECT_EQ(ParseRuntimeText("os.path: not found\n")[0].exception, "");
  EXPECT_EQ(ParseRuntimeText("Note: see below\n")[0].exception, "");
  // A jax stack-trace wrapper is not the error: what it quotes is.
  e = ParseRuntimeText(
      "jax._src.source_info_util.JaxStackTraceBeforeTransformation: TypeError: slice "
      "limit_indices must be less than or equal to operand shape\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "TypeError");
  EXPECT_EQ(e[0].message, "slice limit_indices must be less than or equal to operand shape");
}

TEST(Parse, QuotedExceptionAfterAColonBelongsToTheMessage) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "ValueError: An error occurred while trying to hash an object. The error was:\n"
      "TypeError: unhashable type: 'list'\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "ValueError");
  EXPECT_EQ(e[0].message,
            "An error occurred while trying to hash an object. The error was:\n"
            "TypeError: unhashable type: 'list'");
  // Without the colon, two pasted errors stay two.
  EXPECT_EQ(ParseRuntimeText("ValueError: one\nTypeError: two\n").size(), 2u);
  EXPECT_EQ(ParseRuntimeText("ValueError: one\n\nTypeError: two\n").size(), 2u);
}

// werkzeug's ImportStringError ends its text with the error it wraps, a
// blank line after the colon that announces it.
TEST(Parse, QuotedExceptionAfterAColonAndABlankLineBelongsToTheMessage) {
  const char* text =
      "werkzeug.utils.ImportStringError: import_string() failed for 'no.mod'. Possible "
      "reasons are:\n"
      "\n"
      "- missing __init__.py in a package;\n"
      "\n"
      "Original exception:\n"
      "\n"
      "ModuleNotFoundError: No module named 'no'\n";
  std::vector<ParsedError> e = ParseRuntimeText(text);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].exception, "werkzeug.utils.ImportStringError");
  EXPECT_TRUE(
      e[0].message.ends_with("Original exception:\n\nModuleNotFoundError: No module "
                             "named 'no'"))
      << e[0].message;
  // The announcement holds for the next text line only.
  EXPECT_EQ(ParseRuntimeText("ValueError: see below:\n\nsome text\n\nTypeError: two\n").size(), 2u);
}

TEST(Parse, ChainedTracebackReportsBothWithFrames) {
  std::vector<ParsedError> errors = ParseFixture("python_chained.txt");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].exception, "ValueError");
  EXPECT_EQ(errors[0].message, "multi line 1");
  ASSERT_EQ(errors[0].frames.size(), 2u);
  EXPECT_EQ(errors[0].frames[1].path, "/tmp/ml.py");
  EXPECT_EQ(errors[0].frames[1].line, 3);
  EXPECT_EQ(errors[0].frames[1].function, "f");
  EXPECT_EQ(errors[1].exception, "json.decoder.JSONDecodeError");
  EXPECT_EQ(errors[1].message, "Expecting value: line 1 column 1 (char 0)");
  ASSERT_EQ(errors[1].frames.size(), 4u);
  EXPECT_EQ(errors[1].frames.back().line, 355);
  EXPECT_EQ(errors[2].exception, "RuntimeError");
  EXPECT_EQ(errors[2].message, "wrapped");
  EXPECT_EQ(errors[2].source, "traceback");
}

TEST(Parse, DuringHandlingContext) {
  std::vector<ParsedError> errors = ParseFixture("python_context.txt");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].exception, "FileNotFoundError");
  EXPECT_EQ(errors[0].message, "[Errno 2] No such file or directory: '/nonexistent/config.toml'");
  EXPECT_EQ(errors[1].message, "config /nonexistent/config.toml is missing");
}

TEST(Parse, ExceptionGroupReportsTheGroupAndEachMember) {
  std::vector<ParsedError> errors = ParseFixture("exception_group.txt");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].exception, "ExceptionGroup");
  EXPECT_EQ(errors[0].message, "several problems (2 sub-exceptions)");
  EXPECT_EQ(errors[0].frames.size(), 2u);
  EXPECT_EQ(errors[1].exception, "ValueError");
  EXPECT_EQ(errors[1].message, "first bad value");
  EXPECT_EQ(errors[2].exception, "TypeError");
  EXPECT_EQ(errors[2].message, "second: wrong type");
}

TEST(Parse, PytestLongOutput) {
  std::vector<ParsedError> errors = ParseFixture("pytest_long.txt");
  ASSERT_EQ(errors.size(), 1u) << "the summary line repeats the E-block error";
  EXPECT_EQ(errors[0].source, "pytest");
  EXPECT_EQ(errors[0].exception, "json.decoder.JSONDecodeError");
  EXPECT_EQ(errors[0].message,
            "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
  ASSERT_FALSE(errors[0].frames.empty());
  EXPECT_EQ(errors[0].frames.back().path, "/usr/lib/python3.11/json/decoder.py");
  EXPECT_EQ(errors[0].frames.back().line, 353);
}

TEST(Parse, PytestShortOutput) {
  std::vector<ParsedError> errors = ParseFixture("pytest_short.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "json.decoder.JSONDecodeError");
  ASSERT_FALSE(errors[0].frames.empty());
  EXPECT_EQ(errors[0].frames.back().line, 353);
}

TEST(Parse, PytestSummaryAlone) {
  std::vector<ParsedError> errors =
      ParseRuntimeText("FAILED tests/test_a.py::test_b - KeyError: 'missing key'\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "KeyError");
  EXPECT_EQ(errors[0].message, "'missing key'");
}

TEST(Parse, IPythonWithColours) {
  std::vector<ParsedError> errors = ParseFixture("ipython_ansi.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].source, "ipython");
  EXPECT_EQ(errors[0].exception, "JSONDecodeError");
  EXPECT_EQ(errors[0].message, "Expecting value: line 1 column 4 (char 3)");
  ASSERT_GE(errors[0].frames.size(), 3u);
  EXPECT_EQ(errors[0].frames.back().line, 355);
  EXPECT_EQ(errors[0].frames.back().function, "JSONDecoder.raw_decode");
}

TEST(Parse, JaxFilteredTracebackIsOneErrorWithTheFullStack) {
  std::vector<ParsedError> errors = ParseFixture("jax_filtered.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "ValueError");
  EXPECT_EQ(errors[0].message, "Invalid TMEMLayout: TMEMLayout.FOO");
  ASSERT_EQ(errors[0].frames.size(), 4u) << "the unfiltered stack, with jax's own frames";
  EXPECT_EQ(errors[0].frames.back().line, 2026);
}

TEST(Parse, StatusPrefixAndRuntimeErrorWrapper) {
  std::vector<ParsedError> errors = ParseFixture("xla_status.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "jaxlib.xla_extension.XlaRuntimeError");
  EXPECT_EQ(errors[0].status, "INVALID_ARGUMENT");
  EXPECT_EQ(errors[0].message, "Expected a PjitFunction");
}

TEST(Parse, CppTerminate) {
  std::vector<ParsedError> errors = ParseFixture("cpp_terminate.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "std::runtime_error");
  EXPECT_EQ(errors[0].message, "Invalid pipeline stage");
  EXPECT_EQ(ShortExceptionName(errors[0].exception), "runtime_error");
}

TEST(Parse, GlogCheckFailure) {
  std::vector<ParsedError> errors = ParseFixture("glog.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].source, "glog");
  EXPECT_EQ(errors[0].message, "Check failed: HloOpcode::kWhile == opcode_ (kWhile vs. kCall)");
  ASSERT_EQ(errors[0].frames.size(), 1u);
  EXPECT_EQ(errors[0].frames[0].path, "hlo_instruction.cc");
  EXPECT_EQ(errors[0].frames[0].line, 3849);
}

TEST(Parse, WarningLine) {
  std::vector<ParsedError> errors = ParseFixture("warning.txt");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].exception, "DeprecationWarning");
  EXPECT_EQ(errors[0].message, "old() is deprecated, use new()");
  ASSERT_EQ(errors[0].frames.size(), 1u);
  EXPECT_EQ(errors[0].frames[0].line, 3);
}

TEST(Parse, MultiLineMessageKeepsItsLines) {
  std::vector<ParsedError> errors = ParseRuntimeText(
      "Traceback (most recent call last):\n"
      "  File \"x.py\", line 1, in <module>\n"
      "TypeError: first line\n"
      "  second line, indented\n"
      "\n"
      "third line after a blank\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "first line\n  second line, indented\n\nthird line after a blank");
}

TEST(Parse, CutOffAnywhereStillParses) {
  std::string text =
      testing::ReadFileOrEmpty(testing::FixtureDir("runtime") / "python_chained.txt");
  for (size_t cut = 0; cut < text.size(); cut += 7) {
    std::vector<ParsedError> errors = ParseRuntimeText(text.substr(0, cut));
    EXPECT_FALSE(errors.empty()) << "cut at " << cut;
    EXPECT_LE(errors.size(), 3u);
  }
}

TEST(Parse, ManyErrorsAreCapped) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "ValueError: number " + std::to_string(i) + "\n";
  std::vector<ParsedError> errors = ParseRuntimeText(text);
  EXPECT_EQ(errors.size(), 64u);
  EXPECT_EQ(errors.back().message, "number 499");
}

TEST(Parse, AChainedReRaiseUnderAClassOfTheSameNameIsTwoErrors) {
  // requests re-raises json's error with its text under its own
  // JSONDecodeError: the program died with the second.
  std::vector<ParsedError> e = ParseRuntimeText(
      "Traceback (most recent call last):\n"
      "  File \"/py/json/decoder.py\", line 355, in raw_decode\n"
      "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n\n"
      "During handling of the above exception, another exception occurred:\n\n"
      "Traceback (most recent call last):\n"
      "  File \"/site/requests/models.py\", line 978, in json\n"
      "requests.exceptions.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1].exception, "requests.exceptions.JSONDecodeError");
  ASSERT_EQ(e[1].frames.size(), 1u);
  EXPECT_EQ(e[1].frames[0].path, "/site/requests/models.py");
  // One error shown twice, qualified once and bare once, stays one.
  e = ParseRuntimeText(
      "Traceback (most recent call last):\n  File \"/a/m.py\", line 3, in f\n"
      "m.BadThing: no good\n\nE   BadThing: no good\n");
  EXPECT_EQ(e.size(), 1u);
}

TEST(Parse, AHeaderAfterAPromptWithoutNewlineStartsTheTraceback) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "/py/getpass.py:91: GetPassWarning: Can not control echo on the terminal.\n"
      "  passwd = fallback_getpass(prompt, stream)\n"
      "Warning: Password input may be echoed.\n"
      "Password: Traceback (most recent call last):\n"
      "  File \"/site/click/termui.py\", line 168, in prompt_func\n"
      "    raise Abort() from None\n"
      "click.exceptions.Abort\n");
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.back().exception, "click.exceptions.Abort");
  ASSERT_EQ(e.back().frames.size(), 1u);
  EXPECT_EQ(e.back().frames[0].line, 168);
  // Indentation and an exception group's gutter are not text before it.
  EXPECT_EQ(ParseRuntimeText("  Traceback (most recent call last):\n"
                             "    File \"a.py\", line 1, in f\n  ValueError: x\n")
                .back()
                .frames.size(),
            1u);
}

TEST(Parse, ErrorsTheInterpreterIgnoredComeBeforeTheOneItDiedWith) {
  std::vector<ParsedError> e = ParseRuntimeText(
      "Traceback (most recent call last):\n"
      "  File \"/site/trio/_core/_run.py\", line 2010, in run\n"
      "trio.TrioInternalError: internal error in Trio - please file a bug!\n"
      "Exception ignored in: <function Nursery.__del__ at 0x7f>\n"
      "Traceback (most recent call last):\n"
      "  File \"/site/trio/_core/_run.py\", line 1183, in __del__\n"
      "AssertionError: \n"
      "Exception ignored in: <coroutine object main at 0x7f>\n"
      "RuntimeError: coroutine ignored GeneratorExit\n");
  ASSERT_GE(e.size(), 2u);
  EXPECT_TRUE(e.front().ignored);
  EXPECT_EQ(e.back().exception, "trio.TrioInternalError");
  EXPECT_FALSE(e.back().ignored);
  EXPECT_EQ(e.back().message, "internal error in Trio - please file a bug!");
}

TEST(Parse, ShortExceptionName) {
  EXPECT_EQ(ShortExceptionName("json.decoder.JSONDecodeError"), "JSONDecodeError");
  EXPECT_EQ(ShortExceptionName("std::out_of_range"), "out_of_range");
  EXPECT_EQ(ShortExceptionName("ValueError"), "ValueError");
  EXPECT_EQ(ShortExceptionName(""), "");
}

}  // namespace
}  // namespace errdex::match
