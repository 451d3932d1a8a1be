#include "extract/flow/guards.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "core/text.h"
#include "extract/ts_util.h"

namespace errdex::extract::flow {
namespace {

constexpr int kMaxDepth = 200;
constexpr size_t kMaxCodeBytes = 300;
constexpr size_t kMaxWhenBytes = 400;
// A fall-through condition with more conditions than this is not spelled
// out: the statement is named instead (see BlockExits).
constexpr size_t kMaxFormulaAtoms = 16;
// ... and one with more than this before it is simplified is not built.
constexpr size_t kMaxBuiltAtoms = 64;
// Earlier asserts of a block beyond this many are one guard.
constexpr size_t kMaxAssertsSpelledOut = 3;
// The kind of a cached entry that is no guard: a label, past which the
// early exits before it say nothing (a goto arrives from elsewhere).
constexpr std::string_view kBarrier = "";

// Statements that leave where they stand: control never runs past them.
bool Leaves(GuardNode k) {
  return k == GuardNode::kReturn || k == GuardNode::kRaise || k == GuardNode::kBreak ||
         k == GuardNode::kContinue || k == GuardNode::kGoto;
}

// Statements and clauses whose children are statements or clauses: the
// only places a return, raise, break or continue can be (an expression
// holds none, a nested definition's are its own).
bool HoldsStatements(GuardNode k) {
  switch (k) {
    case GuardNode::kBlock:
    case GuardNode::kIf:
    case GuardNode::kElif:
    case GuardNode::kElse:
    case GuardNode::kWhile:
    case GuardNode::kDo:
    case GuardNode::kFor:
    case GuardNode::kWith:
    case GuardNode::kTry:
    case GuardNode::kHandler:
    case GuardNode::kHandlerGroup:
    case GuardNode::kFinally:
    case GuardNode::kMatch:
    case GuardNode::kCase:
    case GuardNode::kLabel:
    case GuardNode::kHolder:
    case GuardNode::kWrapper:
      return true;
    default:
      return false;
  }
}

bool IsLoop(GuardNode k) {
  return k == GuardNode::kWhile || k == GuardNode::kDo || k == GuardNode::kFor;
}

// Code too long to show whole is cut where the reader can see it, and
// where a token ends: half a name quoted as code reads as a name the code
// does not have.
std::string Cut(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::string_view cut = TruncateUtf8(text, max_bytes);
  // Not inside a string: before the quote that opens the one cut open.
  char open = 0;
  size_t opened = 0;
  for (size_t i = 0; i < cut.size(); ++i) {
    char c = cut[i];
    if (open != 0 && c == '\\') {
      ++i;
    } else if (open != 0 && c == open) {
      open = 0;
    } else if (open == 0 && (c == '"' || c == '\'')) {
      open = c;
      opened = i;
    }
  }
  if (open != 0) cut = cut.substr(0, opened);
  // Before the last space, dot, comma or bracket: where a name ends.
  if (size_t at = cut.find_last_of(" .,(["); at != std::string_view::npos && at > 0) {
    cut = Trim(cut.substr(0, at));
  }
  return std::string(cut) + " …";
}

std::string When(const Expr& e) { return Cut(e.text, kMaxWhenBytes); }

class GuardReader {
 public:
  GuardReader(const GuardSyntax& syntax, GuardCache& cache) : syn_(syntax), cache_(cache) {}

