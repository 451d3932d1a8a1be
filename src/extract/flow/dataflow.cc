#include "extract/flow/dataflow.h"

#include <algorithm>
#include <memory>

#include "extract/ts_util.h"

namespace errdex::extract::flow {
namespace {

struct FlowState {
  DefList defs;
  bool live = true;
};

void MergeInto(FlowState& into, const FlowState& other) {
  if (!other.live) return;
  if (!into.live) {
    into = other;
    return;
  }
  for (const DefPtr& d : other.defs) {
    if (std::find(into.defs.begin(), into.defs.end(), d) == into.defs.end() &&
        into.defs.size() < kMaxDefinitions) {
      into.defs.push_back(d);
    }
  }
}

// The states `break` and `continue` leave one loop with.
struct LoopExits {
  FlowState continues{{}, false};
  FlowState breaks{{}, false};
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

  bool Holds(const FlowNode& n) const { return extract::Contains(n.node, target_); }

  bool Block(const FlowNode& block, FlowState& s, int depth, bool in_loop, bool seek) {
    if (depth > kMaxFlowDepth) {
      s.defs = {Opaque(block.node)};
      return false;
    }
    for (uint32_t k : block.kids) {
      const FlowNode& stmt = At(k);
      if (budget_ != nullptr && --*budget_ < 0) break;
      if (seek && Holds(stmt)) return Seek(stmt, s, depth, in_loop);
      Transfer(stmt, s, depth, in_loop);
    }
    return false;
  }

  static DefPtr Opaque(TSNode stmt) {
    auto d = std::make_shared<Def>();
    d->type = Def::Type::kOpaque;
    d->stmt = stmt;
    return d;
  }

  // Applies the node's bindings of the name, in order; false when it binds none.
  bool Bind(const FlowNode& n, FlowState& s, bool in_loop) {
    bool bound = false;
    for (const Binding& b : n.binds) {
      if (b.name != name_) continue;
      bound = true;
      if (b.type == Def::Type::kOpaque) {
        s.defs = {Opaque(b.stmt)};
        continue;
      }
      auto d = std::make_shared<Def>();
      d->type = b.type;
      d->value = b.value;
      d->stmt = b.stmt;
      if (b.type == Def::Type::kAppend) {
        d->base = s.defs;
        d->base.erase(std::remove(d->base.begin(), d->base.end(), entry_), d->base.end());
        d->in_loop = in_loop;
      }
      s.defs = {d};
    }
    return bound;
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
      FlowState once = s;
      Bind(n, once, in_loop);
      loops_.emplace_back();
      if (const FlowNode* body = Opt(n.body)) Block(*body, once, depth + 1, true, false);
      MergeInto(once, loops_.back().continues);  // a `continue` goes round again too
      loops_.pop_back();
      MergeInto(s, once);
      Bind(n, s, in_loop);
      in_loop = true;
    }
    if (n.kind == FlowKind::kTry) {
      const FlowNode* body = Opt(n.body);
      if (body != nullptr && !Holds(*body)) {
        FlowState after = s;
        Block(*body, after, depth + 1, in_loop, false);
        MergeInto(s, after);
      }
    }
    if (n.kind == FlowKind::kClause || n.kind == FlowKind::kWith) Bind(n, s, in_loop);
    for (uint32_t k : n.kids) {
      const FlowNode& kid = At(k);
      if (Holds(kid)) return Seek(kid, s, depth + 1, in_loop);
    }
    return stop(s);  // the target is in a condition or subject
  }

  // The block a clause runs, if any.
  const FlowNode* ClauseBlock(const FlowNode& clause) const {
    return clause.kids.empty() ? nullptr : &At(clause.kids[0]);
  }

  void Transfer(const FlowNode& n, FlowState& s, int depth, bool in_loop) {
    if (!s.live) return;
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
        FlowState body_state = s;
        Bind(n, body_state, in_loop);
        loops_.emplace_back();
        if (const FlowNode* body = Opt(n.body)) Block(*body, body_state, depth + 1, true, false);
        // A continue goes round again, so it may end the loop as the body's
        // end does and run the `else`; a break leaves past the `else`.
        MergeInto(body_state, loops_.back().continues);
        FlowState breaks = std::move(loops_.back().breaks);
        loops_.pop_back();
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
        FlowState body_state = s;
        if (const FlowNode* body = Opt(n.body)) Block(*body, body_state, depth + 1, in_loop, false);
        FlowState handler_in = s;
        MergeInto(handler_in, body_state);
        FlowState out = body_state;
        const FlowNode* finally_clause = nullptr;
        for (uint32_t k : n.kids) {
          const FlowNode& clause = At(k);
          if (clause.kind != FlowKind::kClause) continue;
          if (clause.role == ClauseRole::kHandler) {
            FlowState h = handler_in;
            Bind(clause, h, in_loop);
            for (uint32_t b : clause.kids) Block(At(b), h, depth + 1, in_loop, false);
            MergeInto(out, h);
          } else if (clause.role == ClauseRole::kElse) {
            FlowState e = body_state;
            if (const FlowNode* else_body = ClauseBlock(clause)) {
              Block(*else_body, e, depth + 1, in_loop, false);
            }
            out.live = false;
            out.defs.clear();
            MergeInto(out, e);
          } else if (clause.role == ClauseRole::kFinally) {
            finally_clause = &clause;
          }
        }
        if (finally_clause != nullptr) {
          for (uint32_t b : finally_clause->kids) Block(At(b), out, depth + 1, in_loop, false);
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
          LoopExits& loop = loops_.back();
          MergeInto(n.kind == FlowKind::kBreak ? loop.breaks : loop.continues, s);
        }
        if (!ignore_exits_) s.live = false;
        return;
      case FlowKind::kExit:
        if (!ignore_exits_) s.live = false;
        return;
      case FlowKind::kBlock:
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
  // Stands for "no definition yet" while the walk runs; taken out at the end.
  DefPtr entry_ = std::make_shared<const Def>();
  bool from_entry_ = false;
  int64_t* budget_ = nullptr;
};

}  // namespace

DefList ReachingDefinitions(const FlowBody& body, std::string_view name, TSNode target,
                            int64_t* budget, bool* from_entry) {
  Flow flow(body, name, target, budget);
  DefList out = flow.Run();
  if (from_entry != nullptr) *from_entry = flow.from_entry();
  return out;
}

}  // namespace errdex::extract::flow
