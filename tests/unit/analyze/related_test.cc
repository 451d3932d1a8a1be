// Related errors: the order of the three relations, similarity within a
// family only, at most five, and nothing related to itself.
#include "analyze/related.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

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

TEST(Related, ThousandsInOneFileGiveWhatComparingEveryPairGives) {
  // 2,000 errors in three files, a few functions each, some also at module
  // level of a shared file; no words in common, so only places relate them.
  std::vector<RelatedInput> errors;
  for (int k = 0; k < 2000; ++k) {
    std::string id = std::to_string(100000 + (k * 7919) % 10007);  // ids not in input order
    RelatedInput r = Error(id, "message" + std::to_string(k), "invalid-value",
                           "f" + std::to_string(k % 3) + ".py",
                           k % 5 == 0 ? "<module>" : "fn" + std::to_string(k % 7));
    if (k % 11 == 0) r.places.emplace_back("shared.py", "<module>");
    errors.push_back(std::move(r));
  }
  std::vector<std::vector<RelatedError>> r = FindRelated(errors);
  ASSERT_EQ(r.size(), errors.size());
  for (size_t i = 0; i < errors.size(); ++i) {
    // Every other error, scored as the relation says, best first.
    std::vector<std::tuple<int, std::string, std::string>> all;  // -base, id, reason
    for (size_t j = 0; j < errors.size(); ++j) {
      if (j == i) continue;
      int base = 0;
      for (const auto& [pi, fi] : errors[i].places) {
        for (const auto& [pj, fj] : errors[j].places) {
          if (pi == pj && fi == fj && fi != "<module>") base = std::max(base, 3);
          if (pi == pj) base = std::max(base, 2);
        }
      }
      if (base > 0)
        all.emplace_back(-base, errors[j].id, base == 3 ? "same function" : "same file");
    }
    std::sort(all.begin(), all.end());
    all.resize(std::min<size_t>(all.size(), 5));
    ASSERT_EQ(r[i].size(), all.size()) << i;
    for (size_t k = 0; k < all.size(); ++k) {
      EXPECT_EQ(r[i][k].id, std::get<1>(all[k])) << i << " " << k;
      EXPECT_EQ(r[i][k].reason, std::get<2>(all[k])) << i << " " << k;
      EXPECT_EQ(r[i][k].score, -std::get<0>(all[k])) << i << " " << k;
    }
  }
}

TEST(Related, WordsAreLowercasedRunsOfTwoOrMore) {
  EXPECT_EQ(Words("Invalid TMEMLayout: x, dim_1!"),
            (std::vector<std::string>{"invalid", "tmemlayout", "dim_1"}));
}

}  // namespace
}  // namespace errdex::analyze
