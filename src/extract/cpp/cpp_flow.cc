#include "extract/cpp/cpp_flow.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "extract/cpp/cpp_syntax.h"

namespace errdex::extract::cpp {
namespace {

using flow::Binding;
using flow::ClauseRole;
using flow::Def;
using flow::FlowBody;
using flow::FlowKind;
using flow::FlowNode;

// Functions that format into their first argument, and where the format is.
struct BufferFormatter {
  std::string_view name;
  size_t format_at;
};
constexpr BufferFormatter kBufferFormatters[] = {
    {"sprintf", 1},
    {"snprintf", 2},
    {"PyOS_snprintf", 2},
};

std::string_view LastComponent(std::string_view name) {
  size_t colon = name.rfind("::");
  return colon == std::string_view::npos ? name : name.substr(colon + 2);
}

class Lowerer : flow::FlowBuilder {
 public:
  Lowerer(std::string_view source, const SymbolTable& symbols) : src_(source), sym_(symbols) {}

  FlowBody Run(TSNode body) {
    scoped_ = !ts_node_has_error(body);
    uint32_t root = Add(FlowKind::kBlock, body);
    for (TSNode stmt : Statements(body)) Statement(stmt, root, 1);
    if (labels_) flow::MarkLabels(out_);
    return std::move(out_);
  }

 private:
  uint16_t K(TSNode n) const {
    return ts_node_is_null(n) ? static_cast<uint16_t>(kOther) : sym_.Kind(n);
  }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  // Named children but comments; for a case, those after its label.
  std::vector<TSNode> Statements(TSNode n) const {
    std::vector<TSNode> out;
    TSNode value = K(n) == kCaseStatement ? Field(n, "value") : TSNode{};
    for (TSNode c : NamedChildren(n)) {
      if (K(c) == kComment || SameNode(c, value)) continue;
      out.push_back(c);
    }
    return out;
  }

  // A statement as a block of its own: a compound statement's statements,
  // or the one statement (`if (x) fmt = "a";`).
  uint32_t BlockOf(TSNode stmt, int depth) {
    uint32_t at = Add(FlowKind::kBlock, stmt);
    if (depth > kMaxLowerDepth || ts_node_is_null(stmt)) return at;
    uint16_t k = K(stmt);
    if (k == kCompoundStatement || k == kDeclarationList) {
      At(at).scope = k == kCompoundStatement && scoped_;
      for (TSNode s : Statements(stmt)) Statement(s, at, depth + 1);
    } else {
      Statement(stmt, at, depth + 1);
    }
    return at;
  }

  // A block of `stmts` (a preprocessor arm's or a case's), covering them.
  uint32_t BlockOfList(TSNode holder, const std::vector<TSNode>& stmts, int depth) {
    uint32_t at = Add(FlowKind::kBlock, holder);
    if (stmts.empty()) {
      CoverNothing(at);
      return at;
    }
    At(at).start = ts_node_start_byte(stmts.front());
    At(at).end = ts_node_end_byte(stmts.back());
    if (depth > kMaxLowerDepth) return at;
    for (TSNode s : stmts) Statement(s, at, depth + 1);
    return at;
  }

  // `stmt` as the body of construct `at`, when there is one.
  void Body(uint32_t at, TSNode stmt, int depth) {
    if (ts_node_is_null(stmt)) return;
    uint32_t block = BlockOf(stmt, depth + 1);
    Kid(at, block);
    At(at).body = static_cast<int32_t>(block);
  }

  // A clause running `stmt` (an else's statement, a catch's body), if any.
  uint32_t ClauseOf(TSNode clause, ClauseRole role, TSNode stmt, int depth) {
    uint32_t at = Add(FlowKind::kClause, clause);
    At(at).role = role;
    if (!ts_node_is_null(stmt)) Kid(at, BlockOf(stmt, depth + 1));
    return at;
  }

