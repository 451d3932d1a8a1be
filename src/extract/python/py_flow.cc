#include "extract/python/py_flow.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "extract/python/py_syntax.h"
#include "extract/ts_util.h"

namespace errdex::extract::python {
namespace {

using flow::Binding;
using flow::ClauseRole;
using flow::FlowBody;
using flow::FlowKind;
using flow::FlowNode;

class Lowerer : flow::FlowBuilder {
 public:
  explicit Lowerer(std::string_view source) : src_(source) {}

  FlowBody Run(TSNode body) {
    Block(body, 0);
    return std::move(out_);
  }

 private:
  const SymbolTable& sym() const { return Symbols(); }
  uint16_t Kind(TSNode n) const { return KindOf(n); }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  // A block's statements: its named children but comments (read with one
  // cursor: NamedChildren's per-child calls cost more on long blocks).
  uint32_t Block(TSNode block, int depth) {
    uint32_t at = Add(FlowKind::kBlock, block);
    if (depth > kMaxLowerDepth) return at;
    std::vector<TSNode> stmts;
    TSTreeCursor c = ts_tree_cursor_new(block);
    if (ts_tree_cursor_goto_first_child(&c)) {
      do {
        TSNode stmt = ts_tree_cursor_current_node(&c);
        if (ts_node_is_named(stmt) && sym().Kind(stmt) != kComment) stmts.push_back(stmt);
      } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    for (TSNode stmt : stmts) {
      uint32_t kid = Statement(stmt, depth + 1);
      At(at).kids.push_back(kid);
    }
    return at;
  }

  // A block child, when there is one, as a kid of `parent`.
  int32_t KidBlock(uint32_t parent, TSNode block, int depth) {
    if (ts_node_is_null(block)) return -1;
    uint32_t kid = Block(block, depth);
    At(parent).kids.push_back(kid);
    return static_cast<int32_t>(kid);
  }

  // A clause and its blocks: elif, else and case the one its field names;
  // except and finally every block child.
  uint32_t Clause(TSNode clause, ClauseRole role, int depth) {
    uint32_t at = Add(FlowKind::kClause, clause);
    At(at).role = role;
    if (depth > kMaxLowerDepth) return at;
    switch (role) {
      case ClauseRole::kArm:
      case ClauseRole::kCase:
      case ClauseRole::kDefault:
        KidBlock(at, Field(clause, "consequence"), depth + 1);
        break;
      case ClauseRole::kElse:
        KidBlock(at, Field(clause, "body"), depth + 1);
        break;
      case ClauseRole::kHandler:
      case ClauseRole::kFinally:
        if (role == ClauseRole::kHandler) CaughtName(clause, At(at).binds);
        for (TSNode b : NamedChildren(clause)) {
          if (Kind(b) == kBlock) KidBlock(at, b, depth + 1);
        }
        break;
    }
    return at;
  }

  // `except E as name`: the grammar puts the name in an as_pattern.
  void CaughtName(TSNode clause, std::vector<Binding>& binds) const {
    TSNode alias = Field(clause, "alias");
    if (!ts_node_is_null(alias)) {
      if (Kind(alias) == kIdentifier)
        binds.push_back({Text(alias), Def::Type::kCaught, {}, clause});
      return;
    }
    TSNode value = Field(clause, "value");
    if (ts_node_is_null(value) || Kind(value) != kAsPattern) return;
    TSNode target = Field(value, "alias");
    if (!ts_node_is_null(target)) binds.push_back({Text(target), Def::Type::kCaught, {}, clause});
  }

  void Opaques(TSNode pattern, TSNode stmt, std::vector<Binding>& binds) const {
    std::vector<std::string_view> names;
    PatternNames(pattern, src_, names);
    for (std::string_view n : names) binds.push_back({n, Def::Type::kOpaque, {}, stmt});
  }

  // `left = right`: a name takes the value; `a, msg = x, "text"` the
  // matching element when both sides are flat; any other name in the
  // pattern a value errdex does not follow.
  void Assign(TSNode stmt, TSNode left, TSNode right, std::vector<Binding>& binds) const {
    if (Kind(left) == kIdentifier) {
      binds.push_back({Text(left), Def::Type::kValue, right, stmt});
      return;
    }
    std::vector<std::string_view> names;
    PatternNames(left, src_, names);
    if (names.empty()) return;
    std::vector<TSNode> targets = NamedChildren(left);
    std::vector<TSNode> values;
    uint16_t rk = Kind(right);
    if (rk == kExpressionList || rk == kTuple) values = NamedChildren(right);
    for (std::string_view name : names) {
      bool matched = false;
      if (values.size() == targets.size()) {
        for (size_t i = 0; i < targets.size() && !matched; ++i) {
          if (Kind(targets[i]) == kIdentifier && Text(targets[i]) == name) {
            binds.push_back({name, Def::Type::kValue, values[i], stmt});
            matched = true;
          }
        }
      }
      if (!matched) binds.push_back({name, Def::Type::kOpaque, {}, stmt});
    }
  }

  void ExpressionBinds(TSNode stmt, std::vector<Binding>& binds) const {
    for (TSNode expr : NamedChildren(stmt)) {
      uint16_t k = Kind(expr);
      if (k == kAssignment) {
        // a = b = value: every target gets the innermost right-hand side.
        TSNode node = expr;
        std::vector<TSNode> lefts;
        while (Kind(node) == kAssignment) {
          lefts.push_back(Field(node, "left"));
          node = Field(node, "right");
          if (ts_node_is_null(node)) break;
        }
        if (ts_node_is_null(node)) continue;  // an annotation without a value
        for (TSNode left : lefts) Assign(stmt, left, node, binds);
      } else if (k == kAugmentedAssignment) {
        TSNode left = Field(expr, "left");
        if (Kind(left) != kIdentifier) continue;
        TSNode op = Field(expr, "operator");
        TSNode right = Field(expr, "right");
        bool append = !ts_node_is_null(op) && Text(op) == "+=" && !ts_node_is_null(right);
        binds.push_back({Text(left), append ? Def::Type::kAppend : Def::Type::kOpaque,
                         append ? right : TSNode{}, stmt});
      }
    }
  }

  // `name := value` in `expr`, in the order they run: `certain` those that
  // run whenever `expr` is evaluated, `maybe` those that run only on some
  // paths (right of `and`/`or`, an arm of `x if c else y`, a
  // comprehension). Lambdas are scopes of their own.
  void Walrus(TSNode expr, TSNode stmt, std::vector<Binding>& certain,
              std::vector<Binding>& maybe) const {
    if (ts_node_is_null(expr)) return;
    // Where `:=` is written: a subtree that holds none is not walked
    // (looked up by position; searching each node's text would be
    // quadratic in a deep expression).
    std::vector<uint32_t> at;
    std::string_view text = Text(expr);
    for (size_t i = text.find(":="); i != std::string_view::npos; i = text.find(":=", i + 2)) {
      at.push_back(ts_node_start_byte(expr) + static_cast<uint32_t>(i));
    }
    if (at.empty()) return;
    auto holds_walrus = [&](TSNode n) {
      auto it = std::lower_bound(at.begin(), at.end(), ts_node_start_byte(n));
      return it != at.end() && *it < ts_node_end_byte(n);
    };
    struct Item {
      TSNode node;
      bool maybe;
      bool expanded;
    };
    std::vector<Item> stack{{expr, false, false}};
    size_t visited = 0;
    while (!stack.empty() && ++visited < kMaxExpressionNodes) {
      Item item = stack.back();
      stack.pop_back();
      TSNode n = item.node;
      uint16_t k = Kind(n);
      if (item.expanded) {  // its value has run: the name is bound
        TSNode name = Field(n, "name");
        if (Kind(name) == kIdentifier) {
          (item.maybe ? maybe : certain)
              .push_back({Text(name), Def::Type::kValue, Field(n, "value"), stmt});
        }
        continue;
      }
      if (k == kLambda || !holds_walrus(n)) continue;
      if (k == kNamedExpression) {
        stack.push_back({n, item.maybe, true});
        stack.push_back({Field(n, "value"), item.maybe, false});
        continue;
      }
      std::string_view type = NodeType(n);
      bool all_maybe = item.maybe || type.ends_with("comprehension") || k == kGeneratorExpression;
      std::vector<TSNode> kids = NamedChildren(n);
      for (size_t i = kids.size(); i-- > 0;) {
        bool m = all_maybe;
        if (k == kBooleanOperator) m = m || SameNode(kids[i], Field(n, "right"));
        if (type == "conditional_expression") m = m || i != 1;  // `a if c else b`: c runs
        stack.push_back({kids[i], m, false});
      }
    }
  }

  // A block covering nothing in which each of `binds` may or may not be
  // made, whatever the others do: an if with one arm for each.
  uint32_t Maybe(TSNode node, std::vector<Binding> binds) {
    uint32_t at = Add(FlowKind::kBlock, node);
    CoverNothing(at);
    for (Binding& b : binds) {
      uint32_t branch = Add(FlowKind::kIf, node);
      CoverNothing(branch);
      uint32_t block = Add(FlowKind::kBlock, node);
      CoverNothing(block);
      Kid(block, Leaf(node, {std::move(b)}));
      Kid(branch, block);
      Kid(at, branch);
    }
    return at;
  }

  uint32_t Leaf(TSNode node, std::vector<Binding> binds) {
    uint32_t at = Add(FlowKind::kLeaf, node);
    CoverNothing(at);
    At(at).binds = std::move(binds);
    return at;
  }

  // `construct` with the walrus bindings its header makes before it (and,
  // for a while, before every pass and maybe after the last), or alone.
  uint32_t WithWalrus(TSNode stmt, uint32_t construct, std::vector<Binding> certain,
                      std::vector<Binding> maybe) {
    if (certain.empty() && maybe.empty()) return construct;
    uint32_t at = Add(FlowKind::kBlock, stmt);
    if (!certain.empty()) Kid(at, Leaf(stmt, certain));
    if (!maybe.empty()) Kid(at, Maybe(stmt, maybe));
    if (Kind(stmt) == kWhile && At(construct).body >= 0) {
      // The condition runs again before every pass; after the last one
      // unless a break left.
      std::vector<uint32_t> first;
      if (!certain.empty()) first.push_back(Leaf(stmt, certain));
      if (!maybe.empty()) first.push_back(Maybe(stmt, maybe));
      // Taken after the nodes above are added: adding may move every node.
      std::vector<uint32_t>& kids = At(static_cast<uint32_t>(At(construct).body)).kids;
      kids.insert(kids.begin(), first.begin(), first.end());
      Kid(at, construct);
      // A break leaves without running it; with none, the last run stands.
      if (Breaks(Field(stmt, "body"))) {
        for (Binding& b : maybe) certain.push_back(std::move(b));
        Kid(at, Maybe(stmt, std::move(certain)));
      } else {
        if (!certain.empty()) Kid(at, Leaf(stmt, std::move(certain)));
        if (!maybe.empty()) Kid(at, Maybe(stmt, std::move(maybe)));
      }
      return at;
    }
    Kid(at, construct);
    return at;
  }

  // Whether a break in `block` leaves the loop it is the body of (not one
  // of a loop inside it).
  bool Breaks(TSNode block) const {
    std::vector<TSNode> stack{block};
    size_t visited = 0;
    while (!stack.empty() && ++visited < kMaxExpressionNodes) {
      TSNode n = stack.back();
      stack.pop_back();
      uint16_t k = Kind(n);
      if (k == kBreak) return true;
      if (k == kFunctionDefinition || k == kClassDefinition) continue;
      if (k == kFor || k == kWhile) {
        // Its body's breaks are its own; its else's leave the loop around it.
        TSNode orelse = Field(n, "alternative");
        if (!ts_node_is_null(orelse)) stack.push_back(orelse);
        continue;
      }
      // Statements, clauses and blocks: a break is a statement of one.
      if (!HoldsStatements(n)) continue;
      for (TSNode c : NamedChildren(n)) stack.push_back(c);
    }
    return visited >= kMaxExpressionNodes;  // too large to tell: as if it did
  }

  uint32_t Statement(TSNode stmt, int depth) {
    switch (Kind(stmt)) {
      case kExpressionStatement: {
        std::vector<Binding> certain, maybe, binds;
        Walrus(stmt, stmt, certain, maybe);
        ExpressionBinds(stmt, binds);
        uint32_t at = Add(FlowKind::kLeaf, stmt);
        for (Binding& b : binds) certain.push_back(std::move(b));
        At(at).binds = std::move(certain);
        if (maybe.empty()) return at;
        uint32_t block = Add(FlowKind::kBlock, stmt);
        Kid(block, Maybe(stmt, std::move(maybe)));
        Kid(block, at);
        return block;
      }
      case kIf: {
        // What the conditions assign with `:=`: the if's own before its arms,
        // an elif's on the paths that reach it (maybe, for all of them).
        std::vector<Binding> certain, maybe;
        Walrus(Field(stmt, "condition"), stmt, certain, maybe);
        for (TSNode child : NamedChildren(stmt)) {
          if (Kind(child) == kElif) Walrus(Field(child, "condition"), child, maybe, maybe);
        }
        return WithWalrus(stmt, If(stmt, depth), std::move(certain), std::move(maybe));
      }
      case kWhile: {
        std::vector<Binding> certain, maybe;
        Walrus(Field(stmt, "condition"), stmt, certain, maybe);
        return WithWalrus(stmt, Loop(stmt, depth), std::move(certain), std::move(maybe));
      }
      case kFor:
        return Loop(stmt, depth);
      default:
        return Other(stmt, depth);
    }
  }

  uint32_t If(TSNode stmt, int depth) {
    uint32_t at = Add(FlowKind::kIf, stmt);
    if (depth > kMaxLowerDepth) return at;
    for (TSNode child : NamedChildren(stmt)) {
      uint16_t k = Kind(child);
      if (k == kBlock) {
        KidBlock(at, child, depth + 1);
      } else if (k == kElif || k == kElse) {
        uint32_t clause =
            Clause(child, k == kElif ? ClauseRole::kArm : ClauseRole::kElse, depth + 1);
        At(at).kids.push_back(clause);
      }
    }
    return at;
  }

  uint32_t Loop(TSNode stmt, int depth) {
    uint32_t at = Add(FlowKind::kLoop, stmt);
    if (Kind(stmt) == kFor) Opaques(Field(stmt, "left"), stmt, At(at).binds);
    if (depth > kMaxLowerDepth) return at;
    int32_t body = KidBlock(at, Field(stmt, "body"), depth + 1);
    At(at).body = body;
    TSNode alternative = Field(stmt, "alternative");
    if (!ts_node_is_null(alternative)) {
      uint32_t clause = Clause(alternative, ClauseRole::kElse, depth + 1);
      At(at).kids.push_back(clause);
      At(at).orelse = static_cast<int32_t>(clause);
    }
    return at;
  }

  uint32_t Other(TSNode stmt, int depth) {
    switch (Kind(stmt)) {
      case kTry: {
        uint32_t at = Add(FlowKind::kTry, stmt);
        if (depth > kMaxLowerDepth) return at;
        TSNode body = Field(stmt, "body");
        for (TSNode child : NamedChildren(stmt)) {
          uint16_t k = Kind(child);
          if (k == kBlock && SameNode(child, body)) {
            At(at).body = KidBlock(at, child, depth + 1);
          } else if (k == kExcept || k == kExceptGroup || k == kElse || k == kFinally) {
            ClauseRole role = k == kElse      ? ClauseRole::kElse
                              : k == kFinally ? ClauseRole::kFinally
                                              : ClauseRole::kHandler;
            uint32_t clause = Clause(child, role, depth + 1);
            At(at).kids.push_back(clause);
          }
        }
        return at;
      }
      case kWith: {
        uint32_t at = Add(FlowKind::kWith, stmt);
        for (TSNode clause : NamedChildren(stmt)) {
          if (Kind(clause) != kWithClause) continue;
          for (TSNode item : NamedChildren(clause)) {
            TSNode value = Field(item, "value");
            if (ts_node_is_null(value) || Kind(value) != kAsPattern) continue;
            TSNode alias = Field(value, "alias");
            if (!ts_node_is_null(alias)) {
              At(at).binds.push_back({Text(alias), Def::Type::kOpaque, {}, stmt});
            }
          }
        }
        if (depth > kMaxLowerDepth) return at;
        At(at).body = KidBlock(at, Field(stmt, "body"), depth + 1);
        return at;
      }
      case kMatch: {
        uint32_t at = Add(FlowKind::kMatch, stmt);
        if (depth > kMaxLowerDepth) return at;
        At(at).body = KidBlock(at, Field(stmt, "body"), depth + 1);
        return at;
      }
      case kElif:
        return Clause(stmt, ClauseRole::kArm, depth);
      case kElse:
        return Clause(stmt, ClauseRole::kElse, depth);
      case kExcept:
      case kExceptGroup:
        return Clause(stmt, ClauseRole::kHandler, depth);
      case kFinally:
        return Clause(stmt, ClauseRole::kFinally, depth);
      case kCase:
        return Clause(stmt, ClauseRole::kCase, depth);
      case kBreak:
        return Add(FlowKind::kBreak, stmt);
      case kContinue:
        return Add(FlowKind::kContinue, stmt);
      case kReturn:
      case kRaise:
        return Add(FlowKind::kExit, stmt);
      case kFunctionDefinition:
      case kClassDefinition: {
        uint32_t at = Add(FlowKind::kLeaf, stmt);
        DefinitionName(stmt, At(at).binds);
        return at;
      }
      case kDecoratedDefinition: {
        uint32_t at = Add(FlowKind::kLeaf, stmt);
        TSNode def = Field(stmt, "definition");
        uint16_t k = Kind(def);
        if (k == kFunctionDefinition || k == kClassDefinition) DefinitionName(def, At(at).binds);
        return at;
      }
      case kImport:
      case kImportFrom: {
        uint32_t at = Add(FlowKind::kLeaf, stmt);
        for (TSNode n : NamedChildren(stmt)) {
          std::string_view bound = Text(n);
          if (Kind(n) == kAliasedImport) bound = Text(Field(n, "alias"));
          At(at).binds.push_back({LastComponent(bound), Def::Type::kOpaque, {}, stmt});
        }
        return at;
      }
      default:
        return Add(FlowKind::kLeaf, stmt);
    }
  }

  void DefinitionName(TSNode def, std::vector<Binding>& binds) const {
    TSNode name = Field(def, "name");
    if (Kind(name) == kIdentifier) binds.push_back({Text(name), Def::Type::kOpaque, {}, def});
  }

  std::string_view src_;
};

}  // namespace

FlowBody LowerFlow(std::string_view source, TSNode body) { return Lowerer(source).Run(body); }

}  // namespace errdex::extract::python
