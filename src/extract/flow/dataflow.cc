#include "extract/flow/dataflow.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "extract/ts_util.h"

namespace errdex::extract::flow {
namespace {

struct FlowState {
  DefList defs;
  bool live = true;
};

// Set when a merge drops a definition past kMaxDefinitions: what the walk
// returns may then miss one. Per thread, as each walk runs on one.
thread_local bool dropped = false;

void MergeInto(FlowState& into, const FlowState& other) {
  if (!other.live) return;
  if (!into.live) {
    into = other;
    return;
  }
  for (const DefPtr& d : other.defs) {
    if (std::find(into.defs.begin(), into.defs.end(), d) != into.defs.end()) continue;
    if (into.defs.size() < kMaxDefinitions) {
      into.defs.push_back(d);
    } else {
      dropped = true;
    }
  }
}

// The states `break` and `continue` leave one loop with.
struct LoopExits {
  FlowState continues{{}, false};
  FlowState breaks{{}, false};
  bool is_switch = false;  // a switch: breaks leave it, continues pass through
};

class Flow {
 public:
  Flow(const FlowBody& body, std::string_view name, TSNode target, int64_t* budget)
      : body_(body), name_(name), target_(target), budget_(budget) {}

  // Runs over the body; returns the definitions that reach the target, or
  // those live at the end of the body when there is none.
  DefList Run() {
    // Without a target we want every definition a later reader could see
    // (module constants): exits do not hide the assignments after them.
    ignore_exits_ = ts_node_is_null(target_);
    FlowState s;
    s.defs = {entry_};
    DefList out;
    if (body_.nodes.empty()) return out;
    if (Block(body_.nodes[0], s, 0, false, !ts_node_is_null(target_))) {
      out = at_target_.defs;
    } else if (s.live) {
      out = s.defs;
    }
    auto entry = std::find(out.begin(), out.end(), entry_);
    from_entry_ = entry != out.end();
    if (from_entry_) out.erase(entry);
    return out;
  }

  bool from_entry() const { return from_entry_; }

 private:
  const FlowNode& At(uint32_t i) const { return body_.nodes[i]; }
  const FlowNode* Opt(int32_t i) const { return i < 0 ? nullptr : &body_.nodes[i]; }

  bool Holds(const FlowNode& n) const {
    return n.start <= ts_node_start_byte(target_) && ts_node_end_byte(target_) <= n.end;
  }

  bool Block(const FlowNode& block, FlowState& s, int depth, bool in_loop, bool seek) {
    if (depth > kMaxFlowDepth) {
      s.defs = {Opaque(block.node)};
      return false;
    }
    // What the name held where a statement of a scoped block declared it
    // anew: what it holds again once the block ends, or a jump or an
    // exception leaves it.
    size_t frame = scopes_.size();
    if (block.scope) scopes_.push_back({{{}, false}, false, loops_.size(), block.start, block.end});
    for (uint32_t k : block.kids) {
      const FlowNode& stmt = At(k);
      if (budget_ != nullptr && --*budget_ < 0) break;
      if (seek && Holds(stmt)) {
        bool found = Seek(stmt, s, depth, in_loop);
        scopes_.resize(frame);
        return found;
      }
      if (block.scope && !scopes_[frame].shadowed && stmt.kind == FlowKind::kLeaf && s.live &&
          Declares(stmt)) {
        MergeInto(scopes_[frame].outer, s);
        scopes_[frame].shadowed = true;
      }
      Collect(s);
      Transfer(stmt, s, depth, in_loop);
      Collect(s);
    }
    Unscope(s, frame);
    scopes_.resize(frame);
    return false;
  }

  // `s` as it is outside the scoped blocks from `frame` on: the name the
  // outermost of them that declared it held before.
  void Unscope(FlowState& s, size_t frame) const {
    for (size_t i = frame; i < scopes_.size(); ++i) {
      if (scopes_[i].shadowed) {
        s.defs = scopes_[i].outer.defs;
        return;
      }
    }
  }