  // A statement of `parent` covering `node`, with the definitions its
  // expressions make in source order. A construct's condition, lowered as
  // a statement before it, is left out when it makes none.
  void Leaf(TSNode node, uint32_t parent, FlowKind kind = FlowKind::kLeaf, bool condition = false) {
    if (ts_node_is_null(node)) return;
    std::vector<Binding> binds;
    Definitions(node, node, binds, parent);
    if (binds.empty() && condition) return;
    uint32_t at = Add(kind, node);
    At(at).binds = std::move(binds);
    Kid(parent, at);
  }

  // Whether `n` makes a definition (read, not lowered).
  bool Defines(TSNode n, TSNode stmt) {
    if (ts_node_is_null(n)) return false;
    std::vector<Binding> probe;
    Definitions(n, stmt, probe, kNoParent);
    return !probe.empty();
  }

  // `c ? (m = "a") : (m = "b")`, `ok || (m = "b")` inside statement `stmt`
  // of `parent`: what was defined before it and in what always runs (`c`,
  // `ok`), then an if whose arms are what may run: `consequence`, and
  // `alternative` when there is one.
  void Branches(TSNode always, TSNode consequence, TSNode alternative, TSNode x, TSNode stmt,
                std::vector<Binding>& out, uint32_t parent) {
    ++branch_depth_;  // `a && (m = x) && ...` nests on the left, `?:` in its arms
    Definitions(always, stmt, out, parent);
    Flush(x, out, parent);
    uint32_t at = Add(FlowKind::kIf, x);
    uint32_t first = Add(FlowKind::kBlock, consequence);
    Leaf(consequence, first);
    Kid(at, first);
    if (!ts_node_is_null(alternative)) {
      uint32_t clause = Add(FlowKind::kClause, alternative);
      At(clause).role = ClauseRole::kElse;
      uint32_t second = Add(FlowKind::kBlock, alternative);
      Leaf(alternative, second);
      Kid(clause, second);
      Kid(at, clause);
    }
    --branch_depth_;
    Kid(parent, at);
  }

