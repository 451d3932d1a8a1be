// The C/C++ front end on in-memory sources: what the golden fixture does not
// pin down, and inputs no compiler would accept.
#include <gtest/gtest.h>

#include <pthread.h>

#include <algorithm>
#include <string>
#include <vector>

#include "extract/extractor.h"

namespace errdex::extract {
namespace {

std::vector<std::string> Messages(const std::string& path, const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : ExtractCppSource(path, code).sites) {
    out.push_back(s.exception + ": " + s.message.Display());
  }
  return out;
}

// "function line type" of each site, sorted.
std::vector<std::string> PlacedSites(const std::string& path, const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : ExtractCppSource(path, code).sites) {
    out.push_back(s.function + " " + std::to_string(s.line) + " " + s.exception);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A function after the one a test is about, which must keep its name.
constexpr const char* kOther =
    "static PyObject *\n"
    "other(PyObject *args)\n"
    "{\n"
    "    PyErr_SetString(PyExc_ValueError, \"other fails\");\n"
    "    return NULL;\n"
    "}\n";

TEST(CppExtractor, SiteRecordsLocationStatementAndExcerpt) {
  Extraction x = ExtractCppSource("jaxlib/xla.cc",
                                  "namespace jax {\n"
                                  "class PyClient {\n"
                                  "  void Compile(int n) {\n"
                                  "    if (n < 0)\n"
                                  "      throw std::invalid_argument(\n"
                                  "          \"negative\");\n"
                                  "  }\n"
                                  "};\n"
                                  "}\n");
  ASSERT_EQ(x.sites.size(), 1u);
  const Site& s = x.sites[0];
  EXPECT_EQ(s.exception, "ValueError");
  EXPECT_EQ(s.exception_written, "std::invalid_argument");
  EXPECT_EQ(s.language, "cpp");
  EXPECT_EQ(s.line, 5);
  EXPECT_EQ(s.column, 7);
  EXPECT_EQ(s.end_line, 6);
  EXPECT_EQ(s.function, "PyClient::Compile");
  EXPECT_EQ(s.statement, "throw std::invalid_argument(\n          \"negative\");");
  EXPECT_EQ(s.excerpt_line, 1);
  EXPECT_NE(s.excerpt.find("class PyClient"), std::string::npos);
}

TEST(CppExtractor, StatementMacrosDoNotHideTheRestOfTheFunction) {
  // TF_ASSIGN_OR_RETURN declares inside its arguments; the throw after it
  // must still be found, and the excerpt must show the code as written.
  Extraction x =
      ExtractCppSource("a.cc",
                       "absl::StatusOr<int> F();\n"
                       "nb::dict G() {\n"
                       "  TF_ASSIGN_OR_RETURN(auto arr, F());\n"
                       "  TF_ASSIGN_OR_RETURN(std::pair<int, int> p, F());\n"
                       "  if (!arr) throw nb::attribute_error(\"only for unsharded arrays\");\n"
                       "  return {};\n"
                       "}\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].exception, "AttributeError");
  EXPECT_EQ(x.sites[0].function, "G");
  EXPECT_NE(x.sites[0].excerpt.find("TF_ASSIGN_OR_RETURN(auto arr, F());"), std::string::npos);
}

TEST(CppExtractor, DirectivesInsideArgumentsKeepTheFirstBranch) {
  // jaxlib's cpu_feature_guard.c: `#if` between a call's arguments. The
  // message is the first branch's, never the directive's text; directives
  // outside parentheses keep both branches, a string holding `(` or `#`
  // does not confuse the scan, and a line splice is blanked with its line.
  std::string code =
      "static void Report(const char* name) {\n"
      "  PyErr_Format(\n"
      "      PyExc_RuntimeError,\n"
      "#if defined(__APPLE__)\n"
      "      \"built using %s on mac (\",\n"
      "#elif defined(_WIN32) && \\\n"
      "      defined(X)\n"
      "      \"built using %s on windows\",\n"
      "#else\n"
      "      \"built using %s elsewhere #\",\n"
      "#endif\n"
      "      name);\n"
      "}\n"
      "#ifdef WIN\n"
      "static void A() { PyErr_SetString(PyExc_ValueError, \"windows only\"); }\n"
      "#else\n"
      "static void B() { PyErr_SetString(PyExc_ValueError, \"posix only\"); }\n"
      "#endif\n";
  std::vector<std::string> got = Messages("a.c", code);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"RuntimeError: built using {name} on mac (",
                                           "ValueError: posix only", "ValueError: windows only"}));
  Extraction x = ExtractCppSource("a.c", code);
  for (const Site& s : x.sites) {
    if (s.exception == "RuntimeError") {
      EXPECT_EQ(s.line, 2);
    }
  }
}

TEST(CppExtractor, ACommentInsideADefineDoesNotEndIt) {
  // numpy 1.24's compiled_base.c: a `/* */` comment on a spliced line of a
  // #define in a function's body. Its sink is the macro's use; the
  // function after it keeps its name. A comment over two lines inside a
  // directive, a `/*` inside a string, and a `#` inside a comment change
  // nothing.
  std::string code =
      "static PyObject *\n"
      "add_doc(PyObject *dummy, PyObject *args)\n"
      "{\n"
      "    static char *msg = \"already has a different docstring\";\n"
      "#define _ADDDOC(doc, name)                          \\\n"
      "        if (!(doc)) {                               \\\n"
      "            Py_INCREF(str);  /* hold on to it */    \\\n"
      "        }                                           \\\n"
      "        else if (strcmp(doc, \"/*\") != 0) {        \\\n"
      "            PyErr_Format(PyExc_RuntimeError, \"%s method %s\", name, msg); \\\n"
      "            return NULL;                            \\\n"
      "        }\n"
      "    if (args == NULL) {\n"
      "        _ADDDOC(args->doc, \"n\");\n"
      "    }\n"
      "#undef _ADDDOC\n"
      "    Py_RETURN_NONE;\n"
      "}\n"
      "/*\n"
      "#define NOT_A_DIRECTIVE\n"
      "*/\n"
      "#define TWO_LINES(x) x /* one\n"
      "   two */ + 1\n";
  EXPECT_EQ(PlacedSites("m.c", code + kOther),
            (std::vector<std::string>{"add_doc 14 RuntimeError", "other 27 ValueError"}));
}

