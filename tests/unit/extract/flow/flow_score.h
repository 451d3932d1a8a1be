// Scoring shared by the data-flow property tests: per function, what the
// flow listed against what the reference (CPython, a g++ program) saw.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

namespace errdex::extract {

struct FlowScore {
  int reached = 0;  // functions whose target some run reached
  int exact = 0;    // of those, listed exactly what the runs saw
  int extra = 0;    // definitions listed that no run saw
  int capped = 0;   // lists the flow cut at its bound (not checked)

  // A definition the reference saw that the flow does not list fails the
  // test; `source` is the function, shown when it does.
  void Add(bool truncated, const std::set<std::string>& listed, const nlohmann::json& observed,
           std::string_view source) {
    if (truncated) {
      ++capped;  // a bound, not a claim: the flow says it dropped some
      return;
    }
    if (observed.empty()) return;
    ++reached;
    std::set<std::string> saw;
    for (const auto& l : observed) saw.insert(l.get<std::string>());
    for (const std::string& l : saw) {
      EXPECT_TRUE(listed.count(l)) << "the reference saw " << l << " at the target, the flow lists "
                                   << ::testing::PrintToString(listed) << " in\n"
                                   << source;
    }
    if (listed == saw) ++exact;
    for (const std::string& l : listed) extra += saw.count(l) ? 0 : 1;
  }

  // Most functions reach their target, few lists are cut, and at least
  // `exact_percent` of them list exactly what was seen: a flow listing
  // every definition would never miss one.
  void Check(int functions, int exact_percent) const {
    std::printf(
        "%d functions reach their target; the flow lists exactly what the reference saw "
        "for %d; %d definitions listed that no run saw; %d lists cut at the bound\n",
        reached, exact, extra, capped);
    EXPECT_GT(reached, functions / 2);
    EXPECT_LT(capped, functions / 20);
    EXPECT_GT(exact, reached * exact_percent / 100);
  }
};

}  // namespace errdex::extract
