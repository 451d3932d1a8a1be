#include "extract/rust/rust_flow.h"

#include <string>
#include <string_view>
#include <vector>

#include "extract/rust/rust_syntax.h"

namespace errdex::extract::rust {
namespace {

using flow::Binding;
using flow::ClauseRole;
using flow::Def;
using flow::FlowBody;
using flow::FlowKind;
using flow::FlowNode;

// Macros that never return: std's panics, and anyhow's and eyre's early
// returns of an error.
constexpr std::string_view kDivergingMacros[] = {
    "panic", "unreachable", "todo", "unimplemented", "bail",
};

// Methods that append their argument to the string they are called on.
constexpr std::string_view kAppendMethods[] = {"push_str", "push"};
// Methods that read the value they are called on and leave it as it was;
// any other method called on a variable may change it (`insert_str`,
// `make_ascii_uppercase`, `clear`, `extend`, `as_mut_str()...`), and what it
// holds afterwards is not followed.
constexpr std::string_view kReadingMethods[] = {"len",
                                                "is_empty",
                                                "as_str",
                                                "as_bytes",
                                                "as_ptr",
                                                "as_ref",
                                                "borrow",
                                                "chars",
                                                "bytes",
                                                "char_indices",
                                                "lines",
                                                "split",
                                                "splitn",
                                                "rsplit",
                                                "split_whitespace",
                                                "trim",
                                                "trim_start",
                                                "trim_end",
                                                "trim_matches",
                                                "starts_with",
                                                "ends_with",
                                                "contains",
                                                "find",
                                                "rfind",
                                                "matches",
                                                "to_string",
                                                "to_owned",
                                                "clone",
                                                "to_uppercase",
                                                "to_lowercase",
                                                "parse",
                                                "get",
                                                "iter",
                                                "eq",
                                                "ne",
                                                "cmp",
                                                "partial_cmp",
                                                "is_some",
                                                "is_none",
                                                "is_ok",
                                                "is_err",
                                                "as_deref",
                                                "display",
                                                "to_str",
                                                "to_string_lossy",
                                                "capacity",
                                                "first",
                                                "last",
                                                "repeat",
                                                "replace",
                                                "strip_prefix",
                                                "strip_suffix",
                                                "escape_debug",
                                                "escape_default",
                                                "hash",
                                                "fmt",
                                                "into_iter",
                                                "map",
                                                "unwrap",
                                                "expect",
                                                "unwrap_or",
                                                "ok",
                                                "err",
                                                "and_then",
                                                "map_err",
                                                "is_char_boundary"};
// How a function that appends to a string it is lent is named.
constexpr std::string_view kAppendingPrefixes[] = {"push",   "write",  "append", "add",
                                                   "extend", "format", "fmt"};

template <size_t N>
bool OneOf(std::string_view name, const std::string_view (&table)[N]) {
  for (std::string_view t : table) {
    if (t == name) return true;
  }
  return false;
}

class Lowerer : flow::FlowBuilder {
 public:
  explicit Lowerer(std::string_view source) : src_(source), sym_(Symbols()) {}

  FlowBody Run(TSNode body) {
    uint32_t root = Add(FlowKind::kBlock, body);
    if (K(body) == kBlock) {
      for (TSNode stmt : Statements(body)) Statement(stmt, root, 1);
    } else {
      Statement(body, root, 1);  // a closure's expression
    }
    if (labels_) flow::MarkLabels(out_);
    return std::move(out_);
  }

 private:
  uint16_t K(TSNode n) const {
    return ts_node_is_null(n) ? static_cast<uint16_t>(kOther) : sym_.Kind(n);
  }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  bool IsComment(TSNode n) const { return K(n) == kLineComment || K(n) == kBlockComment; }

  // A block's statements and its tail expression, comments left out.
  std::vector<TSNode> Statements(TSNode block) const {
    std::vector<TSNode> out;
    for (TSNode c : NamedChildren(block)) {
      if (!IsComment(c) && K(c) != kLabel) out.push_back(c);
    }
    return out;
  }

  // `n` (a block, or any expression) as a block of its own.
  uint32_t BlockOf(TSNode n, int depth) {
    uint32_t at = Add(FlowKind::kBlock, n);
    if (depth > kMaxLowerDepth || ts_node_is_null(n)) return at;
    if (IsBlock(n)) {
      At(at).scope = true;
      TSNode inner = K(n) == kBlock ? n : ts_node_named_child(n, 0);
      for (TSNode s : Statements(inner)) Statement(s, at, depth + 1);
    } else {
      Statement(n, at, depth + 1);
    }
    return at;
  }