  // The definitions expression `n` of `stmt` makes, in source order; an
  // arm of `?:` that makes some is lowered into `parent` as a branch
  // (kNoParent: only read them).
  void Definitions(TSNode n, TSNode stmt, std::vector<Binding>& out, uint32_t parent) {
    std::vector<TSNode> stack{n};
    while (!stack.empty() && ++visited_ < kMaxExpressionNodes) {
      TSNode x = stack.back();
      stack.pop_back();
      uint16_t k = K(x);
      if (k == kLambda || k == kFunctionDefinition) continue;
      bool may_branch = parent != kNoParent && conditionals_ < kMaxConditionals &&
                        branch_depth_ < kMaxBranchDepth;
      if (k == kConditional && may_branch && !ts_node_is_null(Field(x, "consequence")) &&
          (Defines(Field(x, "consequence"), stmt) || Defines(Field(x, "alternative"), stmt))) {
        ++conditionals_;
        Branches(Field(x, "condition"), Field(x, "consequence"), Field(x, "alternative"), x, stmt,
                 out, parent);
        continue;
      }
      // `c && (m = ...)`: the right side runs only on some paths.
      if (k == kBinaryExpression && may_branch && !ts_node_is_null(Field(x, "right"))) {
        std::string_view op = Text(Field(x, "operator"));
        if ((op == "&&" || op == "||" || op == "and" || op == "or") &&
            Defines(Field(x, "right"), stmt)) {
          ++conditionals_;
          Branches(Field(x, "left"), Field(x, "right"), TSNode{}, x, stmt, out, parent);
          continue;
        }
      }
      if (k == kInitDeclarator) {
        // Its declaration says whether it holds text (`std::string m(...)`).
        TSNode declaration = ts_node_parent(x);
        if (K(declaration) != kDeclaration) declaration = stmt;
        std::string_view name = DeclaredName(Field(x, "declarator"), src_, sym_);
        if (!name.empty()) out.push_back({name, Def::Type::kValue, x, declaration, true});
        continue;
      }
      if (k == kDeclaration) {
        // `std::string m;`, `char buf[64];`: declared, not given a value.
        for (TSNode d : NamedChildren(x)) {
          if (K(d) == kInitDeclarator) continue;
          std::string_view name = DeclaredName(d, src_, sym_);
          if (!name.empty() && !SameNode(d, Field(x, "type"))) {
            out.push_back({name, Def::Type::kValue, d, x, true});
          }
        }
      }
      if (k == kAssignment) {
        std::string_view op = Text(Field(x, "operator"));
        std::string_view left = Text(Field(x, "left"));
        if (op == "=") out.push_back({left, Def::Type::kValue, x, stmt});
        if (op == "+=") out.push_back({left, Def::Type::kAppend, x, stmt});
      }
      if (k == kBinaryExpression && Text(Field(x, "operator")) == "<<") {
        TSNode left = x;
        while (K(left) == kBinaryExpression && Text(Field(left, "operator")) == "<<") {
          left = Field(left, "left");
        }
        if (K(left) == kIdentifier || K(left) == kFieldExpression) {
          out.push_back({Text(left), Def::Type::kAppend, x, stmt});
          continue;
        }
      }
      if (k == kCall) {
        TSNode list = Field(x, "arguments");
        TSNode first = ts_node_is_null(list) ? TSNode{} : ts_node_named_child(list, 0);
        std::string_view fn = LastComponent(Text(Field(x, "function")));
        std::string_view target = ts_node_is_null(first) ? std::string_view() : Text(first);
        if (fn == "StrAppend" && target.size() > 1 && target[0] == '&') {
          out.push_back({target.substr(1), Def::Type::kAppend, x, stmt});
          continue;
        }
        size_t format_at = FormatIntoBuffer(fn);
        if (format_at != 0 && ts_node_named_child_count(list) > format_at) {
          out.push_back({target, Def::Type::kValue, x, stmt});
          continue;
        }
      }
      uint32_t count = ts_node_named_child_count(x);
      for (uint32_t i = count; i-- > 0;) stack.push_back(ts_node_named_child(x, i));
    }
  }

  // An if's arms, a preprocessor conditional's, as kids of `at`.
  void PreprocArms(TSNode n, uint32_t at, int depth) {
    for (int guard = 0; guard < 1024 && !ts_node_is_null(n); ++guard) {
      TSNode alternative = Field(n, "alternative");
      std::vector<TSNode> stmts;
      TSNode condition = Field(n, "condition");
      TSNode name = Field(n, "name");
      for (TSNode c : Statements(n)) {
        if (SameNode(c, alternative) || SameNode(c, condition) || SameNode(c, name)) continue;
        stmts.push_back(c);
      }
      uint16_t k = K(n);
      if (k == kPreprocIf || k == kPreprocIfdef) {
        Kid(at, BlockOfList(n, stmts, depth + 1));
      } else {
        uint32_t clause = Add(FlowKind::kClause, n);
        At(clause).role = k == kPreprocElse ? ClauseRole::kElse : ClauseRole::kArm;
        if (!ts_node_is_null(alternative)) At(clause).end = ts_node_start_byte(alternative);
        Kid(clause, BlockOfList(n, stmts, depth + 1));
        Kid(at, clause);
      }
      n = alternative;
    }
  }

  // A loop whose condition or update assigns (`while ((m = next()))`,
  // `for (...; ...; m += "x")`): after each pass, and after each continue,
  // the update then the condition run again before the loop goes round or
  // ends. A continue in the body is a goto to a label before them.
  void LoopWithNext(uint32_t at, TSNode stmt, TSNode condition, TSNode update, int depth) {
    uint32_t block = Add(FlowKind::kBlock, stmt);
    std::string_view next =
        out_.made_labels.emplace_back("continue@" + std::to_string(ts_node_start_byte(stmt)));
    continue_to_.push_back(next);
    Kid(block, BlockOf(Field(stmt, "body"), depth + 1));
    continue_to_.pop_back();
    uint32_t label = Add(FlowKind::kLabel, stmt);
    At(label).label = next;
    CoverNothing(label);
    Kid(block, label);
    labels_ = true;
    Leaf(update, block, FlowKind::kLeaf, true);
    Leaf(condition, block, FlowKind::kLeaf, true);
    Kid(at, block);
    At(at).body = static_cast<int32_t>(block);
  }

