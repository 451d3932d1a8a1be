#include "extract/python/py_guards.h"

#include <algorithm>

#include "core/text.h"
#include "extract/python/py_syntax.h"

namespace errdex::extract::python {
namespace {

constexpr int kMaxDepth = 200;
constexpr size_t kMaxCodeBytes = 300;

class GuardReader {
 public:
  GuardReader(std::string_view source, GuardCache& cache) : src_(source), cache_(cache) {}

  std::vector<Guard> Read(TSNode scope, TSNode target) {
    std::vector<TSNode> path{scope};
    uint32_t at = ts_node_start_byte(target);
    // Down from the scope to the target: the child that holds it, each time.
    for (int depth = 0; depth < kMaxDepth && !ts_node_eq(path.back(), target); ++depth) {
      TSNode next = ts_node_first_named_child_for_byte(path.back(), at);
      if (ts_node_is_null(next) || ts_node_start_byte(next) > at) break;
      // A nested function has guards of its own (the scope is the innermost).
      if (KindOf(next) == kFunctionDefinition) return {};
      path.push_back(next);
    }
    std::vector<Guard> out;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      Step(i > 0 ? path[i - 1] : TSNode{}, path[i], path[i + 1], out);
    }
    if (out.size() > kMaxGuards) {
      out.resize(kMaxGuards);
      cut_ = true;
    }
    if (cut_ && cache_.first_cut_line == 0) cache_.first_cut_line = StartLine(target);
    return out;
  }

 private:
  std::string Code(TSNode n) const {
    return std::string(TruncateUtf8(CollapseWhitespace(NodeText(n, src_)), kMaxCodeBytes));
  }

  Guard Make(const char* kind, TSNode cond, bool negated) const {
    Guard g;
    g.kind = kind;
    g.code = Code(cond);
    g.negated = negated;
    g.line = StartLine(cond);
    ValidValues(cond, negated, g);
    return g;
  }

  // What the subject should have been, when the condition says so: raised
  // when `x not in (a, b)` (valid: a, b), or when `not isinstance(x, T)`
  // (valid: T).
  void ValidValues(TSNode cond, bool negated, Guard& g) const {
    while (KindOf(cond) == kNotOperator) {
      cond = Field(cond, "argument");
      negated = !negated;
    }
    if (KindOf(cond) == kComparisonOperator && ts_node_named_child_count(cond) == 2) {
      std::string op;
      for (TSNode c : Children(cond)) {
        if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + std::string(NodeText(c, src_));
      }
      // The raise needs the subject outside the set.
      bool outside = (op == "not in" && !negated) || (op == "in" && negated);
      TSNode set = ts_node_named_child(cond, 1);
      if (outside && KindOf(set) == kIdentifier) set = ModuleConstant(cond, NodeText(set, src_));
      uint16_t k = KindOf(set);
      if (outside && (k == kTuple || k == kList || k == kOther)) {
        std::vector<std::string> values;
        for (TSNode v : NamedChildren(set)) {
          if (KindOf(v) != kComment) values.push_back(Code(v));
        }
        // A set literal is kOther to this front end: accept `{...}` only.
        if (k == kOther && !StartsWith(NodeText(set, src_), "{")) return;
        if (values.empty()) return;
        g.subject = Code(ts_node_named_child(cond, 0));
        g.values = std::move(values);
      }
      return;
    }
    if (KindOf(cond) == kCall && negated &&
        NodeText(Field(cond, "function"), src_) == "isinstance") {
      std::vector<TSNode> args = NamedChildren(Field(cond, "arguments"));
      if (args.size() != 2) return;
      g.subject = Code(args[0]);
      if (KindOf(args[1]) == kTuple) {
        for (TSNode t : NamedChildren(args[1])) g.values.push_back(Code(t));
      } else {
        g.values.push_back(Code(args[1]));
      }
    }
  }

