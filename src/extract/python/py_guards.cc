#include "extract/python/py_guards.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "core/text.h"
#include "extract/python/py_conditions.h"
#include "extract/python/py_syntax.h"

namespace errdex::extract::python {
namespace {

constexpr int kMaxDepth = 200;
constexpr size_t kMaxCodeBytes = 300;
constexpr size_t kMaxWhenBytes = 400;
// A fall-through condition with more conditions than this is not spelled
// out: the statement is named instead (see Opaque).
constexpr size_t kMaxFormulaAtoms = 16;
// ... and one with more than this before it is simplified is not built.
constexpr size_t kMaxBuiltAtoms = 64;
// Earlier asserts of a block beyond this many are one guard.
constexpr size_t kMaxAssertsSpelledOut = 3;

// Statements and clauses whose children are statements or clauses: the
// only places a return, raise, break or continue can be (an expression
// holds none, a nested definition's are its own).
bool HoldsStatements(uint16_t k) {
  switch (k) {
    case kBlock:
    case kIf:
    case kElif:
    case kElse:
    case kFor:
    case kWhile:
    case kTry:
    case kExcept:
    case kExceptGroup:
    case kFinally:
    case kWith:
    case kMatch:
    case kCase:
      return true;
    default:
      return false;
  }
}

// Whether `n` is or holds a node of a kind `found` accepts, entering only
// nodes `into` accepts; a cursor walk, since this runs over every compound
// statement before a raise.
template <class Found, class Into>
bool Holds(TSNode n, Found found, Into into) {
  if (found(KindOf(n))) return true;
  if (!into(KindOf(n))) return false;
  TSTreeCursor c = ts_tree_cursor_new(n);
  bool hit = false;
  int depth = 0;
  if (ts_tree_cursor_goto_first_child(&c)) {
    depth = 1;
    for (;;) {
      TSNode cur = ts_tree_cursor_current_node(&c);
      uint16_t k = ts_node_is_named(cur) ? KindOf(cur) : static_cast<uint16_t>(kOther);
      if (found(k)) {
        hit = true;
        break;
      }
      if (into(k) && depth < kMaxDepth && ts_tree_cursor_goto_first_child(&c)) {
        ++depth;
        continue;
      }
      bool more = true;
      while (more && !ts_tree_cursor_goto_next_sibling(&c)) {
        more = ts_tree_cursor_goto_parent(&c) && --depth > 0;
      }
      if (!more) break;
    }
  }
  ts_tree_cursor_delete(&c);
  return hit;
}

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
    if (cut_) {
      // The sentence must not pass for the whole condition.
      Guard more;
      more.kind = "cut";
      more.line = StartLine(target);
      out.insert(out.begin(), std::move(more));
    }
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
    g.when = When(negated ? Negative(cond, src_) : Positive(cond, src_));
    ValidValues(cond, negated, g);
    return g;
  }

