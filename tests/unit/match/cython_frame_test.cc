// Frames of compiled Cython modules, placed through their dotted function
// names (src/match/parse.cc, ResolveCythonFrame).
#include <gtest/gtest.h>

#include "match/parse.h"

namespace errdex::match {
namespace {

TEST(CythonFrame, ABasenameTakesItsPackageFromTheFunction) {
  Frame f = ResolveCythonFrame({"mtrand.pyx", 958, "numpy.random.mtrand.RandomState.choice"});
  EXPECT_EQ(f.path, "numpy/random/mtrand.pyx");
  EXPECT_EQ(f.line, 958);
  EXPECT_EQ(f.function, "RandomState.choice");
  f = ResolveCythonFrame(
      {"_bounded_integers.pyx", 1247, "numpy.random._bounded_integers._rand_int64"});
  EXPECT_EQ(f.path, "numpy/random/_bounded_integers.pyx");
  EXPECT_EQ(f.function, "_rand_int64");
}

TEST(CythonFrame, APathKeepsItsDirectoriesAndLosesTheModule) {
  Frame f = ResolveCythonFrame(
      {"numpy/random/_generator.pyx", 7, "numpy.random._generator.Generator.integers"});
  EXPECT_EQ(f.path, "numpy/random/_generator.pyx");
  EXPECT_EQ(f.function, "Generator.integers");
}

TEST(CythonFrame, OtherFramesAreLeftAlone) {
  for (Frame in : {Frame{"/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py", 3, "sum"},
                   Frame{"mtrand.pyx", 3, "choice"},                // no module in the name
                   Frame{"mtrand.pyx", 3, "numpy.random.other.f"},  // another module
                   Frame{"<string>", 1, "<module>"}, Frame{".pyx", 1, "a.b"}, Frame{"", 0, ""}}) {
    Frame out = ResolveCythonFrame(in);
    EXPECT_EQ(out.path, in.path);
    EXPECT_EQ(out.function, in.function);
  }
}

TEST(CythonFrame, ATracebackIsParsedThenPlaced) {
  std::vector<ParsedError> parsed = ParseRuntimeText(
      "Traceback (most recent call last):\n"
      "  File \"<string>\", line 3, in <module>\n"
      "  File \"_ckdtree.pyx\", line 789, in scipy.spatial._ckdtree.cKDTree.query\n"
      "ValueError: Only p-norms with 1<=p<=infinity permitted\n");
  ASSERT_EQ(parsed.size(), 1u);
  ASSERT_EQ(parsed[0].frames.size(), 2u);
  Frame f = ResolveCythonFrame(parsed[0].frames[1]);
  EXPECT_EQ(f.path, "scipy/spatial/_ckdtree.pyx");
  EXPECT_EQ(f.function, "cKDTree.query");
}

}  // namespace
}  // namespace errdex::match