  void Statement(TSNode stmt, uint32_t parent, int depth) {
    if (depth > kMaxLowerDepth) return;
    switch (K(stmt)) {
      case kCompoundStatement:
        Kid(parent, BlockOf(stmt, depth));
        return;
      case kIfStatement: {
        Leaf(Field(stmt, "condition"), parent, FlowKind::kLeaf, true);
        uint32_t at = Add(FlowKind::kIf, stmt);
        Kid(at, BlockOf(Field(stmt, "consequence"), depth + 1));
        TSNode alternative = Field(stmt, "alternative");
        if (!ts_node_is_null(alternative)) {
          std::vector<TSNode> inner = Statements(alternative);  // a comment may come first
          Kid(at, ClauseOf(alternative, ClauseRole::kElse, inner.empty() ? TSNode{} : inner[0],
                           depth + 1));
        }
        Kid(parent, at);
        return;
      }
      case kPreprocIf:
      case kPreprocIfdef: {
        uint32_t at = Add(FlowKind::kIf, stmt);
        PreprocArms(stmt, at, depth);
        Kid(parent, at);
        return;
      }
      case kWhileStatement:
      case kForStatement:
      case kDoStatement:
      case kForRange: {
        uint16_t k = K(stmt);
        TSNode condition = k == kForRange ? TSNode{} : Field(stmt, "condition");
        TSNode update = k == kForStatement ? Field(stmt, "update") : TSNode{};
        if (k == kForStatement) Leaf(Field(stmt, "initializer"), parent, FlowKind::kLeaf, true);
        if (k == kWhileStatement || k == kForStatement) {
          Leaf(condition, parent, FlowKind::kLeaf, true);  // before the first pass
        }
        uint32_t at = Add(FlowKind::kLoop, stmt);
        if (k == kForRange) {
          std::string_view name = DeclaredName(Field(stmt, "declarator"), src_, sym_);
          if (!name.empty()) At(at).binds.push_back({name, Def::Type::kOpaque, {}, stmt});
        }
        if (Defines(condition, condition) || Defines(update, update)) {
          LoopWithNext(at, stmt, condition, update, depth);
          Kid(parent, at);
          return;
        }
        continue_to_.emplace_back();
        Body(at, Field(stmt, "body"), depth);
        continue_to_.pop_back();
        Kid(parent, at);
        if (k == kDoStatement) Leaf(condition, parent, FlowKind::kLeaf, true);
        return;
      }
      case kSwitch: {
        Leaf(Field(stmt, "condition"), parent, FlowKind::kLeaf, true);
        uint32_t at = Add(FlowKind::kSwitch, stmt);
        TSNode body = Field(stmt, "body");
        if (!ts_node_is_null(body)) {
          uint32_t block = Add(FlowKind::kBlock, body);
          for (TSNode c : Statements(body)) {
            if (K(c) != kCaseStatement) {
              Statement(c, block, depth + 2);
              continue;
            }
            uint32_t clause = Add(FlowKind::kClause, c);
            At(clause).role =
                ts_node_is_null(Field(c, "value")) ? ClauseRole::kDefault : ClauseRole::kCase;
            Kid(clause, BlockOfList(c, Statements(c), depth + 3));
            Kid(block, clause);
          }
          Kid(at, block);
          At(at).body = static_cast<int32_t>(block);
        }
        Kid(parent, at);
        return;
      }
      case kTryStatement: {
        uint32_t at = Add(FlowKind::kTry, stmt);
        Body(at, Field(stmt, "body"), depth);
        for (TSNode c : NamedChildren(stmt)) {
          if (K(c) == kCatchClause) {
            Kid(at, ClauseOf(c, ClauseRole::kHandler, Field(c, "body"), depth + 1));
          }
        }
        Kid(parent, at);
        return;
      }
      case kNamespaceDefinition:
      case kLinkage: {
        // A body that always runs: a with that binds nothing.
        uint32_t at = Add(FlowKind::kWith, stmt);
        Body(at, Field(stmt, "body"), depth);
        Kid(parent, at);
        return;
      }
      case kLabeledStatement: {
        TSNode label = Field(stmt, "label");
        if (!ts_node_is_null(label)) {
          uint32_t at = Add(FlowKind::kLabel, label);
          At(at).label = Text(label);
          labels_ = true;
          Kid(parent, at);
        }
        for (TSNode c : Statements(stmt)) {
          if (!SameNode(c, label)) Statement(c, parent, depth + 1);
        }
        return;
      }
      case kGoto: {
        uint32_t at = Add(FlowKind::kGoto, stmt);
        At(at).label = Text(Field(stmt, "label"));
        Kid(parent, at);
        return;
      }
      case kReturn:
      case kThrow:
        Leaf(stmt, parent, FlowKind::kExit);
        return;
      case kBreak:
        Kid(parent, Add(FlowKind::kBreak, stmt));
        return;
      case kContinue:
        if (!continue_to_.empty() && !continue_to_.back().empty()) {
          uint32_t at = Add(FlowKind::kGoto, stmt);
          At(at).label = continue_to_.back();
          Kid(parent, at);
          return;
        }
        Kid(parent, Add(FlowKind::kContinue, stmt));
        return;
      case kFunctionDefinition:
      case kClassSpecifier:
      case kStructSpecifier:
      case kTemplateDeclaration:
        Kid(parent, Add(FlowKind::kLeaf, stmt));
        return;
      default:
        Leaf(stmt, parent);
        return;
    }
  }