  bool IsBlock(TSNode n) const {
    uint16_t k = K(n);
    if (k == kBlock) return true;
    // `unsafe { }`, `const { }`, `try { }` run where they stand; an async
    // block is a future, run elsewhere.
    return (k == kUnsafeBlock || k == kConstBlock || k == kTryBlock) &&
           ts_node_named_child_count(n) > 0 && K(ts_node_named_child(n, 0)) == kBlock;
  }

  // The names a pattern binds (`Some(m)`, `(a, b)`, `Err(ref e)`), each bound
  // to what errdex does not follow. Paths (`Kind::A`) and constants are not
  // bindings; an identifier in a pattern is, unless it is capitalised.
  void PatternNames(TSNode pattern, TSNode stmt, std::vector<Binding>& out) {
    std::vector<TSNode> stack{pattern};
    size_t guard = 0;
    while (!stack.empty() && ++guard < 4096) {
      TSNode x = stack.back();
      stack.pop_back();
      if (ts_node_is_null(x)) continue;
      uint16_t k = K(x);
      if (k == kIdentifier) {
        std::string_view name = Text(x);
        if (!name.empty() && !(name[0] >= 'A' && name[0] <= 'Z')) {
          out.push_back({name, Def::Type::kOpaque, {}, stmt, true});
        }
        continue;
      }
      if (k == kScopedIdentifier || k == kStringLiteral || k == kRawStringLiteral) continue;
      uint32_t count = ts_node_named_child_count(x);
      for (uint32_t i = count; i-- > 0;) stack.push_back(ts_node_named_child(x, i));
    }
  }

  // Branches and loops inside an expression (`let m = if c { .. } else
  // { .. };`, `Err(match k { .. })`): lowered where they stand.
  bool IsStructure(TSNode n) const {
    switch (K(n)) {
      case kIfExpression:
      case kMatchExpression:
      case kLoopExpression:
      case kWhileExpression:
      case kForExpression:
        return true;
      default:
        return IsBlock(n);
    }
  }

  // The definitions expression `n` of statement `stmt` makes, in source
  // order, into `out`; a branch or loop inside it is lowered into `parent`
  // where it stands, after a leaf with the definitions made before it.
  void Collect(TSNode n, TSNode stmt, uint32_t parent, int depth, std::vector<Binding>& out) {
    std::vector<TSNode> stack{n};
    while (!stack.empty() && ++visited_ < kMaxExpressionNodes) {
      TSNode x = stack.back();
      stack.pop_back();
      uint16_t k = K(x);
      if (k == kClosure || k == kAsyncBlock || k == kFunctionItem || k == kTokenTree) continue;
      if (IsStructure(x)) {
        Flush(x, out, parent);
        Statement(x, parent, depth + 1);
        continue;
      }
      if (Binds(x, stmt, parent, depth, out)) continue;
      uint32_t count = ts_node_named_child_count(x);
      for (uint32_t i = count; i-- > 0;) stack.push_back(ts_node_named_child(x, i));
    }
  }

