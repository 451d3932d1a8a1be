// Each family rule on the shapes of error it is meant for, and the order
// between rules where two could apply.
#include "analyze/family.h"

#include <gtest/gtest.h>

#include <set>

namespace errdex::analyze {
namespace {

struct Case {
  std::vector<std::string> ancestry;
  std::string kind;
  std::string message;
  std::string family;
};

FamilyAssignment Classify(const Case& c, std::vector<Guard> guards = {}) {
  FamilyFacts f;
  f.ancestry = c.ancestry;
  f.kind = c.kind;
  f.message = c.message;
  f.guards = std::move(guards);
  return ClassifyFamily(f);
}

TEST(Family, EveryFamilyHasANameAndDescription) {
  std::set<std::string_view> slugs;
  for (const Family& f : Families()) {
    EXPECT_FALSE(f.name.empty()) << f.slug;
    EXPECT_FALSE(f.description.empty()) << f.slug;
    EXPECT_TRUE(slugs.insert(f.slug).second) << "duplicate " << f.slug;
    EXPECT_EQ(FindFamily(f.slug), &f);
  }
  EXPECT_GE(Families().size(), 20u);
  EXPECT_EQ(Families().back().slug, "other");
  EXPECT_EQ(FindFamily("no-such-family"), nullptr);
}

TEST(Family, RulesOverTypeAndMessage) {
  const std::vector<Case> cases = {
      {{"DeprecationWarning"}, "warning", "foo is deprecated", "deprecated"},
      {{"ValueError"}, "raise", "x was removed; this will be removed in 0.5", "deprecated"},
      {{"UserWarning", "Warning"},
       "warning",
       "Usage of dash-separated '' will not be supported in future versions.",
       "deprecated"},
      {{"ConcretizationTypeError", "TypeError"},
       "raise",
       "Abstract tracer value",
       "tracing-misuse"},
      {{"ModuleNotFoundError", "ImportError"},
       "raise",
       "No module named scipy",
       "missing-dependency"},
      {{"RuntimeError"}, "raise", "matplotlib is not installed", "missing-dependency"},
      {{"RuntimeError"}, "raise", " is not installed", "missing-dependency"},
      // A part of the library itself, or an import nothing can install.
      {{"RuntimeError"},
       "raise",
       "asyncio.get_child_watcher() is not activated, subprocess support is not installed.",
       "other"},
      {{"ModuleNotFoundError", "ImportError"},
       "raise",
       "import of  halted; None in sys.modules",
       "missing-key"},
      {{"ImportError"},
       "raise",
       " module incorrectly imported from . Expected . Is this module globally installed?",
       "other"},
      {{"ImportError"}, "raise", "plotting requires matplotlib", "missing-dependency"},
      {{"ImportError"},
       "raise",
       "Missing optional dependency ''. Use pip or conda to install .",
       "missing-dependency"},
      // Other imports that fail: no package to install.
      {{"ImportError"}, "raise", "attempted relative import beyond top-level package", "other"},
      {{"ZipImportError", "ImportError"}, "raise", "can't find module ", "missing-key"},
      {{"ImportError"}, "raise", "The crypt module is not supported on Windows", "not-implemented"},
      {{"RuntimeError"}, "raise", "jaxlib version 0.4 is too old", "version-mismatch"},
      // Imported, but too old: no package to install.
      {{"ImportError"},
       "raise",
       "email-validator version >= 2.0 required, run pip install -U email-validator",
       "version-mismatch"},
      // A field's name, not a version.
      {{"BadWheel", "InstallationError", "Exception"},
       "raise",
       "Missing Metadata-Version",
       "missing-key"},
      // A value's base named before the OSError of the library's base.
      {{"InvalidURL", "RequestException", "ValueError", "IOError", "OSError"},
       "raise",
       "Invalid percent-escape sequence: ''",
       "invalid-value"},
      {{"ConnectTimeout", "ConnectionError", "Timeout", "RequestException", "IOError"},
       "raise",
       "",
       "network-timeout"},
      // A feature that may change is not one that is going away.
      {{"ProvisionalWarning", "DeprecationWarning", "Warning"},
       "warning",
       "`enable_html_pager` is provisional since IPython 5.0 and might change in future versions.",
       "runtime-warning"},
      // Words that say the type beat a class named for bad options.
      {{"OptionError", "Exception"},
       "raise",
       "Invalid type 1 for option stripnl; you must give a list value",
       "wrong-type"},
      {{"OptionError", "Exception"}, "raise", "Invalid value 'x' for option n", "invalid-value"},
      // A model's state matrix is no object's state.
      {{"ShapeError", "ValueError"},
       "raise",
       "initial_conditions must have the same number of rows as the state matrix.",
       "invalid-value"},
      // Negative of a number, not of a map.
      {{"PyAsn1Error", "Exception"}, "raise", "Key in negative map", "other"},
      {{"ValueError"}, "raise", "negative maxlength", "out-of-range"},
      // A version that does not parse, a key, an option: no two versions.
      {{"ValueError"}, "raise", "unreasonable length http version", "invalid-value"},
      {{"ValueError"}, "raise", "invalid version number ''", "invalid-value"},
      {{"ValueError"}, "raise", "failed to parse CPython sys.version: ", "parse-error"},
      {{"KeyError"}, "raise", "'clr version'", "missing-key"},
      {{"ValueError"}, "raise", "Unable to determine SOCKS version from ", "invalid-value"},
      {{"ValueError"},
       "raise",
       "you cannot supply --upgrade and --clear together.",
       "conflicting-arguments"},
      {{"RuntimeError"},
       "raise",
       "tk.h version () doesn't match libtk.a version ()",
       "version-mismatch"},
      // "conversion" contains "version" but is not the word.
      {{"RuntimeError"}, "raise", "conversion failed", "other"},
      // A version as a field, a string or a piece of information: nothing
      // required or compared.
      {{"InvalidPythonEnvironment", "Exception"},
       "raise",
       "Could not get version information for '': ''",
       "other"},
      {{"RuntimeWarning", "Warning"},
       "warning",
       "Expected glibc version with 2 components major.minor, got: ",
       "runtime-warning"},
      {{"TypeError"}, "raise", ".version must be string", "wrong-type"},
      // Required, refused or compared: two versions.
      {{"RuntimeError"}, "raise", "requires numpy version 1.22 or later", "version-mismatch"},
      {{"ValueError"}, "raise", "protocol version 3 is not supported", "version-mismatch"},
      {{"ValueError"},
       "raise",
       "Namespace Gtk is already loaded with version 3.0",
       "version-mismatch"},
      {{"SkipTest", "Exception"},
       "raise",
       "gdb versions before 7.0 didn't support python embedding.",
       "version-mismatch"},
      // A negative alias is an option (the one it names is not there), zero
      // variance no key, and fields not in a list are too many.
      {{"DistutilsGetoptError", "DistutilsError", "Exception"},
       "raise",
       "invalid negative alias '': option '' not defined",
       "missing-key"},
      {{"StatisticsError", "ValueError"},
       "raise",
       "overlap() not defined when sigma is zero",
       "not-implemented"},
      {{"ValueError"}, "raise", "dict contains fields not in fieldnames: ''", "invalid-value"},
      {{"AssertionError"}, "assert", "", "internal-assertion"},
      {{""}, "fatal", "Check failed: x > 0", "internal-assertion"},
      {{"INTERNAL"}, "status", "Failed to lower", "internal-assertion"},
      {{"ValueError"}, "raise", "Incompatible shapes for broadcasting", "shape-mismatch"},
      {{"ValueError"}, "raise", "Shape mismatch:  matmul ", "shape-mismatch"},
      {{"ValueError"}, "raise", "index is larger than expression shape", "shape-mismatch"},
      // Shapes that are no array's: a distribution's parameter, turtle's
      // shapes, an API model's.
      {{"ValueError"}, "raise", "Shape parameter alpha must be positive.", "out-of-range"},
      {{"TurtleGraphicsError", "Exception"}, "raise", "There is no shape named turtle", "other"},
      {{"InvalidShapeError", "Exception"}, "raise", "Unknown shape type: ", "other"},
      {{"TypeError"},
       "raise",
       "lax.add requires arguments to have the same dtypes",
       "dtype-mismatch"},
      {{"ValueError"}, "raise", "a and b are mutually exclusive", "conflicting-arguments"},
      {{"ValueError"}, "raise", "mode must be one of ", "invalid-choice"},
      {{"TypeError"}, "raise", "expected str, got ", "wrong-type"},
      {{"ValueError"}, "raise", "n must be positive, got ", "out-of-range"},
      // "must be a" names a kind of value, unless what follows is a sign, a
      // rank or a property of a value of the right kind.
      {{"ValueError"}, "raise", "code argument must be a code object", "wrong-type"},
      {{"ValueError"}, "raise", "n must be a positive integer; got .", "out-of-range"},
      {{"ValueError"}, "raise", "k must be a non-negative integer", "out-of-range"},
      {{"ValueError"}, "raise", "z must be a 1D array.", "shape-mismatch"},
      {{"ValueError"}, "raise", "K must be a multiple of , got: ", "invalid-value"},
      {{"ValueError"}, "raise", "Packing must be a power of 2, got: ", "invalid-value"},
      {{"ValueError"}, "raise", "size must be a positive power of 2", "invalid-value"},
      {{"ValueError"},
       "raise",
       " specification must be a tree prefix of the positional arguments tuple",
       "invalid-value"},
      {{"ValueError"}, "raise", "matrix must be a positive definite matrix", "invalid-value"},
      // A form of text or a count is no kind of value.
      {{"ValueError"}, "raise", "key issuer:  must be an HTTPS URL", "invalid-value"},
      {{"ValueError"}, "raise", "Country name must be a 2 character country code", "invalid-value"},
      {{"ComposerError", "MarkedYAMLError"},
       "raise",
       "expected a single document in the stream",
       "other"},
      {{"ValueError"}, "raise", "x must be a Tensor", "wrong-type"},
      {{"ValueError"}, "raise", "x must be a CUDA tensor", "wrong-type"},
      {{"ValueError"}, "raise", "id must be a UUID.", "invalid-value"},
      {{"ValueError"}, "raise", "x must be a str, not an URL", "wrong-type"},
      // One phrase naming a kind is enough.
      {{"ValueError"}, "raise", "n must be a multiple of 8 and name must be a str", "wrong-type"},
      {{"IndexError"}, "raise", "index ", "out-of-range"},
      {{"KeyError"}, "raise", "", "missing-key"},
      {{"RuntimeError"}, "raise", "device not found", "missing-key"},
      {{"AttributeError"}, "raise", "object has no attribute ", "missing-attribute"},
      // Refusing to set, delete or show an attribute misses nothing.
      {{"AttributeError"}, "raise", " object attribute '__dict__' is read-only", "other"},
      {{"AttributeError"}, "raise", "attempt to access private attribute \"\"", "other"},
      {{"FrozenInstanceError", "AttributeError"}, "raise", "can't set attribute", "other"},
      {{"AttributeError"}, "raise", " cannot delete member .", "other"},
      // A bare UnicodeError for the `errors` argument decodes nothing.
      {{"UnicodeError", "ValueError"}, "raise", "Unsupported error handling ", "not-implemented"},
      {{"UnicodeError", "ValueError"}, "raise", "label empty or too long", "parse-error"},
      {{"NotImplementedError", "RuntimeError"}, "raise", "", "not-implemented"},
      {{"ValueError"}, "raise", "complex inputs are not supported", "not-implemented"},
      {{"RuntimeError"}, "raise", "the stream is already closed", "invalid-state"},
      {{"ValueError"}, "raise", "Attempt to write into a closed pipe.", "invalid-state"},
      {{"ResourceWarning", "Warning"}, "warning", "unclosed file ", "io-error"},
      {{"AssertionError"}, "raise", "Thread.__init__() not called", "internal-assertion"},
      {{"RuntimeError"}, "raise", "Thread.__init__() not called", "invalid-state"},
      {{"FAILED_PRECONDITION"}, "status", "Buffer has been deleted", "invalid-state"},
      {{"MemoryError"}, "raise", "", "resource-exhausted"},
      {{"JSONDecodeError", "ValueError"}, "raise", "Expecting value", "parse-error"},
      {{"ValueError"}, "raise", "could not parse the header", "parse-error"},
      // "sparse" contains "parse" but is not the word.
      {{"ValueError"}, "raise", "sparse inputs need indices", "invalid-value"},
      {{"FileNotFoundError", "OSError"}, "raise", "", "io-error"},
      {{"TimeoutError", "OSError"}, "raise", "", "network-timeout"},
      {{"ZeroDivisionError", "ArithmeticError"}, "raise", "", "arithmetic"},
      {{"ValueError"}, "raise", "bad value", "invalid-value"},
      {{"UserWarning", "Warning"}, "warning", "results may vary", "runtime-warning"},
      {{"MyError", "Exception"}, "raise", "something odd", "other"},
      // A connection that failed, not the word: a plot's connection style, a
      // control system's series connection.
      {{"RuntimeError"}, "raise", "connection refused by the server", "network-timeout"},
      {{"NetworkXError", "Exception"},
       "raise",
       "`self_loop` connection style methodis only to be used for self-loops",
       "other"},
      {{"ValueError"},
       "raise",
       "To use Series connection for MIMO systems use MIMOSeries instead.",
       "invalid-value"},
      {{"DockerException", "Exception"},
       "raise",
       "The `websocket-client` library is required for using websocket connections.",
       "missing-dependency"},
      // An HTTP error is the server's answer, not a failed connection.
      {{"NotFound", "APIError", "HTTPError", "RequestException", "OSError"},
       "raise",
       "",
       "missing-key"},
      {{"ConnectionError", "OSError"}, "raise", "", "network-timeout"},
      // "infinite" names a path length or a loop as often as a number.
      {{"NetworkXNoPath", "Exception"},
       "raise",
       "Input graph  is disconnected, so every induced subgraph has infinite barycentricity.",
       "other"},
      {{"ValueError"}, "raise", "array must not contain infs or NaNs", "arithmetic"},
      {{"Error"}, "raise", "Infinite result from next_toward", "arithmetic"},
      {{"ProtocolError", "HTTPError", "Exception"},
       "raise",
       "('Connection broken: , )",
       "network-timeout"},
      // No connection failed: one may not be made in this mode.
      {{"ValueError"}, "raise", "can't connect in server-side mode", "invalid-value"},
      // An input of a kind the function does not take.
      {{"Exception"}, "raise", "hits() not defined for graphs with multiedges.", "not-implemented"},
      {{"NameError"}, "raise", "name  is not defined", "missing-key"},
      {{"RuntimeError"}, "raise", "variable x is undefined", "missing-key"},
      // Part of a class's name is no word of the message.
      {{"ValueError"},
       "raise",
       "MRV set computation for UndefinedFunction is not allowed",
       "invalid-value"},
      // What the file system says of a directory, not any mention of one.
      {{"InstallationError", "Exception"},
       "raise",
       ".data directory contents should be named like: '<scheme key>/<path>'.",
       "other"},
      {{"RuntimeError"}, "raise", "Is a directory: ", "io-error"},
      {{"DistutilsFileError", "DistutilsError", "Exception"},
       "raise",
       "package directory '' does not exist",
       "io-error"},
      {{"ValueError"}, "raise", "Path name  not found", "missing-key"},
      // Another subclass of AssertionError is the library's answer.
      {{"JsonPatchTestFailed", "JsonPatchException", "AssertionError"},
       "raise",
       " is not equal to tested value ",
       "other"},
      {{"AssertionError"}, "raise", "bad state", "internal-assertion"},
  };
  for (const Case& c : cases) {
    FamilyAssignment f = Classify(c);
    EXPECT_EQ(f.slug, c.family) << c.ancestry.front() << ": " << c.message << " (" << f.reason
                                << ")";
    EXPECT_FALSE(f.reason.empty());
    EXPECT_NE(FindFamily(f.slug), nullptr) << f.slug;
  }
}

// An AssertionError from an assert function (unittest's assertEqual, mock's
// assert_called_with) is a check its caller asked for; the same type from
// any other function is the library's own.
TEST(Family, AnAssertFunctionsErrorIsTheCallersCheck) {
  FamilyFacts f;
  f.ancestry = {"AssertionError", "Exception"};
  f.kind = "raise";
  f.message = "expected call not found.\nExpected: \n  Actual: not called.";
  EXPECT_EQ(ClassifyFamily(f).slug, "internal-assertion");
  f.asserts_for_caller = true;
  EXPECT_EQ(ClassifyFamily(f).slug, "failed-check");
  // An assert statement is the function's own check, whatever its name.
  f.kind = "assert";
  f.ancestry = {};
  EXPECT_EQ(ClassifyFamily(f).slug, "internal-assertion");
  // Another type from an assert function keeps its own family.
  f.kind = "raise";
  f.ancestry = {"TypeError", "Exception"};
  f.message = "expected str, got ";
  EXPECT_EQ(ClassifyFamily(f).slug, "wrong-type");
}

TEST(Family, GuardShapesDecideWhenTheMessageDoesNot) {
  Guard cases;
  cases.kind = "default-case";
  cases.subject = "stage";
  cases.values = {"0", "1"};
  FamilyAssignment f = Classify({{"RuntimeError"}, "raise", "Invalid pipeline stage", ""}, {cases});
  EXPECT_EQ(f.slug, "invalid-choice");
  EXPECT_EQ(f.reason, "`stage` matched none of the cases listed");

  Guard type;
  type.kind = "if";
  type.code = "not isinstance(pipeline_mode, pallas_core.Buffered)";
  type.subject = "pipeline_mode";
  type.values = {"pallas_core.Buffered"};
  f = Classify({{"LoweringException", "Exception"}, "raise", "Unsupported pipeline mode: .", ""},
               {type});
  // "Unsupported" would say not-implemented, but the isinstance check is the
  // more specific fact and comes first.
  EXPECT_EQ(f.slug, "wrong-type");
  EXPECT_EQ(f.reason,
            "the raise needs `pipeline_mode` not to be an instance of `pallas_core.Buffered`");

  // A comparison places nothing (it guards shapes, versions, states and
  // counts as often as bounds): the broad type does, and says it is broad.
  Guard bound;
  bound.kind = "if";
  bound.code = "n < 0";
  f = Classify({{"ValueError"}, "raise", "bad n", ""}, {bound});
  EXPECT_EQ(f.slug, "invalid-value");
  EXPECT_TRUE(f.weak);
  EXPECT_FALSE(Classify({{"ValueError"}, "raise", "n must be positive", ""}).weak);
  // A TypeError says it is a type error when a failed isinstance or its
  // words name the kind of value.
  EXPECT_TRUE(Classify({{"TypeError"}, "raise", "bad n", ""}).weak);
  EXPECT_FALSE(Classify({{"TypeError"}, "raise", "n must be an integer", ""}).weak);
  EXPECT_FALSE(Classify({{"TypeError"}, "raise", "bad n", ""}, {type}).weak);
  EXPECT_EQ(Classify({{"RuntimeError"}, "raise", "cannot do it", ""}).slug, "other");

  Guard set;
  set.kind = "if";
  set.code = "mode not in _MODES";
  set.subject = "mode";
  set.values = {"'a'", "'b'"};
  EXPECT_EQ(Classify({{"ValueError"}, "raise", "bad mode", ""}, {set}).slug, "invalid-choice");
}

// A raise right under a failed isinstance is a wrong type, whatever class
// it raises and though a conversion before the test lists no type.
TEST(Family, ARaiseUnderAFailedIsinstanceIsAWrongType) {
  FamilyFacts facts;
  facts.ancestry = {"ValueError", "Exception"};
  facts.kind = "raise";
  facts.message = "numpy.ndarray, scipy.sparse or SymPy matrix expected";
  EXPECT_EQ(ClassifyFamily(facts).slug, "invalid-value");
  facts.own_test_refuses_type = true;
  EXPECT_EQ(ClassifyFamily(facts).slug, "wrong-type");
  // Words of a choice do not outweigh it.
  facts.ancestry = {"TypeError", "Exception"};
  facts.message = "address type of  unrecognized";
  EXPECT_EQ(ClassifyFamily(facts).slug, "wrong-type");
  facts.own_test_refuses_type = false;
  EXPECT_EQ(ClassifyFamily(facts).slug, "invalid-choice");
}

// An AttributeError raised where an attribute is set or deleted refuses
// it; one that says the attribute is not there is still a missing one
// (a mock with `spec_set`).
TEST(Family, AnAttributeErrorOfASetterIsNoMissingAttribute) {
  FamilyFacts facts;
  facts.ancestry = {"AttributeError", "Exception"};
  facts.kind = "raise";
  facts.message = "Invalid config name: ";
  facts.functions = {"Config.__setattr__"};
  EXPECT_EQ(ClassifyFamily(facts).slug, "other");
  facts.functions = {"Config.get"};
  EXPECT_EQ(ClassifyFamily(facts).slug, "missing-attribute");
  facts.functions = {"NonCallableMock.__setattr__"};
  facts.message = "Mock object has no attribute ''";
  EXPECT_EQ(ClassifyFamily(facts).slug, "missing-attribute");
}

// A type whose words say otherwise is filed, not said: importlib's
// FileNotFoundError for a MultiplexedPath with no path touched no file, and
// libcst's NotImplementedError("nonlocal declaration not allowed at module
// level") refuses its input rather than lacking a feature.
TEST(Family, ATypesFamilyIsFiledNotSaidWhereItsWordsSayOtherwise) {
  struct Row {
    Case c;
    bool weak;
  };
  const std::vector<Row> rows = {
      {{{"FileNotFoundError", "OSError"},
        "raise",
        "MultiplexedPath must contain at least one path",
        "io-error"},
       true},
      {{{"FileNotFoundError", "OSError"}, "raise", "no such file: ", "io-error"}, false},
      {{{"NotImplementedError", "RuntimeError"},
        "raise",
        "nonlocal declaration not allowed at module level",
        "not-implemented"},
       true},
      {{{"NotImplementedError", "RuntimeError"}, "raise", "sparse inputs", "not-implemented"},
       false},
  };
  for (const Row& r : rows) {
    FamilyAssignment f = Classify(r.c);
    EXPECT_EQ(f.slug, r.c.family) << r.c.message;
    EXPECT_EQ(f.weak, r.weak) << r.c.message;
  }
}

}  // namespace
}  // namespace errdex::analyze
