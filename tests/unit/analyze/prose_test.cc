// The sentences of a page, read against what the code of each language
// does: the verb of each trigger (a C++ `throw` is thrown, a warning
// issued, a Rust panic panics), what an assertion or a panic of Rust does,
// what a site outside any function errdex read can say, and every value
// the code takes for the checked name.
#include "analyze/prose.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "core/text.h"
#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::analyze {
namespace {

using catalog::Catalog;
using catalog::OpenMode;
using testing::TempDir;

// `extraction` written as library test/a and analysed: its errors' prose
// by template.
std::map<std::string, Prose> ProseByTemplate(Extraction extraction) {
  TempDir dir;
  std::map<std::string, Prose> out;
  Result<Catalog> cat = Catalog::Open((dir.path() / "c.db").string(), OpenMode::kReadWrite);
  EXPECT_TRUE(cat.has_value());
  if (!cat) return out;
  catalog::SnapshotInfo info;
  info.library = "test/a";
  info.rev = "r1";
  info.kind = "dir";
  EXPECT_TRUE(cat->WriteSnapshot(info, extraction).has_value());
  EXPECT_TRUE(AnalyzeCatalog(*cat, "").has_value());
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  EXPECT_TRUE(all.has_value());
  for (const catalog::ErrorRecord& r : all ? *all : std::vector<catalog::ErrorRecord>{}) {
    Result<catalog::ErrorRecord> e = cat->Get(r.id);
    EXPECT_TRUE(e.has_value() && e->analysis.has_value()) << r.template_text;
    if (e && e->analysis) out[r.template_text] = e->analysis->prose;
  }
  return out;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// C++ throws: "raised no `std::out_of_range`" named the wrong act, and so
// did "Raised when" for the throw itself.
TEST(Prose, CppThrowsAndItsTryBlocksThrow) {
  const char* source =
      "#include <stdexcept>\n"
      "int get(int i);\n"
      "int f(int i) {\n"
      "  try {\n"
      "    get(i);\n"
      "  } catch (const std::out_of_range& e) {\n"
      "    return 1;\n"
      "  }\n"
      "  if (i < 0) throw std::invalid_argument(\"negative index\");\n"
      "  return 0;\n"
      "}\n";
  std::map<std::string, Prose> prose = ProseByTemplate(extract::ExtractCppSource("f.cc", source));
  ASSERT_EQ(prose.count("negative index"), 1u);
  const std::string& when = prose["negative index"].when;
  EXPECT_TRUE(Has(when, "Thrown when ")) << when;
  EXPECT_TRUE(Has(when, "threw no `std::out_of_range`")) << when;
  EXPECT_FALSE(Has(when, "raised")) << when;
}

// A warning is issued, not raised; an exception built and returned is
// returned for the caller to raise. Python's raise keeps its word.
TEST(Prose, WarningsAreIssuedAndReturnedExceptionsReturned) {
  const char* source =
      "import warnings\n"
      "def old(x):\n"
      "    if x:\n"
      "        warnings.warn('old is deprecated', DeprecationWarning)\n"
      "def make(x):\n"
      "    if x is None:\n"
      "        return ValueError('x is missing')\n"
      "    if x < 0:\n"
      "        raise ValueError('x is negative')\n";
  std::map<std::string, Prose> prose =
      ProseByTemplate(extract::ExtractPythonSource("a.py", source));
  EXPECT_EQ(prose["old is deprecated"].when, "Issued when `x`.");
  EXPECT_EQ(prose["x is missing"].when, "Returned when `x is None`.");
  EXPECT_EQ(prose["x is negative"].when, "Raised when `x is not None` and `x < 0`.");
}

// Rust has no `-O`: `assert!` always panics, `debug_assert!` only in a
// debug build; PyO3 raises a panic as PanicException (pydantic-core,
// executed: bench/README.md, "Errors raised by Rust inside installed
// packages"), so "no Python exception is raised" was false.
TEST(Prose, RustAssertionsAndPanicsPanic) {
  const char* source =
      "pub fn check(x: usize, y: usize) -> usize {\n"
      "    debug_assert!(x < 8, \"x out of range\");\n"
      "    assert!(y > 0, \"y must be positive\");\n"
      "    if x == 7 {\n"
      "        panic!(\"seven is not supported\");\n"
      "    }\n"
      "    x / y\n"
      "}\n";
  std::map<std::string, Prose> prose =
      ProseByTemplate(extract::ExtractRustSource("src/lib.rs", source));
  ASSERT_EQ(prose.count("x out of range"), 1u);
  ASSERT_EQ(prose.count("y must be positive"), 1u);
  ASSERT_EQ(prose.count("seven is not supported"), 1u);
  for (const auto& [text, p] : prose) {
    EXPECT_FALSE(Has(p.meaning, "-O")) << text << ": " << p.meaning;
    EXPECT_FALSE(Has(p.meaning, "no Python exception is raised")) << text << ": " << p.meaning;
    EXPECT_TRUE(Has(p.meaning, "pyo3_runtime.PanicException")) << text << ": " << p.meaning;
    EXPECT_TRUE(StartsWith(p.when, "Panics when ")) << text << ": " << p.when;
  }
  EXPECT_TRUE(Has(prose["x out of range"].meaning, "`debug_assert!`"));
  EXPECT_TRUE(Has(prose["x out of range"].meaning, "only a debug build checks it"));
  EXPECT_TRUE(Has(prose["y must be positive"].meaning, "`assert!`"));
  EXPECT_FALSE(Has(prose["y must be positive"].meaning, "debug build"));
  EXPECT_EQ(prose["seven is not supported"].when, "Panics when `x == 7`.");
}

// A site in a macro's body, or in a function the C parser did not make
// out (numpy's `arr_add_docstring`, a `#define` in its body), has no
// function and conditions errdex did not read: "no condition guards it"
// and "the module runs" were false.
TEST(Prose, NativeCodeOutsideAFunctionClaimsNoConditions) {
  Extraction x;
  for (const char* language : {"c", "python"}) {
    Site s;
    s.exception = s.exception_written = "ValueError";
    s.language = language;
    s.path = std::string("m.") + (language == std::string("c") ? "c" : "py");
    s.line = s.end_line = 4;
    s.statement = "PyErr_SetString(PyExc_ValueError, \"cannot convert\");";
    s.message.AppendText(std::string("cannot convert in ") + language);
    x.sites.push_back(std::move(s));
  }
  std::map<std::string, Prose> prose = ProseByTemplate(std::move(x));
  ASSERT_EQ(prose.count("cannot convert in c"), 1u);
  const std::string& when = prose["cannot convert in c"].when;
  EXPECT_FALSE(Has(when, "no condition")) << when;
  EXPECT_FALSE(Has(when, "module runs")) << when;
  EXPECT_TRUE(Has(when, "not known")) << when;
  // A Python module's top level does run line by line.
  EXPECT_EQ(prose["cannot convert in python"].when,
            "Raised whenever the module runs line 4 of `m.py`: no condition guards it.");
}

// "It takes `A`" read as all the code takes when an if/elif chain tests
// `A`, then `B`, then `C` before it raises.
TEST(Prose, ItTakesNamesEveryValueTheTestsBeforeTheRaiseList) {
  const char* source =
      "def use(canvas, flag):\n"
      "    if isinstance(canvas, Screen):\n"
      "        return 1\n"
      "    elif isinstance(canvas, (Canvas, Scrolled)):\n"
      "        return 2\n"
      "    else:\n"
      "        raise TypeError('bad canvas')\n"
      "\n"
      "def truth(s):\n"
      "    if s in ('true', '1'):\n"
      "        return True\n"
      "    elif s in ('false', '0'):\n"
      "        return False\n"
      "    raise ValueError('not a truth value')\n";
  std::map<std::string, Prose> prose =
      ProseByTemplate(extract::ExtractPythonSource("a.py", source));
  EXPECT_TRUE(Has(prose["bad canvas"].meaning, "it takes `Screen`, `Canvas`, or `Scrolled`."))
      << prose["bad canvas"].meaning;
  EXPECT_TRUE(
      Has(prose["not a truth value"].meaning, "it takes `'true'`, `'1'`, `'false'`, or `'0'`."))
      << prose["not a truth value"].meaning;
}

// The values one site's test lists are no answer for another site's
// function: "`mode` has a value `first` does not accept" named a function
// that never reads `mode`.
TEST(Prose, ItTakesSpeaksOfTheFirstSitesOwnTests) {
  const char* source =
      "def first(a):\n"
      "    if a:\n"
      "        raise ValueError('shared words')\n"
      "\n"
      "def second(mode):\n"
      "    if mode in ('x', 'y'):\n"
      "        return 1\n"
      "    raise ValueError('shared words')\n";
  std::map<std::string, Prose> prose =
      ProseByTemplate(extract::ExtractPythonSource("a.py", source));
  ASSERT_EQ(prose.count("shared words"), 1u);
  EXPECT_FALSE(Has(prose["shared words"].meaning, "`first` does not accept"))
      << prose["shared words"].meaning;
  // What the second site takes is still a solution.
  EXPECT_FALSE(prose["shared words"].solutions.empty());
}

// An assert that tests only what a public function takes from its caller
// (wsgiref's `assert status[3] == " "` in `start_response`) was said to be
// "a bug in the library" with "report it" as the fix: a value passed there
// fails it as often as the library's own invariant does. One that reads a
// local, the object's state, or a private function's argument stays the
// library's own, and so does one whose words say so.
TEST(Prose, AnAssertOnWhatACallerPassesIsNotCalledTheLibrarysBug) {
  const char* source =
      "class Handler:\n"
      "    def start(self, status, headers=None):\n"
      "        assert status[3] == ' ', 'no space after code'\n"
      "        assert isinstance(headers, list), 'headers must be a list'\n"
      "        self._go(status)\n"
      "    def _go(self, code):\n"
      "        done = len(code)\n"
      "        assert done > 0, 'nothing done'\n"
      "        assert self._ready, 'not ready'\n"
      "        assert code != 'x', 'this should not happen'\n"
      "        assert code != 'y', 'code is y'\n"
      "def _private(v):\n"
      "    assert v, 'private empty'\n"
      "def _check(environment):\n"
      "    assert environment.undefined, 'undefined must be set'\n"
      "class Environment:\n"
      "    def __init__(self, undefined=None):\n"
      "        self.undefined = undefined\n"
      "        _check(self)\n"
      "class Thread:\n"
      "    def start(self):\n"
      "        assert self._initialized, 'Thread.__init__() not called'\n"
      "def run(key, other):\n"
      "    assert check(key, strict=True), 'key refused'\n"
      "    assert key != other, 'key is other'\n"
      "    assert all(k for k in key), 'key has a blank'\n";
  TempDir dir;
  Result<Catalog> cat = Catalog::Open((dir.path() / "c.db").string(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  catalog::SnapshotInfo info;
  info.library = "test/a";
  info.rev = "r1";
  info.kind = "dir";
  ASSERT_TRUE(cat->WriteSnapshot(info, extract::ExtractPythonSource("a.py", source)).has_value());
  ASSERT_TRUE(AnalyzeCatalog(*cat, "").has_value());
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  ASSERT_TRUE(all.has_value());
  std::map<std::string, Analysis> by;
  for (const catalog::ErrorRecord& r : *all) {
    Result<catalog::ErrorRecord> e = cat->Get(r.id);
    ASSERT_TRUE(e.has_value() && e->analysis.has_value()) << r.template_text;
    by[r.template_text] = *e->analysis;
  }
  auto internal = [&](const std::string& text) {
    const std::vector<std::string>& l = by[text].labels;
    return std::find(l.begin(), l.end(), "internal") != l.end();
  };
  for (const char* text : {"no space after code", "headers must be a list", "key refused",
                           "code is y", "key is other"}) {
    ASSERT_EQ(by.count(text), 1u) << text;
    const Analysis& a = by[text];
    EXPECT_FALSE(internal(text)) << text;
    EXPECT_TRUE(a.family.weak) << text;
    EXPECT_FALSE(Has(a.prose.meaning, "points to a bug")) << text << ": " << a.prose.meaning;
    EXPECT_TRUE(Has(a.prose.meaning, "takes from its caller")) << text << ": " << a.prose.meaning;
    EXPECT_TRUE(Has(a.prose.meaning, "-O")) << text;
  }
  EXPECT_EQ(by["headers must be a list"].family.slug, "wrong-type");
  EXPECT_EQ(by["no space after code"].family.slug, "invalid-value");
  EXPECT_TRUE(Has(by["no space after code"].prose.meaning, "`a.Handler.start`"))
      << by["no space after code"].prose.meaning;
  ASSERT_FALSE(by["no space after code"].prose.solutions.empty());
  EXPECT_EQ(by["no space after code"].prose.solutions.front(),
            "Make sure `status[3] == ' '` holds for the `status` you pass to `start`.");
  // A subclass that skipped `__init__` misused the class: no bug of the
  // library's, and the words say what was missed.
  ASSERT_EQ(by.count("Thread.__init__() not called"), 1u);
  EXPECT_FALSE(internal("Thread.__init__() not called"));
  EXPECT_EQ(by["Thread.__init__() not called"].family.slug, "invalid-state");
  EXPECT_TRUE(Has(by["Thread.__init__() not called"].prose.meaning,
                  "checks the state of an object or the order of calls"))
      << by["Thread.__init__() not called"].prose.meaning;
  EXPECT_FALSE(Has(by["Thread.__init__() not called"].prose.meaning, "points to a bug"));
  EXPECT_TRUE(Has(by["key is other"].prose.meaning, "reads only `key` and `other`, "))
      << by["key is other"].prose.meaning;
  // `_go` names it `code`; the caller passes `status`.
  EXPECT_TRUE(Has(by["code is y"].prose.meaning,
                  "reads only `code`, which the public "
                  "`a.Handler.start` takes from its caller (as "
                  "`status`)"))
      << by["code is y"].prose.meaning;
  ASSERT_FALSE(by["code is y"].prose.solutions.empty());
  EXPECT_EQ(by["code is y"].prose.solutions.front(),
            "Make sure `code != 'y'` holds for the `status` you pass to `start` (the test's "
            "`code`).");
  // `Environment` hands itself to `_check`.
  for (const char* text : {"nothing done", "not ready", "this should not happen", "private empty",
                           "key has a blank", "undefined must be set"}) {
    ASSERT_EQ(by.count(text), 1u) << text;
    EXPECT_TRUE(internal(text)) << text;
    EXPECT_EQ(by[text].family.slug, "internal-assertion") << text;
    EXPECT_TRUE(Has(by[text].prose.meaning, "points to a bug")) << text;
  }
}

// One error raised in two files (bz2's and lzma's "Invalid mode") takes
// other values in each: "`__init__` does not accept; it takes ..." named
// one file's list as if it were both, and so did "the values the code
// accepts".
TEST(Prose, AListOfOneFileIsSaidWithItsFile) {
  Extraction x =
      extract::ExtractPythonSource("bz2.py",
                                   "class BZ2File:\n"
                                   "    def __init__(self, mode='r'):\n"
                                   "        if mode in ('', 'r', 'rb'):\n"
                                   "            pass\n"
                                   "        else:\n"
                                   "            raise ValueError('Invalid mode: %r' % (mode,))\n");
  Extraction lzma =
      extract::ExtractPythonSource("lzma.py",
                                   "class LZMAFile:\n"
                                   "    def __init__(self, mode='r'):\n"
                                   "        if mode not in ('r', 'w'):\n"
                                   "            raise ValueError('Invalid mode: %r' % (mode,))\n");
  for (Site& s : lzma.sites) x.sites.push_back(std::move(s));
  std::map<std::string, Prose> prose = ProseByTemplate(std::move(x));
  ASSERT_EQ(prose.count("Invalid mode: {mode}"), 1u);
  const Prose& p = prose["Invalid mode: {mode}"];
  EXPECT_TRUE(Has(p.meaning, "`BZ2File.__init__` in `bz2.py` does not accept") ||
              Has(p.meaning, "`LZMAFile.__init__` in `lzma.py` does not accept"))
      << p.meaning;
  std::string all;
  for (const std::string& s : p.solutions) all += s + "\n";
  EXPECT_FALSE(Has(all, "the values the code accepts")) << all;
  EXPECT_TRUE(Has(all, "of `bz2.py` tests `mode`")) << all;
  EXPECT_TRUE(Has(all, "of `lzma.py` tests `mode`")) << all;
}

// sniffio's `_tests/test_sniffio.py` asserts were said to point to "a bug
// in pypi/sniffio" as if a program using it could reach them.
TEST(Prose, AnErrorOnlyTheLibrarysTestsRaiseSaysSo) {
  Extraction x =
      extract::ExtractPythonSource("pkg/_tests/test_io.py",
                                   "def test_read():\n"
                                   "    assert read() == 1, 'read gave another value'\n");
  Extraction lib = extract::ExtractPythonSource("pkg/io.py",
                                                "def read(n):\n"
                                                "    if n < 0:\n"
                                                "        raise ValueError('negative count')\n");
  for (Site& s : lib.sites) x.sites.push_back(std::move(s));
  std::map<std::string, Prose> prose = ProseByTemplate(std::move(x));
  const std::string& test = prose["read gave another value"].meaning;
  EXPECT_TRUE(StartsWith(test, "It is raised only in test/a's own tests (`pkg/_tests/test_io.py`)"))
      << test;
  EXPECT_TRUE(Has(test, "a test of test/a failed")) << test;
  EXPECT_FALSE(Has(test, "points to a bug")) << test;
  EXPECT_FALSE(Has(prose["negative count"].meaning, "own tests"))
      << prose["negative count"].meaning;
}

}  // namespace
}  // namespace errdex::analyze