  // The first scope a jump to a loop `depth` loops deep leaves.
  size_t ScopesInside(size_t depth) const {
    size_t i = scopes_.size();
    while (i > 0 && scopes_[i - 1].loops >= depth) --i;
    return i;
  }

  // Where the label of that name is (the first of that name), or past
  // every block when there is none.
  uint32_t LabelAt(std::string_view label) {
    if (!labels_built_) {
      labels_built_ = true;
      for (const FlowNode& n : body_.nodes) {
        if (n.kind == FlowKind::kLabel && !ts_node_is_null(n.node)) {
          label_at_.try_emplace(n.label, ts_node_start_byte(n.node));
        }
      }
    }
    auto it = label_at_.find(label);
    return it == label_at_.end() ? UINT32_MAX : it->second;
  }

  bool Declares(const FlowNode& n) const {
    return std::any_of(n.binds.begin(), n.binds.end(),
                       [&](const Binding& b) { return b.declares && b.name == name_; });
  }

  // An exception can leave a try's body before or after any of its
  // statements, nested ones too: each state there reaches the handlers
  // (and a finally) of every try being walked around it.
  void Collect(const FlowState& s) {
    for (const Collector& c : collectors_) {
      if (c.scopes < scopes_.size()) {
        FlowState outside = s;
        Unscope(outside, c.scopes);  // the handlers are outside the blocks the try holds
        MergeInto(*c.state, outside);
      } else {
        MergeInto(*c.state, s);
      }
    }
  }

  // A try's body walked from `s`: `s` becomes its state at the end; the
  // result is every state in between, `s` before it included.
  FlowState BodyPoints(const FlowNode* body, FlowState& s, int depth, bool in_loop) {
    FlowState points{{}, false};
    MergeInto(points, s);
    if (body == nullptr) return points;
    collectors_.push_back({&points, scopes_.size()});
    Block(*body, s, depth + 1, in_loop, false);
    collectors_.pop_back();
    MergeInto(points, s);
    return points;
  }

  const FlowNode* Role(const FlowNode& n, ClauseRole role) const {
    const FlowNode* found = nullptr;
    for (uint32_t k : n.kids) {
      if (At(k).kind == FlowKind::kClause && At(k).role == role) found = &At(k);
    }
    return found;
  }

  // A handler walked from `in`: its end state merged into `out`, and when
  // `points` is given every state inside it there too.
  void Handler(const FlowNode& clause, const FlowState& in, FlowState& out, FlowState* points,
               int depth, bool in_loop) {
    FlowState h = in;
    Bind(clause, h, in_loop);
    if (points != nullptr) {
      MergeInto(*points, h);
      collectors_.push_back({points, scopes_.size()});
    }
    for (uint32_t b : clause.kids) Block(At(b), h, depth + 1, in_loop, false);
    if (points != nullptr) collectors_.pop_back();
    MergeInto(out, h);
  }

  static DefPtr Opaque(TSNode stmt) {
    auto d = std::make_shared<Def>();
    d->type = Def::Type::kOpaque;
    d->stmt = stmt;
    return d;
  }

  // Applies the node's bindings of the name, in order.
  void Bind(const FlowNode& n, FlowState& s, bool in_loop) {
    for (const Binding& b : n.binds) {
      if (b.name != name_) continue;
      // One definition per binding, however often a walk passes it (a
      // loop's second pass, a finally run again for a break): merges
      // compare definitions by identity. An append is made anew from what
      // it appends to, but for a loop's second pass, where the one made in
      // the first, marked as repeated, stands for both.
      DefPtr& made = made_[&b];
      bool append = b.type == Def::Type::kAppend;
      if (made != nullptr && (!append || repeating_ > 0)) {
        s.defs = {made};
        continue;
      }
      auto d = std::make_shared<Def>();
      d->type = b.type;
      d->value = b.value;
      d->stmt = b.stmt;
      if (append) {
        d->base = s.defs;
        d->base.erase(std::remove(d->base.begin(), d->base.end(), entry_), d->base.end());
        d->in_loop = in_loop;
      }
      if (!append || repeating_ == 0) made = d;
      s.defs = {std::move(d)};
    }
  }