TEST(CppExtractor, BranchesThatEachOpenABraceAreReadAsTheFirst) {
  // numpy main's arr_add_docstring: `#if` / `if (a) {` / `#else` /
  // `if (b) {` / `#endif` / `}`. Read both branches, the function lost its
  // name; branches that balance their braces are read whole as before.
  std::string code =
      "static PyObject *\n"
      "add_doc(PyObject *args)\n"
      "{\n"
      "#if PY_VERSION_HEX > 0x030b0000\n"
      "    if (optimize > 1) {\n"
      "#else\n"
      "    if (Py_OptimizeFlag > 1) {\n"
      "#endif\n"
      "        Py_RETURN_NONE;\n"
      "    }\n"
      "#ifdef WIN\n"
      "    if (args == NULL) { PyErr_SetString(PyExc_OSError, \"windows\"); return NULL; }\n"
      "#else\n"
      "    if (args == NULL) { PyErr_SetString(PyExc_OSError, \"posix\"); return NULL; }\n"
      "#endif\n"
      "    PyErr_SetString(PyExc_ValueError, \"after the branches\");\n"
      "    return NULL;\n"
      "}\n";
  EXPECT_EQ(PlacedSites("m.c", code + kOther),
            (std::vector<std::string>{"add_doc 12 OSError", "add_doc 14 OSError",
                                      "add_doc 16 ValueError", "other 22 ValueError"}));
}

TEST(CppExtractor, BlankingKeepsLinesAndTheArmThatCompiles) {
  // A blank line inside a comment of a #define keeps its line break; an
  // `#if 0` arm that opens nothing leaves the `#else` that compiles; an
  // apostrophe in a disabled arm (`it's`) or a digit separator (`1'000`)
  // starts no character literal that would hide the next directive.
  std::string comment =
      "static PyObject *\n"
      "f(PyObject *args)\n"
      "{\n"
      "#define X(a) a /* one\n"
      "\n"
      "   two */ + 1\n"
      "    PyErr_SetString(PyExc_ValueError, \"in f\");\n"
      "    return NULL;\n"
      "}\n";
  EXPECT_EQ(PlacedSites("m.c", comment + kOther),
            (std::vector<std::string>{"f 7 ValueError", "other 13 ValueError"}));
  std::string zero =
      "static PyObject *\n"
      "f(PyObject *args)\n"
      "{\n"
      "    int n = 1'000;\n"
      "#if 0\n"
      "    it's old\n"
      "#else\n"
      "    if (args == NULL) {\n"
      "#endif\n"
      "        PyErr_SetString(PyExc_ValueError, \"in f\");\n"
      "        return NULL;\n"
      "    }\n"
      "    return args;\n"
      "}\n";
  EXPECT_EQ(PlacedSites("m.cc", zero + kOther),
            (std::vector<std::string>{"f 10 ValueError", "other 18 ValueError"}));
}

TEST(CppExtractor, IfGroupsNestedTooDeepAreSkippedNotACrash) {
  // tree-sitter freed these files' trees twice: 20,000 nested `#if A {`
  // groups, and 20,000 `#ifdef` groups in a row each opening a brace.
  std::string nested = "void f() {\n";
  for (int i = 0; i < 20000; ++i) nested += "#if A\n{\n";
  for (int i = 0; i < 20000; ++i) nested += "#endif\n";
  std::string in_a_row = "void f() {\n";
  for (int i = 0; i < 20000; ++i) in_a_row += "#ifdef A\nif (x) {\n#endif\n";
  for (int i = 0; i < 20000; ++i) in_a_row += "}\n";
  for (const std::string& code : {nested, in_a_row}) {
    Extraction x = ExtractCppSource(
        "deep.c", code + "}\nvoid g() { PyErr_SetString(PyExc_ValueError, \"after\"); }\n");
    EXPECT_TRUE(x.sites.empty());
    ASSERT_EQ(x.issues.size(), 1u);
    EXPECT_EQ(x.issues[0].reason, "too-deep");
  }
  // Nesting a source has is read.
  std::string fine =
      "#if A\n#if B\n#ifdef C\nvoid g() { PyErr_SetString(PyExc_ValueError, "
      "\"read\"); }\n#endif\n#endif\n#endif\n";
  EXPECT_EQ(Messages("fine.c", fine), std::vector<std::string>{"ValueError: read"});
}

TEST(CppExtractor, HeadersWithoutCppAreReadAsC) {
  // tree-sitter-cpp rejects a macro between literals; C's grammar takes it.
  EXPECT_EQ(Messages("common.h",
                     "static int f(long i) {\n"
                     "  PyErr_Format(PyExc_IndexError, \"index %\" NPY_INTP_FMT \" is out of "
                     "bounds\", i);\n"
                     "  return -1;\n"
                     "}\n"),
            std::vector<std::string>{"IndexError: index {i} is out of bounds"});
}