  // A condition too long to show whole is cut where the reader can see it.
  static std::string When(const Expr& e) {
    if (e.text.size() <= kMaxWhenBytes) return e.text;
    return std::string(TruncateUtf8(e.text, kMaxWhenBytes)) + " …";
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
    if (cache_.note_module_names) cache_.module_names.emplace_back(name);
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
        // An earlier `case X if cond:` lets X reach the wildcard: the
        // patterns are no list of what is refused, but "no case matched"
        // stays exactly true.
        if (!ts_node_is_null(Field(c, "guard"))) {
          g.values.clear();
          g.meanings.clear();
          break;
        }
        for (TSNode p : NamedChildren(c)) {
          if (KindOf(p) == kCasePattern) AddCase(g, Code(p), c);
        }
      }
    } else {
      g.kind = "case";
      g.code = ts_node_is_null(pattern) ? "" : Code(pattern);
    }
    out.push_back(std::move(g));
    TSNode guard = Field(clause, "guard");
    if (!ts_node_is_null(guard) && ts_node_named_child_count(guard) > 0) {
      out.push_back(Make("if", ts_node_named_child(guard, 0), false));
    }
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
    // Test code runs assert after assert: past a few, the ones before are
    // one condition ("the 12 assertions before it held"), not 12 copies.
    size_t asserted = static_cast<size_t>(std::count_if(
        list.begin(), end, [](const auto& e) { return e.second.kind == "asserted"; }));
    bool fold = asserted > kMaxAssertsSpelledOut;
    size_t others = static_cast<size_t>(end - list.begin()) - (fold ? asserted : 0);
    size_t skip = others > kMaxGuardsPerStep ? others - kMaxGuardsPerStep : 0;
    if (skip > 0) cut_ = true;
    for (auto e = list.begin(); e != end; ++e) {
      if (fold && e->second.kind == "asserted") {
        if (asserted == 0) continue;
        Guard held;
        held.kind = "asserts";
        held.code = std::to_string(asserted);
        held.line = e->second.line;
        out.push_back(std::move(held));
        asserted = 0;
      } else if (skip > 0) {
        --skip;  // the farthest go first
      } else {
        out.push_back(e->second);
      }
    }
  }

  // What each statement of `block` requires for control to reach the next
  // one, by the statement's start: `if ok: return` requires `not ok`;
  // `if a: if b: return` requires `not a or not b`; `assert c` requires c.
  void BlockExits(TSNode block, std::vector<std::pair<uint32_t, Guard>>& exits) {
    for (TSNode s : NamedChildren(block)) {
      uint32_t at = ts_node_start_byte(s);
      std::optional<Formula> f = FallThrough(s, 0);
      if (f) f = Simplify(std::move(*f));
      if (f && f->Atoms() > kMaxFormulaAtoms) f.reset();
      if (!f) {
        // Loops, handlers and cases that may leave: named, not spelled out.
        Guard g;
        g.line = StartLine(s);
        g.code = Keyword(s);
        if (!NoException(s, g)) g.kind = "opaque";
        exits.emplace_back(at, std::move(g));
        continue;
      }
      if (f->op == Formula::kTrue) continue;
      if (f->op == Formula::kFalse) {
        Guard g;
        g.kind = "never";  // dead code after it
        g.code = Keyword(s);
        g.line = StartLine(s);
        exits.emplace_back(at, std::move(g));
        continue;
      }
      std::vector<Formula> required =
          f->op == Formula::kAnd ? std::move(f->parts) : std::vector<Formula>{std::move(*f)};
      for (Formula& r : required) {
        if (r.op == Formula::kAtom) {
          exits.emplace_back(at, Make(KindOf(s) == kAssert ? "asserted" : "early-exit", r.atom,
                                      r.negated));
          continue;
        }
        Guard g;
        g.kind = "early-exit";
        g.when = When(Render(r, src_));
        g.code = g.when;
        g.line = StartLine(s);
        exits.emplace_back(at, std::move(g));
      }
    }
  }

  // `for`, `try`, ...: what a statement is, for a sentence that names it.
  std::string Keyword(TSNode s) const {
    std::string_view text = NodeText(s, src_);
    size_t end = 0;
    while (end < text.size() && (std::isalpha(static_cast<unsigned char>(text[end])) != 0)) ++end;
    return std::string(text.substr(0, end));
  }

  // Whether the statement's body or handlers hold a return, raise, break or
  // continue (a nested function's do not count).
  bool MayLeave(TSNode n) const {
    return Holds(
        n, [](uint16_t k) { return k == kReturn || k == kRaise || k == kBreak || k == kContinue; },
        HoldsStatements);
  }

  // The condition under which control gets past `s`; none when it depends
  // on more than the conditions written (how many times a loop runs, what
  // a call raises).
  std::optional<Formula> FallThrough(TSNode s, int depth) const {
    if (depth > kMaxDepth) return std::nullopt;
    switch (KindOf(s)) {
      case kReturn:
      case kRaise:
      case kBreak:
      case kContinue:
        return Formula::False();
      case kAssert:
        return Formula::Atom(ts_node_named_child(s, 0), false);
      case kBlock: {
        std::vector<Formula> all;
        size_t atoms = 0;
        for (TSNode c : NamedChildren(s)) {
          std::optional<Formula> f = FallThrough(c, depth + 1);
          // Bounded while it is built: an elif chain of thousands would
          // otherwise carry every earlier condition into each branch.
          if (!f || (atoms += f->Atoms()) > kMaxBuiltAtoms) return std::nullopt;
          all.push_back(std::move(*f));
        }
        return Formula::And(std::move(all));
      }
      case kIf:
        return IfFallThrough(s, depth);
      case kWith:
        return FallThrough(Field(s, "body"), depth + 1);
      case kWhile:
        // `while True:` gets past only by a break.
        if (KindOf(Field(s, "condition")) == kTrue && !HasOwnBreak(Field(s, "body"))) {
          return Formula::False();
        }
        [[fallthrough]];
      case kFor: {
        // A break or continue is the loop's own; a return or raise may leave.
        for (TSNode c : NamedChildren(s)) {
          if (KindOf(c) == kBlock ? HasReturnOrRaise(c) : MayLeave(c)) return std::nullopt;
        }
        return Formula::True();
      }
      case kTry:
      case kMatch:
        if (MayLeave(s)) return std::nullopt;
        return Formula::True();
      default:
        return Formula::True();
    }
  }

  std::optional<Formula> IfFallThrough(TSNode s, int depth) const {
    std::vector<Formula> alternatives;
    std::vector<Formula> before;  // every condition so far was false
    size_t atoms = 0;
    auto branch = [&](TSNode cond, TSNode body) -> bool {
      std::optional<Formula> f = FallThrough(body, depth + 1);
      if (!f || (atoms += before.size() + 1 + f->Atoms()) > kMaxBuiltAtoms) return false;
      std::vector<Formula> path = before;
      if (!ts_node_is_null(cond)) {
        path.push_back(Formula::Atom(cond, false));
        before.push_back(Formula::Atom(cond, true));
      }
      path.push_back(std::move(*f));
      alternatives.push_back(Formula::And(std::move(path)));
      return true;
    };
    if (!branch(Field(s, "condition"), Field(s, "consequence"))) return std::nullopt;
    bool has_else = false;
    for (TSNode alt : NamedChildren(s)) {
      if (KindOf(alt) == kElif && !branch(Field(alt, "condition"), Field(alt, "consequence"))) {
        return std::nullopt;
      }
      if (KindOf(alt) == kElse) {
        has_else = true;
        if (!branch(TSNode{}, Field(alt, "body"))) return std::nullopt;
      }
    }
    if (!has_else) alternatives.push_back(Formula::And(std::move(before)));
    return Formula::Or(std::move(alternatives));
  }

  bool HasReturnOrRaise(TSNode n) const {
    return Holds(n, [](uint16_t k) { return k == kReturn || k == kRaise; }, HoldsStatements);
  }

  // A break that ends this loop, not one of a loop inside it.
  bool HasOwnBreak(TSNode n) const {
    return Holds(n, [](uint16_t k) { return k == kBreak; },
                 [](uint16_t k) { return k != kFor && k != kWhile && HoldsStatements(k); });
  }

  // A try whose handlers all leave, with a body that cannot: control gets
  // past it exactly when the tried code raised none of the handled types.
  // A match whose every case leaves: when the subject matched none.
  bool NoException(TSNode s, Guard& g) const {
    if (KindOf(s) == kMatch) {
      std::vector<Guard> one;
      MatchFallThrough(s, one);
      if (one.empty()) return false;
      g = std::move(one[0]);
      return true;
    }
    if (KindOf(s) != kTry) return false;
    std::string types;
    bool bare = false;
    for (TSNode c : NamedChildren(s)) {
      uint16_t k = KindOf(c);
      if (k == kComment) continue;
      if (k == kBlock || k == kElse || k == kFinally) {
        if (MayLeave(c)) return false;
        continue;
      }
      if (k != kExcept) return false;
      TSNode body{}, value{};
      for (TSNode e : NamedChildren(c)) {
        if (KindOf(e) == kBlock) body = e;
        else if (ts_node_is_null(value) && KindOf(e) != kComment) value = e;
      }
      std::optional<Formula> f = ts_node_is_null(body) ? std::nullopt : FallThrough(body, 1);
      if (!f || Simplify(std::move(*f)).op != Formula::kFalse) return false;
      if (KindOf(value) == kAsPattern) value = ts_node_named_child(value, 0);
      // A bare `except:` handles everything: the tried code raised nothing.
      bare |= ts_node_is_null(value);
      if (!ts_node_is_null(value)) types += (types.empty() ? "" : ", ") + Code(value);
    }
    g.kind = "no-exception";
    g.subject = Tried(s);
    g.code = bare ? "" : types;
    return true;
  }

  // A `match` before the raise whose every case leaves (return/raise): the
  // raise runs only when the subject matched none of them.
  void MatchFallThrough(TSNode match, std::vector<Guard>& out) const {
    Guard g;
    g.kind = "default-case";
    g.subject = Code(Field(match, "subject"));
    g.line = StartLine(match);
    TSNode body = Field(match, "body");
    for (TSNode c : NamedChildren(body)) {
      if (KindOf(c) != kCase) continue;
      // `case X if cond:` lets X through when cond is false.
      if (!ts_node_is_null(Field(c, "guard"))) return;
      TSNode consequence = Field(c, "consequence");
      uint32_t n = ts_node_named_child_count(consequence);
      uint16_t last =
          n == 0 ? static_cast<uint16_t>(kOther) : KindOf(ts_node_named_child(consequence, n - 1));
      if (last != kReturn && last != kRaise) return;
      for (TSNode p : NamedChildren(c)) {
        if (KindOf(p) == kCasePattern) {
          // A wildcard catches everything: nothing falls through.
          if (ts_node_named_child_count(p) == 0 && Trim(NodeText(p, src_)) == "_") return;
          AddCase(g, Code(p), c);
        }
      }
    }
    if (!g.values.empty()) out.push_back(std::move(g));
  }

  // A case's value, and what its body maps it to when its first statement
  // says so at once (`return Op.MIN`, `op = Op.MIN`): the name's last part.
  void AddCase(Guard& g, std::string value, TSNode clause) const {
    std::string meaning;
    for (TSNode s : NamedChildren(Field(clause, "consequence"))) {
      if (KindOf(s) == kComment) continue;
      TSNode named{};
      if (KindOf(s) == kReturn && ts_node_named_child_count(s) > 0) {
        named = ts_node_named_child(s, 0);
      } else if (KindOf(s) == kExpressionStatement && ts_node_named_child_count(s) > 0 &&
                 KindOf(ts_node_named_child(s, 0)) == kAssignment) {
        named = Field(ts_node_named_child(s, 0), "right");
      }
      if (KindOf(named) == kIdentifier || KindOf(named) == kAttribute) {
        std::string text = Code(named);
        meaning = text.substr(text.rfind('.') == std::string::npos ? 0 : text.rfind('.') + 1);
      }
      break;
    }
    g.meanings.resize(g.values.size());
    g.values.push_back(std::move(value));
    g.meanings.push_back(std::move(meaning));
    // Kept only when some case says what it means.
    if (std::all_of(g.meanings.begin(), g.meanings.end(),
                    [](const std::string& m) { return m.empty(); })) {
      g.meanings.clear();
    }
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
