// What the data-flow property tests share: random functions of one
// variable `m` (the choices, a label per definition, blocks of statements,
// where the one target goes; each test says what a statement is in its
// language), and the scoring, per function, of what the flow listed
// against what the reference (CPython, a g++ program) saw.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>

namespace errdex::extract {

class FlowProgram {
 public:
  FlowProgram(uint32_t seed, int indent_width) : rng_(seed), width_(indent_width) {}
  virtual ~FlowProgram() = default;

 protected:
  // One statement at `indent`, `depth` constructs deep; `flag` is the
  // test's own (inside a try, inside a switch).
  virtual std::string Statement(int indent, int depth, bool in_loop, bool flag) = 0;

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string Pad(int indent) const {
    return std::string(static_cast<size_t>(width_ * indent), ' ');
  }
  // `D1`, `A2`, ...: unique over the whole program, so a label names one definition.
  std::string Label(char kind) { return std::string(1, kind) + std::to_string(++label_); }

  std::string Block(int indent, int depth, bool in_loop, bool flag) {
    std::string out;
    for (int n = 1 + Pick(3), i = 0; i < n; ++i) out += Statement(indent, depth, in_loop, flag);
    return out;
  }

  // Whether the target goes here: one statement in eight until it is placed.
  bool PlaceTarget() {
    if (target_placed_ || Pick(8) != 0) return false;
    target_placed_ = true;
    return true;
  }

  bool target_placed_ = false;

 private:
  std::mt19937 rng_;
  int width_;
  int label_ = 0;
};

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