TEST(CppExtractor, NumpysGilErrorFormatsLikePyErrFormat) {
  EXPECT_EQ(Messages("string_buffer.h",
                     "static Py_ssize_t find(int pos) {\n"
                     "  if (pos < 0) {\n"
                     "    npy_gil_error(PyExc_ValueError, \"substring not found\");\n"
                     "    return -2;\n"
                     "  }\n"
                     "  npy_gil_error(PyExc_OverflowError, \"position %d too large\", pos);\n"
                     "  return -2;\n"
                     "}\n"),
            (std::vector<std::string>{"ValueError: substring not found",
                                      "OverflowError: position {pos} too large"}));
}

TEST(CppExtractor, ProjectMacrosOverrideOnlyWhereTheyApply) {
  // A file's own CHECK(expr, name) is expanded; a call with another arity is glog's.
  EXPECT_EQ(
      Messages("m.c",
               "#define CHECK(expr, name) if (!(expr)) { PyErr_SetString(PyExc_ValueError, "
               "name); return 0; }\n"
               "int f(int n) { CHECK(n > 0, \"n must be positive\"); CHECK(n); return n; }\n"),
      (std::vector<std::string>{"ValueError: n must be positive", ": Check failed: n"}));
}

TEST(CppExtractor, NumbersAreValuesNotText) {
  // `row + 1` is arithmetic, and a number's first value is not its value later.
  EXPECT_EQ(Messages("m.c",
                     "int f(long fields) {\n"
                     "  long row = 0;\n"
                     "  long actual = fields;\n"
                     "  for (;;) { row++; }\n"
                     "  PyErr_Format(PyExc_ValueError, \"changed from %zd at row %zd\", actual, "
                     "row + 1);\n"
                     "}\n"),
            std::vector<std::string>{"ValueError: changed from {actual} at row {row + 1}"});
}

// The trigger sentence of each site, in order.
std::vector<std::string> Triggers(const std::string& path, const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : ExtractCppSource(path, code).sites) out.push_back(s.trigger);
  return out;
}

TEST(CppGuards, SwitchDefaultListsTheCases) {
  // The seed's register_xla_transform: valid stages are 0 and 1.
  Extraction x = ExtractCppSource("xla.cc",
                                  "NB_MODULE(_xla, m) {\n"
                                  "  m.def(\"register_xla_transform\", [](int stage) {\n"
                                  "    switch (stage) {\n"
                                  "      case 0:\n"
                                  "        break;\n"
                                  "      case 1:\n"
                                  "        break;\n"
                                  "      default:\n"
                                  "        throw std::runtime_error(\"Invalid pipeline stage\");\n"
                                  "    }\n"
                                  "  });\n"
                                  "}\n");
  ASSERT_EQ(x.sites.size(), 1u);
  ASSERT_EQ(x.sites[0].guards.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].kind, "default-case");
  EXPECT_EQ(x.sites[0].guards[0].subject, "stage");
  EXPECT_EQ(x.sites[0].guards[0].values, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(x.sites[0].trigger, "thrown when `stage` matches no case (valid: `0`, `1`)");
  EXPECT_FALSE(x.sites[0].internal) << "any int can be passed: a user error";
  // A default after every enumerator: unreachable unless the enum grew.
  Extraction e = ExtractCppSource("k.cc",
                                  "int Lower(Kind kind) {\n"
                                  "  switch (kind) {\n"
                                  "    case Kind::kA: return 1;\n"
                                  "    case Kind::kB: return 2;\n"
                                  "    default: throw std::logic_error(\"unknown kind\");\n"
                                  "  }\n"
                                  "}\n");
  ASSERT_EQ(e.sites.size(), 1u);
  EXPECT_TRUE(e.sites[0].internal);
}

TEST(CppGuards, CasesSayWhatTheirValueMeans) {
  // As jaxlib/xla.cc writes it: each stage number picks a pipeline stage.
  Extraction x = ExtractCppSource("xla.cc",
                                  "void f(int stage) {\n"
                                  "  Stage s;\n"
                                  "  switch (stage) {\n"
                                  "    case 0:\n"
                                  "      s = xla::Stage::kPreScheduler;\n"
                                  "      break;\n"
                                  "    case 1:\n"
                                  "    case 2:\n"  // falls through to case 3's body
                                  "    case 3:\n"
                                  "      s =\n"
                                  "          xla::Stage::kPostScheduler;\n"
                                  "      break;\n"
                                  "    case 4:\n"
                                  "      Log();\n"  // says nothing of what 4 means
                                  "      break;\n"
                                  "    default:\n"
                                  "      throw std::runtime_error(\"Invalid pipeline stage\");\n"
                                  "  }\n"
                                  "}\n");
  ASSERT_EQ(x.sites.size(), 1u);
  ASSERT_EQ(x.sites[0].guards.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].values, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(x.sites[0].guards[0].meanings,
            (std::vector<std::string>{"kPreScheduler", "kPostScheduler", "kPostScheduler",
                                      "kPostScheduler", ""}));
  EXPECT_EQ(x.sites[0].trigger,
            "thrown when `stage` matches no case (valid: `0` → `kPreScheduler`, `1` → "
            "`kPostScheduler`, `2` → `kPostScheduler`, `3` → `kPostScheduler`, `4`)");
}

