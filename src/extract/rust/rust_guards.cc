#include "extract/rust/rust_guards.h"

#include <string>

#include "core/text.h"
#include "extract/rust/rust_flow.h"
#include "extract/rust/rust_syntax.h"

namespace errdex::extract::rust {
namespace {

using flow::Expr;
using flow::GuardNode;

// Rust's precedence, low to high.
enum Precedence : int {
  kPrecLowest = 0,  // assignment, ranges, closures
  kPrecOr,
  kPrecAnd,
  kPrecComparison,
  kPrecBitOr,
  kPrecBitXor,
  kPrecBitAnd,
  kPrecShift,
  kPrecAdditive,
  kPrecMultiplicative,
  kPrecCast,
  kPrecUnary,
  kPrecOperand,
};

int BinaryPrecedence(std::string_view op) {
  if (op == "||") return kPrecOr;
  if (op == "&&") return kPrecAnd;
  if (op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=") {
    return kPrecComparison;
  }
  if (op == "|") return kPrecBitOr;
  if (op == "^") return kPrecBitXor;
  if (op == "&") return kPrecBitAnd;
  if (op == "<<" || op == ">>") return kPrecShift;
  if (op == "+" || op == "-") return kPrecAdditive;
  if (op == "*" || op == "/" || op == "%") return kPrecMultiplicative;
  return kPrecLowest;
}

class RustGuardSyntax : public flow::GuardSyntax {
 public:
  explicit RustGuardSyntax(std::string_view source) : GuardSyntax(source), symbols_(Symbols()) {}

  GuardNode Kind(TSNode n) const override {
    switch (K(n)) {
      case kLineComment:
      case kBlockComment:
        return GuardNode::kComment;
      case kFunctionItem:
      case kClosure:
        return GuardNode::kScope;
      case kBlock:
      case kUnsafeBlock:
      case kExpressionStatement:  // what its expression does
        return GuardNode::kBlock;
      case kIfExpression:
        return GuardNode::kIf;
      case kElseClause:
        return GuardNode::kElse;
      case kWhileExpression:
      case kLoopExpression:  // a while whose condition always holds
        return GuardNode::kWhile;
      case kForExpression:
        return GuardNode::kFor;
      case kMatchExpression:
        return GuardNode::kMatch;
      case kMatchBlock:
        return GuardNode::kBlock;
      case kMatchArm:
        return GuardNode::kCase;
      case kReturn:
        return GuardNode::kReturn;
      case kBreak:
      case kContinue:
        // `break 'outer` leaves loops the reader would take it to be inside
        // of: a jump it knows nothing more of.
        return HasLabel(n) ? GuardNode::kGoto
                           : (K(n) == kBreak ? GuardNode::kBreak : GuardNode::kContinue);
      case kMacroInvocation:
        return DivergingMacro(MacroName(n, source())) ? GuardNode::kRaise : GuardNode::kOther;
      default:
        return GuardNode::kOther;
    }
  }

  TSNode Condition(TSNode n) const override {
    return K(n) == kLoopExpression ? TSNode{} : Unparenthesized(Field(n, "condition"));
  }

  TSNode Body(TSNode n) const override {
    switch (K(n)) {
      case kIfExpression:
        return Field(n, "consequence");
      case kElseClause:
        for (TSNode c : NamedChildren(n)) {
          if (Kind(c) != GuardNode::kComment) return c;
        }
        return {};
      default:
        return Field(n, "body");
    }
  }

  bool AlwaysTrue(TSNode cond) const override {
    return ts_node_is_null(cond) || NodeText(cond, source()) == "true";
  }

  bool LoopGuard(TSNode loop, Guard& g) const override {
    g.kind = "for";
    g.code = Code(Field(loop, "pattern")) + " in " + Code(Field(loop, "value"));
    g.line = StartLine(loop);
    return true;
  }


  // An arm of a match: its pattern; `_` is every value the arms above do
  // not list.
  void CaseGuards(TSNode match, TSNode block, TSNode arm, const FallsOut& /*falls_out*/,
                  std::vector<Guard>& out) const override {
    if (K(match) != kMatchExpression) return;
    Guard g;
    g.kind = "case";
    g.code = Code(Field(arm, "pattern"));
    g.line = StartLine(arm);
    g.subject = Code(Field(match, "value"));
    if (g.code == "_") {
      g.kind = "default-case";
      for (TSNode p : NamedChildren(block)) {
        if (SameNode(p, arm) || g.values.size() >= 64) break;
        if (K(p) == kMatchArm) g.values.push_back(Code(Field(p, "pattern")));
      }
    }
    out.push_back(std::move(g));
  }

  // One condition's `when` is its code where it holds; its negation is left
  // to core/guards.h, as before the shared reader.
  bool WritesWhen() const override { return false; }
  bool MatchOwnsBreak() const override { return false; }
  bool HasLabels() const override { return false; }

  Expr Positive(TSNode cond) const override {
    return {CodeText(cond, source()), PrecedenceOf(cond)};
  }

  // The exact negation: `!` dropped, De Morgan over `&&` and `||`, `==` and
  // `!=` swapped; anything else gets a `!`.
  Expr Negative(TSNode cond) const override {
    cond = Unparenthesized(cond);
    if (NodeType(cond) == "unary_expression" && NodeText(cond, source()).substr(0, 1) == "!") {
      TSNode arg = ts_node_named_child(cond, 0);
      if (!ts_node_is_null(arg)) return Positive(Unparenthesized(arg));
    }
    if (NodeType(cond) == "binary_expression") {
      std::string_view op = NodeText(Field(cond, "operator"), source());
      TSNode left = Field(cond, "left");
      TSNode right = Field(cond, "right");
      if (std::optional<Expr> e =
              flow::NegatedCBinary(op, left, right, source(), *this, kPrecComparison)) {
        return *e;
      }
    }
    return {"!" + flow::Wrap(Positive(cond), kPrecUnary), kPrecUnary};
  }

  const Words& Connectives() const override {
    static const Words kWords{" && ", " || ", kPrecAnd, kPrecOr, "true", "false", kPrecOperand};
    return kWords;
  }

 private:
  uint16_t K(TSNode n) const {
    return ts_node_is_null(n) ? static_cast<uint16_t>(kOther) : symbols_.Kind(n);
  }

  bool HasLabel(TSNode n) const {
    for (TSNode c : NamedChildren(n)) {
      if (K(c) == kLabel) return true;
    }
    return false;
  }

  TSNode Unparenthesized(TSNode n) const {
    while (K(n) == kParenthesized && ts_node_named_child_count(n) == 1)
      n = ts_node_named_child(n, 0);
    return n;
  }

  int PrecedenceOf(TSNode n) const {
    std::string_view type = NodeType(n);
    if (type == "binary_expression") {
      return BinaryPrecedence(NodeText(Field(n, "operator"), source()));
    }
    if (type == "unary_expression" || type == "reference_expression") return kPrecUnary;
    if (type == "type_cast_expression") return kPrecCast;
    if (type == "let_condition" || type == "let_chain" || type == "assignment_expression" ||
        type == "range_expression" || type == "closure_expression") {
      return kPrecLowest;
    }
    return kPrecOperand;
  }

  const SymbolTable& symbols_;
};

}  // namespace

std::vector<Guard> RustGuards(TSNode scope, TSNode target, std::string_view source,
                              flow::GuardCache& cache) {
  return flow::ReadGuards(scope, target, RustGuardSyntax(source), cache);
}

}  // namespace errdex::extract::rust
