// The analysis stage end to end: extracted sites through the catalog, into
// analysis rows, and back out of Get with family counts across libraries.
#include "analyze/analyze.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "analyze/family.h"
#include "catalog/catalog.h"
#include "catalog/json.h"
#include "cli/render.h"
#include "core/error_id.h"
#include "extract/extractor.h"
#include "test_util.h"
#include "web/html.h"

namespace errdex::analyze {
namespace {

using catalog::Catalog;
using catalog::OpenMode;
using testing::TempDir;

constexpr const char* kLowering = R"py(
import enum

class Layout(enum.Enum):
    A = 1
    B = 2

    def lower(self):
        match self:
            case Layout.A:
                return 1
            case Layout.B:
                return 2
        raise ValueError(f"Invalid Layout: {self}")

_MODES = ("fast", "exact")

def run(mode, pipeline_mode=None):
    if mode not in _MODES:
        raise ValueError(f"Unknown mode {mode}")
    if pipeline_mode is not None:
        if not isinstance(pipeline_mode, Buffered):
            raise LoweringError(f"Unsupported pipeline mode: {pipeline_mode}.")
    if pipeline_mode.lookahead:
        raise NotImplementedError("Lookahead is not supported.")
    assert mode, "mode is set"

class LoweringError(Exception):
    pass
)py";

catalog::SnapshotInfo Info(const std::string& library) {
  catalog::SnapshotInfo i;
  i.library = library;
  i.rev = "r1";
  i.kind = "dir";
  return i;
}

class AnalyzeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (dir_.path() / "c.db").string();
    Result<Catalog> cat = Catalog::Open(path_, OpenMode::kReadWrite);
    ASSERT_TRUE(cat.has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info("test/lowering"),
                                   extract::ExtractPythonSource("lowering.py", kLowering))
                    .has_value());
    // A second library with an error of the same family (invalid choice).
    ASSERT_TRUE(
        cat->WriteSnapshot(Info("test/other"),
                           extract::ExtractPythonSource("o.py",
                                                        "def f(kind):\n"
                                                        "    if kind not in ('a', 'b'):\n"
                                                        "        raise ValueError('bad kind')\n"))
            .has_value());
    Result<AnalyzeSummary> s = AnalyzeCatalog(*cat, "");
    ASSERT_TRUE(s.has_value()) << s.error().message;
    summary_ = *s;
    catalog_.emplace(std::move(*cat));
  }

  catalog::ErrorRecord Get(const std::string& library, const std::string& exception,
                           const std::string& display) {
    // By its display form: the id hashes the template's identity instead.
    Result<std::vector<catalog::ErrorRecord>> all = catalog_->List({});
    EXPECT_TRUE(all.has_value());
    for (const catalog::ErrorRecord& r : all ? *all : std::vector<catalog::ErrorRecord>{}) {
      if (r.library == library && r.exception == exception && r.template_text == display) {
        Result<catalog::ErrorRecord> e = catalog_->Get(r.id);
        EXPECT_TRUE(e.has_value()) << display;
        return e ? *e : catalog::ErrorRecord{};
      }
    }
    ADD_FAILURE() << "no error " << display;
    return catalog::ErrorRecord{};
  }

  TempDir dir_;
  std::string path_;
  std::optional<Catalog> catalog_;
  AnalyzeSummary summary_;
};

TEST_F(AnalyzeTest, SummaryCountsEveryError) {
  EXPECT_EQ(summary_.errors, 6);
  EXPECT_EQ(summary_.version_mismatch, 1);
  EXPECT_EQ(summary_.internal, 2);  // the exhaustive match and the assert
  EXPECT_EQ(*catalog_->CountUnanalyzed(""), 0);
}

TEST_F(AnalyzeTest, ExhaustiveMatchIsInternalAndVersionMismatch) {
  catalog::ErrorRecord e = Get("test/lowering", "ValueError", "Invalid Layout: {self}");
  ASSERT_TRUE(e.analysis.has_value());
  EXPECT_EQ(e.analysis->labels, (std::vector<std::string>{"internal", "version-mismatch"}));
  ASSERT_EQ(e.analysis->valid.size(), 1u);
  EXPECT_EQ(e.analysis->valid[0].source, "cases");
  EXPECT_EQ(e.analysis->valid[0].values, (std::vector<std::string>{"Layout.A", "Layout.B"}));
  EXPECT_EQ(e.analysis->family.slug, "invalid-choice");
  // No example fix: the caller did nothing wrong.
  EXPECT_TRUE(e.analysis->prose.fix_after.empty());
  ASSERT_FALSE(e.analysis->prose.solutions.empty());
  EXPECT_NE(e.analysis->prose.solutions[0].find("versions of test/lowering"), std::string::npos);
}