  std::vector<Guard> Read(TSNode scope, TSNode target) {
    scope_ = scope;
    std::vector<TSNode> path{scope};
    uint32_t at = ts_node_start_byte(target);
    // Down from the scope to the target: the child that holds it, each time.
    for (int depth = 0; depth < kMaxDepth && !ts_node_eq(path.back(), target); ++depth) {
      TSNode next = ts_node_first_named_child_for_byte(path.back(), at);
      if (ts_node_is_null(next) || ts_node_start_byte(next) > at) break;
      // A nested function has guards of its own (the scope is the innermost).
      if (syn_.Kind(next) == GuardNode::kScope) return {};
      path.push_back(next);
    }
    path_ = path;
    target_at_ = at;
    std::vector<Guard> out;
    // Control can enter the path below its top at a label a goto jumps to,
    // or at a case label a switch jumps to from outside the statements
    // around it: what the path says above such an entry need not hold. The
    // deepest entry says it instead.
    size_t from = 0;
    size_t to = path.size();  // the steps read: [from, to - 1)
    Guard entry_case;         // a switch's case label entered below its top
    if (syn_.HasLabels()) {
      const GuardCache::Label* entry = nullptr;
      for (const GuardCache::Label& label : Targets()) {
        if (!Reaches(label.at)) continue;
        size_t i = Deepest(label.at);
        if (entry == nullptr || i >= from) {
          from = i;
          entry = &label;
        }
      }
      if (entry != nullptr) {
        Guard g;
        g.kind = "label";
        g.code = entry->name;
        g.line = entry->line;
        out.push_back(std::move(g));
      }
      for (size_t i = from; i + 1 < path.size(); ++i) {
        if (Kind(path[i]) != GuardNode::kMatch || !Irregular(path[i])) continue;
        entry_case.kind = "case-entry";
        entry_case.subject = syn_.Code(syn_.Condition(path[i]));
        entry_case.line = StartLine(path[i]);
        to = i + 1;  // nothing below the switch is said
        break;
      }
    }
    for (size_t i = from; i + 1 < to; ++i) {
      Step(i > 0 ? path[i - 1] : TSNode{}, path[i], path[i + 1], out);
    }
    if (!entry_case.kind.empty()) out.push_back(std::move(entry_case));
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
  GuardNode Kind(TSNode n) const { return syn_.Kind(n); }

  // What `parent` says about reaching its child `child`.
  void Step(TSNode grandparent, TSNode parent, TSNode child, std::vector<Guard>& out) {
    switch (Kind(parent)) {
      case GuardNode::kBlock:
        EarlyExits(parent, child, out);
        if (Kind(child) == GuardNode::kCase) {
          syn_.CaseGuards(grandparent, parent, child, FallsOutOf(), out);
        }
        return;
      case GuardNode::kCase:
        // C's case holds its statements without a block.
        EarlyExits(parent, child, out);
        return;
      case GuardNode::kHolder:
        // An #if arm's statements before the child, not those of the arm
        // before an #else it holds.
        if (Kind(child) != GuardNode::kHolder) EarlyExits(parent, child, out);
        return;
      case GuardNode::kIf: {
        TSNode cond = syn_.Condition(parent);
        if (SameNode(child, syn_.Body(parent))) {
          out.push_back(Accepted(syn_.Make("if", cond, false), parent, cond, false));
          return;
        }
        // Inside the condition itself: the test has not been made yet.
        if (Kind(child) != GuardNode::kElif && Kind(child) != GuardNode::kElse) return;
        // An elif or else: every condition before it was false.
        out.push_back(Accepted(syn_.Make("if", cond, true), parent, cond, true));
        auto [it, fresh] = cache_.exits.try_emplace(parent.id);
        if (fresh) {
          for (TSNode alt : NamedChildren(parent)) {
            if (Kind(alt) != GuardNode::kElif) continue;
            TSNode test = syn_.Condition(alt);
            it->second.emplace_back(ts_node_start_byte(alt),
                                    Accepted(syn_.Make("elif", test, true), parent, test, true));
          }
        }
        AddBefore(it->second, ts_node_start_byte(child), out);
        if (Kind(child) == GuardNode::kElif) {
          TSNode test = syn_.Condition(child);
          out.push_back(Accepted(syn_.Make("elif", test, false), parent, test, false));
        }
        return;
      }
      case GuardNode::kWhile: {
        // `while True:` says nothing about when the raise happens.
        TSNode cond = syn_.Condition(parent);
        if (SameNode(child, syn_.Body(parent)) && !syn_.AlwaysTrue(cond)) {
          out.push_back(syn_.Make("while", cond, false));
        }
        return;
      }
      case GuardNode::kFor:
        if (SameNode(child, syn_.Body(parent))) {
          Guard g;
          if (syn_.LoopGuard(parent, g)) out.push_back(std::move(g));
        } else if (Kind(child) == GuardNode::kElse) {
          // for ... else: runs only when the loop ran to its end, neither
          // broken out of nor left (setuptools' extern importer returns
          // from the loop on the first import that works).
          Guard g;
          if (syn_.LoopGuard(parent, g)) {
            g.kind = "loop-else";
            out.push_back(std::move(g));
          }
        }
        return;
      case GuardNode::kTry:
        if (Kind(child) == GuardNode::kHandler || Kind(child) == GuardNode::kHandlerGroup) {
          out.push_back(syn_.HandlerGuard(parent, child));
        } else if (Kind(child) == GuardNode::kElse) {
          // try: ... else: runs only when the tried code raised nothing.
          Guard g;
          g.kind = "try-else";
          g.subject = syn_.Tried(parent);
          g.line = StartLine(child);
          out.push_back(std::move(g));
        }
        return;
      default:
        return;  // a match's case clause is one level further down, in its block
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
  // kMaxGuardsPerStep of them. Past a label a goto jumps to, the exits
  // above it need not have run: the label is the condition instead.
  void AddBefore(const std::vector<std::pair<uint32_t, Guard>>& list, uint32_t at,
                 std::vector<Guard>& out) {
    auto end = std::lower_bound(list.begin(), list.end(), at,
                                [](const auto& e, uint32_t a) { return e.first < a; });
    auto begin = list.begin();
    for (auto e = list.begin(); e != list.end() && e->first <= at; ++e) {
      // The barrier's line is its label's start byte (the statement it is
      // in may be the child, whose label can come after the target).
      if (e->second.kind == kBarrier && Reaches(static_cast<uint32_t>(e->second.line))) {
        begin = e + 1;
      }
    }
    if (begin > end) return;
    // Test code runs assert after assert: past a few, the ones before are
    // one condition ("the 12 assertions before it held"), not 12 copies.
    size_t asserted = static_cast<size_t>(
        std::count_if(begin, end, [](const auto& e) { return e.second.kind == "asserted"; }));
    bool fold = asserted > kMaxAssertsSpelledOut;
    size_t others = static_cast<size_t>(end - begin) - (fold ? asserted : 0);
    size_t skip = others > kMaxGuardsPerStep ? others - kMaxGuardsPerStep : 0;
    if (skip > 0) cut_ = true;
    for (auto e = begin; e != end; ++e) {
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
      if (syn_.HasLabels()) {
        if (const GuardCache::Label* label = JumpedTo(s, /*at_start=*/true)) {
          Guard barrier;
          barrier.kind = kBarrier;
          barrier.line = static_cast<int>(label->at);
          exits.emplace_back(at, std::move(barrier));
        }
      }
      std::optional<Formula> f = FallThrough(s, 0);
      if (f) f = Simplify(std::move(*f));
      if (f && f->Atoms() > kMaxFormulaAtoms) f.reset();
      if (!f) {
        // Loops, handlers and cases that may leave: named, not spelled out.
        Guard g;
        g.line = StartLine(s);
        g.code = Keyword(s);
        if (!NoException(s, g) && !CaughtOnly(s, g)) g.kind = "opaque";
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
          Guard g = syn_.Make(Kind(s) == GuardNode::kAssert ? "asserted" : "early-exit", r.atom,
                              r.negated);
          // `if isinstance(x, tuple): raise TypeError(...)`: values that
          // leave by a raise are another error's.
          if (!g.values.empty()) {
            TSNode owner = TestOwner(r.atom, s);
            if (!ts_node_is_null(owner)) {
              g = Accepted(std::move(g), owner, r.atom, r.negated);
            } else if (!LeavesOtherwise(s)) {
              ClearValues(g);
            }
          }
          exits.emplace_back(at, std::move(g));
          continue;
        }
        Guard g;
        g.kind = "early-exit";
        g.when = When(Render(r, syn_));
        g.code = g.when;
        g.line = StartLine(s);
        exits.emplace_back(at, std::move(g));
      }
    }
  }

  // `for`, `try`, ...: what a statement is, for a sentence that names it.
  std::string Keyword(TSNode s) const {
    std::string_view text = NodeText(s, syn_.source());
    size_t end = 0;
    while (end < text.size() && (std::isalpha(static_cast<unsigned char>(text[end])) != 0)) ++end;
    return std::string(text.substr(0, end));
  }

  // Whether `n` is or holds a node of a kind `found` accepts, entering only
  // nodes `into` accepts.
  template <class Found, class Into>
  bool Holds(TSNode n, Found found, Into into) const {
    if (found(Kind(n))) return true;
    if (!into(Kind(n))) return false;
    return AnyBelow(
        n, [&](TSNode cur) { return into(Kind(cur)); },
        [&](TSNode cur, int) { return found(Kind(cur)); }, kMaxDepth);
  }

  // Whether the statement's body or handlers hold a return, raise, break,
  // continue or goto (a nested function's do not count).
  bool MayLeave(TSNode n) const { return Holds(n, Leaves, HoldsStatements); }

  // The if statement (`top` or one inside it) whose test, or an elif's,
  // holds `atom`; null when the atom is in no test of one.
  TSNode TestOwner(TSNode atom, TSNode top) const {
    for (TSNode n = ts_node_parent(atom); !ts_node_is_null(n); n = ts_node_parent(n)) {
      GuardNode k = Kind(n);
      if (k == GuardNode::kIf || k == GuardNode::kElif) {
        TSNode test = syn_.Condition(n);
        if (ts_node_is_null(test) || ts_node_start_byte(atom) < ts_node_start_byte(test) ||
            ts_node_end_byte(test) < ts_node_end_byte(atom)) {
          return {};  // in an arm, not a test
        }
        return k == GuardNode::kElif ? ts_node_parent(n) : n;
      }
      if (SameNode(n, top)) return {};
    }
    return {};
  }

  // Whether `n` holds a way out other than a raise: a return, break,
  // continue or goto.
  bool LeavesOtherwise(TSNode n) const {
    return Holds(
        n,
        [](GuardNode k) {
          return k == GuardNode::kReturn || k == GuardNode::kBreak || k == GuardNode::kContinue ||
                 k == GuardNode::kGoto;
        },
        HoldsStatements);
  }

  static void ClearValues(Guard& g) {
    g.values.clear();
    g.meanings.clear();
  }

  // Whether every way through `branch` ends in a raise: a statement of it
  // that never falls through, with no other way out before (dead code
  // after it does not count).
  bool AlwaysRaises(TSNode branch) const {
    if (ts_node_is_null(branch)) return false;
    std::vector<TSNode> statements =
        Kind(branch) == GuardNode::kBlock ? NamedChildren(branch) : std::vector<TSNode>{branch};
    for (TSNode s : statements) {
      if (LeavesOtherwise(s)) return false;
      std::optional<Formula> f = FallThrough(s, 0);
      if (f) f = Simplify(std::move(*f));
      if (!f) return false;
      if (f->op == Formula::kFalse) return true;
    }
    return false;
  }

  static constexpr size_t kMaxArmsFollowed = 64;
  static constexpr size_t kMaxUnknownTests = 8;
  static constexpr size_t kMaxComparisons = 50000;

  // `g` (a guard on a test of the if statement `chain`) without the values
  // that the statement sends into an arm that always raises. The values
  // avoid this raise, but where another arm of the same tests raises, they
  // meet that error instead (`if isinstance(arrays, tuple): raise
  // TypeError(...)` before the `elif` whose raise this is): a page must not
  // offer them as accepted. Each value is followed down the arms: a test is
  // `forced_value` where it is `forced` (the one the guard is on), else
  // what the front end can tell of it for that value (TestHolds); a value
  // goes only when every way it can go ends in a raise.
  Guard Accepted(Guard g, TSNode chain, TSNode forced, bool forced_value) const {
    if (g.values.empty() || Kind(chain) != GuardNode::kIf) return g;
    struct Arm {
      TSNode test;  // null for else
      TSNode body;
    };
    std::vector<Arm> arms = {{syn_.Condition(chain), syn_.Body(chain)}};
    for (TSNode alt : NamedChildren(chain)) {
      GuardNode k = Kind(alt);
      if (k == GuardNode::kElif) arms.push_back({syn_.Condition(alt), syn_.Body(alt)});
      if (k == GuardNode::kElse) arms.push_back({TSNode{}, syn_.Body(alt)});
    }
    // A chain too long to follow each value through keeps what it lists.
    if (arms.size() > kMaxArmsFollowed) return g;
    std::vector<int> raising(arms.size(), -1);
    auto raises = [&](size_t i) {
      if (raising[i] < 0) raising[i] = AlwaysRaises(arms[i].body) ? 1 : 0;
      return raising[i] == 1;
    };
    // Whether `value` (a literal, or a fresh value of that class) always
    // lands in an arm that raises, whatever the tests the front end cannot
    // decide come out as: each such test, by its code, one truth for all
    // the arms it is written in.
    size_t budget = kMaxComparisons;
    auto always_raises = [&](const std::string& value, bool fresh) {
      std::set<std::string, std::less<>> unknown;
      std::map<std::string, bool, std::less<>> atoms;
      GuardSyntax::Assumptions note{&atoms, &unknown, &budget};
      for (const Arm& arm : arms) {
        if (!ts_node_is_null(arm.test) && !SameNode(arm.test, forced)) {
          syn_.TestHolds(arm.test, g.subject, value, fresh, note);
        }
      }
      if (unknown.size() > kMaxUnknownTests) return false;
      std::vector<std::string> names(unknown.begin(), unknown.end());
      GuardSyntax::Assumptions assumed{&atoms, nullptr, &budget};
      for (uint32_t bits = 0; bits < (1u << names.size()); ++bits) {
        for (size_t n = 0; n < names.size(); ++n) atoms[names[n]] = ((bits >> n) & 1u) != 0;
        bool landed = false;
        for (size_t i = 0; i < arms.size() && !landed; ++i) {
          std::optional<bool> holds = true;
          if (!ts_node_is_null(arms[i].test)) {
            holds = SameNode(arms[i].test, forced)
                        ? std::optional<bool>(forced_value)
                        : syn_.TestHolds(arms[i].test, g.subject, value, fresh, assumed);
          }
          if (!holds) return false;
          if (!*holds) continue;
          if (!raises(i)) return false;
          landed = true;
        }
        if (!landed) return false;  // past every arm: the statement falls through
      }
      return true;
    };
    bool types = g.code.find("isinstance") != std::string::npos;
    std::vector<std::string> values, meanings;
    for (size_t v = 0; v < g.values.size(); ++v) {
      if (budget == 0) return g;  // too much to follow: the values stand as read
      bool refused = always_raises(g.values[v], types);
      // A class is refused when a fresh value of it and each literal of it
      // the tests name are.
      for (size_t i = 0; refused && types && i < arms.size(); ++i) {
        if (ts_node_is_null(arms[i].test)) continue;
        for (const std::string& literal : syn_.InstancesIn(arms[i].test, g.values[v])) {
          refused = refused && always_raises(literal, false);
        }
      }
      if (budget == 0) return g;
      if (refused) continue;
      values.push_back(g.values[v]);
      if (v < g.meanings.size()) meanings.push_back(g.meanings[v]);
    }
    if (values.size() != g.values.size()) {
      g.values = std::move(values);
      g.meanings = g.meanings.empty() ? std::vector<std::string>{} : std::move(meanings);
    }
    return g;
  }

  bool HasReturnOrRaise(TSNode n) const {
    return Holds(
        n,
        [](GuardNode k) {
          return k == GuardNode::kReturn || k == GuardNode::kRaise || k == GuardNode::kGoto;
        },
        HoldsStatements);
  }

  // A break that ends this loop, not one of a loop (or a switch) inside it.
  bool HasOwnBreak(TSNode n) const {
    bool owns = syn_.MatchOwnsBreak();
    return Holds(
        n, [](GuardNode k) { return k == GuardNode::kBreak; },
        [owns](GuardNode k) {
          return !IsLoop(k) && !(owns && k == GuardNode::kMatch) && HoldsStatements(k);
        });
  }

  // A continue that goes round a loop outside `n`.
  bool HasOuterContinue(TSNode n) const {
    return Holds(
        n, [](GuardNode k) { return k == GuardNode::kContinue; },
        [](GuardNode k) { return !IsLoop(k) && HoldsStatements(k); });
  }

  // Calls `visit` on `n` and every node below it that a statement can be
  // (a nested function's are its own), until it returns true.
  template <class Visitor>
  bool Visit(TSNode n, Visitor visit) const {
    if (visit(n)) return true;
    if (!HoldsStatements(Kind(n))) return false;
    return AnyBelow(
        n, [&](TSNode cur) { return HoldsStatements(Kind(cur)); },
        [&](TSNode cur, int) { return Kind(cur) != GuardNode::kOther && visit(cur); }, kMaxDepth);
  }

  // The labels of the scope that its gotos jump to, by start byte: one walk
  // per scope. A computed goto (`goto *p`) may jump to any.
  const std::vector<GuardCache::Label>& Targets() const {
    auto [it, fresh] = cache_.jumped_to.try_emplace(scope_.id);
    std::vector<GuardCache::Label>& targets = it->second;
    if (fresh) {
      std::vector<std::string_view> gotos;
      std::vector<GuardCache::Label> labels;
      for (TSNode body : NamedChildren(scope_)) {
        Visit(body, [&](TSNode n) {
          GuardNode k = Kind(n);
          if (k == GuardNode::kGoto) gotos.push_back(syn_.LabelOf(n));
          if (k == GuardNode::kLabel) {
            labels.push_back({ts_node_start_byte(n), StartLine(n), std::string(syn_.LabelOf(n))});
          }
          return false;
        });
      }
      bool computed = std::find(gotos.begin(), gotos.end(), "") != gotos.end();
      for (GuardCache::Label& label : labels) {
        if (computed || std::find(gotos.begin(), gotos.end(), label.name) != gotos.end()) {
          targets.push_back(std::move(label));
        }
      }
    }
    return targets;
  }

  // The first label in `s` that a goto of the scope jumps to; with
  // `at_start` false, not the label of `s` itself (entering there is
  // entering at its top).
  const GuardCache::Label* JumpedTo(TSNode s, bool at_start) const {
    const std::vector<GuardCache::Label>& targets = Targets();
    uint32_t start = ts_node_start_byte(s);
    auto at = std::lower_bound(targets.begin(), targets.end(), start,
                               [](const GuardCache::Label& t, uint32_t b) { return t.at < b; });
    if (!at_start && at != targets.end() && at->at == start && Kind(s) == GuardNode::kLabel) ++at;
    if (at == targets.end() || at->at >= ts_node_end_byte(s)) return nullptr;
    return &*at;
  }

  // Whether control entering at byte `at` can reach the target: the entry
  // is before it, or inside a loop around it that comes round again.
  bool Reaches(uint32_t at) const {
    if (at <= target_at_) return true;
    for (size_t i = 1; i < path_.size(); ++i) {
      if (IsLoop(Kind(path_[i])) && ts_node_start_byte(path_[i]) <= at &&
          at < ts_node_end_byte(path_[i])) {
        return true;
      }
    }
    return false;
  }

  bool Irregular(TSNode match) const {
    auto [it, fresh] = cache_.irregular.try_emplace(match.id);
    if (fresh) it->second = syn_.Irregular(match);
    return it->second;
  }

  // The deepest node of the path that holds byte `at`.
  size_t Deepest(uint32_t at) const {
    size_t deepest = 0;
    for (size_t i = 0; i < path_.size(); ++i) {
      if (ts_node_start_byte(path_[i]) <= at && at < ts_node_end_byte(path_[i])) deepest = i;
    }
    return deepest;
  }

  // The condition under which control gets past `s`; none when it depends
  // on more than the conditions written (how many times a loop runs, what
  // a call raises).
  std::optional<Formula> FallThrough(TSNode s, int depth) const {
    if (depth > kMaxDepth) return std::nullopt;
    GuardNode kind = Kind(s);
    // A goto may enter it in the middle, past the conditions at its top.
    if (syn_.HasLabels() && JumpedTo(s, /*at_start=*/false) != nullptr) return std::nullopt;
    switch (kind) {
      case GuardNode::kReturn:
      case GuardNode::kRaise:
      case GuardNode::kBreak:
      case GuardNode::kContinue:
      case GuardNode::kGoto:
        return Formula::False();
      case GuardNode::kAssert: {
        TSNode cond = syn_.Asserted(s);
        if (ts_node_is_null(cond)) return Formula::True();
        return Formula::Atom(cond, false);
      }
      case GuardNode::kBlock: {
        // A block that ends by leaving never runs off its end, whatever
        // comes before (a loop, a try): `if isinstance(g, list): for ...:
        // ...; return props` is got past only when g is no list.
        TSNode last{};
        for (TSNode c : NamedChildren(s)) {
          if (Kind(c) != GuardNode::kComment) last = c;
        }
        if (!ts_node_is_null(last) && Leaves(Kind(last))) return Formula::False();
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
      case GuardNode::kIf:
        return IfFallThrough(s, depth);
      case GuardNode::kLabel:
      case GuardNode::kWrapper:
        return FallThrough(syn_.Body(s), depth + 1);
      case GuardNode::kHolder:
        // Compiled in or not: an exit in it may or may not be there.
        if (MayLeave(s)) return std::nullopt;
        return Formula::True();
      case GuardNode::kWith:
        return FallThrough(syn_.Body(s), depth + 1);
      case GuardNode::kWhile:
      case GuardNode::kDo:
        // `while True:` gets past only by a break.
        if (syn_.AlwaysTrue(syn_.Condition(s)) && !HasOwnBreak(syn_.Body(s))) {
          return Formula::False();
        }
        [[fallthrough]];
      case GuardNode::kFor: {
        // A break or continue is the loop's own; a return or raise may leave.
        for (TSNode c : NamedChildren(s)) {
          if (Kind(c) == GuardNode::kBlock ? HasReturnOrRaise(c) : MayLeave(c)) {
            return std::nullopt;
          }
        }
        return Formula::True();
      }
      case GuardNode::kMatch:
        if (Irregular(s)) return std::nullopt;
        if (syn_.MatchOwnsBreak()) {
          if (CasesAllLeave(s)) return Formula::False();
          if (HasReturnOrRaise(s) || HasOuterContinue(s)) return std::nullopt;
          return Formula::True();
        }
        [[fallthrough]];
      case GuardNode::kTry:
        if (MayLeave(s)) return std::nullopt;
        return Formula::True();
      default:
        return Formula::True();
    }
  }

  // A switch with a default whose last case cannot run off its end and
  // none of whose cases breaks out: no value gets past it.
  bool CasesAllLeave(TSNode match) const {
    bool has_default = false;
    TSNode last{};
    for (TSNode c : NamedChildren(syn_.Body(match))) {
      GuardNode k = Kind(c);
      if (k == GuardNode::kComment) continue;
      if (k != GuardNode::kCase || HasOwnBreak(c)) return false;
      has_default = has_default || syn_.IsDefault(c);
      last = c;
    }
    return has_default && !FallsOutOf()(last);
  }

  // Whether control can run off the end of a case's statements: unless they
  // certainly leave.
  GuardSyntax::FallsOut FallsOutOf() const {
    return [this](TSNode clause) {
      std::vector<Formula> all;
      for (TSNode c : NamedChildren(clause)) {
        std::optional<Formula> f = FallThrough(c, 1);
        if (!f) return true;
        all.push_back(std::move(*f));
      }
      return Simplify(Formula::And(std::move(all))).op != Formula::kFalse;
    };
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
    if (!branch(syn_.Condition(s), syn_.Body(s))) return std::nullopt;
    bool has_else = false;
    for (TSNode alt : NamedChildren(s)) {
      GuardNode k = Kind(alt);
      if (k == GuardNode::kElif && !branch(syn_.Condition(alt), syn_.Body(alt))) {
        return std::nullopt;
      }
      if (k == GuardNode::kElse) {
        has_else = true;
        if (!branch(TSNode{}, syn_.Body(alt))) return std::nullopt;
      }
    }
    if (!has_else) alternatives.push_back(Formula::And(std::move(before)));
    return Formula::Or(std::move(alternatives));
  }

  // Whether control never runs off the end of `body` (a block, a
  // handler's body); false for a null one or one whose paths are not known.
  bool CertainlyLeaves(TSNode body) const {
    if (ts_node_is_null(body)) return false;
    std::optional<Formula> f = FallThrough(body, 1);
    return f && Simplify(std::move(*f)).op == Formula::kFalse;
  }

  // Adds what `handler` handles to a guard's list of types; a bare
  // `except:` handles everything, and the list then names none.
  void AddHandled(TSNode handler, std::string& types, bool& bare) const {
    std::string handled = syn_.HandledTypes(handler);
    bare |= handled.empty();
    if (!handled.empty()) types += (types.empty() ? "" : ", ") + handled;
  }

  // A try whose handlers all leave, with a body that cannot: control gets
  // past it exactly when the tried code raised none of the handled types.
  // A match whose every case leaves: when the subject matched none.
  bool NoException(TSNode s, Guard& g) const {
    if (Kind(s) == GuardNode::kMatch) {
      return !Irregular(s) && syn_.MatchFallThrough(s, FallsOutOf(), g);
    }
    if (Kind(s) != GuardNode::kTry) return false;
    std::string types;
    bool bare = false;
    for (TSNode c : NamedChildren(s)) {
      GuardNode k = Kind(c);
      if (k == GuardNode::kComment) continue;
      if (k == GuardNode::kBlock || k == GuardNode::kElse || k == GuardNode::kFinally) {
        if (MayLeave(c)) return false;
        continue;
      }
      if (k != GuardNode::kHandler || !CertainlyLeaves(syn_.Body(c))) return false;
      AddHandled(c, types, bare);
    }
    g.kind = "no-exception";
    g.subject = syn_.Tried(s);
    g.code = bare ? "" : types;
    return true;
  }

  // A try whose body cannot run to its end (each path returns, raises or
  // jumps): control gets past it only through a handler that falls
  // through, that is when the tried code raised one of those handlers'
  // types. urllib3's is_fp_closed tries `return obj.isclosed()`, passes on
  // AttributeError, and raises after three such tries.
  bool CaughtOnly(TSNode s, Guard& g) const {
    if (Kind(s) != GuardNode::kTry) return false;
    std::string types;
    bool bare = false;
    bool body_leaves = false;
    bool any = false;
    for (TSNode c : NamedChildren(s)) {
      GuardNode k = Kind(c);
      if (k == GuardNode::kComment) continue;
      if (k == GuardNode::kBlock) {
        body_leaves = CertainlyLeaves(c);
        continue;
      }
      // What a finally or an else does on the way out is not read here.
      if (k != GuardNode::kHandler) return false;
      if (CertainlyLeaves(syn_.Body(c))) continue;
      any = true;
      AddHandled(c, types, bare);
    }
    if (!body_leaves || !any) return false;
    g.kind = "caught";
    g.subject = syn_.Tried(s);
    g.code = bare ? "" : types;
    return true;
  }

  const GuardSyntax& syn_;
  GuardCache& cache_;
  TSNode scope_{};
  std::vector<TSNode> path_;  // from the scope to the target
  uint32_t target_at_ = 0;
  bool cut_ = false;
};

}  // namespace

TSNode GuardSyntax::LoneSimpleStatement(TSNode block) const {
  TSNode only{};
  for (TSNode s : NamedChildren(block)) {
    if (Kind(s) == GuardNode::kComment) continue;
    if (!ts_node_is_null(only)) return {};
    only = s;
  }
  if (ts_node_is_null(only) || HoldsStatements(Kind(only)) || Kind(only) == GuardNode::kScope ||
      !ts_node_is_null(Body(only))) {
    return {};
  }
  return only;
}

std::string GuardSyntax::Code(TSNode n) const { return Cut(CodeText(n, source_), kMaxCodeBytes); }

Guard GuardSyntax::Make(const char* kind, TSNode cond, bool negated) const {
  Guard g;
  g.kind = kind;
  g.code = Code(cond);
  g.negated = negated;
  g.line = StartLine(cond);
  if (WritesWhen()) g.when = When(negated ? Negative(cond) : Positive(cond));
  ValidValues(cond, negated, g);
  return g;
}

std::vector<Guard> ReadGuards(TSNode scope, TSNode target, const GuardSyntax& syntax,
                              GuardCache& cache) {
  if (ts_node_is_null(scope) || ts_node_is_null(target)) return {};
  return GuardReader(syntax, cache).Read(scope, target);
}

}  // namespace errdex::extract::flow
