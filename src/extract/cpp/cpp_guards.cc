#include "extract/cpp/cpp_guards.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "core/text.h"
#include "extract/cpp/cpp_syntax.h"

namespace errdex::extract::cpp {
namespace {

using flow::Expr;
using flow::GuardNode;

// Cases falling into a case beyond this many are named, not spelled out.
constexpr size_t kMaxChain = 16;

// C's precedence, low to high.
enum Precedence : int {
  kPrecComma = 0,
  kPrecAssign,  // and ?:
  kPrecOr,
  kPrecAnd,
  kPrecBitOr,
  kPrecBitXor,
  kPrecBitAnd,
  kPrecEquality,
  kPrecRelational,
  kPrecShift,
  kPrecAdditive,
  kPrecMultiplicative,
  kPrecUnary,
  kPrecOperand,  // postfix, calls, names, literals, parentheses
};

int BinaryPrecedence(std::string_view op) {
  if (op == "||" || op == "or") return kPrecOr;
  if (op == "&&" || op == "and") return kPrecAnd;
  if (op == "|" || op == "bitor") return kPrecBitOr;
  if (op == "^" || op == "xor") return kPrecBitXor;
  if (op == "&" || op == "bitand") return kPrecBitAnd;
  if (op == "==" || op == "!=" || op == "not_eq") return kPrecEquality;
  if (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "<=>") return kPrecRelational;
  if (op == "<<" || op == ">>") return kPrecShift;
  if (op == "+" || op == "-") return kPrecAdditive;
  if (op == "*" || op == "/" || op == "%") return kPrecMultiplicative;
  return kPrecComma;  // unknown: parenthesize wherever it goes
}

class CppGuardSyntax : public flow::GuardSyntax {
 public:
  CppGuardSyntax(std::string_view source, bool is_c)
      : GuardSyntax(source), symbols_(Symbols(is_c)) {}

  GuardNode Kind(TSNode n) const override {
    switch (K(n)) {
      case kComment:
        return GuardNode::kComment;
      case kFunctionDefinition:
      case kLambda:
        return GuardNode::kScope;
      case kCompoundStatement:
        return GuardNode::kBlock;
      case kIfStatement:
        return GuardNode::kIf;
      case kElseClause:
        return GuardNode::kElse;
      case kWhileStatement:
      case kForStatement:  // its condition holds in its body, as a while's
        return GuardNode::kWhile;
      case kDoStatement:
        return GuardNode::kDo;
      case kForRange:
        return GuardNode::kFor;
      case kTryStatement:
        return GuardNode::kTry;
      case kCatchClause:
        return GuardNode::kHandler;
      case kSwitch:
        return GuardNode::kMatch;
      case kCaseStatement:
        return GuardNode::kCase;
      case kLabeledStatement:
        return GuardNode::kLabel;
      case kPreprocIf:
      case kPreprocIfdef:
      case kPreprocElse:
      case kPreprocElif:
      case kPreprocElifdef:
        return GuardNode::kHolder;
      case kAttributedStatement:
        return GuardNode::kWrapper;
      case kReturn:
        return GuardNode::kReturn;
      case kThrow:
        return GuardNode::kRaise;
      case kBreak:
        return GuardNode::kBreak;
      case kContinue:
        return GuardNode::kContinue;
      case kGoto:
        return GuardNode::kGoto;
      default:
        return GuardNode::kOther;
    }
  }

  // The condition an if/while/for/do tests, without C++'s condition_clause
  // or C's parentheses.
  TSNode Condition(TSNode n) const override {
    TSNode c = Field(n, "condition");
    if (K(c) == kConditionClause) c = Field(c, "value");
    return Unparenthesized(c);
  }

  TSNode Body(TSNode n) const override {
    switch (K(n)) {
      case kIfStatement:
        return Field(n, "consequence");
      case kElseClause:
        for (TSNode c : NamedChildren(n)) {
          if (K(c) != kComment) return c;
        }
        return {};
      case kAttributedStatement:  // the statement after `[[...]]`
      case kLabeledStatement: {   // the statement after `name:`
        uint32_t count = ts_node_named_child_count(n);
        return count < 2 ? TSNode{} : ts_node_named_child(n, count - 1);
      }
      default:
        return Field(n, "body");
    }
  }

