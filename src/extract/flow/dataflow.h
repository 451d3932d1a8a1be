// Which definitions of a variable reach a point: the data flow the
// evaluator resolves names with (`msg` at `raise ValueError(msg)`), written
// once for every language. A front end lowers a body to a `FlowBody` — the
// statements that bind names, the blocks, branches, loops, handlers and
// exits between them — and knows nothing of the walk; the walk knows no
// syntax beyond the nodes the front end hands it back (a definition's value
// and statement, which only the front end evaluates).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errdex::extract::flow {

// Bounds that keep adversarial sources cheap.
inline constexpr int kMaxFlowDepth = 96;       // nested blocks followed
inline constexpr size_t kMaxDefinitions = 16;  // definitions kept per merge

struct Def;
using DefPtr = std::shared_ptr<const Def>;
using DefList = std::vector<DefPtr>;

struct Def {
  // kValue: `value` assigned; kAppend: `value` appended to `base`; kCaught:
  // the exception a handler binds; kOpaque: bound to what errdex does not
  // follow (a loop variable, an import, a nested definition).
  enum class Type : uint8_t { kValue, kAppend, kCaught, kOpaque };
  Type type = Type::kOpaque;
  TSNode value{};  // kValue / kAppend: the assigned or appended expression
  TSNode stmt{};   // where the definition is, for evaluating `value`
  DefList base;    // kAppend: the definitions appended to
  bool in_loop = false;
};

// One name a statement binds, and how (`value` and `stmt` as for a Def).
// `declares`: a new variable (Rust's `let`) that, in a scoped block,
// shadows the one of that name around it until the block ends.
struct Binding {
  std::string_view name;
  Def::Type type = Def::Type::kOpaque;
  TSNode value{};
  TSNode stmt{};
  bool declares = false;
};

// What a lowered node does to control and to names.
enum class FlowKind : uint8_t {
  kBlock,     // kids: its statements, in order
  kLeaf,      // a statement control passes through; binds: in order
  kExit,      // return, raise: control leaves the body
  kBreak,     // leaves the innermost loop
  kContinue,  // goes round the innermost loop again
  kIf,        // kids: the first arm's block, then the other arms (kClause)
  kLoop,      // binds: what each pass binds (a for's targets); kids: body, else clause
  kTry,       // kids: the body block, then handler, else and finally clauses
  kWith,      // binds: its `as` targets; kids: the body
  kMatch,     // kids: one block whose statements are the cases (kClause)
  kGoto,      // C's goto: control goes on at the kLabel of that name
  kLabel,     // where gotos of its name land (covers only the label)
  kSwitch,    // kids: one block whose statements include the cases (kClause,
              // kCase or kDefault), each falling through into the next
  kClause,    // an arm, handler, else, finally or case: kids its blocks;
              // binds: what entering it binds (a handler's `as`)
};

// The role of a clause inside its construct.
enum class ClauseRole : uint8_t { kArm, kElse, kHandler, kFinally, kCase, kDefault };

struct FlowNode {
  FlowKind kind = FlowKind::kLeaf;
  ClauseRole role = ClauseRole::kArm;
  TSNode node{};  // the syntax it stands for
  // The bytes it covers, where a target is sought: the node's, or fewer
  // when the node holds more than this (a preprocessor arm before the
  // #else that follows it).
  uint32_t start = 0;
  uint32_t end = 0;
  std::vector<Binding> binds;
  std::string_view label;      // kGoto, kLabel
  bool holds_label = false;    // a kLabel is this node or below it (MarkLabels)
  bool scope = false;          // kBlock: the variables its statements declare end with it
  std::vector<uint32_t> kids;  // indexes into FlowBody::nodes
  // kLoop, kTry, kWith, kMatch, kSwitch: the node of its body block, if any;
  // kLoop: the node of its else clause, if it has one.
  int32_t body = -1;
  int32_t orelse = -1;
};

// One body (a function's block or a module) as a front end lowered it; node
// 0 is the body itself, a kBlock. Nested function and class bodies are
// other bodies: here they are leaves binding their name.
struct FlowBody {
  std::vector<FlowNode> nodes;
  // Labels an adapter made up rather than found in the source (where a
  // labelled loop's `continue` lands): kLabel and kGoto nodes view them.
  std::deque<std::string> made_labels;
};

// What each adapter's lowerer builds a body with: a node covering its
// syntax's bytes, added to the body, and made a kid of another.
class FlowBuilder {
 protected:
  // Past this many nested nodes nothing is lowered (the walk gives up at
  // kMaxFlowDepth blocks; each is at most four nodes below the last).
  static constexpr int kMaxLowerDepth = 4 * (kMaxFlowDepth + 2);
  // Expression nodes an adapter looks at for definitions, per body.
  static constexpr size_t kMaxExpressionNodes = 1'000'000;