TEST_F(AnalyzeTest, ModuleConstantGivesValidValuesAndAFix) {
  catalog::ErrorRecord e = Get("test/lowering", "ValueError", "Unknown mode {mode}");
  ASSERT_TRUE(e.analysis.has_value());
  EXPECT_EQ(e.analysis->family.slug, "invalid-choice");
  ASSERT_EQ(e.analysis->valid.size(), 1u);
  EXPECT_EQ(e.analysis->valid[0].source, "set");
  EXPECT_EQ(e.analysis->valid[0].values, (std::vector<std::string>{"\"fast\"", "\"exact\""}));
  const Prose& p = e.analysis->prose;
  EXPECT_EQ(p.when, "Raised when `mode not in _MODES` (valid: `\"fast\"`, `\"exact\"`).");
  EXPECT_EQ(p.solutions.front(),
            "Use one of the values the code accepts for `mode`: `\"fast\"` or `\"exact\"`.");
  // The meaning says why, not where: the header shows the place.
  EXPECT_EQ(p.meaning.find("lowering.py"), std::string::npos) << p.meaning;
  EXPECT_EQ(p.meaning.rfind("`mode` has a value `run` does not accept; it takes `\"fast\"` or "
                            "`\"exact\"`.",
                            0),
            0u)
      << p.meaning;
  EXPECT_EQ(p.fix_before, "run(..., mode=<a value not listed>)  # ValueError");
  EXPECT_EQ(p.fix_after, "run(..., mode=\"fast\")");
  // Two libraries have an invalid-choice error: the family counts both.
  ASSERT_TRUE(e.family.has_value());
  EXPECT_EQ(e.family->libraries, 2);
  EXPECT_EQ(e.family->errors, 3);
}

