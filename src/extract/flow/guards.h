// The conditions under which a statement runs, read off the syntax tree from
// the start of its function, for every language: the branches it sits in
// (an `else` or later `elif` adds the negation of the conditions before
// it), the early exits before it (`if ok: return` makes `not ok` a
// condition, `if (a) { if (b) return; }` makes `!a || !b` one), loops,
// handlers and cases. The reader knows the walk; a front end's
// `GuardSyntax` says what each node is and writes conditions in its
// language.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/record.h"
#include "extract/flow/conditions.h"

namespace errdex::extract::flow {

// At most this many guards per statement (the outermost), and per block's
// early exits or per elif chain (the nearest to the statement). The most a
// raise of the Python 3.11 stdlib or its site-packages has is 38 in all, 28
// early exits, 37 elifs; generated code with thousands of `if x == k: raise`
// in one block would otherwise give each raise every condition before it.
inline constexpr size_t kMaxGuards = 64;
inline constexpr size_t kMaxGuardsPerStep = 48;

// What the reader keeps between the statements of one file: the early exits
// of each block, read once rather than once per raise in it, and whether
// some statement had more guards than kMaxGuards.
struct GuardCache {
  std::unordered_map<const void*, std::vector<std::pair<uint32_t, Guard>>> exits;
  int first_cut_line = 0;  // the first statement whose guards were cut; 0 if none
  // The names whose module-level assignments were read, in the order asked,
  // when `note_module_names`: a caller that keeps guards apart from their
  // module drains it.
  bool note_module_names = false;
  std::vector<std::string> module_names;
  // Per function (by its node), the labels its gotos jump to, in source
  // order.
  struct Label {
    uint32_t at = 0;  // start byte
    int line = 0;
    std::string name;
  };
  std::unordered_map<const void*, std::vector<Label>> jumped_to;
  // Per match (by its node), whether it is GuardSyntax::Irregular.
  std::unordered_map<const void*, bool> irregular;
};

// What a node is to the reader.
enum class GuardNode : uint8_t {
  kOther,
  kComment,
  kScope,         // a nested function or lambda: its statements have guards of their own
  kBlock,         // statements in order (a Python block, a C compound statement)
  kIf,            // Condition, Body (the first arm), then its elif and else clauses
  kElif,          // Condition, Body
  kElse,          // Body: an if's, a loop's or a try's else
  kWhile,         // Condition (none: always true), Body
  kDo,            // a loop whose body runs before its Condition is tested
  kFor,           // a loop over a collection: Body
  kWith,          // Body
  kTry,           // its body block, then handlers, else and finally
  kHandler,       // except / catch: Body
  kHandlerGroup,  // except*: leaves only some of a group's exceptions
  kFinally,
  kMatch,    // match / switch: a block of cases
  kCase,     // case / default
  kLabel,    // a goto's target: control arrives here from elsewhere
  kHolder,   // statements that may or may not be compiled in (#if arms)
  kWrapper,  // Body: one statement with something attached (`[[likely]] s;`)
  kReturn,
  kRaise,
  kBreak,
  kContinue,
  kGoto,
  kAssert,  // Asserted: the condition it requires
};

// A front end's reading of its syntax for the reader, and how its language
// writes a condition (ConditionWriter).
class GuardSyntax : public ConditionWriter {
 public:
  explicit GuardSyntax(std::string_view source) : source_(source) {}

