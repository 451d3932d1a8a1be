// Related errors: the order of the three relations, similarity within a
// family only, at most five, and nothing related to itself.
#include "analyze/related.h"

#include <gtest/gtest.h>

namespace errdex::analyze {
namespace {

RelatedInput Error(std::string id, std::string message, std::string family, std::string path,
                   std::string function) {
  RelatedInput r;
  r.id = std::move(id);
  r.exception = "ValueError";
  r.template_text = message;
  r.message = std::move(message);
  r.family = std::move(family);
  r.places = {{std::move(path), std::move(function)}};
  return r;
}

std::vector<std::string> Ids(const std::vector<RelatedError>& r) {
  std::vector<std::string> out;
  for (const RelatedError& e : r) out.push_back(e.id);
  return out;
}

TEST(Related, FunctionThenFileThenSimilarFamily) {
  std::vector<RelatedInput> errors = {
      Error("a", "Unsupported pipeline mode", "wrong-type", "lowering.py", "lower"),
      Error("b", "Lookahead is not supported", "not-implemented", "lowering.py", "lower"),
      Error("c", "Bad block shape", "shape-mismatch", "lowering.py", "other"),
      Error("d", "Unsupported pipeline mode for the GPU", "wrong-type", "gpu.py", "g"),
      // Similar words, another family: not related.
      Error("e", "Unsupported pipeline mode here", "invalid-value", "x.py", "h"),
      // Same family, nothing in common.
      Error("f", "Wrong thing entirely", "wrong-type", "y.py", "k"),
  };
  std::vector<std::vector<RelatedError>> r = FindRelated(errors);
  ASSERT_EQ(r.size(), errors.size());
  EXPECT_EQ(Ids(r[0]), (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(r[0][0].reason, "same function");
  EXPECT_EQ(r[0][1].reason, "same file");
  EXPECT_EQ(r[0][2].reason, "same family, similar text");
  EXPECT_GT(r[0][0].score, r[0][1].score);
  EXPECT_GT(r[0][1].score, r[0][2].score);
  EXPECT_EQ(Ids(r[4]), std::vector<std::string>{});
  EXPECT_EQ(Ids(r[5]), std::vector<std::string>{});
  for (size_t i = 0; i < r.size(); ++i) {
    for (const RelatedError& e : r[i]) EXPECT_NE(e.id, errors[i].id);
  }
}

TEST(Related, AtMostFiveCloserWordingFirst) {
  std::vector<RelatedInput> errors;
  errors.push_back(Error("x", "axis out of range for operand", "out-of-range", "m.py", "f"));
  for (int i = 0; i < 8; ++i) {
    errors.push_back(Error(
        "y" + std::to_string(i),
        i == 3 ? "axis out of range for operand here" : "unrelated words " + std::to_string(i),
        "out-of-range", "m.py", "f"));
  }
  std::vector<std::vector<RelatedError>> r = FindRelated(errors);
  ASSERT_EQ(r[0].size(), 5u);
  EXPECT_EQ(r[0][0].id, "y3") << "same function for all: the closest wording first";
}

TEST(Related, WordsAreLowercasedRunsOfTwoOrMore) {
  EXPECT_EQ(Words("Invalid TMEMLayout: x, dim_1!"),
            (std::vector<std::string>{"invalid", "tmemlayout", "dim_1"}));
}

}  // namespace
}  // namespace errdex::analyze