  uint32_t Add(FlowKind kind, TSNode node) {
    FlowNode& n = out_.nodes.emplace_back();
    n.kind = kind;
    n.node = node;
    if (ts_node_is_null(node)) {  // a part a damaged tree lacks: covers nothing
      n.start = 1;
      n.end = 0;
    } else {
      n.start = ts_node_start_byte(node);
      n.end = ts_node_end_byte(node);
    }
    return static_cast<uint32_t>(out_.nodes.size() - 1);
  }
  FlowNode& At(uint32_t i) { return out_.nodes[i]; }
  void Kid(uint32_t parent, uint32_t kid) { At(parent).kids.push_back(kid); }
  // A node no target is sought in (a label, bindings made on entering).
  void CoverNothing(uint32_t i) {
    At(i).start = 1;
    At(i).end = 0;
  }
  // The definitions a statement made before a branch inside it (`m = a,
  // c ? ... : ...`), as a leaf of `parent` covering nothing (the
  // statement's own last leaf covers it); `binds` is emptied.
  void Flush(TSNode node, std::vector<Binding>& binds, uint32_t parent) {
    if (binds.empty()) return;
    uint32_t before = Add(FlowKind::kLeaf, node);
    CoverNothing(before);
    At(before).binds = std::move(binds);
    binds.clear();
    Kid(parent, before);
  }

  FlowBody out_;
};

// One file's bodies, each lowered once, when a name is first sought in it
// (keyed by the body's bytes: nodes of one tree at one place are one body).
class FlowBodies {
 public:
  template <typename Lower>
  const FlowBody& Get(TSNode body, Lower&& lower) {
    auto [it, fresh] =
        bodies_.try_emplace(std::make_pair(ts_node_start_byte(body), ts_node_end_byte(body)));
    if (fresh) it->second = lower(body);
    return it->second;
  }

 private:
  std::map<std::pair<uint32_t, uint32_t>, FlowBody> bodies_;
};

// Sets holds_label on each node at or above a kLabel: adapters that lower
// labels call it once the body is complete.
void MarkLabels(FlowBody& body);

// The definitions of `name` in `body` that reach `target` (a statement
// inside the body); with a null target, every definition live at the end of
// `body`, exits ignored (a module's constants). `budget`, when given, is
// decremented per statement visited; once it is spent the walk stops and
// what it returns is incomplete (callers drop it). `from_entry`, when
// given, is set when some path from the start of `body` reaches the target
// without any definition (a parameter that an `if` may or may not reassign
// still holds what the caller passed). `truncated`, when given, is set when
// a merge kept only kMaxDefinitions and dropped others.
DefList ReachingDefinitions(const FlowBody& body, std::string_view name, TSNode target,
                            int64_t* budget = nullptr, bool* from_entry = nullptr,
                            bool* truncated = nullptr);

// A definition's value and those of the appends it builds on (`m += ...`,
// line after line), evaluated as a recursion over `Def::base` would, but on
// a stack of its own: a chain of appends, or a loop's append that is its own
// base, is as long as the source makes it, and one native frame per link
// overflowed the stack on adversarial input. `settled(def, chain)`, with
// `def` `chain` appends away from `root`, gives its value without visiting
// its bases (a memo hit, a bound reached), or nothing; otherwise its bases
// are visited in order and `combine(def, bases)` makes its value from theirs.
template <class Value, class Settled, class Combine>
Value EvalDefChain(const Def& root, Settled&& settled, Combine&& combine) {
  if (std::optional<Value> v = settled(root, 0)) return *std::move(v);
  struct Frame {
    const Def* def;
    int chain;
    size_t next = 0;
    std::vector<Value> bases;
  };
  std::vector<Frame> stack;
  stack.push_back({&root, 0, 0, {}});
  while (true) {
    Frame& f = stack.back();
    if (f.def->type == Def::Type::kAppend && f.next < f.def->base.size()) {
      const Def& b = *f.def->base[f.next++];
      if (std::optional<Value> v = settled(b, f.chain + 1)) {
        f.bases.push_back(*std::move(v));
      } else {
        stack.push_back({&b, f.chain + 1, 0, {}});  // `f` is not used past this
      }
      continue;
    }
    Value v = combine(*f.def, std::move(f.bases));
    stack.pop_back();
    if (stack.empty()) return v;
    stack.back().bases.push_back(std::move(v));
  }
}

}  // namespace errdex::extract::flow