  // `n` contains the target: descend to it and record the state there.
  bool Seek(const FlowNode& n, FlowState s, int depth, bool in_loop) {
    auto stop = [&](const FlowState& state) {
      at_target_ = state;
      return true;
    };
    if (SameNode(n.node, target_) || depth > kMaxFlowDepth) return stop(s);
    switch (n.kind) {
      case FlowKind::kBlock:
        return Block(n, s, depth + 1, in_loop, true) || stop(s);
      case FlowKind::kSwitch:
        return SeekCase(n, s, depth, in_loop);
      case FlowKind::kIf:
      case FlowKind::kLoop:
      case FlowKind::kTry:
      case FlowKind::kWith:
      case FlowKind::kMatch:
      case FlowKind::kClause:
        break;
      default:
        return stop(s);  // a simple statement, a nested definition: the state here
    }
    if (n.kind == FlowKind::kLoop) {
      // Definitions later in the loop body reach the target on the next pass.
      FlowState entry = s;
      Bind(n, entry, in_loop);
      FlowState breaks;
      MergeInto(s, LoopPass(n, entry, breaks, depth));
      // In the body each pass starts by binding the loop variable; the else
      // runs after the last pass, or none, with what that left.
      const FlowNode* body = Opt(n.body);
      if (body != nullptr && Holds(*body)) {
        Bind(n, s, in_loop);
        in_loop = true;
      }
    }
    if (n.kind == FlowKind::kTry) {
      const FlowNode* body = Opt(n.body);
      if (body == nullptr || !Holds(*body)) s = TryStateAt(n, s, depth, in_loop);
    }
    if (n.kind == FlowKind::kClause || n.kind == FlowKind::kWith) Bind(n, s, in_loop);
    for (uint32_t k : n.kids) {
      const FlowNode& kid = At(k);
      if (Holds(kid)) return Seek(kid, s, depth + 1, in_loop);
    }
    return stop(s);  // the target is in a condition or subject
  }

  static bool IsCase(const FlowNode& n) {
    return n.kind == FlowKind::kClause &&
           (n.role == ClauseRole::kCase || n.role == ClauseRole::kDefault);
  }

  // Switch `n`'s cases from `entry`, up to the one holding the target when
  // seeking (which is then sought); every case is entered from `entry` or
  // from the case before it falling through.
  bool Cases(const FlowNode& n, FlowState& s, int depth, bool in_loop, bool seek) {
    const FlowNode* body = Opt(n.body);
    if (body == nullptr) return false;
    FlowState entry = s;
    FlowState state{{}, false};
    bool has_default = false;
    loops_.push_back(LoopExits{{{}, false}, {{}, false}, true});
    bool hit = false;
    for (uint32_t k : body->kids) {
      const FlowNode& stmt = At(k);
      if (budget_ != nullptr && --*budget_ < 0) break;
      if (IsCase(stmt)) {
        MergeInto(state, entry);
        has_default = has_default || stmt.role == ClauseRole::kDefault;
      }
      if (seek && Holds(stmt)) {
        hit = Seek(stmt, state, depth + 1, in_loop);
        break;
      }
      if (IsCase(stmt)) {
        if (const FlowNode* block = ClauseBlock(stmt))
          Block(*block, state, depth + 1, in_loop, false);
      } else {
        Transfer(stmt, state, depth + 1, in_loop);
      }
    }
    FlowState breaks = std::move(loops_.back().breaks);
    loops_.pop_back();
    if (hit) return true;
    FlowState out = std::move(breaks);
    MergeInto(out, state);
    if (!has_default) MergeInto(out, entry);  // no case taken
    s = out;
    return false;
  }

  bool SeekCase(const FlowNode& n, const FlowState& s, int depth, bool in_loop) {
    FlowState state = s;
    if (Cases(n, state, depth, in_loop, true)) return true;
    at_target_ = s;  // the target is in the condition
    return true;
  }