TEST(CppGuards, ABindingsArgumentsAreItsPythonSignature) {
  auto signature = [](const std::string& args) {
    Extraction x = ExtractCppSource("xla.cc",
                                    "NB_MODULE(_xla, m) {\n"
                                    "  m.def(\"register_xla_transform\",\n"
                                    "    [](std::string name, int stage, nb::object callback) {\n"
                                    "      if (stage > 1) throw std::runtime_error(\"bad\");\n"
                                    "    }" +
                                        args +
                                        ");\n"
                                        "}\n");
    return x.sites.size() == 1 ? x.sites[0].signature : "no site";
  };
  EXPECT_EQ(signature(", nb::arg(\"name\"), nb::arg(\"stage\") = 0, nb::arg(\"callback\")"),
            R"([["name","any"],["stage","any"],["callback","any"]])");
  // Unnamed, nanobind passes them by position only; a partial list is no signature.
  EXPECT_EQ(signature(""), "");
  EXPECT_EQ(signature(", nb::arg(\"name\")"), "");
}

TEST(CppGuards, ATryOfSeveralStatementsIsNotNamedByItsFirst) {
  // `open()` need not be what threw: the sentence names the block.
  EXPECT_EQ(
      Triggers("a.cc",
               "void f() {\n"
               "  try {\n"
               "    open();  // may throw\n"
               "    parse();\n"
               "  } catch (const std::exception& e) {\n"
               "    throw std::runtime_error(\"failed\");\n"
               "  }\n"
               "  try { /* one call */ g(); } catch (...) {\n"
               "    throw std::runtime_error(\"g failed\");\n"
               "  }\n"
               "}\n"),
      (std::vector<std::string>{"thrown when the `try` block threw `std::exception`",
                                "thrown when the `try` block at line 2 threw no `std::exception` "
                                "and `g()` threw an exception"}));
}

TEST(CppGuards, BranchesEarlyExitsLoopsAndCatch) {
  EXPECT_EQ(Triggers("a.cc",
                     "void f(Foo* p, int stage) {\n"
                     "  if (p == nullptr) return;\n"
                     "  if (!ok(p)) {\n"
                     "    throw std::runtime_error(\"not ok\");\n"
                     "  } else if (stage > 2) {\n"
                     "    throw std::runtime_error(\"late\");\n"
                     "  }\n"
                     "  try { g(); } catch (const std::exception& e) {\n"
                     "    throw std::runtime_error(\"g failed\");\n"
                     "  }\n"
                     "  for (auto& x : xs) while (x.busy()) throw std::runtime_error(\"busy\");\n"
                     "}\n"),
            (std::vector<std::string>{
                "thrown when `p != nullptr` and not `ok(p)`",
                "thrown when `p != nullptr` and `ok(p)` and `stage > 2`",
                // Both arms above throw: getting past them says ok(p) and not stage > 2.
                "thrown when `p != nullptr` and `ok(p)` and not `stage > 2` and `g()` threw "
                "`std::exception`",
                "thrown when `x.busy()`, and 5 more conditions on the path"}));
  EXPECT_EQ(Triggers("m.c",
                     "int f(int s) {\n"
                     "  if (s < 0) { return -1; }\n"
                     "  switch (s) { case 3: PyErr_SetString(PyExc_ValueError, \"three\"); }\n"
                     "  return 0;\n"
                     "}\n"),
            std::vector<std::string>{"raised when not `s < 0` and `s` matches `3`"});
}

TEST(CppGuards, ExitsOfAnyShapeBeforeTheRaise) {
  EXPECT_EQ(Triggers("a.cc",
                     "void h() {\n"
                     "  for (auto& x : xs) if (x.busy()) throw std::runtime_error(\"busy\");\n"
                     "}\n"),
            std::vector<std::string>{"thrown when iterating `for x in xs` and `x.busy()`"});
  // Nested ifs that leave, an if/else whose arms both leave, a goto out.
  EXPECT_EQ(Triggers("m.c",
                     "int f(int a, int b, int *p) {\n"
                     "  if (a > 0) { if (b == 2) { return -1; } }\n"
                     "  if (p == NULL) goto done;\n"
                     "  PyErr_SetString(PyExc_ValueError, \"one\");\n"
                     "  if (b) { return 1; } else { return 2; }\n"
                     "  PyErr_SetString(PyExc_ValueError, \"dead\");\n"
                     "done:\n"
                     "  return 0;\n"
                     "}\n"),
            (std::vector<std::string>{
                // Exact: `a <= 0` would be false for NaN.
                "raised when `!(a > 0) || b != 2` and `p != NULL`",
                "never raised: the `if` statement at line 5 always leaves before it"}));
  // A label a goto jumps to: the exits above it need not have run.
  EXPECT_EQ(Triggers("m.c",
                     "int f(int a, int b) {\n"
                     "  if (a) goto fail;\n"
                     "  if (b) return 0;\n"
                     "fail:\n"
                     "  PyErr_SetString(PyExc_ValueError, \"failed\");\n"
                     "  return -1;\n"
                     "}\n"),
            std::vector<std::string>{
                "raised when control reaches `fail:` (line 4; a `goto` jumps there)"});
  // A switch whose every case returns: past it, the subject matched none.
  // A loop that leaves only by a return: what follows runs when it ends.
  EXPECT_EQ(Triggers("m.c",
                     "int f(int k, int n) {\n"
                     "  switch (k) { case 1: case 2: return 3; case 4: return 5; }\n"
                     "  for (int i = 0; i < n; i++) { if (i == k) return i; }\n"
                     "  PyErr_SetString(PyExc_ValueError, \"k\");\n"
                     "  return -1;\n"
                     "}\n"),
            std::vector<std::string>{"raised when `k` matches no case (valid: `1`, `2`, `4`) and "
                                     "the `for` statement at line 3 runs to its end"});
  // A break inside a case lets control past the switch with the case matched.
  EXPECT_EQ(
      Triggers("m.c",
               "int f(int k) {\n"
               "  switch (k) { case 1: if (g()) break; return 3; }\n"
               "  PyErr_SetString(PyExc_ValueError, \"k\");\n"
               "  return -1;\n"
               "}\n"),
      std::vector<std::string>{"raised when the `switch` statement at line 2 runs to its end"});
}

