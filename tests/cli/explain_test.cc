// Black-box tests of `errdex explain` and `errdex run` against a catalog of
// the Python idioms fixture.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace errdex {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CommandResult;
using testing::RunErrdex;
using testing::TempDir;

class ExplainCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    fs::path root = dir_->path() / "src";
    fs::create_directories(root);
    fs::copy(testing::FixtureDir("python/idioms"), root, fs::copy_options::recursive);
    db_ = (dir_->path() / "c.db").string();
    CommandResult r =
        RunErrdex({"index", root.string(), "--name", "test/idioms", "--db", db_, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    fs::path native = dir_->path() / "native";
    fs::create_directories(native);
    fs::copy(testing::FixtureDir("cpp/idioms"), native, fs::copy_options::recursive);
    r = RunErrdex({"index", native.string(), "--name", "test/cpp", "--db", db_, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
  static std::string db_;
};

TempDir* ExplainCli::dir_ = nullptr;
std::string ExplainCli::db_;

TEST_F(ExplainCli, JsonFollowsTheContract) {
  CommandResult r = RunErrdex(
      {"explain", "--json", "--db", db_, "ValueError: Invalid TMEMLayout: TMEMLayout.FOO"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["input"]["exception"], "ValueError");
  EXPECT_EQ(j["input"]["message"], "Invalid TMEMLayout: TMEMLayout.FOO");
  EXPECT_TRUE(j["input"]["frames"].is_array());
  ASSERT_GE(j["matches"].size(), 1u);
  const json& m = j["matches"][0];
  for (const char* key :
       {"id", "score", "fuzzy", "library", "exception", "template", "values", "sites"}) {
    EXPECT_TRUE(m.contains(key)) << key;
  }
  EXPECT_EQ(m["template"], "Invalid TMEMLayout: {self}");
  EXPECT_EQ(m["values"]["self"], "TMEMLayout.FOO");
  EXPECT_EQ(m["sites"][0]["path"], "fstrings.py");
  EXPECT_EQ(m["sites"][0]["line"], 11);
  EXPECT_EQ(m["sites"][0]["function"], "TMEMLayout.to_mgpu");
  EXPECT_EQ(j["errors"].size(), 1u);
}

TEST_F(ExplainCli, ReadsStdinAndReportsEveryError) {
  std::string tb = testing::ReadFileOrEmpty(testing::FixtureDir("runtime") / "python_context.txt");
  CommandResult r = RunErrdex({"explain", "--json", "--db", db_, "-"}, tb);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["errors"].size(), 2u);
  EXPECT_EQ(j["input"]["exception"], "RuntimeError");  // the one the program died with
  EXPECT_EQ(j["errors"][0]["input"]["exception"], "FileNotFoundError");
}

TEST_F(ExplainCli, JsonLinesAnswerEachInputOnItsOwnLineAsAloneWouldBe) {
  std::string tb = testing::ReadFileOrEmpty(testing::FixtureDir("runtime") / "python_context.txt");
  std::vector<std::string> inputs = {"ValueError: Invalid TMEMLayout: TMEMLayout.FOO", tb,
                                     "nothing like any error"};
  std::string lines;
  for (const std::string& i : inputs) lines += json(i).dump() + "\n";
  lines += "{\"not\": \"a string\"}\n";
  CommandResult r = RunErrdex({"explain", "--jsonl", "--db", db_}, lines);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream out(r.out);
  std::string line;
  std::vector<json> answers;
  while (std::getline(out, line)) answers.push_back(json::parse(line));
  ASSERT_EQ(answers.size(), inputs.size() + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    CommandResult alone = RunErrdex({"explain", "--json", "--db", db_, "-"}, inputs[i]);
    EXPECT_EQ(answers[i], json::parse(alone.out)) << inputs[i];
  }
  EXPECT_TRUE(answers.back().contains("error"));
  EXPECT_NE(RunErrdex({"explain", "--jsonl", "--db", db_, "text"}, "").exit_code, 0);
}

TEST_F(ExplainCli, TextReportShowsTemplateValuesAndSource) {
  CommandResult r = RunErrdex({"explain", "--db", db_,
                               "TypeError: dot_general requires contracting dimensions to have the "
                               "same shape, got (2,) and (3,)."});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lhs = (2,)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("raised at variables.py:18 in template_variable"), std::string::npos);
  EXPECT_NE(r.out.find(">    18 |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colours when stdout is not a terminal";

  // The conditions that lead to the raise.
  r = RunErrdex({"explain", "--db", db_, "ValueError: index can't contain negative values"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("raised when `x < 0`"), std::string::npos) << r.out;
  // What the analysis says of it, and where to read more.
  EXPECT_NE(r.out.find("     family: Value or index out of range\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("more: errdex show "), std::string::npos) << r.out;

  // Values are shown under the expression the source wrote, not the JSON name.
  r = RunErrdex({"explain", "--db", db_,
                 "TypeError: Mesh must be a `plgpu.Mesh`, got <class 'int'> and 3 3 3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("type(mesh) = <class 'int'>"), std::string::npos) << r.out;

  // Text written at a call of a helper: raised inside the helper.
  r = RunErrdex({"explain", "--db", db_, "ValueError: x must be positive, got -3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("raised at sinks.py:55 in check_positive via _raise_error"),
            std::string::npos)
      << r.out;
}

// A message that only shares a phrase with the nearest template is said to
// be no catalogued wording: where that wording is raised, not its condition
// or fix, which would be another error's. One word changed is still an answer.
TEST_F(ExplainCli, TheNearestWordingIsShownAsSuchWithoutItsFix) {
  CommandResult r = RunErrdex(
      {"explain", "--db", db_, "ValueError: the index of this table can't contain spaces"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no error in the catalog has this wording"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("index can't contain negative values"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worded so at "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("raised when `x < 0`"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("family:"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--json", "--db", db_,
                 "ValueError: the index of this table can't contain spaces"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_FALSE(j["matches"].empty());
  EXPECT_EQ(j["matches"][0]["weak"], true);
  r = RunErrdex(
      {"explain", "--db", db_, "ValueError: index can't contain negative numbers or zero"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("no error in the catalog has this wording"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("raised when `x < 0`"), std::string::npos) << r.out;
}

// No match, and the last frame lies in a file of an indexed library (by its
// full path: the catalog's root and the file): the library is named, not
// asked about. The same file name elsewhere is not the library's.
TEST_F(ExplainCli, NoMatchInAnIndexedFileNamesItsLibrary) {
  std::string frame_file = (fs::canonical(dir_->path() / "src") / "fstrings.py").string();
  auto traceback = [](const std::string& file) {
    return "Traceback (most recent call last):\n  File \"" + file +
           "\", line 2, in f\nZeroDivisionError: division by zero\n";
  };
  CommandResult r = RunErrdex({"explain", "--db", db_, "-"}, traceback(frame_file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("The last frame, fstrings.py:2 in f, is in test/idioms"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("is the library indexed?"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--db", db_, "-"}, traceback("/elsewhere/project/fstrings.py"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("is the library indexed?"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("test/idioms"), std::string::npos) << r.out;
}

// A library copies CPython's wording; the user's traceback never enters it.
TEST(ExplainInterpreter, PythonItselfRaisedWhatALibraryOnlyWordsTheSame) {
  TempDir dir;
  fs::path lib = dir.path() / "lib" / "client";
  fs::create_directories(lib);
  std::ofstream(lib / "client.py")
      << "class Client:\n"
         "    def __getattr__(self, item):\n"
         "        raise AttributeError(f\"'{type(self).__name__}' object has no attribute "
         "'{item}'\")\n";
  std::string db = (dir.path() / "c.db").string();
  CommandResult r =
      RunErrdex({"index", (dir.path() / "lib").string(), "--name", "test/client", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"/home/me/app.py\", line 4, in load\n"
      "    return data.get('x')\nAttributeError: 'NoneType' object has no attribute 'get'\n";
  r = RunErrdex({"explain", "--db", db, "-"}, traceback);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Python itself raised this, on the traceback's last line: "
                       "/home/me/app.py:4 in load"),
            std::string::npos)
      << r.out;
  // Where the library words it so, not a condition or fix of its raise.
  EXPECT_NE(r.out.find("worded so at client/client.py:3"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("raised when"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--json", "--db", db, "-"}, traceback);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_GE(j["matches"].size(), 1u);
  EXPECT_EQ(j["matches"][0]["weak"], true);
  EXPECT_EQ(j["matches"][0]["weak_reason"], "interpreter");
  EXPECT_EQ(j["input"]["interpreter_wording"], true);

  // The message alone: the library's raise is listed as it is, with a word
  // that CPython raises the same text and only frames tell which did.
  const std::string message = "AttributeError: 'NoneType' object has no attribute 'get'";
  r = RunErrdex({"explain", "--db", db, message});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CPython raises errors worded so itself"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Python itself raised this"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--json", "--db", db, message});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["input"]["interpreter_wording"], true);
  ASSERT_GE(j["matches"].size(), 1u);
  EXPECT_FALSE(j["matches"][0].contains("weak"));
  // A library's own words are not CPython's.
  r = RunErrdex({"explain", "--json", "--db", db, "ValueError: name is required here"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(r.out)["input"].contains("interpreter_wording"));
}

// What C and C++ errors look like when they reach a user, each to its site.
TEST_F(ExplainCli, NativeErrors) {
  struct Case {
    const char* paste;
    const char* path;
    int line;
  };
  const Case cases[] = {
      // A status inside the exception that carried it to Python.
      {"jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Expected array argument for lhs "
       "sparsity at index 3, but got f32[2]",
       "status.cc", 53},
      // A C++ exception that escaped: terminate prints the C++ type.
      {"terminate called after throwing an instance of 'std::invalid_argument'\n"
       "  what():  three dimensions are not supported\nAborted (core dumped)",
       "bindings.cc", 41},
      // The Python type a binding translated it to.
      {"IndexError: ndim 70 is out of range", "bindings.cc", 40},
      // glog, with the file and line of the check.
      {"F1130 05:00:00.000000 1234 checks.cc:7] Check failed: !sharding.IsTuple() {devices=[2]} "
       "is a tuple",
       "checks.cc", 7},
      // The Python C-API, a %R and a %.200s.
      {"TypeError: Cannot interpret 'int8x' as a data type; int8x, foo, 100%", "capi.c", 23},
      // c10's default text for a TORCH_CHECK without a message.
      {"RuntimeError: Expected ebits <= 8 to be true, but got false.  (Could this error message "
       "be improved?  If so, please report an enhancement request to PyTorch.)",
       "torch.cpp", 6},
  };
  for (const Case& c : cases) {
    CommandResult r = RunErrdex({"explain", "--json", "--top", "3", "--db", db_, c.paste});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    ASSERT_FALSE(j["matches"].empty()) << c.paste;
    const json& site = j["matches"][0]["sites"][0];
    EXPECT_EQ(site["path"], c.path) << c.paste << "\n" << j["matches"][0].dump();
    EXPECT_EQ(site["line"], c.line) << c.paste;
    EXPECT_FALSE(j["matches"][0]["fuzzy"].get<bool>()) << c.paste;
  }
}

// Each other candidate is one line, whatever line breaks its template has:
// shown escaped, as in the source's literal.
TEST_F(ExplainCli, OtherCandidatesAreOneLineEach) {
  CommandResult r = RunErrdex({"explain", "--db", db_, "--top", "5",
                               "ConcretizationTypeError: Abstract tracer value encountered where "
                               "concrete value is expected: x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string heading = "\n  other candidates:\n";
  size_t list = r.out.find(heading);
  ASSERT_NE(list, std::string::npos) << r.out;
  std::istringstream rest(r.out.substr(list + heading.size()));
  int n = 0;
  for (std::string line; std::getline(rest, line);) {
    EXPECT_TRUE(line.size() > 5 && line.rfind("  ", 0) == 0 && std::isdigit(line[2]) &&
                line.find(". ") == 3)
        << "not a candidate line: '" << line << "'\n"
        << r.out;
    ++n;
  }
  EXPECT_GE(n, 1);
  EXPECT_NE(r.out.find("expected: {tracer}\\nIt arose in"), std::string::npos) << r.out;
}

// A header names the type and the kind of site once each, and leaves out
// what is not there; a value written twice in the template is shown once.
TEST_F(ExplainCli, NothingIsSaidTwice) {
  CommandResult r = RunErrdex({"explain", "--db", db_, "UserWarning: ebits 3 is slow"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  1. UserWarning · test/cpp · score"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--db", db_,
                 "F1130 05:00:00.000000 1234 checks.cc:7] Check failed: !sharding.IsTuple() "
                 "{devices=[2]} is a tuple"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  1. fatal · test/cpp · score"), std::string::npos) << r.out;
  r = RunErrdex({"explain", "--db", db_,
                 "TypeError: Cannot interpret 'int8x' as a data type; int8x, foo, 100%"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  1. TypeError · raise · test/cpp · score"), std::string::npos) << r.out;
  size_t first = r.out.find("       obj = int8x\n");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("obj = int8x", first + 8), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("       name = foo\n"), std::string::npos) << r.out;
  // The JSON keeps a key for each place, under the template's names.
  r = RunErrdex({"explain", "--json", "--db", db_,
                 "TypeError: Cannot interpret 'int8x' as a data type; int8x, foo, 100%"});
  EXPECT_EQ(json::parse(r.out)["matches"][0]["values"],
            json({{"obj", "int8x"}, {"obj_2", "int8x"}, {"name", "foo"}}));
}

// The keys of `values` are the names of the template's placeholders: the
// identifier a placeholder holds, and a name made from any other expression.
TEST(ExplainValues, KeysAreThePlaceholderNames) {
  TempDir dir;
  dir.Write("lib/m.py",
            "def lower(pipeline_mode, self, n):\n"
            "    if n:\n"
            "        raise LoweringException(f'Unsupported pipeline mode: {pipeline_mode}.')\n"
            "    raise ValueError(f'bad {self._stage} of {len(n)} in mode %s' % pipeline_mode)\n");
  std::string db = (dir.path() / "c.db").string();
  ASSERT_EQ(RunErrdex({"index", (dir.path() / "lib").string(), "--name", "t/v", "--db", db, "-q"})
                .exit_code,
            0);
  CommandResult r = RunErrdex(
      {"explain", "--json", "--db", db, "LoweringException: Unsupported pipeline mode: Fast()."});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json m = json::parse(r.out)["matches"][0];
  EXPECT_EQ(m["template"], "Unsupported pipeline mode: {pipeline_mode}.");
  EXPECT_EQ(m["values"], json({{"pipeline_mode", "Fast()"}}));
  r = RunErrdex({"explain", "--json", "--db", db, "ValueError: bad 3 of 4 in mode slow"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  m = json::parse(r.out)["matches"][0];
  EXPECT_EQ(m["values"], json({{"stage", "3"}, {"len_n", "4"}, {"pipeline_mode", "slow"}}))
      << m.dump();
}

TEST_F(ExplainCli, NoMatchIsAnAnswerNotAFailure) {
  CommandResult r = RunErrdex({"explain", "--json", "--db", db_, "ZebraError: quantum flux"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(json::parse(r.out)["matches"].empty());
  CommandResult text = RunErrdex({"explain", "--db", db_, "ZebraError: quantum flux"});
  EXPECT_NE(text.out.find("no error in the catalog matches this"), std::string::npos);
}

TEST_F(ExplainCli, LargePastesAreHandledOrRefusedQuickly) {
  std::string log;
  while (log.size() < (9u << 20)) log += "INFO some log line with words and numbers 12345\n";
  log +=
      "Traceback (most recent call last):\n  File \"/x/fstrings.py\", line 11, in to_mgpu\n"
      "ValueError: Invalid TMEMLayout: BIG\n";
  auto start = std::chrono::steady_clock::now();
  CommandResult r = RunErrdex({"explain", "--json", "--db", db_, "-"}, log);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["matches"][0]["values"]["self"], "BIG");
  EXPECT_LT(seconds, 30.0);
  std::string huge(11u << 20, 'x');
  CommandResult refused = RunErrdex({"explain", "--db", db_, "-"}, huge);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("larger than 10 MB"), std::string::npos);
}

TEST_F(ExplainCli, RunPassesOutputThroughAndKeepsTheExitCode) {
  fs::path script = dir_->Write("fail.py",
                                "import sys\n"
                                "print('working')\n"
                                "raise ValueError('Invalid TMEMLayout: FROM_RUN')\n");
  CommandResult r = RunErrdex({"run", "--db", db_, "--", "python3", script.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "working\n");
  EXPECT_NE(r.err.find("Traceback (most recent call last):"), std::string::npos);
  EXPECT_NE(r.err.find("the command failed with exit code 1"), std::string::npos);
  EXPECT_NE(r.err.find("Invalid TMEMLayout: {self}"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("self = FROM_RUN"), std::string::npos);

  CommandResult ok = RunErrdex({"run", "--db", db_, "--", "python3", "-c", "print('fine')"});
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "fine\n");
  EXPECT_EQ(ok.err, "");

  CommandResult code = RunErrdex({"run", "--db", db_, "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(code.exit_code, 7);

  CommandResult missing = RunErrdex({"run", "--db", db_, "--", "/no/such/program"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot run /no/such/program"), std::string::npos);
}

}  // namespace
}  // namespace errdex