  // How many loops deep the loop a continue goes round is.
  size_t ContinueDepth() const {
    for (size_t i = loops_.size(); i-- > 0;) {
      if (!loops_[i].is_switch) return i + 1;
    }
    return loops_.size();
  }

  // The continues of the innermost loop being walked: a continue in a
  // switch belongs to the loop around it.
  FlowState& Continues() {
    for (size_t i = loops_.size(); i-- > 0;) {
      if (!loops_[i].is_switch) return loops_[i].continues;
    }
    return loops_.back().continues;
  }

  // The state a clause of try `n` holding the target starts with: a
  // handler's, every state of the body; the else's, the body's end; the
  // finally's, every state of the body, the handlers and the else (an
  // exception, a return or a break passes through it too).
  FlowState TryStateAt(const FlowNode& n, const FlowState& s, int depth, bool in_loop) {
    const FlowNode* clause = nullptr;
    for (uint32_t k : n.kids) {
      if (Holds(At(k)) && At(k).kind == FlowKind::kClause) clause = &At(k);
    }
    FlowState end = s;
    FlowState points = BodyPoints(Opt(n.body), end, depth, in_loop);
    if (clause == nullptr) return points;  // the target is in no clause
    if (clause->role == ClauseRole::kHandler) return points;
    if (clause->role == ClauseRole::kElse) return end;
    FlowState all = points;
    FlowState unused{{}, false};
    for (uint32_t k : n.kids) {
      const FlowNode& c = At(k);
      if (c.kind != FlowKind::kClause) continue;
      if (c.role == ClauseRole::kHandler) Handler(c, points, unused, &all, depth, in_loop);
      if (c.role == ClauseRole::kElse) {
        FlowState e = end;
        FlowState else_points = BodyPoints(ClauseBlock(c), e, depth, in_loop);
        MergeInto(all, else_points);
      }
    }
    return all;
  }

  // The block a clause runs, if any.
  const FlowNode* ClauseBlock(const FlowNode& clause) const {
    return clause.kids.empty() ? nullptr : &At(clause.kids[0]);
  }

  // One pass over loop `n`'s body from `entry`: the state it goes round
  // (or ends) with; `breaks` the state its breaks leave with.
  FlowState LoopPass(const FlowNode& n, const FlowState& entry, FlowState& breaks, int depth) {
    FlowState body_state = entry;
    loops_.emplace_back();
    if (const FlowNode* body = Opt(n.body)) Block(*body, body_state, depth + 1, true, false);
    // A continue goes round again, so it may end the loop as the body's
    // end does and run the `else`; a break leaves past the `else`.
    MergeInto(body_state, loops_.back().continues);
    breaks = std::move(loops_.back().breaks);
    loops_.pop_back();
    return body_state;
  }