  virtual GuardNode Kind(TSNode n) const = 0;
  // kIf, kElif, kWhile, kDo: the condition tested, parentheses dropped.
  virtual TSNode Condition(TSNode n) const = 0;
  // kIf, kElif: the arm the condition runs; the body of anything else.
  virtual TSNode Body(TSNode n) const = 0;
  // A loop condition that always holds (`while True:`, `while (1)`, none).
  virtual bool AlwaysTrue(TSNode cond) const = 0;
  // kAssert: the condition it requires.
  virtual TSNode Asserted(TSNode) const { return {}; }
  // kFor: the guard of its body ("for" with the loop as code), if any.
  virtual bool LoopGuard(TSNode, Guard&) const { return false; }
  // kHandler / kHandlerGroup of kTry: the guard of its body. These three
  // default to nothing for a language without try statements (Rust).
  virtual Guard HandlerGuard(TSNode, TSNode) const { return {}; }
  // kHandler: the types it catches as written, "" for all of them.
  virtual std::string HandledTypes(TSNode) const { return ""; }
  // What a try statement tries, for a sentence: its first statement.
  virtual std::string Tried(TSNode) const { return ""; }
  // The one statement of `block` (comments aside) when it is a simple one,
  // else null: what a sentence may name as what the block did. The first
  // of several need not be the one that raised.
  TSNode LoneSimpleStatement(TSNode block) const;
  // Whether control can run off the end of a case's statements (into the
  // next case, where cases fall through), as the reader works it out.
  using FallsOut = std::function<bool(TSNode clause)>;
  // A kCase `clause` in `block`, the body of `match` (which may be no kMatch
  // when the tree is damaged): its guards.
  virtual void CaseGuards(TSNode match, TSNode block, TSNode clause, const FallsOut& falls_out,
                          std::vector<Guard>& out) const = 0;
  // A kCase that every value reaches that no other case takes (`default:`).
  virtual bool IsDefault(TSNode) const { return false; }
  // A kMatch before the statement whose every case leaves: `g` says no
  // case matched. False when that cannot be said.
  virtual bool MatchFallThrough(TSNode, const FallsOut&, Guard&) const { return false; }
  // Beside a condition, the values its subject should have had (`x not in
  // (a, b)`, `not isinstance(x, T)`).
  virtual void ValidValues(TSNode, bool, Guard&) const {}
  // What TestHolds takes of the tests it cannot decide, by their code: an
  // assumed truth, or a note that it needs one.
  struct Assumptions {
    const std::map<std::string, bool, std::less<>>* atoms = nullptr;
    std::set<std::string, std::less<>>* unknown = nullptr;
    // Comparisons left to make (each literal a value is compared with
    // counts one): at zero every test is not known, and the caller keeps
    // what it has. Literal sets of thousands, tried for thousands of
    // values, stay bounded.
    size_t* budget = nullptr;
  };
  // Whether the test `test` holds when `subject` (as a guard writes it) is
  // `value`: a literal as written, or with `fresh` a value of the class
  // named `value` equal to no literal. Not known (nullopt) when it turns
  // on a test that `assumed` has no truth for.
  virtual std::optional<bool> TestHolds(TSNode /*test*/, std::string_view /*subject*/,
                                        std::string_view /*value*/, bool /*fresh*/,
                                        const Assumptions& /*assumed*/) const {
    return std::nullopt;
  }
  // The literals written in `test` that are values of the class `type`.
  virtual std::vector<std::string> InstancesIn(TSNode /*test*/, std::string_view /*type*/) const {
    return {};
  }
  // Whether a guard of one condition carries its exact `when`.
  virtual bool WritesWhen() const = 0;
  // A kMatch with case labels below its top level (inside an if, a block,
  // an #if arm: Duff's device): a case may be entered in the middle of
  // anything in it.
  virtual bool Irregular(TSNode) const { return false; }
  // Whether a `break` inside a kMatch ends the match (C's switch) rather
  // than the loop around it (Python's match).
  virtual bool MatchOwnsBreak() const = 0;
  // Whether the language has labels a goto can reach from anywhere.
  virtual bool HasLabels() const = 0;
  // kGoto: the label it jumps to ("" for a computed goto, which may jump to
  // any); kLabel: its name.
  virtual std::string_view LabelOf(TSNode) const { return {}; }

  // The node's text, whitespace collapsed, cut to a size a sentence shows.
  std::string Code(TSNode n) const;
  // A guard on `cond` (true, or false when `negated`).
  Guard Make(const char* kind, TSNode cond, bool negated) const;
  std::string_view source() const { return source_; }

 private:
  std::string_view source_;
};

// Guards of `target` within `scope` (a function definition or the module),
// outermost first; none when a nested scope holds the target.
std::vector<Guard> ReadGuards(TSNode scope, TSNode target, const GuardSyntax& syntax,
                              GuardCache& cache);

}  // namespace errdex::extract::flow