  // `m = v`, `m += v`, `m.push_str(v)`: the definition of `m` it makes, after
  // those its operands make. Whether `x` was one.
  bool Binds(TSNode x, TSNode stmt, uint32_t parent, int depth, std::vector<Binding>& out) {
    uint16_t k = K(x);
    if (k == kAssignment || k == kCompoundAssignment) {
      TSNode left = Field(x, "left");
      TSNode right = Field(x, "right");
      Collect(right, stmt, parent, depth, out);
      if (K(left) != kIdentifier) return true;
      if (k == kAssignment) {
        out.push_back({Text(left), Def::Type::kValue, right, stmt});
      } else {
        bool append = Text(Field(x, "operator")) == "+=";
        out.push_back({Text(left), append ? Def::Type::kAppend : Def::Type::kOpaque,
                       append ? right : TSNode{}, stmt});
      }
      return true;
    }
    if (k == kMacroInvocation) {
      // `write!(m, ...)`, `writeln!(&mut m, ...)`: the text formatted is
      // appended to `m` (the evaluator reads the macro as that text).
      std::string_view name = MacroName(x, src_);
      if (name != "write" && name != "writeln") return false;
      TSNode tree = ts_node_named_child(x, ts_node_named_child_count(x) - 1);
      std::string_view target = WrittenTo(tree);
      if (target.empty()) return false;
      out.push_back({target, Def::Type::kAppend, x, stmt});
      return true;
    }
    if (k == kCall) {
      TSNode f = Field(x, "function");
      TSNode args = Field(x, "arguments");
      // `push_list(&mut m, names)`: a function named for adding appends
      // to `m` what errdex does not see, and what `m` held stays its
      // start; any other (`mem::take`, `swap`, a function that assigns)
      // may leave anything in it.
      std::vector<std::string_view> lent;
      for (TSNode a : NamedChildren(args)) {
        if (K(a) == kReferenceExpression && IsMutBorrow(Text(a)) &&
            K(Field(a, "value")) == kIdentifier) {
          lent.push_back(Text(Field(a, "value")));
        }
      }
      if (!lent.empty()) {
        Collect(args, stmt, parent, depth, out);
        Def::Type type = AppendsByName(CalleeName(f)) ? Def::Type::kAppend : Def::Type::kOpaque;
        for (std::string_view name : lent) out.push_back({name, type, x, stmt});
        return true;
      }
      if (K(f) == kFieldExpression && K(Field(f, "value")) == kIdentifier &&
          !OneOf(Text(Field(f, "field")), kAppendMethods) &&
          !OneOf(Text(Field(f, "field")), kReadingMethods)) {
        Collect(args, stmt, parent, depth, out);
        out.push_back({Text(Field(f, "value")), Def::Type::kOpaque, {}, stmt});
        return true;
      }
      if (K(f) != kFieldExpression || ts_node_named_child_count(args) != 1) return false;
      TSNode target = Field(f, "value");
      if (K(target) != kIdentifier || !OneOf(Text(Field(f, "field")), kAppendMethods)) return false;
      TSNode value = ts_node_named_child(args, 0);
      Collect(value, stmt, parent, depth, out);
      out.push_back({Text(target), Def::Type::kAppend, value, stmt});
      return true;
    }
    return false;
  }

  // The name a call's function is written with: `f`, `m::f`, `x.f`.
  std::string_view CalleeName(TSNode f) const {
    if (K(f) == kFieldExpression) return Text(Field(f, "field"));
    if (K(f) == kScopedIdentifier) return Text(Field(f, "name"));
    if (K(f) == kGenericFunction) return CalleeName(Field(f, "function"));
    return Text(f);
  }

  static bool AppendsByName(std::string_view name) {
    for (std::string_view p : kAppendingPrefixes) {
      if (name.substr(0, p.size()) == p) return true;
    }
    return false;
  }

  static bool IsMutBorrow(std::string_view e) {
    e.remove_prefix(1);  // `&`
    while (!e.empty() && (e.front() == ' ' || e.front() == '\t' || e.front() == '\n'))
      e.remove_prefix(1);
    return e.substr(0, 3) == "mut" && e.size() > 3 && (e[3] == ' ' || e[3] == '\t' || e[3] == '\n');
  }

  // The variable a `write!` token tree writes to: `m` in `(m, ...)` or
  // `(&mut m, ...)`; empty for anything else (`f`, `self.buf`, `&mut *x`).
  std::string_view WrittenTo(TSNode tree) const {
    std::vector<TSNode> tokens;
    uint32_t n = ts_node_child_count(tree);
    for (uint32_t i = 1; i + 1 < n && tokens.size() < 4; ++i) {  // inside the delimiters
      TSNode c = ts_node_child(tree, i);
      if (Text(c) == ",") break;
      tokens.push_back(c);
    }
    if (tokens.size() == 1 && K(tokens[0]) == kIdentifier) return Text(tokens[0]);
    if (tokens.size() == 3 && Text(tokens[0]) == "&" && Text(tokens[1]) == "mut" &&
        K(tokens[2]) == kIdentifier) {
      return Text(tokens[2]);
    }
    return {};
  }

  // A statement of `parent` covering `node` with the definitions its
  // expressions make (the branches inside it lowered before it); a
  // condition that makes none is left out.
  void Leaf(TSNode node, uint32_t parent, int depth, FlowKind kind = FlowKind::kLeaf,
            bool condition = false) {
    if (ts_node_is_null(node)) return;
    std::vector<Binding> binds;
    Collect(node, node, parent, depth, binds);
    if (binds.empty() && condition) return;
    uint32_t at = Add(kind, node);
    At(at).binds = std::move(binds);
    Kid(parent, at);
  }

  // An `if`'s or `while`'s condition: what it assigns, before the construct;
  // the names an `if let` binds, for the block it guards (`into`).
  void Condition(TSNode condition, uint32_t parent, int depth, std::vector<Binding>& into) {
    std::vector<TSNode> lets;
    if (K(condition) == kLetCondition) lets.push_back(condition);
    if (K(condition) == kLetChain) {
      for (TSNode c : NamedChildren(condition)) {
        if (K(c) == kLetCondition) lets.push_back(c);
      }
    }
    if (lets.empty()) {
      Leaf(condition, parent, depth, FlowKind::kLeaf, true);
      return;
    }
    for (TSNode let : lets) {
      Leaf(Field(let, "value"), parent, depth, FlowKind::kLeaf, true);
      PatternNames(Field(let, "pattern"), let, into);
    }
  }