  void Transfer(const FlowNode& n, FlowState& s, int depth, bool in_loop) {
    if (n.kind == FlowKind::kLabel) {
      // Reached by falling through (when live) and by the gotos walked so
      // far: a goto to an earlier label (a retry loop) is not followed.
      if (auto it = gotos_.find(n.label); it != gotos_.end()) MergeInto(s, it->second);
      return;
    }
    // Dead code is skipped, but for a construct holding a label that a
    // goto walked before lands on.
    if (!s.live && !(n.holds_label && !gotos_.empty())) return;
    switch (n.kind) {
      case FlowKind::kLeaf:
        Bind(n, s, in_loop);
        return;
      case FlowKind::kIf: {
        FlowState out;
        out.live = false;
        bool has_else = false;
        for (uint32_t k : n.kids) {
          const FlowNode& arm = At(k);
          FlowState branch = s;
          const FlowNode* body = arm.kind == FlowKind::kBlock ? &arm : ClauseBlock(arm);
          if (body != nullptr) Block(*body, branch, depth + 1, in_loop, false);
          MergeInto(out, branch);
          has_else = has_else || (arm.kind == FlowKind::kClause && arm.role == ClauseRole::kElse);
        }
        if (!has_else) MergeInto(out, s);
        s = out;
        return;
      }
      case FlowKind::kLoop: {
        FlowState entry = s;
        Bind(n, entry, in_loop);
        FlowState breaks;
        FlowState body_state = LoopPass(n, entry, breaks, depth);
        // A second pass from what the first one left: a break or the end of
        // the body may see what an earlier pass assigned after it. Two
        // passes, not a fixed point: appends in a loop are marked as
        // repeated already, so the second pass makes no new ones.
        FlowState again = entry;
        MergeInto(again, body_state);
        Bind(n, again, in_loop);
        if (again.defs != entry.defs && repeats_ < kMaxRepeats) {
          ++repeats_;
          ++repeating_;
          body_state = LoopPass(n, again, breaks, depth);
          --repeating_;
        }
        MergeInto(s, body_state);
        if (const FlowNode* orelse = Opt(n.orelse)) {
          if (const FlowNode* else_body = ClauseBlock(*orelse)) {
            Block(*else_body, s, depth + 1, in_loop, false);
          }
        }
        MergeInto(s, breaks);
        return;
      }
      case FlowKind::kTry: {
        const FlowNode* finally_clause = Role(n, ClauseRole::kFinally);
        if (finally_clause != nullptr) finallies_.push_back({finally_clause, loops_.size()});
        FlowState out = s;
        FlowState handler_in = BodyPoints(Opt(n.body), out, depth, in_loop);
        // What reaches the finally other than by the normal way out: an
        // exception or a return anywhere in the body, the else or a handler.
        FlowState abnormal = handler_in;
        bool has_finally = finally_clause != nullptr;
        if (has_finally) collectors_.push_back({&abnormal, scopes_.size()});
        // The else runs when the body ends without an exception.
        if (const FlowNode* orelse = Role(n, ClauseRole::kElse)) {
          if (const FlowNode* else_body = ClauseBlock(*orelse)) {
            Block(*else_body, out, depth + 1, in_loop, false);
          }
        }
        if (has_finally) collectors_.pop_back();
        for (uint32_t k : n.kids) {
          const FlowNode& clause = At(k);
          if (clause.kind == FlowKind::kClause && clause.role == ClauseRole::kHandler) {
            Handler(clause, handler_in, out, has_finally ? &abnormal : nullptr, depth, in_loop);
          }
        }
        if (has_finally) {
          finallies_.pop_back();
          for (uint32_t b : finally_clause->kids) Block(At(b), out, depth + 1, in_loop, false);
          // Walked again from the ways out but the normal one, for what it
          // passes on: to another try around it (its handlers or its own
          // finally see those states), and to a loop when a break or
          // continue in it swallows the exception in flight.
          for (uint32_t b : finally_clause->kids) Block(At(b), abnormal, depth + 1, in_loop, false);
        }
        s = out;
        return;
      }
      case FlowKind::kWith:
        Bind(n, s, in_loop);
        if (const FlowNode* body = Opt(n.body)) Block(*body, s, depth + 1, in_loop, false);
        return;
      case FlowKind::kMatch: {
        const FlowNode* body = Opt(n.body);
        if (body == nullptr) return;
        FlowState out = s;
        for (uint32_t k : body->kids) {
          const FlowNode& c = At(k);
          if (c.kind != FlowKind::kClause || c.role != ClauseRole::kCase) continue;
          FlowState branch = s;
          if (const FlowNode* consequence = ClauseBlock(c)) {
            Block(*consequence, branch, depth + 1, in_loop, false);
          }
          MergeInto(out, branch);
        }
        s = out;
        return;
      }
      case FlowKind::kBreak:
      case FlowKind::kContinue:
        if (!ignore_exits_ && !loops_.empty()) {
          // Through the finally clauses of the tries inside the loop,
          // innermost first (each out of the way while it runs: a break in
          // it is its own).
          FlowState out = s;
          std::vector<Finally> walking = finallies_;
          for (size_t i = walking.size(); i-- > 0 && walking[i].loops == loops_.size();) {
            finallies_.resize(i);
            for (uint32_t b : walking[i].clause->kids) {
              Block(At(b), out, depth + 1, in_loop, false);
            }
          }
          finallies_ = std::move(walking);
          bool is_break = n.kind == FlowKind::kBreak;
          Unscope(out, ScopesInside(is_break ? loops_.size() : ContinueDepth()));
          MergeInto(is_break ? loops_.back().breaks : Continues(), out);
        }
        if (!ignore_exits_) s.live = false;
        return;
      case FlowKind::kExit:
        if (!ignore_exits_) s.live = false;
        return;
      case FlowKind::kGoto: {
        if (ignore_exits_) return;
        // It leaves the scoped blocks that do not hold its label (a
        // `continue` made a goto stays in the blocks around its loop).
        uint32_t at = LabelAt(n.label);
        size_t keep = 0;
        while (keep < scopes_.size() && scopes_[keep].start <= at && at < scopes_[keep].end) ++keep;
        FlowState out = s;
        Unscope(out, keep);
        MergeInto(gotos_.try_emplace(n.label, FlowState{{}, false}).first->second, out);
        s.live = false;
        return;
      }
      case FlowKind::kSwitch:
        Cases(n, s, depth, in_loop, false);
        return;
      case FlowKind::kBlock:  // a block inside a block (C's bare `{ }`, Rust's)
        Block(n, s, depth + 1, in_loop, false);
        return;
      case FlowKind::kLabel:
      case FlowKind::kClause:
        return;
    }
  }

