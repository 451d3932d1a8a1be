#include "extract/python/py_flow.h"

#include <algorithm>
#include <memory>

#include "extract/python/py_syntax.h"
#include "extract/ts_util.h"

namespace errdex::extract::python {
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
  Flow(std::string_view source, std::string_view name, TSNode target, int64_t* budget)
      : src_(source), name_(name), target_(target), budget_(budget) {}

  // Runs over `body` (a block or the module); returns the definitions that
  // reach the target, or those live at the end of `body` when there is none.
  DefList Run(TSNode body) {
    // Without a target we want every definition a later reader could see
    // (module constants): exits do not hide the assignments after them.
    ignore_exits_ = ts_node_is_null(target_);
    FlowState s;
    s.defs = {entry_};
    DefList out;
    if (Block(body, s, 0, false, !ts_node_is_null(target_))) {
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

  bool found() const { return found_; }

 private:
  const SymbolTable& sym() const { return Symbols(); }

  bool Block(TSNode block, FlowState& s, int depth, bool in_loop, bool seek) {
    if (depth > kMaxFlowDepth) {
      s.defs = {Opaque(block)};
      return false;
    }
    TSTreeCursor c = ts_tree_cursor_new(block);
    bool hit = false;
    if (ts_tree_cursor_goto_first_child(&c)) {
      do {
        TSNode stmt = ts_tree_cursor_current_node(&c);
        if (!ts_node_is_named(stmt) || sym().Kind(stmt) == kComment) continue;
        if (budget_ != nullptr && --*budget_ < 0) break;
        if (seek && extract::Contains(stmt, target_)) {
          hit = Seek(stmt, s, depth, in_loop);
          break;
        }
        Transfer(stmt, s, depth, in_loop);
      } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return hit;
  }

  DefPtr Opaque(TSNode stmt) {
    auto d = std::make_shared<Def>();
    d->type = Def::Type::kOpaque;
    d->stmt = stmt;
    return d;
  }

  bool IsName(TSNode node) const {
    return sym().Kind(node) == kIdentifier && NodeText(node, src_) == name_;
  }

  // `except E as name`: the grammar puts the name in an as_pattern.
  bool CatchesAsName(TSNode clause) const {
    TSNode alias = Field(clause, "alias");
    if (!ts_node_is_null(alias)) return IsName(alias);
    TSNode value = Field(clause, "value");
    if (ts_node_is_null(value) || sym().Kind(value) != kAsPattern) return false;
    TSNode target = Field(value, "alias");
    return !ts_node_is_null(target) && NodeText(target, src_) == name_;
  }

  // `stmt` contains the target: descend to it and record the state there.
  bool Seek(TSNode stmt, FlowState s, int depth, bool in_loop) {
    auto stop = [&](const FlowState& state) {
      at_target_ = state;
      found_ = true;
      return true;
    };
    if (SameNode(stmt, target_) || depth > kMaxFlowDepth) return stop(s);
    switch (sym().Kind(stmt)) {
      case kBlock:
        return Block(stmt, s, depth + 1, in_loop, true) || stop(s);
      case kIf:
      case kElif:
      case kElse:
      case kWith:
      case kTry:
      case kFinally:
      case kExcept:
      case kExceptGroup:
      case kMatch:
      case kCase:
      case kFor:
      case kWhile:
        break;
      default:
        return stop(s);  // an expression, a nested def or class: the state here
    }
    uint16_t kind = sym().Kind(stmt);
    if (kind == kFor || kind == kWhile) {
      // Definitions later in the loop body reach the target on the next pass.
      FlowState once = s;
      TSNode body = Field(stmt, "body");
      if (kind == kFor && BindsName(Field(stmt, "left"))) once.defs = {Opaque(stmt)};
      loops_.emplace_back();
      if (!ts_node_is_null(body)) Block(body, once, depth + 1, true, false);
      MergeInto(once, loops_.back().continues);  // a `continue` goes round again too
      loops_.pop_back();
      MergeInto(s, once);
      if (kind == kFor && BindsName(Field(stmt, "left"))) s.defs = {Opaque(stmt)};
      in_loop = true;
    }
    if (kind == kTry) {
      TSNode body = Field(stmt, "body");
      if (!ts_node_is_null(body) && !extract::Contains(body, target_)) {
        FlowState after = s;
        Block(body, after, depth + 1, in_loop, false);
        MergeInto(s, after);
      }
    }
    if (kind == kExcept || kind == kExceptGroup) {
      if (CatchesAsName(stmt)) {
        auto d = std::make_shared<Def>();
        d->type = Def::Type::kCaught;
        d->stmt = stmt;
        s.defs = {d};
      }
    }
    if (kind == kWith) BindWithTargets(stmt, s);
    for (TSNode child : NamedChildren(stmt)) {
      if (!extract::Contains(child, target_)) continue;
      if (IsClauseOrBlock(child)) return Seek(child, s, depth + 1, in_loop);
      return stop(s);  // the target is in a condition or subject
    }
    return stop(s);
  }

  bool IsClauseOrBlock(TSNode node) const {
    switch (sym().Kind(node)) {
      case kBlock:
      case kElif:
      case kElse:
      case kExcept:
      case kExceptGroup:
      case kFinally:
      case kCase:
        return true;
      default:
        return false;
    }
  }

  bool BindsName(TSNode pattern) const {
    if (ts_node_is_null(pattern)) return false;
    if (IsName(pattern)) return true;
    uint16_t k = sym().Kind(pattern);
    if (k == kPatternList || k == kTuplePattern || k == kListSplatPattern || k == kParenthesized ||
        k == kTuple || k == kExpressionList) {
      for (TSNode child : NamedChildren(pattern)) {
        if (BindsName(child)) return true;
      }
    }
    return false;
  }

  void BindWithTargets(TSNode with_stmt, FlowState& s) {
    for (TSNode clause : NamedChildren(with_stmt)) {
      if (sym().Kind(clause) != kWithClause) continue;
      for (TSNode item : NamedChildren(clause)) {
        TSNode value = Field(item, "value");
        if (ts_node_is_null(value) || sym().Kind(value) != kAsPattern) continue;
        TSNode alias = Field(value, "alias");
        if (!ts_node_is_null(alias) && NodeText(alias, src_) == name_) {
          s.defs = {Opaque(with_stmt)};
        }
      }
    }
  }

  void Assign(TSNode stmt, TSNode left, TSNode right, FlowState& s) {
    if (IsName(left)) {
      auto d = std::make_shared<Def>();
      d->type = Def::Type::kValue;
      d->value = right;
      d->stmt = stmt;
      s.defs = {d};
      return;
    }
    if (!BindsName(left)) return;
    // a, msg = x, "text": take the matching element when both sides are flat.
    std::vector<TSNode> targets = NamedChildren(left);
    uint16_t rk = sym().Kind(right);
    if (rk == kExpressionList || rk == kTuple) {
      std::vector<TSNode> values = NamedChildren(right);
      if (values.size() == targets.size()) {
        for (size_t i = 0; i < targets.size(); ++i) {
          if (IsName(targets[i])) {
            Assign(stmt, targets[i], values[i], s);
            return;
          }
        }
      }
    }
    s.defs = {Opaque(stmt)};
  }

  void Transfer(TSNode stmt, FlowState& s, int depth, bool in_loop) {
    if (!s.live) return;
    switch (sym().Kind(stmt)) {
      case kExpressionStatement: {
        for (TSNode expr : NamedChildren(stmt)) {
          uint16_t k = sym().Kind(expr);
          if (k == kAssignment) {
            // a = b = value: every target gets the innermost right-hand side.
            TSNode node = expr;
            std::vector<TSNode> lefts;
            while (sym().Kind(node) == kAssignment) {
              lefts.push_back(Field(node, "left"));
              TSNode right = Field(node, "right");
              if (ts_node_is_null(right)) {
                node = right;
                break;
              }
              node = right;
            }
            if (ts_node_is_null(node)) continue;  // an annotation without a value
            for (TSNode left : lefts) Assign(stmt, left, node, s);
          } else if (k == kAugmentedAssignment) {
            TSNode left = Field(expr, "left");
            if (!IsName(left)) continue;
            TSNode op = Field(expr, "operator");
            TSNode right = Field(expr, "right");
            if (!ts_node_is_null(op) && NodeText(op, src_) == "+=" && !ts_node_is_null(right)) {
              auto d = std::make_shared<Def>();
              d->type = Def::Type::kAppend;
              d->value = right;
              d->stmt = stmt;
              d->base = s.defs;
              d->base.erase(std::remove(d->base.begin(), d->base.end(), entry_), d->base.end());
              d->in_loop = in_loop;
              s.defs = {d};
            } else {
              s.defs = {Opaque(stmt)};
            }
          }
        }
        return;
      }
      case kIf: {
        FlowState out;
        out.live = false;
        bool has_else = false;
        for (TSNode child : NamedChildren(stmt)) {
          uint16_t k = sym().Kind(child);
          if (k == kBlock || k == kElif || k == kElse) {
            FlowState branch = s;
            TSNode body = k == kBlock ? child : Field(child, k == kElif ? "consequence" : "body");
            if (!ts_node_is_null(body)) Block(body, branch, depth + 1, in_loop, false);
            MergeInto(out, branch);
            has_else = has_else || k == kElse;
          }
        }
        if (!has_else) MergeInto(out, s);
        s = out;
        return;
      }
      case kFor:
      case kWhile: {
        FlowState body_state = s;
        if (sym().Kind(stmt) == kFor && BindsName(Field(stmt, "left"))) {
          body_state.defs = {Opaque(stmt)};
        }
        TSNode body = Field(stmt, "body");
        loops_.emplace_back();
        if (!ts_node_is_null(body)) Block(body, body_state, depth + 1, true, false);
        // A continue goes round again, so it may end the loop as the body's
        // end does and run the `else`; a break leaves past the `else`.
        MergeInto(body_state, loops_.back().continues);
        FlowState breaks = std::move(loops_.back().breaks);
        loops_.pop_back();
        MergeInto(s, body_state);
        TSNode alternative = Field(stmt, "alternative");
        if (!ts_node_is_null(alternative)) {
          TSNode else_body = Field(alternative, "body");
          if (!ts_node_is_null(else_body)) Block(else_body, s, depth + 1, in_loop, false);
        }
        MergeInto(s, breaks);
        return;
      }
      case kTry: {
        FlowState body_state = s;
        TSNode body = Field(stmt, "body");
        if (!ts_node_is_null(body)) Block(body, body_state, depth + 1, in_loop, false);
        FlowState handler_in = s;
        MergeInto(handler_in, body_state);
        FlowState out = body_state;
        FlowState finally_state;
        TSNode finally_block{};
        for (TSNode child : NamedChildren(stmt)) {
          uint16_t k = sym().Kind(child);
          if (k == kExcept || k == kExceptGroup) {
            FlowState h = handler_in;
            if (CatchesAsName(child)) {
              auto d = std::make_shared<Def>();
              d->type = Def::Type::kCaught;
              d->stmt = child;
              h.defs = {d};
            }
            for (TSNode b : NamedChildren(child)) {
              if (sym().Kind(b) == kBlock) Block(b, h, depth + 1, in_loop, false);
            }
            MergeInto(out, h);
          } else if (k == kElse) {
            TSNode else_body = Field(child, "body");
            FlowState e = body_state;
            if (!ts_node_is_null(else_body)) Block(else_body, e, depth + 1, in_loop, false);
            out.live = false;
            out.defs.clear();
            MergeInto(out, e);
          } else if (k == kFinally) {
            finally_block = child;
          }
        }
        if (!ts_node_is_null(finally_block)) {
          for (TSNode b : NamedChildren(finally_block)) {
            if (sym().Kind(b) == kBlock) Block(b, out, depth + 1, in_loop, false);
          }
        }
        s = out;
        return;
      }
      case kWith: {
        BindWithTargets(stmt, s);
        TSNode body = Field(stmt, "body");
        if (!ts_node_is_null(body)) Block(body, s, depth + 1, in_loop, false);
        return;
      }
      case kMatch: {
        FlowState out = s;
        TSNode body = Field(stmt, "body");
        if (ts_node_is_null(body)) return;
        for (TSNode c : NamedChildren(body)) {
          if (sym().Kind(c) != kCase) continue;
          FlowState branch = s;
          TSNode consequence = Field(c, "consequence");
          if (!ts_node_is_null(consequence)) Block(consequence, branch, depth + 1, in_loop, false);
          MergeInto(out, branch);
        }
        s = out;
        return;
      }
      case kBreak:
      case kContinue:
        if (!ignore_exits_ && !loops_.empty()) {
          LoopExits& loop = loops_.back();
          MergeInto(sym().Kind(stmt) == kBreak ? loop.breaks : loop.continues, s);
        }
        if (!ignore_exits_) s.live = false;
        return;
      case kReturn:
      case kRaise:
        if (!ignore_exits_) s.live = false;
        return;
      case kFunctionDefinition:
      case kClassDefinition: {
        TSNode name = Field(stmt, "name");
        if (!ts_node_is_null(name) && IsName(name)) s.defs = {Opaque(stmt)};
        return;
      }
      case kDecoratedDefinition: {
        TSNode def = Field(stmt, "definition");
        if (!ts_node_is_null(def)) Transfer(def, s, depth, in_loop);
        return;
      }
      case kImport:
      case kImportFrom: {
        std::string_view text = NodeText(stmt, src_);
        if (text.find(name_) != std::string_view::npos) {
          for (TSNode n : NamedChildren(stmt)) {
            std::string_view bound = NodeText(n, src_);
            if (sym().Kind(n) == kAliasedImport) bound = NodeText(Field(n, "alias"), src_);
            if (LastComponent(bound) == name_) s.defs = {Opaque(stmt)};
          }
        }
        return;
      }
      default:
        return;
    }
  }

  std::string_view src_;
  std::string_view name_;
  TSNode target_;
  FlowState at_target_;
  bool found_ = false;
  bool ignore_exits_ = false;
  std::vector<LoopExits> loops_;  // the loops being walked, innermost last
  // Stands for "no definition yet" while the walk runs; taken out at the end.
  DefPtr entry_ = std::make_shared<const Def>();
  bool from_entry_ = false;
  int64_t* budget_ = nullptr;
};

}  // namespace

DefList ReachingDefinitions(std::string_view source, std::string_view name, TSNode body,
                            TSNode target, int64_t* budget, bool* from_entry) {
  Flow flow(source, name, target, budget);
  DefList out = flow.Run(body);
  if (from_entry != nullptr) *from_entry = flow.from_entry();
  return out;
}

}  // namespace errdex::extract::python