  // The collection a module-level `NAME = (...)` / `[...]` / `{...}` /
  // `frozenset({...})` binds, when NAME is assigned once at module level;
  // a null node otherwise.
  TSNode ModuleConstant(TSNode from, std::string_view name) const {
    TSNode module = from;
    for (TSNode up = ts_node_parent(module); !ts_node_is_null(up); up = ts_node_parent(up)) {
      module = up;
    }
    TSNode found{};
    int assignments = 0;
    for (TSNode stmt : NamedChildren(module)) {
      if (KindOf(stmt) != kExpressionStatement || ts_node_named_child_count(stmt) != 1) continue;
      TSNode a = ts_node_named_child(stmt, 0);
      if (KindOf(a) != kAssignment || NodeText(Field(a, "left"), src_) != name) continue;
      ++assignments;
      TSNode right = Field(a, "right");
      // frozenset({...}) / set([...]) / tuple(...): the one literal inside.
      if (KindOf(right) == kCall) {
        std::string_view fn = NodeText(Field(right, "function"), src_);
        std::vector<TSNode> args = NamedChildren(Field(right, "arguments"));
        if ((fn != "frozenset" && fn != "set" && fn != "tuple") || args.size() != 1) return {};
        right = args[0];
      }
      found = right;
    }
    return assignments == 1 ? found : TSNode{};
  }

  // What `parent` says about reaching its child `child`.
  void Step(TSNode grandparent, TSNode parent, TSNode child, std::vector<Guard>& out) {
    switch (KindOf(parent)) {
      case kBlock:
        EarlyExits(parent, child, out);
        if (KindOf(child) == kCase) Case(grandparent, parent, child, out);
        return;
      case kIf: {
        TSNode cond = Field(parent, "condition");
        if (SameNode(child, Field(parent, "consequence"))) {
          out.push_back(Make("if", cond, false));
          return;
        }
        // An elif or else: every condition before it was false.
        out.push_back(Make("if", cond, true));
        auto [it, fresh] = cache_.exits.try_emplace(parent.id);
        if (fresh) {
          for (TSNode alt : NamedChildren(parent)) {
            if (KindOf(alt) != kElif) continue;
            it->second.emplace_back(ts_node_start_byte(alt),
                                    Make("elif", Field(alt, "condition"), true));
          }
        }
        AddBefore(it->second, ts_node_start_byte(child), out);
        if (KindOf(child) == kElif) out.push_back(Make("elif", Field(child, "condition"), false));
        return;
      }
      case kWhile:
        // `while True:` says nothing about when the raise happens.
        if (SameNode(child, Field(parent, "body")) && KindOf(Field(parent, "condition")) != kTrue) {
          out.push_back(Make("while", Field(parent, "condition"), false));
        }
        return;
      case kFor:
        if (SameNode(child, Field(parent, "body"))) {
          Guard g;
          g.kind = "for";
          g.code = Code(Field(parent, "left")) + " in " + Code(Field(parent, "right"));
          g.line = StartLine(parent);
          out.push_back(std::move(g));
        }
        return;
      case kTry:
        if (KindOf(child) == kExcept || KindOf(child) == kExceptGroup) {
          Guard g;
          g.kind = "except";
          TSNode value{};
          for (TSNode c : NamedChildren(child)) {
            if (KindOf(c) != kBlock && KindOf(c) != kComment) {
              value = c;
              break;
            }
          }
          if (KindOf(value) == kAsPattern) value = ts_node_named_child(value, 0);
          g.code = ts_node_is_null(value) ? "" : Code(value);
          g.subject = Tried(parent);
          g.line = StartLine(child);
          out.push_back(std::move(g));
        } else if (KindOf(child) == kElse) {
          // try: ... else: runs only when the tried code raised nothing.
          Guard g;
          g.kind = "try-else";
          g.subject = Tried(parent);
          g.line = StartLine(child);
          out.push_back(std::move(g));
        }
        return;
      case kMatch:
        return;  // the case clause is one level further down, in the block
      default:
        return;
    }
  }

  // What a try statement tries: its first statement, `return` dropped
  // (`return call()` raised E is about `call()`).
  std::string Tried(TSNode try_statement) const {
    TSNode first = ts_node_named_child(Field(try_statement, "body"), 0);
    if (KindOf(first) == kReturn && ts_node_named_child_count(first) == 1) {
      first = ts_node_named_child(first, 0);
    }
    return ts_node_is_null(first) ? "" : Code(first);
  }

  // `case` clauses sit in the match statement's block.
  void Case(TSNode match, TSNode block, TSNode clause, std::vector<Guard>& out) {
    if (KindOf(match) != kMatch) return;
    std::string subject = Code(Field(match, "subject"));
    TSNode pattern{};
    for (TSNode c : NamedChildren(clause)) {
      if (KindOf(c) == kCasePattern) {
        pattern = c;
        break;
      }
    }
    Guard g;
    g.subject = subject;
    g.line = StartLine(clause);
    bool wildcard = !ts_node_is_null(pattern) && ts_node_named_child_count(pattern) == 0 &&
                    Trim(NodeText(pattern, src_)) == "_";
    if (wildcard) {
      g.kind = "default-case";
      for (TSNode c : NamedChildren(block)) {
        if (SameNode(c, clause)) break;
        if (KindOf(c) != kCase) continue;
        for (TSNode p : NamedChildren(c)) {
          if (KindOf(p) == kCasePattern) g.values.push_back(Code(p));
        }
      }
    } else {
      g.kind = "case";
      g.code = ts_node_is_null(pattern) ? "" : Code(pattern);
    }
    out.push_back(std::move(g));
  }

