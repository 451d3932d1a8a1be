// Reaching definitions of one variable, computed on demand over the syntax
// tree of a function (or module) body: which assignments can have set `msg`
// when control reaches `raise ValueError(msg)`.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace errdex::extract::python {

// Bounds that keep adversarial sources cheap.
inline constexpr int kMaxFlowDepth = 96;       // nested blocks followed
inline constexpr size_t kMaxDefinitions = 16;  // definitions kept per merge

struct Def;
using DefPtr = std::shared_ptr<const Def>;
using DefList = std::vector<DefPtr>;

struct Def {
  enum class Type { kValue, kAppend, kCaught, kOpaque };
  Type type = Type::kOpaque;
  TSNode value{};  // kValue / kAppend: the assigned or appended expression
  TSNode stmt{};   // where the assignment is, for evaluating `value`
  DefList base;    // kAppend: the definitions appended to
  bool in_loop = false;
};

// The definitions of `name` in `body` (a block or the module) that reach
// `target` (a statement inside `body`); with a null target, every definition
// live at the end of `body`, exits ignored (a module's constants). Definitions
// stop at nested function and class definitions, which are other scopes.
// `budget`, when given, is decremented per statement visited; once it is
// spent the walk stops and what it returns is incomplete (callers drop it).
// `from_entry`, when given, is set when some path from the start of `body`
// reaches the target without any definition (a parameter that an `if` may
// or may not reassign still holds what the caller passed).
DefList ReachingDefinitions(std::string_view source, std::string_view name, TSNode body,
                            TSNode target, int64_t* budget = nullptr, bool* from_entry = nullptr);

}  // namespace errdex::extract::python