// Ways into the middle of a function that the conditions above need not
// have seen: each sentence here was wrong once, as running it showed.
TEST(CppGuards, EntriesBelowTheTopAreSaidNotGuessed) {
  auto one = [](const std::string& code) {
    std::vector<std::string> t = Triggers("m.c", code);
    return t.size() == 1 ? t[0] : "sites: " + std::to_string(t.size());
  };
  const std::string kRaise = "PyErr_SetString(PyExc_ValueError, \"r\");";
  // A label after the raise, not in a loop with it, is no way in.
  EXPECT_EQ(one("int f(int a, int b) { if (a) return 0; if (b) goto L; { " + kRaise +
                " return -1; L: return 2; } }"),
            "raised when not `a` and not `b`");
  // A goto into an if's body skips its test, into a loop's body its
  // condition.
  EXPECT_EQ(one("int f(int a, int b) { if (a) goto L; if (b) { L: " + kRaise + " } return -1; }"),
            "raised when control reaches `L:` (line 1; a `goto` jumps there)");
  EXPECT_EQ(one("int f(int a, int n) { if (a) goto L; while (n > 0) { L: " + kRaise +
                " return -1; } return 0; }"),
            "raised when control reaches `L:` (line 1; a `goto` jumps there)");
  EXPECT_EQ(one("int f(int a, int b) { if (a) goto L; if (b) { L:; } else { return 0; } " + kRaise +
                " return -1; }"),
            "raised when control reaches `L:` (line 1; a `goto` jumps there) and the `if` "
            "statement at line 1 runs to its end");
  // A computed goto may jump to any label.
  EXPECT_EQ(one("int f(int a, int b) { void *p = b ? &&L : &&M; if (a) goto *p; if (b) return 0; "
                "L: " +
                kRaise + " M: return -1; }"),
            "raised when control reaches `L:` (line 1; a `goto` jumps there)");
  // Case labels inside the statements of a switch (Duff's device).
  EXPECT_EQ(one("int f(int x, int a) { switch (x) { case 1: if (a) { case 2: " + kRaise +
                " } } return -1; }"),
            "raised when `x` selects a case that leads here (the `switch` at line 1 has case "
            "labels inside its statements)");
  EXPECT_EQ(
      one("int f(int x, int a) { switch (x) { case 1: if (a) { case 2: a = 5; } return 0; } " +
          kRaise + " return -1; }"),
      "raised when the `switch` statement at line 1 runs to its end");
  // Cases that run into the one with the raise.
  EXPECT_EQ(
      one("int f(int x, int a) { switch (x) { case 0: a++; case 1: " + kRaise + " } return -1; }"),
      "raised when either `x` matches `1` or the cases from line 1 run into it");
  // A case whose statements are a bare block, after an exit.
  EXPECT_EQ(one("int f(int x, int a) { switch (x) { case 1: if (a) break; { " + kRaise +
                " } } return -1; }"),
            "raised when `x` matches `1` and not `a`");
  // An #if arm may or may not be compiled in; an attribute hides no exit.
  EXPECT_EQ(
      one("int f(int a, int b) { if (b) return 0;\n#ifndef X\n  if (a) return 1;\n#endif\n  " +
          kRaise + " return -1; }"),
      "raised when not `b` and the statement at line 2 runs to its end");
  EXPECT_EQ(Triggers("a.cc",
                     "int g(int a, int b) { if (b) return 0; if (a) [[unlikely]] return 1; "
                     "throw std::runtime_error(\"r\"); }"),
            std::vector<std::string>{"thrown when not `b` and not `a`"});
  // `!x-1` is (!x) - 1: the `!` is not dropped.
  EXPECT_EQ(one("int f(int x) { if (!x-1) " + kRaise + " return -1; }"), "raised when `!x-1`");
}

TEST(CppExtractor, NotErrors) {
  Extraction x = ExtractCppSource("a.cc",
                                  "void f() {\n"
                                  "  LOG(ERROR) << \"logged\";\n"
                                  "  LOG(WARNING) << \"logged\";\n"
                                  "  auto s = Internal;\n"
                                  "  Internal(3);\n"  // a same-named function that takes no message
                                  "  obj.emitWarning(\"warn\");\n"
                                  "  try { g(); } catch (...) { throw; }\n"
                                  "}\n"
                                  "#define PYERR(e, m) {PyErr_SetString(e, m); goto fail;}\n");
  EXPECT_TRUE(x.sites.empty()) << x.sites[0].message.Display();
  ASSERT_EQ(x.non_sites.size(), 1u);
  EXPECT_EQ(x.non_sites[0].reason, "reraise");
}