  // `for (;;)`, `while (1)`, `while (true)`.
  bool AlwaysTrue(TSNode cond) const override {
    if (ts_node_is_null(cond)) return true;
    std::string_view t = NodeText(cond, source());
    return t == "1" || t == "true";
  }

  bool LoopGuard(TSNode loop, Guard& g) const override {
    g.kind = "for";
    std::string name = CodeText(Field(loop, "declarator"), source());
    size_t start = name.find_first_not_of("&* ");  // `auto& x`: the name is x
    g.code = (start == std::string::npos ? name : name.substr(start)) + " in " +
             CodeText(Field(loop, "right"), source());
    g.line = StartLine(loop);
    return true;
  }

  Guard HandlerGuard(TSNode try_statement, TSNode handler) const override {
    Guard g;
    g.kind = "catch";
    g.code = HandledTypes(handler);
    g.subject = Tried(try_statement);
    g.line = StartLine(handler);
    return g;
  }

  // The caught type without qualifiers or the variable's name: `const
  // std::invalid_argument& e` -> `std::invalid_argument`; "" for `...`.
  std::string HandledTypes(TSNode handler) const override {
    TSNode param = ts_node_named_child(Field(handler, "parameters"), 0);
    TSNode type = Field(param, "type");
    return ts_node_is_null(type) ? "" : CodeText(type, source());
  }

  // The one statement a try block holds; "" (the `try` block) when it
  // holds more, or a compound one: the first of several need not be the
  // one that threw.
  std::string Tried(TSNode try_statement) const override {
    TSNode only = LoneSimpleStatement(Field(try_statement, "body"));
    if (ts_node_is_null(only)) return "";
    std::string tried = Code(only);
    while (!tried.empty() && tried.back() == ';') tried.pop_back();
    return tried;
  }

  // `case X:` or `default:` of a switch: the subject, and for default the
  // values the cases list. A case the ones before it fall into is reached
  // from them too: stacked labels (`case 1: case 2:`) are one condition
  // over their values; a case whose statements fall in is named, not
  // spelled out.
  void CaseGuards(TSNode sw, TSNode body, TSNode clause, const FallsOut& falls_out,
                  std::vector<Guard>& out) const override {
    if (K(sw) != kSwitch) return;
    std::string subject = CodeText(Condition(sw), source());
    std::vector<TSNode> before;
    for (TSNode c : NamedChildren(body)) {
      if (SameNode(c, clause)) break;
      if (K(c) == kCaseStatement) before.push_back(c);
    }
    std::vector<TSNode> chain;  // the cases that fall into this one, nearest first
    bool stacked = true;        // all of them without a statement
    for (size_t i = before.size(); i-- > 0 && falls_out(before[i]);) {
      if (chain.size() == kMaxChain) {  // too many to say: named instead
        stacked = false;
        break;
      }
      chain.push_back(before[i]);
      stacked = stacked && ts_node_is_null(LastStatement(before[i])) &&
                !ts_node_is_null(Field(before[i], "value"));
    }
    TSNode value = Field(clause, "value");
    Guard g;
    g.subject = subject;
    g.line = StartLine(clause);
    if (!chain.empty() && !stacked) {
      // Either way in: the jump to this case, or the statements above.
      g.kind = "case-or-above";
      g.code = ts_node_is_null(value) ? "" : CodeText(value, source());
      g.line = StartLine(chain.back());
      out.push_back(std::move(g));
      return;
    }
    if (!ts_node_is_null(value) && !chain.empty()) {
      g.kind = "if";
      g.line = StartLine(chain.back());
      for (size_t i = chain.size(); i-- > 0;) {
        g.code += subject + " == " + CodeText(Field(chain[i], "value"), source()) + " || ";
      }
      g.code += subject + " == " + CodeText(value, source());
      g.subject.clear();
      out.push_back(std::move(g));
      return;
    }
    if (!ts_node_is_null(value)) {
      g.kind = "case";
      g.code = CodeText(value, source());
      out.push_back(std::move(g));
      return;
    }
    g.kind = "default-case";
    size_t waiting = 0;  // cases falling through to the next one's body
    bool any_meaning = false;
    for (TSNode c : NamedChildren(body)) {
      TSNode v = Field(c, "value");
      if (K(c) != kCaseStatement || ts_node_is_null(v)) continue;
      // A stacked label of this default's reaches it: no refused value.
      if (std::any_of(chain.begin(), chain.end(), [&](TSNode x) { return SameNode(x, c); })) {
        continue;
      }
      g.values.push_back(CodeText(v, source()));
      g.meanings.emplace_back();
      ++waiting;
      std::optional<std::string> meaning = CaseMeaning(c, v);
      if (!meaning) continue;  // no statement: falls through
      for (size_t i = g.meanings.size() - waiting; i < g.meanings.size(); ++i) {
        g.meanings[i] = *meaning;
      }
      any_meaning = any_meaning || !meaning->empty();
      waiting = 0;
    }
    if (!any_meaning) g.meanings.clear();
    out.push_back(std::move(g));
  }

