// Conditions on the way to a raise as a small Boolean formula, for every
// language: what gets a statement's successor run (its fall-through) is
// built over the conditions a front end's syntax tests, simplified without
// assuming anything about what they test, and written back in the
// language's own syntax by the front end's writer.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errdex::extract::flow {

// A Boolean formula over conditions of a syntax tree; atoms are equal when
// they are the same node.
struct Formula {
  enum Op : uint8_t { kTrue, kFalse, kAtom, kAnd, kOr };
  Op op = kTrue;
  TSNode atom{};               // kAtom: the condition
  bool negated = false;        // kAtom: the condition is false
  std::vector<Formula> parts;  // kAnd, kOr

  static Formula True() { return {}; }
  static Formula False() { return Formula{kFalse, {}, false, {}}; }
  static Formula Atom(TSNode n, bool negated) { return Formula{kAtom, n, negated, {}}; }
  static Formula And(std::vector<Formula> parts) {
    return Formula{kAnd, {}, false, std::move(parts)};
  }
  static Formula Or(std::vector<Formula> parts) {
    return Formula{kOr, {}, false, std::move(parts)};
  }
  size_t Atoms() const;
};

// The same truth function, smaller: constants folded, nesting flattened,
// `x or not x` and `(a and x) or (a and not x)` merged, literals shared by
// every alternative factored out, absorbed alternatives dropped, operands
// back in source order. Exact: no rule assumes anything about what the
// conditions test.
Formula Simplify(Formula f);

// An expression's text and how tightly it binds (the language's precedence,
// higher binds tighter), so that composing it adds exactly the parentheses
// it needs.
struct Expr {
  std::string text;
  int precedence = 0;
};

// `e`'s text, in parentheses when it binds less tightly than `at_least`.
std::string Wrap(const Expr& e, int at_least);

// How one language writes a condition and its exact negation, and its
// Boolean connectives.
class ConditionWriter {
 public:
  virtual ~ConditionWriter() = default;
  virtual Expr Positive(TSNode cond) const = 0;
  virtual Expr Negative(TSNode cond) const = 0;
  struct Words {
    const char* and_word;  // " and ", " && "
    const char* or_word;
    int and_precedence;
    int or_precedence;
    const char* true_word;
    const char* false_word;
    int operand_precedence;
  };
  virtual const Words& Connectives() const = 0;
};

// The formula as one expression of the writer's language.
Expr Render(const Formula& f, const ConditionWriter& writer);

// The exact negation of `left op right` in C, C++ or Rust, when there is
// one without a `!` in front: De Morgan over `&&` and `||` (the operands
// negated by `writer`), `==` and `!=` swapped. None for any other
// operator: `!(x < 5)` is not `x >= 5` for NaN.
std::optional<Expr> NegatedCBinary(std::string_view op, TSNode left, TSNode right,
                                   std::string_view source, const ConditionWriter& writer,
                                   int equality_precedence);

}  // namespace errdex::extract::flow