  // A block covering `holder` that first binds `binds` (an `if let`'s, a
  // match arm's names), then runs `body`.
  uint32_t BindingBlock(TSNode holder, TSNode body, std::vector<Binding> binds, int depth) {
    uint32_t at = Add(FlowKind::kBlock, holder);
    At(at).scope = true;  // the names a pattern binds end with the arm
    if (!binds.empty()) {
      uint32_t leaf = Add(FlowKind::kLeaf, holder);
      CoverNothing(leaf);
      At(leaf).binds = std::move(binds);
      Kid(at, leaf);
    }
    if (!ts_node_is_null(body)) Kid(at, BlockOf(body, depth + 1));
    return at;
  }

  void If(TSNode n, uint32_t parent, int depth) {
    std::vector<Binding> binds;
    Condition(Field(n, "condition"), parent, depth, binds);
    uint32_t at = Add(FlowKind::kIf, n);
    TSNode consequence = Field(n, "consequence");
    Kid(at, BindingBlock(consequence, consequence, std::move(binds), depth));
    TSNode alternative = Field(n, "alternative");
    if (!ts_node_is_null(alternative)) {
      uint32_t clause = Add(FlowKind::kClause, alternative);
      At(clause).role = ClauseRole::kElse;
      TSNode inner{};
      for (TSNode c : NamedChildren(alternative)) {
        if (!IsComment(c)) inner = c;
      }
      Kid(clause, BlockOf(inner, depth + 1));
      Kid(at, clause);
    }
    Kid(parent, at);
  }

  // A match: its arms are exhaustive, so the last one is the else.
  void Match(TSNode n, uint32_t parent, int depth) {
    Leaf(Field(n, "value"), parent, depth, FlowKind::kLeaf, true);
    uint32_t at = Add(FlowKind::kIf, n);
    std::vector<TSNode> arms;
    for (TSNode a : NamedChildren(Field(n, "body"))) {
      if (K(a) == kMatchArm) arms.push_back(a);
    }
    for (size_t i = 0; i < arms.size(); ++i) {
      std::vector<Binding> binds;
      PatternNames(Field(arms[i], "pattern"), arms[i], binds);
      uint32_t block = BindingBlock(arms[i], Field(arms[i], "value"), std::move(binds), depth);
      if (i == 0) {
        Kid(at, block);
        continue;
      }
      uint32_t clause = Add(FlowKind::kClause, arms[i]);
      At(clause).role = i + 1 == arms.size() ? ClauseRole::kElse : ClauseRole::kArm;
      Kid(clause, block);
      Kid(at, clause);
    }
    if (arms.empty()) return;
    Kid(parent, at);
  }

  // `'outer: loop { ... }`: a `break 'outer` lands after the loop, a
  // `continue 'outer` at the end of its body; both are gotos to labels.
  std::string_view LoopLabel(TSNode loop) const {
    for (TSNode c : NamedChildren(loop)) {
      if (K(c) == kLabel) return Text(c);
    }
    return {};
  }
  std::string_view ContinueLabel(std::string_view label) {
    return out_.made_labels.emplace_back(std::string(label) + ":continue");
  }

  void Loop(TSNode n, uint32_t parent, int depth) {
    uint16_t k = K(n);
    std::vector<Binding> binds;
    if (k == kWhileExpression) {
      Condition(Field(n, "condition"), parent, depth, binds);
    } else if (k == kForExpression) {
      Leaf(Field(n, "value"), parent, depth, FlowKind::kLeaf, true);
    }
    uint32_t at = Add(FlowKind::kLoop, n);
    if (k == kForExpression) PatternNames(Field(n, "pattern"), n, At(at).binds);
    TSNode body_node = Field(n, "body");
    uint32_t body = BindingBlock(body_node, body_node, std::move(binds), depth);
    std::string_view label = LoopLabel(n);
    if (!label.empty()) {
      uint32_t end = Add(FlowKind::kLabel, n);
      At(end).label = ContinueLabel(label);
      CoverNothing(end);
      Kid(body, end);
    }
    Kid(at, body);
    At(at).body = static_cast<int32_t>(body);
    Kid(parent, at);
    if (!label.empty()) LabelAfter(n, label, parent);
  }

