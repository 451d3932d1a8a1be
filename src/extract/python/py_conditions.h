// Python conditions as they must hold on the way to a raise, written so that
// they mean exactly what the code means: a negation is pushed inwards by De
// Morgan's laws (`not (a and b)` is `not a or not b`), flips only what flips
// exactly (`==`/`!=`, `in`/`not in`, `is`/`is not`, `any`/`all` over a
// generator) and keeps `not` in front of everything else — `not x < 5` is
// not `x >= 5` when x is NaN or a set. What gets a statement's successor
// run (its fall-through) is a small Boolean formula over such conditions,
// simplified before it becomes guards.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "extract/flow/conditions.h"

namespace errdex::extract::python {

// An expression's text and how tightly it binds (Python's precedence, low to
// high), so that composing it adds exactly the parentheses it needs.
enum Precedence : int {
  kPrecLowest = 0,  // lambda, walrus
  kPrecConditional,
  kPrecOr,
  kPrecAnd,
  kPrecNot,
  kPrecComparison,
  kPrecOperand,  // arithmetic, calls, names, literals
};

using flow::Expr;
using flow::Formula;
using flow::Simplify;
using flow::Wrap;

// The operator tokens of a comparison or boolean operator: "not in", "and".
std::string Operator(TSNode n, std::string_view source);

// The condition `cond` as written (whitespace collapsed), or its exact
// negation. `source` is the text the tree was parsed from.
Expr Positive(TSNode cond, std::string_view source);
Expr Negative(TSNode cond, std::string_view source);

// Python's way of writing conditions (for flow::Render and the guard reader).
class PythonConditions : public flow::ConditionWriter {
 public:
  explicit PythonConditions(std::string_view source) : source_(source) {}
  Expr Positive(TSNode cond) const override;
  Expr Negative(TSNode cond) const override;
  const Words& Connectives() const override;

 private:
  std::string_view source_;
};

// The formula as one Python expression.
Expr Render(const Formula& f, std::string_view source);

}  // namespace errdex::extract::python