  std::string_view src_;
  const SymbolTable& sym_;
  size_t visited_ = 0;
  bool labels_ = false;
  // Where a `continue` goes, innermost loop last: a label before a
  // condition or update that assigns, or empty (round the loop).
  std::vector<std::string_view> continue_to_;
  // `?:` lowered as branches, per body: more are read in a row.
  static constexpr int kMaxConditionals = 4096;
  static constexpr int kMaxBranchDepth = 32;  // nested `?:` lowered as branches
  int branch_depth_ = 0;
  static constexpr uint32_t kNoParent = UINT32_MAX;
  int conditionals_ = 0;
  // Blocks end their declarations only in a body the parser read without
  // error: braces split across preprocessor arms (numpy's `#if c` `if (x) {`
  // `#else` `{` `#endif`) give blocks that are not the program's scopes.
  bool scoped_ = true;
};

}  // namespace

flow::FlowBody LowerFlow(std::string_view source, const SymbolTable& symbols, TSNode body) {
  return Lowerer(source, symbols).Run(body);
}

std::string_view DeclaredName(TSNode d, std::string_view source, const SymbolTable& symbols) {
  for (int guard = 0; guard < 8 && !ts_node_is_null(d); ++guard) {
    uint16_t k = symbols.Kind(d);
    if (k == kIdentifier) return NodeText(d, source);
    if (k == kPointerDeclarator || k == kReferenceDeclarator || k == kArrayDeclarator ||
        k == kInitDeclarator) {
      TSNode inner = Field(d, "declarator");
      if (ts_node_is_null(inner)) inner = ts_node_named_child(d, ts_node_named_child_count(d) - 1);
      d = inner;
      continue;
    }
    return {};
  }
  return {};
}

size_t FormatIntoBuffer(std::string_view function) {
  for (const BufferFormatter& f : kBufferFormatters) {
    if (f.name == function) return f.format_at;
  }
  return 0;
}

}  // namespace errdex::extract::cpp