TEST(CppExtractor, LambdasAndMacroNamedFunctions) {
  Extraction x =
      ExtractCppSource("a.cc",
                       "void Outer() {\n"
                       "  auto f = [](int x) { throw std::runtime_error(\"in lambda\"); };\n"
                       "}\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].function, "Outer::<lambda>");
}

TEST(CppExtractor, HostileInputsAreBoundedAndNeverCrash) {
  // A NUL inside the file, then more text: the string takes the array's
  // length, not the first NUL's (nor a guess past the end of the array).
  static constexpr char kNulInside[] =
      "void f() { throw std::runtime_error(\"a\\0b\"); }\0 trailing";
  std::vector<std::string> inputs = {
      "",
      "throw",
      "throw throw throw;",
      "PyErr_Format(",
      "PyErr_SetString(PyExc_ValueError, \"unterminated",
      "#define M(x) M(x) PyErr_SetString(PyExc_ValueError, #x)\nvoid f() { M(M(M(1))); }",
      "#define A(x) B(x) B(x) B(x) B(x)\n#define B(x) PyErr_SetString(PyExc_ValueError, #x)\n"
      "void f() { A(1); }",
      std::string(5000, '(') + "throw std::runtime_error(\"deep\");" + std::string(5000, ')'),
      "void f() { std::string m = m + \"x\"; throw std::runtime_error(m); }",
      "\xff\xfe throw std::runtime_error(\"\xe9t\xe9\");",
      std::string(kNulInside, sizeof(kNulInside) - 1),
  };
  std::string chain = "void f() { std::string m = \"a\";";
  for (int i = 0; i < 3000; ++i) chain += " m += m;";
  inputs.push_back(chain + " throw std::runtime_error(m); }");
  for (const std::string& in : inputs) {
    for (const char* path : {"x.c", "x.cc", "x.h"}) {
      Extraction x = ExtractCppSource(path, in);
      for (const Site& s : x.sites) EXPECT_LE(s.message.Display().size(), 1u << 20);
    }
  }
}

bool Has(const std::vector<std::string>& all, const std::string& one) {
  return std::find(all.begin(), all.end(), one) != all.end();
}

TEST(CppExtractor, EveryBranchOfAFormatIsATemplate) {
  std::vector<std::string> m = Messages("a.c",
                                        "static int f(int a, PyObject *o) {\n"
                                        "  const char *fmt = NULL;\n"
                                        "  if (a) { fmt = \"one %S\"; }\n"
                                        "  else if (a > 2) fmt = \"two %S\";\n"
                                        "  else { fmt = \"three %S\"; }\n"
                                        "  PyErr_Format(PyExc_ValueError, fmt, o);\n"
                                        "  return -1;\n"
                                        "}\n");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_TRUE(Has(m, "ValueError: one {o}"));
  EXPECT_TRUE(Has(m, "ValueError: two {o}"));
  EXPECT_TRUE(Has(m, "ValueError: three {o}"));
}

TEST(CppExtractor, AnAssignmentInABranchDoesNotReplaceTheDefault) {
  std::vector<std::string> m = Messages("a.c",
                                        "static int f(int strict) {\n"
                                        "  const char *msg = \"plain\";\n"
                                        "  if (strict) msg = \"strict\";\n"
                                        "  PyErr_SetString(PyExc_ValueError, msg);\n"
                                        "  return -1;\n"
                                        "}\n");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(Has(m, "ValueError: plain"));
  EXPECT_TRUE(Has(m, "ValueError: strict"));
}

TEST(CppExtractor, ASiblingArmsAssignmentDoesNotReachTheRaise) {
  std::vector<std::string> m =
      Messages("a.c",
               "static int f(int k) {\n"
               "  const char *msg;\n"
               "  switch (k) {\n"
               "    case 1: msg = \"one\"; PyErr_SetString(PyExc_ValueError, msg); break;\n"
               "    default: msg = \"other\"; PyErr_SetString(PyExc_TypeError, msg);\n"
               "  }\n"
               "  return -1;\n"
               "}\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: one", "TypeError: other"}));
}

TEST(CppExtractor, ConditionalArgumentsAndBuffersGiveEveryText) {
  std::vector<std::string> m =
      Messages("a.c",
               "static int f(int n, long size) {\n"
               "  char buf[64];\n"
               "  PyErr_Format(PyExc_TypeError, \"need %s\", n > 1 ? \"a tuple\" : \"an array\");\n"
               "  PyOS_snprintf(buf, sizeof(buf), \"size %ld too large\", size);\n"
               "  PyErr_SetString(PyExc_ValueError, buf);\n"
               "  PyObject *o = PyUnicode_FromFormat(\"bad shape %S\", n ? o : o);\n"
               "  PyErr_SetObject(PyExc_IndexError, o);\n"
               "  return -1;\n"
               "}\n");
  EXPECT_TRUE(Has(m, "TypeError: need a tuple"));
  EXPECT_TRUE(Has(m, "TypeError: need an array"));
  EXPECT_TRUE(Has(m, "ValueError: size {size} too large"));
  EXPECT_TRUE(Has(m, "IndexError: bad shape {n ? o : o}"));
}

// "Type:line: message" of every site.
std::vector<std::string> TypeLineMessages(const Extraction& x) {
  std::vector<std::string> m;
  for (const Site& s : x.sites) {
    m.push_back(s.exception + ":" + std::to_string(s.line) + ": " + s.message.Display());
  }
  return m;
}

TEST(CppExtractor, HelperSinksRaiseAtEachCallThatPassesText) {
  Extraction x = ExtractCppSource("a.c",
                                  "static int type_error(const char *fmt, PyObject *obj) {\n"
                                  "  PyErr_Format(PyExc_TypeError, fmt, Py_TYPE(obj)->tp_name);\n"
                                  "  return -1;\n"
                                  "}\n"
                                  "static int conv_error(const char *f, PyObject *o) {\n"
                                  "  return type_error(f, o);\n"
                                  "}\n"
                                  "static int set(PyObject *type, const char *m) {\n"
                                  "  PyErr_SetString(type, m);\n"
                                  "  return -1;\n"
                                  "}\n"
                                  "int g(PyObject *o, int n) {\n"
                                  "  if (n) return type_error(\"expected %s\", o);\n"
                                  "  if (n > 1) return conv_error(\"cannot convert %s\", o);\n"
                                  "  return set(PyExc_KeyError, \"missing key\");\n"
                                  "}\n");
  std::vector<std::string> m = TypeLineMessages(x);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_TRUE(Has(m, "TypeError:13: expected {Py_TYPE(obj)->tp_name}"));
  EXPECT_TRUE(Has(m, "TypeError:14: cannot convert {Py_TYPE(obj)->tp_name}"));
  EXPECT_TRUE(Has(m, "KeyError:15: missing key"));
}