  // A switch before the statement whose every case returns or throws, with
  // no default: control gets past it only when the subject matched none.
  bool MatchFallThrough(TSNode sw, const FallsOut& falls_out, Guard& out) const override {
    if (K(sw) != kSwitch) return false;
    Guard g;
    g.kind = "default-case";
    g.subject = CodeText(Condition(sw), source());
    g.line = StartLine(sw);
    size_t waiting = 0;  // cases with no statement, falling through to the next
    bool any_meaning = false;
    for (TSNode c : NamedChildren(Field(sw, "body"))) {
      if (K(c) == kComment) continue;
      TSNode v = Field(c, "value");
      if (K(c) != kCaseStatement || ts_node_is_null(v)) return false;  // default, or not a case
      TSNode last = LastStatement(c);
      g.values.push_back(CodeText(v, source()));
      g.meanings.emplace_back();
      ++waiting;
      if (ts_node_is_null(last)) continue;
      if (falls_out(c) || BreaksOut(c, 0)) return false;
      std::string meaning = CaseMeaning(c, v).value_or("");
      for (size_t i = g.meanings.size() - waiting; i < g.meanings.size(); ++i)
        g.meanings[i] = meaning;
      any_meaning = any_meaning || !meaning.empty();
      waiting = 0;
    }
    if (waiting > 0 || g.values.empty()) return false;  // the last cases fall out
    if (!any_meaning) g.meanings.clear();
    out = std::move(g);
    return true;
  }

  // A condition's exact `when` is written only where a formula of several
  // joins them; one condition keeps the reading of core/guards.h.
  bool WritesWhen() const override { return false; }
  bool MatchOwnsBreak() const override { return true; }
  bool HasLabels() const override { return true; }
  // Case labels below the switch's top level: inside an if, a block or an
  // #if arm (not those of a switch inside it).
  bool Irregular(TSNode sw) const override {
    TSNode body = Field(sw, "body");
    if (ts_node_is_null(body)) return false;
    return AnyBelow(
        body,
        [&](TSNode n) {
          uint16_t k = K(n);
          return k != kSwitch && k != kFunctionDefinition && k != kLambda;
        },
        [&](TSNode n, int depth) { return depth > 1 && K(n) == kCaseStatement; }, 400);
  }

  bool IsDefault(TSNode clause) const override {
    return K(clause) == kCaseStatement && ts_node_is_null(Field(clause, "value"));
  }
  std::string_view LabelOf(TSNode n) const override {
    // GNU's computed `goto *p;` reads as a goto to a label `p`, with the
    // `*` an error before it: a jump to any label.
    if (K(n) == kGoto) {
      std::string_view text = NodeText(n, source());
      size_t star = text.find_first_not_of(" \t\r\n", 4);
      if (star != std::string_view::npos && text[star] == '*') return {};
    }
    return NodeText(Field(n, "label"), source());
  }

  Expr Positive(TSNode cond) const override {
    return {CodeText(cond, source()), PrecedenceOf(cond)};
  }

