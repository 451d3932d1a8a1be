#include "analyze/lineage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace errdex::analyze {
namespace {

// An error of a library with versions 1.0, 1.1, 1.2, present where `sites`
// is non-zero, raised in `function` of m.py.
catalog::ErrorRecord Error(const std::string& id, const std::string& exception,
                           const std::string& text, std::vector<int64_t> sites,
                           const std::string& function = "f",
                           const std::string& path = "m.py") {
  catalog::ErrorRecord e;
  e.id = id;
  e.exception = exception;
  e.template_text = text;
  e.message = Template::Literal(text);
  const char* revs[] = {"1.0", "1.1", "1.2"};
  for (size_t k = 0; k < sites.size(); ++k) e.versions.push_back({revs[k], "", "", sites[k], {}});
  catalog::SiteRecord s;
  s.path = path;
  s.function = function;
  e.sites.push_back(s);
  return e;
}

struct Linked {
  std::vector<Analysis> analyses;
};

Linked Link(const std::vector<catalog::ErrorRecord>& errors) {
  Linked out;
  out.analyses.resize(errors.size());
  std::vector<const catalog::ErrorRecord*> records;
  std::vector<Analysis*> analyses;
  for (size_t i = 0; i < errors.size(); ++i) {
    records.push_back(&errors[i]);
    analyses.push_back(&out.analyses[i]);
  }
  LinkRewordings(records, analyses);
  return out;
}

TEST(Lineage, ARewordedErrorLinksBothWays) {
  std::vector<catalog::ErrorRecord> errors = {
      Error("old", "ValueError", "Only numeric dtypes are allowed in floor", {1, 1, 0}),
      Error("new", "ValueError", "Only real numeric dtypes are allowed in floor", {0, 0, 2}),
      Error("kept", "ValueError", "something else entirely", {1, 1, 1}),
  };
  Linked l = Link(errors);
  ASSERT_EQ(l.analyses[0].reworded_to.size(), 1u);
  EXPECT_EQ(l.analyses[0].reworded_to[0].id, "new");
  EXPECT_EQ(l.analyses[0].reworded_to[0].last_before, "1.1");
  EXPECT_EQ(l.analyses[0].reworded_to[0].first_after, "1.2");
  ASSERT_EQ(l.analyses[1].reworded_from.size(), 1u);
  EXPECT_EQ(l.analyses[1].reworded_from[0].id, "old");
  EXPECT_TRUE(l.analyses[2].reworded_from.empty());
  EXPECT_TRUE(l.analyses[2].reworded_to.empty());
}

TEST(Lineage, OnlyAcrossOneBoundaryAndInTheSameFunction) {
  std::vector<catalog::ErrorRecord> errors = {
      // Gone after 1.0, the other born in 1.2: a gap, not a rewording.
      Error("a", "ValueError", "bad value", {1, 0, 0}),
      Error("b", "ValueError", "bad value given", {0, 0, 1}),
      // The same boundary but another function.
      Error("c", "TypeError", "wrong type", {1, 0, 0}),
      Error("d", "TypeError", "wrong type here", {0, 1, 1}, "g"),
  };
  Linked l = Link(errors);
  for (const Analysis& a : l.analyses) {
    EXPECT_TRUE(a.reworded_from.empty());
    EXPECT_TRUE(a.reworded_to.empty());
  }
}

TEST(Lineage, SeveralInOneFunctionPairByWords) {
  std::vector<catalog::ErrorRecord> errors = {
      Error("x1", "ValueError", "axis out of range", {1, 0, 0}),
      Error("y1", "ValueError", "dtype not understood", {1, 0, 0}),
      Error("y2", "ValueError", "dtype is not understood", {0, 1, 1}),
      Error("x2", "ValueError", "axis is out of range", {0, 1, 1}),
      Error("z2", "ValueError", "nothing alike here", {0, 1, 1}),
  };
  Linked l = Link(errors);
  ASSERT_EQ(l.analyses[0].reworded_to.size(), 1u);
  EXPECT_EQ(l.analyses[0].reworded_to[0].id, "x2");
  ASSERT_EQ(l.analyses[1].reworded_to.size(), 1u);
  EXPECT_EQ(l.analyses[1].reworded_to[0].id, "y2");
  EXPECT_TRUE(l.analyses[4].reworded_from.empty());
}

TEST(Lineage, OneVersionHasNoLineage) {
  std::vector<catalog::ErrorRecord> errors = {Error("a", "ValueError", "x", {1})};
  Linked l = Link(errors);
  EXPECT_TRUE(l.analyses[0].reworded_to.empty());
}

}  // namespace
}  // namespace errdex::analyze

namespace errdex::analyze {
namespace {

// An error raised in three functions meets a new wording in each: one
// successor, the closest.
TEST(Lineage, OneSuccessorPerError) {
  std::vector<catalog::ErrorRecord> errors = {
      Error("old", "TypeError", "Encountered an unexpected tracer", {1, 0, 0}, "f"),
      Error("n1", "TypeError", "Encountered an unexpected tracer here", {0, 1, 1}, "f"),
      Error("n2", "TypeError", "unexpected tracer found", {0, 1, 1}, "g"),
  };
  catalog::SiteRecord in_g;
  in_g.path = "m.py";
  in_g.function = "g";
  errors[0].sites.push_back(in_g);
  Linked l = Link(errors);
  ASSERT_EQ(l.analyses[0].reworded_to.size(), 1u);
  EXPECT_EQ(l.analyses[0].reworded_to[0].id, "n1");
  EXPECT_TRUE(l.analyses[2].reworded_from.empty());
}

// A release that moved the file and reworded the message: linked by the
// function and type when they are alone at that boundary and keep half
// their words; not when two candidates share the name, nor across types.
TEST(Lineage, AcrossAMovedFileByFunctionAndType) {
  std::vector<catalog::ErrorRecord> moved = {
      Error("old", "ValueError", "window size must be a positive integer", {1, 1, 0}, "rolling",
            "pkg/_window.py"),
      Error("new", "ValueError", "window size must be a positive integer, got {}", {0, 0, 1},
            "rolling", "pkg/core/window.py"),
  };
  Linked l = Link(moved);
  ASSERT_EQ(l.analyses[0].reworded_to.size(), 1u);
  EXPECT_EQ(l.analyses[0].reworded_to[0].id, "new");
  EXPECT_EQ(l.analyses[0].reworded_to[0].first_after, "1.2");

  std::vector<catalog::ErrorRecord> ambiguous = {
      Error("old", "ValueError", "window size must be a positive integer", {1, 1, 0}, "rolling",
            "pkg/_window.py"),
      Error("new1", "ValueError", "window size must be a positive integer, got {}", {0, 0, 1},
            "rolling", "pkg/core/window.py"),
      Error("new2", "ValueError", "window size must be a positive integer here", {0, 0, 1},
            "rolling", "pkg/other/window.py"),
      Error("t_old", "TypeError", "window must be an int", {1, 1, 0}, "check", "pkg/_window.py"),
      Error("t_new", "ValueError", "window must be an int", {0, 0, 1}, "check", "pkg/w.py"),
  };
  l = Link(ambiguous);
  for (const Analysis& a : l.analyses) {
    EXPECT_TRUE(a.reworded_to.empty());
    EXPECT_TRUE(a.reworded_from.empty());
  }
}

}  // namespace
}  // namespace errdex::analyze
