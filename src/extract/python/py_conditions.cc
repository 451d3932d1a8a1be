#include "extract/python/py_conditions.h"

#include <algorithm>
#include <cstdint>

#include "core/text.h"
#include "extract/python/py_syntax.h"

namespace errdex::extract::python {
namespace {

std::string Text(TSNode n, std::string_view source) { return CodeText(n, source); }

int PrecedenceOf(TSNode n, std::string_view source) {
  switch (KindOf(n)) {
    case kBooleanOperator:
      return Operator(n, source) == "and" ? kPrecAnd : kPrecOr;
    case kNotOperator:
      return kPrecNot;
    case kComparisonOperator:
      return kPrecComparison;
    case kConditional:
      return kPrecConditional;
    case kLambda:
    case kNamedExpression:
      return kPrecLowest;
    default:
      return kPrecOperand;
  }
}

// `( x )` as `x`; a parenthesized comment or tuple stays as it is.
TSNode Unparenthesized(TSNode n) {
  while (KindOf(n) == kParenthesized && ts_node_named_child_count(n) == 1) {
    TSNode inner = ts_node_named_child(n, 0);
    if (KindOf(inner) == kComment) break;
    n = inner;
  }
  return n;
}

// Flips that are exact for every operand: Python defines `not in` and
// `is not` as the negation of `in` and `is`, and `!=` of builtins as that of
// `==`. The orderings are left alone: `not x < 5` holds for NaN, `x >= 5`
// does not.
std::string_view Flipped(std::string_view op) {
  if (op == "==") return "!=";
  if (op == "!=") return "==";
  if (op == "in") return "not in";
  if (op == "not in") return "in";
  if (op == "is") return "is not";
  if (op == "is not") return "is";
  return "";
}

Expr Not(const Expr& e) { return {"not " + Wrap(e, kPrecNot), kPrecNot}; }

}  // namespace

std::string Operator(TSNode n, std::string_view source) {
  std::string op;
  for (TSNode c : Children(n)) {
    if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + std::string(NodeText(c, source));
  }
  return op;
}

Expr Positive(TSNode cond, std::string_view source) {
  return {Text(cond, source), PrecedenceOf(cond, source)};
}

namespace {

// De Morgan's law through and/or to a bounded depth: a chain of 20,000
// `and`s is a tree that deep, and below the bound `not (...)` is as true.
constexpr int kMaxNegationDepth = 64;

Expr NegativeAt(TSNode cond, std::string_view source, int depth);

}  // namespace

Expr Negative(TSNode cond, std::string_view source) { return NegativeAt(cond, source, 0); }

namespace {

Expr NegativeAt(TSNode cond, std::string_view source, int depth) {
  cond = Unparenthesized(cond);
  if (depth > kMaxNegationDepth) return Not(Positive(cond, source));
  switch (KindOf(cond)) {
    case kNotOperator:
      return Positive(Unparenthesized(Field(cond, "argument")), source);
    case kTrue:
      return {"False", kPrecOperand};
    case kFalse:
      return {"True", kPrecOperand};
    case kBooleanOperator: {
      std::string op = Operator(cond, source);
      if (op != "and" && op != "or") break;
      int p = op == "and" ? kPrecOr : kPrecAnd;
      Expr left = NegativeAt(Field(cond, "left"), source, depth + 1);
      Expr right = NegativeAt(Field(cond, "right"), source, depth + 1);
      return {Wrap(left, p) + (op == "and" ? " or " : " and ") + Wrap(right, p), p};
    }
    case kComparisonOperator: {
      if (ts_node_named_child_count(cond) != 2) break;  // chained: a < b < c
      std::string_view to = Flipped(Operator(cond, source));
      if (to.empty()) break;
      return {Text(ts_node_named_child(cond, 0), source) + " " + std::string(to) + " " +
                  Text(ts_node_named_child(cond, 1), source),
              kPrecComparison};
    }
    case kCall: {
      // not any(p for ...) is all(not p for ...), and the other way round.
      std::string_view fn = NodeText(Field(cond, "function"), source);
      TSNode gen = Field(cond, "arguments");
      if ((fn != "any" && fn != "all") || KindOf(gen) != kGeneratorExpression) break;
      TSNode body = Field(gen, "body");
      uint32_t from = ts_node_end_byte(body);
      uint32_t to = ts_node_end_byte(gen) - 1;  // before the closing parenthesis
      if (ts_node_is_null(body) || to < from || source.size() < to) break;
      Expr element = NegativeAt(body, source, depth + 1);
      std::string rest = CollapseWhitespace(source.substr(from, to - from));
      return {std::string(fn == "any" ? "all(" : "any(") + Wrap(element, kPrecConditional) +
                  (rest.empty() || rest[0] == ' ' ? "" : " ") + rest + ")",
              kPrecOperand};
    }
    default:
      break;
  }
  return Not(Positive(cond, source));
}

}  // namespace

Expr PythonConditions::Positive(TSNode cond) const { return python::Positive(cond, source_); }
Expr PythonConditions::Negative(TSNode cond) const { return python::Negative(cond, source_); }

const flow::ConditionWriter::Words& PythonConditions::Connectives() const {
  static const Words kWords{" and ", " or ", kPrecAnd, kPrecOr, "True", "False", kPrecOperand};
  return kWords;
}

Expr Render(const Formula& f, std::string_view source) {
  return flow::Render(f, PythonConditions(source));
}

}  // namespace errdex::extract::python