// A helper whose format prints a parameter into words of its own raises
// the whole sentence at a caller passing text (numpy's
// PyArray_FailUnlessWriteable); one that tests the parameter (a parser of
// the signature it is passed) decides by its value, and a caller's literal
// is not listed as raising.
TEST(CppExtractor, HelpersThatPrintAParameterRaiseTheSentenceAtTheirCallers) {
  Extraction x = ExtractCppSource("a.c",
                                  "int fail_unless_writeable(int ok, const char *name) {\n"
                                  "  if (!ok) {\n"
                                  "    PyErr_Format(PyExc_ValueError, \"%s is read-only\", name);\n"
                                  "    return -1;\n"
                                  "  }\n"
                                  "  return 0;\n"
                                  "}\n"
                                  "static int parse(const char *sig) {\n"
                                  "  if (sig[0] != '(') {\n"
                                  "    PyErr_Format(PyExc_ValueError, \"bad signature %s\", sig);\n"
                                  "    return -1;\n"
                                  "  }\n"
                                  "  return 0;\n"
                                  "}\n"
                                  "int g(int flags) {\n"
                                  "  if (parse(\"(i)->()\") < 0) return -1;\n"
                                  "  return fail_unless_writeable(flags, \"output array\");\n"
                                  "}\n");
  std::vector<std::string> m = TypeLineMessages(x);
  EXPECT_TRUE(Has(m, "ValueError:17: output array is read-only")) << ::testing::PrintToString(m);
  for (const std::string& s : m) EXPECT_EQ(s.find("(i)->()"), std::string::npos) << s;
}

// A `...` helper formats with what its caller passes after the format, and
// a variadic caller handing its va_list on is one too; a helper for the type
// alone is raised, with that type, where a caller names a class.
TEST(CppExtractor, VariadicAndTypeOnlyHelpersRaiseAtTheirCallers) {
  Extraction x = ExtractCppSource("a.c",
                                  "static void fail(PyObject *t, const char *fmt, va_list v) {\n"
                                  "  PyErr_FormatV(t, fmt, v);\n"
                                  "}\n"
                                  "static int value_error(const char *fmt, ...) {\n"
                                  "  va_list v;\n"
                                  "  va_start(v, fmt);\n"
                                  "  fail(PyExc_ValueError, fmt, v);\n"
                                  "  return -1;\n"
                                  "}\n"
                                  "static int raise_obj(PyObject *exc_type, int i) {\n"
                                  "  PyObject *v = Py_BuildValue(\"i\", i);\n"
                                  "  PyErr_SetObject(exc_type, v);\n"
                                  "  return -1;\n"
                                  "}\n"
                                  "int g(int n, const char *s, PyObject *cls) {\n"
                                  "  if (n) return value_error(\"bad %d of %s\", n, \"axes\");\n"
                                  "  if (s) return raise_obj(npy_static_pydata.AxisError, n);\n"
                                  "  return raise_obj(cls, n);\n"
                                  "}\n");
  std::vector<std::string> m = TypeLineMessages(x);
  EXPECT_TRUE(Has(m, "ValueError:16: bad {n} of axes")) << ::testing::PrintToString(m);
  EXPECT_TRUE(Has(m, "AxisError:17: {v}")) << ::testing::PrintToString(m);
  // `cls` is g's own parameter: no class is named at line 18.
  for (const std::string& s : m) EXPECT_EQ(s.find(":18:"), std::string::npos) << s;
}

TEST(CppExtractor, NamesDefinedThroughEachOtherEnd) {
  std::vector<std::string> m = Messages("a.c",
                                        "static int f(int c) {\n"
                                        "  const char *a = \"x\";\n"
                                        "  a = c ? a : \"y\";\n"
                                        "  const char *b = a;\n"
                                        "  b = c ? b : a;\n"
                                        "  a = b;\n"
                                        "  PyErr_SetString(PyExc_ValueError, c ? a : b);\n"
                                        "  return -1;\n"
                                        "}\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: x", "ValueError: y"}));
}

TEST(CppExtractor, AppendsInOneBranchMakeOneText) {
  std::vector<std::string> m = Messages("a.cc",
                                        "absl::Status F(const std::string& out, int n) {\n"
                                        "  std::string e = \"tool failed\";\n"
                                        "  if (!out.empty()) {\n"
                                        "    e += \": \";\n"
                                        "    e += out;\n"
                                        "  }\n"
                                        "  const std::string plural = n == 1 ? \"\" : \"s\";\n"
                                        "  if (n) return absl::InvalidArgumentError(\n"
                                        "      absl::StrFormat(\"%d item%s\", n, plural));\n"
                                        "  return absl::InternalError(e);\n"
                                        "}\n");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m, (std::vector<std::string>{"INTERNAL: tool failed", "INTERNAL: tool failed: {out}",
                                         "INVALID_ARGUMENT: {n} item{plural}"}));
}