  // The exact negation: `!` dropped, De Morgan over `&&` and `||`, `==` and
  // `!=` swapped; anything else gets a `!` (`!(x < 5)` is not `x >= 5` for
  // NaN).
  Expr Negative(TSNode cond) const override {
    cond = Unparenthesized(cond);
    switch (K(cond)) {
      case kUnaryExpression: {
        std::string_view op = NodeText(Field(cond, "operator"), source());
        if (op == "!" || op == "not") return Positive(Unparenthesized(Field(cond, "argument")));
        break;
      }
      case kTrue:
        return {"false", kPrecOperand};
      case kFalse:
        return {"true", kPrecOperand};
      case kBinaryExpression: {
        std::string_view op = NodeText(Field(cond, "operator"), source());
        TSNode left = Field(cond, "left");
        TSNode right = Field(cond, "right");
        if (std::optional<Expr> e =
                flow::NegatedCBinary(op, left, right, source(), *this, kPrecEquality)) {
          return *e;
        }
        break;
      }
      default:
        break;
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

  TSNode Unparenthesized(TSNode n) const {
    while (K(n) == kParenthesized && ts_node_named_child_count(n) == 1) {
      TSNode inner = ts_node_named_child(n, 0);
      if (K(inner) == kComment) break;
      n = inner;
    }
    return n;
  }

  int PrecedenceOf(TSNode n) const {
    switch (K(n)) {
      case kBinaryExpression:
        return BinaryPrecedence(NodeText(Field(n, "operator"), source()));
      case kUnaryExpression:
      case kPointerExpression:
      case kCastExpression:
        return kPrecUnary;
      case kConditional:
      case kAssignment:
        return kPrecAssign;
      case kParenthesized:
      case kIdentifier:
      case kQualifiedIdentifier:
      case kFieldExpression:
      case kCall:
      case kNumberLiteral:
      case kStringLiteral:
      case kCharLiteral:
      case kTrue:
      case kFalse:
      case kNull:
      case kThis:
        return kPrecOperand;
      default:
        return kPrecComma;  // unknown: parenthesized wherever it is composed
    }
  }

  // A case's last statement; null when it has none.
  TSNode LastStatement(TSNode clause) const {
    TSNode value = Field(clause, "value");
    TSNode last{};
    for (TSNode s : NamedChildren(clause)) {
      if (!SameNode(s, value) && K(s) != kComment) last = s;
    }
    return last;
  }

  // Whether `n` holds a goto, or a break or continue that leaves the
  // switch it is in (not one of a loop or switch inside it).
  bool BreaksOut(TSNode n, int depth, bool in_loop = false, bool in_switch = false) const {
    if (depth > 200) return true;
    for (TSNode c : NamedChildren(n)) {
      uint16_t k = K(c);
      if (k == kFunctionDefinition || k == kLambda) continue;
      if (k == kGoto) return true;
      if (k == kBreak && !in_loop && !in_switch) return true;
      if (k == kContinue && !in_loop) return true;
      bool loop = in_loop || k == kWhileStatement || k == kForStatement || k == kForRange ||
                  k == kDoStatement;
      if (BreaksOut(c, depth + 1, loop, in_switch || k == kSwitch)) return true;
    }
    return false;
  }

  // What a case maps its value to when its first statement says so at once:
  // the name assigned or returned (`x = Stage::kPreScheduler;`, `return
  // kFoo;`), its last component. "" for any other first statement; nothing
  // for a case with no statement, which falls through.
  std::optional<std::string> CaseMeaning(TSNode clause, TSNode value) const {
    for (TSNode s : NamedChildren(clause)) {
      if (SameNode(s, value) || K(s) == kComment) continue;
      TSNode named{};
      if (K(s) == kReturn && ts_node_named_child_count(s) > 0) {
        named = ts_node_named_child(s, 0);
      } else if (K(s) == kExpressionStatement && ts_node_named_child_count(s) > 0) {
        TSNode e = ts_node_named_child(s, 0);
        if (K(e) == kAssignment) named = Field(e, "right");
      }
      if (ts_node_is_null(named) || (K(named) != kQualifiedIdentifier && K(named) != kIdentifier &&
                                     K(named) != kFieldExpression)) {
        return std::string();
      }
      std::string text = CodeText(named, source());
      size_t cut = text.find_last_of(":.>");
      return cut == std::string::npos ? text : text.substr(cut + 1);
    }
    return std::nullopt;
  }

  const SymbolTable& symbols_;
};

}  // namespace

std::vector<Guard> CppGuards(TSNode scope, TSNode target, std::string_view source, bool is_c,
                             flow::GuardCache& cache) {
  return flow::ReadGuards(scope, target, CppGuardSyntax(source, is_c), cache);
}

}  // namespace errdex::extract::cpp