  // Where a `break 'label` out of `n` lands: a label after it in `parent`.
  void LabelAfter(TSNode n, std::string_view label, uint32_t parent) {
    uint32_t after = Add(FlowKind::kLabel, n);
    At(after).label = label;
    CoverNothing(after);
    Kid(parent, after);
    labels_ = true;
  }

  // `break`/`continue`, to the innermost loop or to a labelled one.
  void Jump(TSNode n, uint32_t parent, int depth) {
    Leaf(n, parent, depth, FlowKind::kLeaf, true);  // `break value` may assign
    std::string_view label;
    for (TSNode c : NamedChildren(n)) {
      if (K(c) == kLabel) label = Text(c);
    }
    bool is_break = K(n) == kBreak;
    if (label.empty()) {
      Kid(parent, Add(is_break ? FlowKind::kBreak : FlowKind::kContinue, n));
      return;
    }
    uint32_t at = Add(FlowKind::kGoto, n);
    At(at).label = is_break ? label : ContinueLabel(label);
    Kid(parent, at);
    labels_ = true;
  }

  void Statement(TSNode stmt, uint32_t parent, int depth) {
    if (depth > kMaxLowerDepth || ts_node_is_null(stmt)) return;
    uint16_t k = K(stmt);
    if (k == kExpressionStatement) {
      TSNode inner{};
      for (TSNode c : NamedChildren(stmt)) {
        if (!IsComment(c)) inner = c;
      }
      if (ts_node_is_null(inner)) return;
      Statement(inner, parent, depth + 1);
      return;
    }
    switch (k) {
      case kBlock:
      case kUnsafeBlock:
      case kConstBlock:
      case kTryBlock:
        if (IsBlock(stmt)) {
          Kid(parent, BlockOf(stmt, depth));
          // `'a: { ... break 'a; ... }` leaves the block.
          if (std::string_view label = LoopLabel(stmt); !label.empty()) {
            LabelAfter(stmt, label, parent);
          }
          return;
        }
        break;
      case kLetDeclaration: {
        TSNode pattern = Field(stmt, "pattern");
        TSNode value = Field(stmt, "value");
        std::vector<Binding> binds;
        if (K(pattern) == kIdentifier) {
          // `let m;` is given its value later, on every path before a use.
          binds.push_back({Text(pattern),
                           ts_node_is_null(value) ? Def::Type::kOpaque : Def::Type::kValue, value,
                           stmt, true});
        } else {
          PatternNames(pattern, stmt, binds);
        }
        // The value's own definitions and branches first, then the names.
        std::vector<Binding> made;
        if (!ts_node_is_null(value)) Collect(value, stmt, parent, depth, made);
        for (Binding& b : binds) made.push_back(std::move(b));
        uint32_t at = Add(FlowKind::kLeaf, stmt);
        At(at).binds = std::move(made);
        Kid(parent, at);
        return;
      }
      case kIfExpression:
        If(stmt, parent, depth);
        return;
      case kMatchExpression:
        Match(stmt, parent, depth);
        return;
      case kLoopExpression:
      case kWhileExpression:
      case kForExpression:
        Loop(stmt, parent, depth);
        return;
      case kBreak:
      case kContinue:
        Jump(stmt, parent, depth);
        return;
      case kReturn:
        Leaf(stmt, parent, depth, FlowKind::kExit);
        return;
      case kMacroInvocation:
        Leaf(stmt, parent, depth,
             DivergingMacro(MacroName(stmt, src_)) ? FlowKind::kExit : FlowKind::kLeaf);
        return;
      case kFunctionItem:
      case kClosure:
      case kAsyncBlock:
        Kid(parent, Add(FlowKind::kLeaf, stmt));
        return;
      default:
        break;
    }
    // Items (a nested struct, impl or use) bind no variable.
    if (NodeType(stmt).ends_with("_item")) {
      Kid(parent, Add(FlowKind::kLeaf, stmt));
      return;
    }
    Leaf(stmt, parent, depth);
  }

  std::string_view src_;
  const SymbolTable& sym_;
  size_t visited_ = 0;
  bool labels_ = false;
};

}  // namespace

flow::FlowBody LowerFlow(std::string_view source, TSNode body) { return Lowerer(source).Run(body); }

std::string_view MacroName(TSNode invocation, std::string_view source) {
  std::string_view name = NodeText(Field(invocation, "macro"), source);
  size_t cut = name.rfind("::");  // `anyhow::bail!`, `std::panic!`
  if (cut != std::string_view::npos) name.remove_prefix(cut + 2);
  return name;
}

bool DivergingMacro(std::string_view name) { return OneOf(name, kDivergingMacros); }

}  // namespace errdex::extract::rust