  // `if cond: return/raise` (no else) before `child` in `block`: reaching the
  // child means cond was false.
  void EarlyExits(TSNode block, TSNode child, std::vector<Guard>& out) {
    auto [it, fresh] = cache_.exits.try_emplace(block.id);
    if (fresh) BlockExits(block, it->second);
    AddBefore(it->second, ts_node_start_byte(child), out);
  }

  // The guards of `list` (by statement start) before `at`: the nearest
  // kMaxGuardsPerStep of them.
  void AddBefore(const std::vector<std::pair<uint32_t, Guard>>& list, uint32_t at,
                 std::vector<Guard>& out) {
    auto end = std::lower_bound(list.begin(), list.end(), at,
                                [](const auto& e, uint32_t a) { return e.first < a; });
    auto begin = list.begin();
    if (end - begin > static_cast<std::ptrdiff_t>(kMaxGuardsPerStep)) {
      begin = end - static_cast<std::ptrdiff_t>(kMaxGuardsPerStep);
      cut_ = true;
    }
    for (auto e = begin; e != end; ++e) out.push_back(e->second);
  }

  // Every early exit of `block`, by the start of its statement.
  void BlockExits(TSNode block, std::vector<std::pair<uint32_t, Guard>>& exits) {
    for (TSNode s : NamedChildren(block)) {
      if (KindOf(s) == kMatch) {
        std::vector<Guard> one;
        MatchFallThrough(s, one);
        for (Guard& g : one) exits.emplace_back(ts_node_start_byte(s), std::move(g));
      }
      if (KindOf(s) != kIf) continue;
      bool has_alternative = false;
      for (TSNode c : NamedChildren(s)) {
        if (KindOf(c) == kElif || KindOf(c) == kElse) has_alternative = true;
      }
      if (has_alternative) continue;
      TSNode body = Field(s, "consequence");
      uint32_t n = ts_node_named_child_count(body);
      if (n == 0) continue;
      uint16_t last = KindOf(ts_node_named_child(body, n - 1));
      // break and continue skip the rest of the loop body as surely.
      if (last == kReturn || last == kRaise || last == kBreak || last == kContinue) {
        exits.emplace_back(ts_node_start_byte(s), Make("early-exit", Field(s, "condition"), true));
      }
    }
  }

  // A `match` before the raise whose every case leaves (return/raise): the
  // raise runs only when the subject matched none of them.
  void MatchFallThrough(TSNode match, std::vector<Guard>& out) {
    Guard g;
    g.kind = "default-case";
    g.subject = Code(Field(match, "subject"));
    g.line = StartLine(match);
    TSNode body = Field(match, "body");
    for (TSNode c : NamedChildren(body)) {
      if (KindOf(c) != kCase) continue;
      TSNode consequence = Field(c, "consequence");
      uint32_t n = ts_node_named_child_count(consequence);
      uint16_t last =
          n == 0 ? static_cast<uint16_t>(kOther) : KindOf(ts_node_named_child(consequence, n - 1));
      if (last != kReturn && last != kRaise) return;
      for (TSNode p : NamedChildren(c)) {
        if (KindOf(p) == kCasePattern) {
          // A wildcard catches everything: nothing falls through.
          if (ts_node_named_child_count(p) == 0 && Trim(NodeText(p, src_)) == "_") return;
          g.values.push_back(Code(p));
        }
      }
    }
    if (!g.values.empty()) out.push_back(std::move(g));
  }

  std::string_view src_;
  GuardCache& cache_;
  bool cut_ = false;
};

}  // namespace

std::vector<Guard> PythonGuards(TSNode scope, TSNode target, std::string_view source,
                                GuardCache* cache) {
  if (ts_node_is_null(scope) || ts_node_is_null(target)) return {};
  GuardCache local;
  return GuardReader(source, cache != nullptr ? *cache : local).Read(scope, target);
}

}  // namespace errdex::extract::python
