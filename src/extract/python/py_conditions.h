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

struct Expr {
  std::string text;
  int precedence = kPrecOperand;
};

// The operator tokens of a comparison or boolean operator: "not in", "and".
std::string Operator(TSNode n, std::string_view source);

// `text` in parentheses when it binds less tightly than `at_least`.
std::string Wrap(const Expr& e, int at_least);

// The condition `cond` as written (whitespace collapsed), or its exact
// negation. `source` is the text the tree was parsed from.
Expr Positive(TSNode cond, std::string_view source);
Expr Negative(TSNode cond, std::string_view source);

// A Boolean formula over conditions of the syntax tree.
struct Formula {
  enum Op : uint8_t { kTrue, kFalse, kAtom, kAnd, kOr };
  Op op = kTrue;
  TSNode atom{};          // kAtom: the condition
  bool negated = false;   // kAtom: the condition is false
  std::vector<Formula> parts;  // kAnd, kOr

  static Formula True() { return {}; }
  static Formula False() { return Formula{kFalse, {}, false, {}}; }
  static Formula Atom(TSNode n, bool negated) { return Formula{kAtom, n, negated, {}}; }
  static Formula And(std::vector<Formula> parts) { return Formula{kAnd, {}, false, std::move(parts)}; }
  static Formula Or(std::vector<Formula> parts) { return Formula{kOr, {}, false, std::move(parts)}; }
  size_t Atoms() const;
};

// The same truth function, smaller: constants folded, nesting flattened,
// `x or not x` and `(a and x) or (a and not x)` merged, literals shared by
// every alternative factored out, absorbed alternatives dropped. Exact: no
// rule assumes anything about what the conditions test.
Formula Simplify(Formula f);

// The formula as one Python expression.
Expr Render(const Formula& f, std::string_view source);

}  // namespace errdex::extract::python