TEST_F(AnalyzeTest, IsinstanceUnderANoneCheck) {
  catalog::ErrorRecord e =
      Get("test/lowering", "LoweringError", "Unsupported pipeline mode: {pipeline_mode}.");
  ASSERT_TRUE(e.analysis.has_value());
  EXPECT_EQ(e.analysis->family.slug, "wrong-type");
  EXPECT_EQ(e.analysis->prose.when,
            "Raised when `mode in _MODES` and `pipeline_mode is not None` and `pipeline_mode` is "
            "not an instance of `Buffered`.");
  EXPECT_EQ(e.analysis->prose.fix_after, "run(..., pipeline_mode=Buffered(...))");
  EXPECT_TRUE(e.analysis->labels.empty());
  // Related: the other errors of `run` first.
  ASSERT_GE(e.analysis->related.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(e.analysis->related[i].reason, "same function");
  EXPECT_EQ(e.analysis->related[3].reason, "same file");
}

TEST_F(AnalyzeTest, AssertIsInternalAndSaysWhatMustHold) {
  catalog::ErrorRecord e = Get("test/lowering", "AssertionError", "mode is set");
  ASSERT_TRUE(e.analysis.has_value());
  EXPECT_EQ(e.analysis->family.slug, "internal-assertion");
  EXPECT_EQ(e.analysis->labels, std::vector<std::string>{"internal"});
  EXPECT_NE(e.analysis->prose.meaning.find("Python skips the check under `-O`"),
            std::string::npos);
}

TEST_F(AnalyzeTest, JsonCarriesAnalysisRelatedIdsAndFamily) {
  catalog::ErrorRecord e = Get("test/lowering", "ValueError", "Unknown mode {mode}");
  nlohmann::json j = catalog::ErrorJson(e);
  EXPECT_EQ(j["family"], "invalid-choice");
  EXPECT_EQ(j["analysis"]["family"]["libraries"], 2);
  EXPECT_EQ(j["analysis"]["provenance"], "static");
  EXPECT_EQ(j["related"].size(), e.analysis->related.size());
  EXPECT_FALSE(j.contains("enrichment"));
  // Stored and read back, the analysis is what was written.
  Analysis back = catalog::AnalysisFromJson(catalog::AnalysisToJson(*e.analysis));
  EXPECT_EQ(catalog::AnalysisToJson(back), catalog::AnalysisToJson(*e.analysis));
}

TEST_F(AnalyzeTest, FamiliesListTheTaxonomyWithExamples) {
  Result<std::vector<FamilyInfo>> families = catalog_->Families(3);
  ASSERT_TRUE(families.has_value());
  EXPECT_EQ(families->size(), Families().size());
  const FamilyInfo& top = families->front();
  EXPECT_EQ(top.slug, "invalid-choice");
  EXPECT_EQ(top.errors, 3);
  // One example from each library before a second from either.
  ASSERT_EQ(top.examples.size(), 3u);
  EXPECT_TRUE((top.examples[0] == "bad kind") != (top.examples[1] == "bad kind"));
}

TEST_F(AnalyzeTest, ReanalysingChangesNothing) {
  catalog::ErrorRecord before = Get("test/lowering", "ValueError", "Unknown mode {mode}");
  ASSERT_TRUE(AnalyzeCatalog(*catalog_, "test/lowering").has_value());
  catalog::ErrorRecord after = Get("test/lowering", "ValueError", "Unknown mode {mode}");
  EXPECT_EQ(catalog::ErrorJson(before), catalog::ErrorJson(after));
}

// Each error of `source` (one Python file, indexed and analysed) by its
// template.
std::map<std::string, catalog::ErrorRecord> AnalysedByTemplate(const std::string& source) {
  TempDir dir;
  std::map<std::string, catalog::ErrorRecord> out;
  Result<Catalog> cat = Catalog::Open((dir.path() / "c.db").string(), OpenMode::kReadWrite);
  EXPECT_TRUE(cat.has_value());
  if (!cat) return out;
  EXPECT_TRUE(
      cat->WriteSnapshot(Info("test/a"), extract::ExtractPythonSource("a.py", source)).has_value());
  EXPECT_TRUE(AnalyzeCatalog(*cat, "").has_value());
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  EXPECT_TRUE(all.has_value());
  for (const catalog::ErrorRecord& r : all ? *all : std::vector<catalog::ErrorRecord>{}) {
    Result<catalog::ErrorRecord> e = cat->Get(r.id);
    EXPECT_TRUE(e.has_value() && e->analysis.has_value()) << r.template_text;
    if (e && e->analysis) out[r.template_text] = std::move(*e);
  }
  return out;
}

// "The words are written in F, which hands them to H to raise" says the
// raise is in H: true of a call into a helper that raises what it is
// given, false where the statement is the raise and H only built the
// text (a function returning it, a class's __str__, a factory), and false
// of the words too where F only fills a value of H's text.
TEST(Analyze, OnlyACallIntoARaisingHelperHandsItsWordsOn) {
  const char* source =
      "def fill(text):\n"
      "    return ' '.join(text.split())\n"
      "\n"
      "class Composed(Exception):\n"
      "    def __init__(self, name):\n"
      "        self.name = name\n"
      "    def __str__(self):\n"
      "        return f'no such name: {self.name}'\n"
      "\n"
      "def make(what):\n"
      "    return KeyError(f'missing {what}')\n"
      "\n"
      "class Context:\n"
      "    def fail(self, message):\n"
      "        raise ValueError(message)\n"
      "    def check(self, args):\n"
      "        if args:\n"
      "            self.fail('too many arguments')\n"
      "        if args is None:\n"
      "            raise TypeError(fill('a filled   text'))\n"
      "        if not args:\n"
      "            raise Composed('x')\n"
      "        raise make('thing')\n"
      "\n"
      "def get_bool_opt(options, optname):\n"
      "    string = options.get(optname)\n"
      "    raise OptionError(f'Invalid value {string!r} for option {optname}; use 1/0')\n"
      "\n"
      "class OptionError(Exception):\n"
      "    pass\n"
      "\n"
      "class LatexFormatter:\n"
      "    def __init__(self, options):\n"
      "        self.escape = get_bool_opt(options, 'mathescape')\n";
  std::map<std::string, std::string> meaning;
  for (const auto& [text, e] : AnalysedByTemplate(source))
    meaning[text] = e.analysis->prose.meaning;
  ASSERT_EQ(meaning.count("too many arguments"), 1u);
  EXPECT_NE(meaning["too many arguments"].find(
                "The words are written in `Context.check`, which hands them to `Context.fail` to "
                "raise."),
            std::string::npos)
      << meaning["too many arguments"];
  // The caller fills one value of the helper's words: the raise is the
  // helper's, and so are the words.
  const std::string filled = "Invalid value {string!r} for option mathescape; use 1/0";
  ASSERT_EQ(meaning.count(filled), 1u);
  EXPECT_NE(meaning[filled].find("It is raised inside `get_bool_opt`, called here by "
                                 "`LatexFormatter.__init__`, which passes some of what the "
                                 "message shows."),
            std::string::npos)
      << meaning[filled];
  size_t checked = 0;
  for (const auto& [text, m] : meaning) {
    if (text == "too many arguments" || text == filled) continue;
    EXPECT_EQ(m.find("hands them to"), std::string::npos) << text << ": " << m;
    ++checked;
  }
  EXPECT_GE(checked, 3u);
}

// The analysis of the error of `source` whose template is `text`.
Analysis AnalysisOf(const std::string& source, const std::string& text) {
  std::map<std::string, catalog::ErrorRecord> by = AnalysedByTemplate(source);
  auto it = by.find(text);
  bool found = it != by.end() && it->second.analysis.has_value();
  EXPECT_TRUE(found) << text;
  return found ? *it->second.analysis : Analysis{};
}

// A method a subclass is to override is reached through the base class or a
// subclass that lacks it, the caller's as often as the library's: the page
// says both, not "report a bug".
TEST(Analyze, APlaceholderMethodIsExplainedForTheSubclassThatLacksIt) {
  const char* source =
      "class InteractiveShell:\n"
      "    def enable_gui(self, gui=None):\n"
      "        raise NotImplementedError('Implement enable_gui in a subclass')\n";
  const Analysis a = AnalysisOf(source, "Implement enable_gui in a subclass");
  EXPECT_NE(a.prose.meaning.find("`InteractiveShell.enable_gui` is a placeholder its subclasses "
                                 "override"),
            std::string::npos)
      << a.prose.meaning;
  EXPECT_EQ(a.prose.meaning.find("points to a bug"), std::string::npos) << a.prose.meaning;
  ASSERT_FALSE(a.prose.solutions.empty());
  EXPECT_NE(a.prose.solutions.back().find("Call `enable_gui` on a subclass that implements it"),
            std::string::npos)
      << a.prose.solutions.back();
}

// Two lists of one name from two tests are each what that test takes: the
// page names the test's line, not "the values the code accepts".
TEST(Analyze, TwoListsOfOneNameAreEachSaidWithTheirTest) {
  const char* source =
      "def kind_a(t):\n"
      "    if t == 'name':\n"
      "        return 1\n"
      "    raise ValueError('unknown kind')\n"
      "def kind_b(t):\n"
      "    if t in ('testlist', 'exprlist'):\n"
      "        return 2\n"
      "    raise ValueError('unknown kind')\n";
  const Analysis a = AnalysisOf(source, "unknown kind");
  ASSERT_EQ(a.valid.size(), 2u);
  std::string all;
  for (const std::string& s : a.prose.solutions) all += s + "\n";
  EXPECT_EQ(all.find("the values the code accepts for `t`"), std::string::npos) << all;
  EXPECT_NE(all.find("Where line 2 tests `t`, use one of the values it accepts: `'name'`."),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("Where line 6 tests `t`, use one of the values it accepts: "),
            std::string::npos)
      << all;
}

// What a value should have been comes from the conditions a raise sits
// right under: a test further out may dispatch on type with another arm
// that works, and then naming its type as the one the code takes is wrong.
TEST(Analyze, ValidValuesComeFromTheConditionsTheRaiseSitsUnder) {
  const char* source =
      "def load(fname, parse):\n"
      "    if isinstance(fname, Parser):\n"
      "        cp = fname\n"
      "    else:\n"
      "        try:\n"
      "            cp = parse(fname)\n"
      "        except ParsingError as e:\n"
      "            raise RuntimeError(f'{fname} is invalid: {e}')\n"
      "    return cp\n"
      "\n"
      "def truth(val):\n"
      "    if val in ('y', 'yes'):\n"
      "        return 1\n"
      "    elif val in ('n', 'no'):\n"
      "        return 0\n"
      "    else:\n"
      "        raise ValueError(f'invalid truth value {val!r}')\n"
      "\n"
      "def convert(obj):\n"
      "    if isinstance(obj, str):\n"
      "        return obj\n"
      "    if isinstance(obj, int):\n"
      "        return str(obj)\n"
      "    raise TypeError('unsupported type')\n";
  std::map<std::string, std::vector<std::vector<std::string>>> valid;
  std::map<std::string, FamilyAssignment> family;
  for (const auto& [text, e] : AnalysedByTemplate(source)) {
    for (const ValidValues& v : e.analysis->valid) valid[text].push_back(v.values);
    family[text] = e.analysis->family;
  }
  // A bad file raises, whatever fname is: no type is "the one it takes".
  EXPECT_TRUE(valid["{fname} is invalid: {e}"].empty());
  EXPECT_NE(family["{fname} is invalid: {e}"].slug, "wrong-type");
  // Every arm an elif chain tried before its else, and every early exit
  // just before the raise.
  EXPECT_EQ(valid["invalid truth value {val!r}"],
            (std::vector<std::vector<std::string>>{{"'y'", "'yes'"}, {"'n'", "'no'"}}));
  EXPECT_EQ(valid["unsupported type"], (std::vector<std::vector<std::string>>{{"str"}, {"int"}}));
}

// ipaddress's constructor: ints leave early, bytes go to a helper that
// raises on a condition of its own (the length). An int is no fix for a
// packed address of the wrong length; a helper that always raises keeps
// the caller's conditions as the raise's.
TEST(Analyze, ACallIntoAHelperThatDecidesListsNoValuesOfTheCaller) {
  const char* source =
      "class AddressValueError(ValueError):\n"
      "    pass\n"
      "\n"
      "def check_packed(address, expected):\n"
      "    if len(address) != expected:\n"
      "        raise AddressValueError(f'{address!r} is not {expected} bytes long')\n"
      "\n"
      "def refuse(message):\n"
      "    raise ValueError(message)\n"
      "\n"
      "def parse(address, mode):\n"
      "    if isinstance(address, int):\n"
      "        return address\n"
      "    if isinstance(address, bytes):\n"
      "        check_packed(address, 4)\n"
      "    if mode not in ('r', 'w'):\n"
      "        refuse('mode must be r or w')\n"
      "    return 0\n";
  std::map<std::string, std::vector<std::vector<std::string>>> valid;
  std::map<std::string, FamilyAssignment> family;
  for (const auto& [text, e] : AnalysedByTemplate(source)) {
    for (const ValidValues& v : e.analysis->valid) valid[text].push_back(v.values);
    family[text] = e.analysis->family;
  }
  ASSERT_EQ(family.count("{address!r} is not 4 bytes long"), 1u);
  EXPECT_TRUE(valid["{address!r} is not 4 bytes long"].empty());
  EXPECT_NE(family["{address!r} is not 4 bytes long"].slug, "wrong-type");
  // The early exit for an int address is no fix for the mode.
  const std::vector<std::vector<std::string>> modes = {{"'r'", "'w'"}};
  EXPECT_EQ(valid["mode must be r or w"], modes);
}

// Early exits before a raise under a test of its own count for what that
// test reads or the message shows, and for nothing else; a raise after
// early exits alone keeps them all (they are the dispatch it falls out of).
TEST(Analyze, AnEarlyExitCountsOnlyForWhatTheRaisesConditionTests) {
  const char* source =
      "def scale(x, unit):\n"
      "    if x is None:\n"
      "        return 0\n"
      "    if unit in ('cm', 'mm'):\n"
      "        return 1\n"
      "    if not isinstance(x, (int, float)):\n"
      "        raise TypeError('x must be a number')\n"
      "    return x\n"
      "def pick(model, mode):\n"
      "    if isinstance(model, str):\n"
      "        return model\n"
      "    if mode not in ('fast', 'slow'):\n"
      "        raise ValueError('mode must be fast or slow')\n"
      "def convert(obj):\n"
      "    if isinstance(obj, str):\n"
      "        return obj\n"
      "    if isinstance(obj, bytes):\n"
      "        return obj.decode()\n"
      "    raise TypeError('cannot convert')\n"
      "def to_decimal(other, raiseit):\n"
      "    if isinstance(other, int):\n"
      "        return other\n"
      "    if raiseit:\n"
      "        raise TypeError('Unable to convert %s to Decimal' % other)\n"
      "def fill(address, data):\n"
      "    if isinstance(address, int):\n"
      "        return address\n"
      "    if not data:\n"
      "        raise ValueError('data must not be empty')\n"
      "def open_as(mode, how):\n"
      "    if mode in ('r', 'w'):\n"
      "        return mode\n"
      "    if mode.upper() not in ('RB', 'WB'):\n"
      "        raise ValueError('unknown mode')\n"
      "def real(x):\n"
      "    if type(x) in (int, float):\n"
      "        return x\n"
      "    if not isinstance(x, complex):\n"
      "        raise TypeError('x must be a real or complex number')\n"
      "def route(address, mode):\n"
      "    if isinstance(address, int):\n"
      "        return address\n"
      "    elif mode not in ('get', 'put'):\n"
      "        raise ValueError('mode must be get or put')\n"
      "def option(address, kw):\n"
      "    if isinstance(address, int):\n"
      "        return address\n"
      "    if 'address' not in kw:\n"
      "        raise KeyError('no address option')\n"
      "def caller_module(cls):\n"
      "    if sys._getframe(2).f_globals['__name__'] in ('abc', 'functools'):\n"
      "        return False\n"
      "    raise TypeError('Protocols with non-method members do not support issubclass()')\n"
      "def backend(path, platform):\n"
      "    if os.path.splitext(path)[1] not in ('.json', '.yaml'):\n"
      "        raise ValueError('unknown file kind')\n"
      "    if platform.lower() not in ('cpu', 'gpu'):\n"
      "        raise ValueError('unknown platform')\n"
      "def dispatch(address, verb):\n"
      "    if isinstance(address, int):\n"
      "        return address\n"
      "    match verb:\n"
      "        case 'go':\n"
      "            return 1\n"
      "        case _:\n"
      "            raise ValueError('verb must be go')\n";
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> valid;
  std::map<std::string, std::string> family;
  for (const auto& [text, e] : AnalysedByTemplate(source)) {
    for (const ValidValues& v : e.analysis->valid) valid[text].push_back({v.subject, v.values});
    family[text] = e.analysis->family.slug;
  }
  using Listed = std::vector<std::pair<std::string, std::vector<std::string>>>;
  // `unit` is not what the raise tests; `x` is.
  EXPECT_EQ(valid["x must be a number"], (Listed{{"x", {"int", "float"}}}));
  // `model` is not `mode`, though one begins with the other.
  EXPECT_EQ(valid["mode must be fast or slow"], (Listed{{"mode", {"'fast'", "'slow'"}}}));
  EXPECT_EQ(valid["cannot convert"], (Listed{{"obj", {"str"}}, {"obj", {"bytes"}}}));
  // A flag tests no value; the message shows what the exit tests.
  EXPECT_EQ(valid["Unable to convert {other} to Decimal"], (Listed{{"other", {"int"}}}));
  // A truth test of another name is no flag for `address`.
  EXPECT_TRUE(valid["data must not be empty"].empty());
  EXPECT_NE(family["data must not be empty"], "wrong-type");
  // `mode.upper()` reads `mode`; `type(x)` tests `x`.
  EXPECT_EQ(valid["unknown mode"],
            (Listed{{"mode", {"'r'", "'w'"}}, {"mode.upper()", {"'RB'", "'WB'"}}}));
  EXPECT_EQ(valid["x must be a real or complex number"],
            (Listed{{"type(x)", {"int", "float"}}, {"x", {"complex"}}}));
  // An elif's own arm: the failed if before it is another way out.
  EXPECT_EQ(valid["mode must be get or put"], (Listed{{"mode", {"'get'", "'put'"}}}));
  // A word inside quotes is no name the test reads.
  EXPECT_TRUE(valid["no address option"].empty());
  // Who called is no value a caller passes.
  EXPECT_TRUE(valid["Protocols with non-method members do not support issubclass()"].empty());
  // What a caller passes, under a module's name or not, is listed.
  EXPECT_EQ(valid["unknown file kind"].size(), 1u);
  EXPECT_EQ(valid["unknown platform"].size(), 1u);
  // A match's default arm tests its subject.
  for (const auto& [subject, values] : valid["verb must be go"]) EXPECT_NE(subject, "address");
}

// An AssertionError an assert function raises for its caller is the
// caller's failed check, not the library's bug: no "report it" page.
TEST(Analyze, AnAssertFunctionsFailureIsTheCallersNotTheLibrarys) {
  const char* source =
      "class Mock:\n"
      "    def assert_called_with(self, *args):\n"
      "        if self.call_args is None:\n"
      "            raise AssertionError('expected call not found')\n"
      "    def assert_equal(self, first, second):\n"
      "        if first != second:\n"
      "            raise AssertionError('first and second differ')\n"
      "    def _assert_consistent(self):\n"
      "        if not self.nodes:\n"
      "            raise AssertionError('tree nodes are inconsistent')\n"
      "    def asserts(self, x):\n"
      "        if not x:\n"
      "            raise AssertionError('x broke an invariant')\n";
  std::map<std::string, catalog::ErrorRecord> by = AnalysedByTemplate(source);
  for (const char* text : {"expected call not found", "first and second differ"}) {
    ASSERT_EQ(by.count(text), 1u) << text;
    const Analysis& a = *by[text].analysis;
    EXPECT_EQ(a.family.slug, "failed-check") << text;
    EXPECT_EQ(std::count(a.labels.begin(), a.labels.end(), "internal"), 0) << text;
    EXPECT_EQ(a.prose.solutions.size(), 1u) << text;
  }
  // A private helper checking the library's own state is the library's.
  for (const char* text : {"x broke an invariant", "tree nodes are inconsistent"}) {
    ASSERT_EQ(by.count(text), 1u) << text;
    EXPECT_EQ(by[text].analysis->family.slug, "internal-assertion") << text;
  }
}

// A type is dropped only when every value of it meets another raise: a
// later test against a module constant, an int literal a float or a bool
// equals, and `type(None)` keep theirs (found by a review).
TEST(Analyze, ATypeStaysListedWhenSomeValueOfItPassesTheNextTest) {
  const char* source =
      "MODES = ('r', 'w', 'a')\n"
      "def open_mode(mode):\n"
      "    if not isinstance(mode, str):\n"
      "        raise TypeError('mode must be a str')\n"
      "    elif mode not in MODES:\n"
      "        raise ValueError('invalid mode')\n"
      "def norm(ord):\n"
      "    if not isinstance(ord, (int, float)):\n"
      "        raise TypeError('ord must be a number')\n"
      "    elif ord not in (1, 2):\n"
      "        raise ValueError('only ord 1 and 2')\n"
      "def opt(x):\n"
      "    if not isinstance(x, (str, type(None))):\n"
      "        raise TypeError('x must be a str or None')\n"
      "    elif x is not None and x not in ('a', 'b'):\n"
      "        raise ValueError('x must be a or b')\n"
      "def only_tuple(x):\n"
      "    if not isinstance(x, (tuple, list)):\n"
      "        raise TypeError('x must be a tuple or list')\n"
      "    elif not isinstance(x, list):\n"
      "        raise ValueError('tuples are refused')\n";
  std::map<std::string, std::vector<std::string>> valid;
  for (const auto& [text, e] : AnalysedByTemplate(source)) {
    for (const ValidValues& v : e.analysis->valid) {
      valid[text].insert(valid[text].end(), v.values.begin(), v.values.end());
    }
  }
  EXPECT_EQ(valid["mode must be a str"], (std::vector<std::string>{"str"}));
  EXPECT_EQ(valid["ord must be a number"], (std::vector<std::string>{"int", "float"}));
  EXPECT_EQ(valid["x must be a str or None"], (std::vector<std::string>{"str", "type(None)"}));
  // Every tuple meets the next raise.
  EXPECT_EQ(valid["x must be a tuple or list"], (std::vector<std::string>{"list"}));
}

// A list of values says what the raise takes: the complement of its own
// test, or every way past it. Ways out that are a few of many (the arms
// before `elif e.is_Derivative: raise`), and lists that a test of the
// subject together with another condition makes depend on that condition
// (`isinstance(event, Preamble) and state == 1`), are none. A plain test
// without values (`include_dirs is None`) leaves the list short, not wrong.
TEST(Analyze, ValuesListedAreAllTheRaiseTakes) {
  const char* source =
      "def compile_dirs(include_dirs):\n"
      "    if include_dirs is None:\n"
      "        return []\n"
      "    elif isinstance(include_dirs, (list, tuple)):\n"
      "        return list(include_dirs)\n"
      "    else:\n"
      "        raise TypeError('include_dirs must be a list of strings')\n"
      "def mrv(e, x):\n"
      "    if not e.has(x):\n"
      "        return 1\n"
      "    elif isinstance(e, log):\n"
      "        return 2\n"
      "    elif isinstance(e, AppliedUndef):\n"
      "        raise ValueError('MRV set computation for UndefinedFunction is not allowed')\n"
      "    elif e.is_Function:\n"
      "        return 3\n"
      "    elif e.is_Derivative:\n"
      "        raise NotImplementedError('MRV set computation for derivatives')\n"
      "    raise NotImplementedError(\"Don't know how to calculate the mrv of '%s'\" % e)\n"
      "class Enc:\n"
      "    def send_event(self, event):\n"
      "        if isinstance(event, Preamble) and self.state == 1:\n"
      "            return 1\n"
      "        elif isinstance(event, (Field, File)) and self.state in {1, 2}:\n"
      "            return 2\n"
      "        elif isinstance(event, Epilogue):\n"
      "            return 3\n"
      "        else:\n"
      "            raise ValueError(f'Cannot send {event} in state {self.state}')\n"
      "def pick(kind):\n"
      "    if kind == 'a':\n"
      "        return 1\n"
      "    elif kind in ('b', 'c'):\n"
      "        return 2\n"
      "    elif kind.startswith('x'):\n"
      "        raise ValueError('x kinds are retired')\n"
      "def convert(value):\n"
      "    if isinstance(value, UUID):\n"
      "        return value\n"
      "    try:\n"
      "        return UUID(value)\n"
      "    except ValueError:\n"
      "        raise ValueError(f'{value!r} is not a valid UUID.')\n"
      "def get_unit_system(unit_system):\n"
      "    if isinstance(unit_system, UnitSystem):\n"
      "        return unit_system\n"
      "    if unit_system not in UnitSystem._unit_systems:\n"
      "        raise ValueError('Unit system is not supported')\n"
      "def __getattr__(name):\n"
      "    if name == 'OrderedMultiDict':\n"
      "        return 1\n"
      "    raise AttributeError(f'module has no attribute {name}')\n"
      "class Parser:\n"
      "    def _declare(self, decl):\n"
      "        if self._inside_extern_python != '__cffi_extern_python_stop':\n"
      "            raise CDefError('cannot declare constants inside extern Python')\n"
      "def get_bool_opt(string):\n"
      "    if isinstance(string, bool):\n"
      "        return string\n"
      "    elif isinstance(string, int):\n"
      "        return bool(string)\n"
      "    elif string.lower() in ('1', 'yes'):\n"
      "        return True\n"
      "    else:\n"
      "        raise OptionError('Invalid value for a boolean option')\n";
  std::map<std::string, std::vector<ValidValues>> valid;
  std::map<std::string, std::string> family;
  for (const auto& [text, e] : AnalysedByTemplate(source)) {
    valid[text] = e.analysis->valid;
    family[text] = e.analysis->family.slug;
  }
  ASSERT_EQ(valid.size(), 11u);
  // An object's private state is no value a caller passes, and a
  // `__getattr__` answers names beside all those that are there.
  for (const char* text :
       {"MRV set computation for UndefinedFunction is not allowed",
        "MRV set computation for derivatives", "Cannot send {event} in state {self.state}",
        "x kinds are retired", "{value!r} is not a valid UUID.", "Unit system is not supported",
        "cannot declare constants inside extern Python", "module has no attribute {name}"}) {
    EXPECT_TRUE(valid[text].empty()) << text << ": " << valid[text].front().values.front();
  }
  // A str reaches the raise past the type tests: no type is the one it
  // takes, and the family is no wrong type.
  for (const ValidValues& v : valid["Invalid value for a boolean option"]) {
    EXPECT_NE(v.source, "types") << v.values.front();
  }
  EXPECT_NE(family["Invalid value for a boolean option"], "wrong-type");
  EXPECT_NE(family["Unit system is not supported"], "wrong-type");
  ASSERT_EQ(valid["include_dirs must be a list of strings"].size(), 1u);
  EXPECT_EQ(valid["include_dirs must be a list of strings"][0].values,
            (std::vector<std::string>{"list", "tuple"}));
  // With no list, no type is the one it needs.
  EXPECT_NE(family["Cannot send {event} in state {self.state}"], "wrong-type");
  EXPECT_NE(family["MRV set computation for UndefinedFunction is not allowed"], "wrong-type");
}

TEST(Ancestry, BreadthFirstWithoutRepeatsOrCycles) {
  std::map<std::string, std::vector<std::string>> bases = {
      {"A", {"B", "C"}}, {"B", {"Exception"}}, {"C", {"A"}}};
  EXPECT_EQ(Ancestry("A", bases), (std::vector<std::string>{"A", "B", "C", "Exception"}));
  EXPECT_EQ(Ancestry("Z", bases), std::vector<std::string>{"Z"});
}

// A private check reached from a public function: the meaning names the
// public call, and the fix is written against it, keyword-only as it is.
TEST(Analyze, PrivateCheckIsExplainedThroughItsPublicEntryPoint) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  ASSERT_TRUE(cat->WriteSnapshot(Info("test/entry"),
                                 extract::ExtractPythonSource("pkg/api.py", R"py(
def _check(mode):
    if mode not in ("fast", "exact"):
        raise ValueError(f"Unknown mode {mode}")

def run(data, *, mode):
    return _check(mode)
)py"))
                  .has_value());
  ASSERT_TRUE(AnalyzeCatalog(*cat, "").has_value());
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  ASSERT_TRUE(all.has_value() && all->size() == 1u);
  Result<catalog::ErrorRecord> e = cat->Get(all->front().id);
  ASSERT_TRUE(e.has_value() && e->analysis.has_value());
  const Prose& p = e->analysis->prose;
  EXPECT_NE(p.meaning.find("A call to `pkg.api.run` reaches it, which passes its `mode` argument "
                           "down as `mode`."),
            std::string::npos)
      << p.meaning;
  EXPECT_EQ(p.fix_after, "pkg.api.run(..., mode=\"fast\")");
  nlohmann::json j = catalog::ErrorJson(*e);
  EXPECT_EQ(j["sites"][0]["entry_points"][0]["name"], "pkg.api.run");
  EXPECT_EQ(j["sites"][0]["parameters"], nlohmann::json::parse(R"([["mode","any"]])"));
}

// `source`, one Python file, indexed as `library` and analysed: its errors
// by template.
std::map<std::string, catalog::ErrorRecord> AnalysedByTemplate(const TempDir& dir,
                                                               const std::string& library,
                                                               const std::string& source) {
  std::map<std::string, catalog::ErrorRecord> out;
  Result<Catalog> cat = Catalog::Open((dir.path() / "c.db").string(), OpenMode::kReadWrite);
  EXPECT_TRUE(cat.has_value());
  if (!cat) return out;
  EXPECT_TRUE(
      cat->WriteSnapshot(Info(library), extract::ExtractPythonSource("api.py", source)).has_value());
  EXPECT_TRUE(AnalyzeCatalog(*cat, "").has_value());
  Result<std::vector<catalog::ErrorRecord>> all = cat->List({});
  EXPECT_TRUE(all.has_value());
  if (!all) return out;
  for (const catalog::ErrorRecord& r : *all) out[r.template_text] = *cat->Get(r.id);
  return out;
}

// The docstring line of the checked parameter goes beside its valid values:
// in the analysis, its JSON, `errdex show` and the page. Only a parameter of
// the raising function has one; a local of the same name as a documented
// entry has none.
TEST(Analyze, ValidValuesCarryTheCheckedParametersDocstringLine) {
  TempDir dir;
  std::map<std::string, catalog::ErrorRecord> by_template = AnalysedByTemplate(dir, "test/docs", R"py(
def run(mode):
    """Run it.

    Args:
        mode (str): How to run: <fast> or "exact". Slower when exact.
    """
    if mode not in ("fast", "exact"):
        raise ValueError(f"Unknown mode {mode}")

def lower(kind_name):
    """Lower it.

    :param kind: The kind, documented but not a parameter.
    :param kind_name: Its name.
    """
    kind = kind_name.lower()
    if kind not in ("a", "b"):
        raise ValueError(f"Unknown kind {kind}")

def bare(level):
    """No entry for level here."""
    if level not in (0, 1):
        raise ValueError(f"Unknown level {level}")
)py");
  ASSERT_EQ(by_template.size(), 3u);

  const catalog::ErrorRecord& run = by_template["Unknown mode {mode}"];
  ASSERT_TRUE(run.analysis.has_value());
  ASSERT_EQ(run.analysis->valid.size(), 1u);
  const std::string doc = "How to run: <fast> or \"exact\".";
  EXPECT_EQ(run.analysis->valid[0].doc, doc);
  nlohmann::json j = catalog::ErrorJson(run);
  EXPECT_EQ(j["analysis"]["valid_values"][0]["doc"], doc);
  std::ostringstream shown;
  cli::RenderError(run, cli::Style{}, shown);
  EXPECT_NE(shown.str().find("  valid for mode: \"fast\", \"exact\"\n    docstring: " + doc + "\n"),
            std::string::npos)
      << shown.str();
  std::string page = web::ErrorPage(run, web::Links{});
  EXPECT_NE(page.find("<code>&quot;exact&quot;</code><br><span class=\"note\">The docstring says "
                      "of <code>mode</code>: How to run: &lt;fast&gt; or &quot;exact&quot;."
                      "</span></p>"),
            std::string::npos)
      << page;

  for (const char* other : {"Unknown kind {kind}", "Unknown level {level}"}) {
    const catalog::ErrorRecord& e = by_template[other];
    ASSERT_TRUE(e.analysis.has_value()) << other;
    ASSERT_EQ(e.analysis->valid.size(), 1u) << other;
    EXPECT_EQ(e.analysis->valid[0].doc, "") << other;
    EXPECT_FALSE(catalog::ErrorJson(e)["analysis"]["valid_values"][0].contains("doc")) << other;
    std::ostringstream text;
    cli::RenderError(e, cli::Style{}, text);
    EXPECT_EQ(text.str().find("docstring:"), std::string::npos) << text.str();
    EXPECT_EQ(web::ErrorPage(e, web::Links{}).find("The docstring says"), std::string::npos);
  }
}

// A private check reached from a documented public function that passes the
// value down unchanged takes that function's docstring line; one reached
// through a value the caller computes does not.
TEST(Analyze, ValidValuesTakeTheDocOfTheEntryPointThatCarriesTheValue) {
  TempDir dir;
  std::map<std::string, catalog::ErrorRecord> by_template =
      AnalysedByTemplate(dir, "test/entrydocs", R"py(
def _check(mode):
    if mode not in ("fast", "exact"):
        raise ValueError(f"Unknown mode {mode}")

def _check_level(level):
    if level not in (0, 1):
        raise ValueError(f"Unknown level {level}")

def run(data, mode="fast"):
    """Run it.

    Parameters
    ----------
    mode : str
        Either fast or exact.
    """
    return _check(mode)

def tune(level):
    """Tune it.

    Args:
        level: The level, doubled before the check.
    """
    return _check_level(level * 2)
)py");
  const catalog::ErrorRecord& mode = by_template["Unknown mode {mode}"];
  ASSERT_TRUE(mode.analysis.has_value());
  ASSERT_EQ(mode.analysis->valid.size(), 1u);
  EXPECT_EQ(mode.analysis->valid[0].doc, "Either fast or exact.");
  const catalog::ErrorRecord& level = by_template["Unknown level {level}"];
  ASSERT_TRUE(level.analysis.has_value());
  ASSERT_EQ(level.analysis->valid.size(), 1u);
  EXPECT_EQ(level.analysis->valid[0].doc, "");
}

// networkx's config: a name in a literal set passes at once, and any other
// must be in a registry the code fills at run time. "It takes 'algos' or
// 'classes'" left out every registered name the message itself allows.
TEST(Analyze, ValuesThatPassBeforeARefusingMembershipAreNotAllItTakes) {
  const char* source =
      "_registered = {}\n"
      "def set_config(key):\n"
      "    if key in {'algos', 'classes'}:\n"
      "        pass\n"
      "    elif key not in _registered:\n"
      "        raise AttributeError(f'Invalid config name: {key!r}')\n"
      "def mode_of(mode):\n"
      "    if mode in ('r', 'w'):\n"
      "        return 1\n"
      "    elif mode not in ('a', 'x'):\n"
      "        raise ValueError(f'bad mode {mode!r}')\n";
  const Analysis registry = AnalysisOf(source, "Invalid config name: {key!r}");
  for (const ValidValues& v : registry.valid) {
    EXPECT_NE(v.subject, "key") << v.values.size();
  }
  EXPECT_EQ(registry.prose.meaning.find("it takes"), std::string::npos) << registry.prose.meaning;
  // A literal set of its own still lists what it takes.
  const Analysis literal = AnalysisOf(source, "bad mode {mode!r}");
  ASSERT_FALSE(literal.valid.empty());
  EXPECT_NE(literal.prose.meaning.find("it takes"), std::string::npos) << literal.prose.meaning;
}

}  // namespace
}  // namespace errdex::analyze