// Found in review of the shared data flow: each lost a text the old scan kept.
TEST(CppExtractor, AnElseAfterACommentIsStillABranch) {
  std::vector<std::string> m = Messages("a.c",
                                        "static int f(int c) {\n"
                                        "  const char *m;\n"
                                        "  if (c)\n"
                                        "    m = \"first message\";\n"
                                        "  else  /* the usual case */\n"
                                        "    m = \"second message\";\n"
                                        "  PyErr_SetString(PyExc_ValueError, m);\n"
                                        "  return -1;\n"
                                        "}\n");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m,
            (std::vector<std::string>{"ValueError: first message", "ValueError: second message"}));
}

TEST(CppExtractor, AFileLevelTextHoldsOnThePathsThatDoNotReassignIt) {
  std::vector<std::string> m = Messages("a.c",
                                        "static const char *m = \"global default message\";\n"
                                        "static int f(int c) {\n"
                                        "  if (c) m = \"changed message\";\n"
                                        "  PyErr_SetString(PyExc_ValueError, m);\n"
                                        "  return -1;\n"
                                        "}\n");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: changed message",
                                         "ValueError: global default message"}));
}

// A declaration ends with its block, on every way out of it, and a
// continue that must run an assigning update stays in the blocks around
// its loop.
TEST(CppExtractor, DeclarationsEndWithTheirBlock) {
  std::vector<std::string> m =
      Messages("a.c",
               "static int f(int c) {\n"
               "  const char *m = \"the outer text\";\n"
               "  { const char *m = \"an inner text\"; if (c) goto fail; use(m); }\n"
               "  while (c) { const char *m = \"a loop's text\"; if (c > 1) break; use(m); }\n"
               "fail:\n"
               "  PyErr_SetString(PyExc_ValueError, m);\n"
               "  return -1;\n"
               "}\n"
               "static int g(int *c) {\n"
               "  const char *m = \"outer of g\";\n"
               "  {\n"
               "    const char *m = \"inner of g\";\n"
               "    int last = 0;\n"
               "    for (int i = 0; c[i]; ++i, last = c[i]) { if (c[i] > 2) continue; }\n"
               "    PyErr_SetString(PyExc_KeyError, m);\n"
               "  }\n"
               "  return -1;\n"
               "}\n");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m, (std::vector<std::string>{"KeyError: inner of g", "ValueError: the outer text"}));
}

TEST(CppExtractor, AGotoReachesALabelInsideAPreprocessorArm) {
  std::vector<std::string> m = Messages("a.c",
                                        "static int f(int c) {\n"
                                        "  const char *m = \"initial\";\n"
                                        "  if (c) { m = \"goto message\"; goto fail; }\n"
                                        "  return 0;\n"
                                        "#if 1\n"
                                        "fail:\n"
                                        "  c = 0;\n"
                                        "#endif\n"
                                        "  PyErr_SetString(PyExc_ValueError, m);\n"
                                        "  return -1;\n"
                                        "}\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: goto message"}));
}

TEST(CppExtractor, LongAndBranchingAppendChainsKeepTheirText) {
  std::string appends = "absl::Status f(int c) {\n  std::string m = \"usage: tool\";\n";
  for (int i = 0; i < 40; ++i) appends += "  m += \" --opt" + std::to_string(i) + "\";\n";
  appends += "  return absl::InvalidArgumentError(m);\n}\n";
  std::vector<std::string> m = Messages("a.cc", appends);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].substr(0, 41), "INVALID_ARGUMENT: usage: tool --opt0 --op");
  EXPECT_NE(m[0].find("--opt39"), std::string::npos);

  // Sixteen conditional appends: 2^16 ways, each append evaluated once,
  // and the file's evaluation budget left for the function after.
  std::string ifs = "absl::Status f(int c) {\n  std::string m = \"bad flags:\";\n";
  for (int i = 0; i < 16; ++i) {
    ifs += "  if (c & " + std::to_string(1 << i) + ") m += \" F" + std::to_string(i) + "\";\n";
  }
  ifs +=
      "  return absl::InvalidArgumentError(m);\n}\n"
      "absl::Status g(int c) {\n  std::string s = \"later message\";\n"
      "  return absl::InvalidArgumentError(s);\n}\n";
  std::vector<std::string> n = Messages("b.cc", ifs);
  EXPECT_NE(std::find(n.begin(), n.end(), "INVALID_ARGUMENT: later message"), n.end());
}

// Runs `body` on a thread whose stack is `bytes` long: what overflows it
// there would have needed a stack per link of some chain.
template <typename Body>
void OnSmallStack(size_t bytes, Body body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void* b) -> void* {
    (*static_cast<Body*>(b))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &body), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(CppExtractor, AppendChainsInsideEachOtherDoNotGrowTheStackPerLink) {
  // Four texts of 600 appends each, one append of each taking in the one
  // before (`"y" + m0`): each look-up starts a chain inside a chain. Read
  // one native frame per link, this needed megabytes of stack.
  std::string code = "void f() {\n";
  for (int j = 0; j < 4; ++j) {
    std::string m = "m" + std::to_string(j);
    code += "  std::string " + m + " = \"a\";\n";
    for (int i = 0; i < 600; ++i) {
      bool takes_in = j > 0 && i == 100;
      code +=
          "  " + m + " += " + (takes_in ? "\"y\" + m" + std::to_string(j - 1) : "\"x\"") + ";\n";
    }
  }
  code += "  throw std::runtime_error(m3);\n}\n";
  Extraction x;
  OnSmallStack(256 << 10, [&] { x = ExtractCppSource("chains.cc", code); });
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].line, 2 + 4 * 601);  // after the opening line and four texts
  // Past the chain's bound the start is a value; the appends near the
  // raise are still text.
  EXPECT_NE(x.sites[0].message.Display().find("xxxxxxxx"), std::string::npos)
      << x.sites[0].message.Display();
}

}  // namespace
}  // namespace errdex::extract