  const FlowBody& body_;
  std::string_view name_;
  TSNode target_;
  FlowState at_target_;
  bool ignore_exits_ = false;
  std::vector<LoopExits> loops_;  // the loops being walked, innermost last
  // The finally clauses of the tries being walked, each with the number of
  // loops around it: a break or continue runs those inside its loop.
  struct Finally {
    const FlowNode* clause;
    size_t loops;
  };
  std::vector<Finally> finallies_;
  // The states of tries' bodies being gathered, each with the number of
  // scoped blocks around its try.
  struct Collector {
    FlowState* state;
    size_t scopes;
  };
  std::vector<Collector> collectors_;
  // The scoped blocks being walked, innermost last: what the name held
  // before the block's first declaration of it, and the loops around it.
  struct ScopeFrame {
    FlowState outer;
    bool shadowed = false;
    size_t loops = 0;
    uint32_t start = 0;  // the block's bytes
    uint32_t end = 0;
  };
  std::vector<ScopeFrame> scopes_;
  std::unordered_map<std::string_view, uint32_t> label_at_;
  bool labels_built_ = false;
  std::unordered_map<const Binding*, DefPtr> made_;
  std::unordered_map<std::string_view, FlowState> gotos_;  // by label
  // Second passes over loops, bounded per walk: nested loops would
  // otherwise double the work per level.
  static constexpr int kMaxRepeats = 64;
  int repeats_ = 0;
  int repeating_ = 0;  // second passes being walked
  // Stands for "no definition yet" while the walk runs; taken out at the end.
  DefPtr entry_ = std::make_shared<const Def>();
  bool from_entry_ = false;
  int64_t* budget_ = nullptr;
};

}  // namespace

void MarkLabels(FlowBody& body) {
  // Kids come after their parent in the table: one pass from the end.
  for (size_t i = body.nodes.size(); i-- > 0;) {
    FlowNode& n = body.nodes[i];
    if (n.kind == FlowKind::kLabel) n.holds_label = true;
    for (uint32_t k : n.kids) n.holds_label = n.holds_label || body.nodes[k].holds_label;
  }
}

DefList ReachingDefinitions(const FlowBody& body, std::string_view name, TSNode target,
                            int64_t* budget, bool* from_entry, bool* truncated) {
  dropped = false;
  Flow flow(body, name, target, budget);
  DefList out = flow.Run();
  if (from_entry != nullptr) *from_entry = flow.from_entry();
  if (truncated != nullptr) *truncated = dropped;
  return out;
}

}  // namespace errdex::extract::flow
