// The conditions under which a Python statement runs, read off the syntax
// tree from the start of its function: the branches it sits in (an `else`
// or later `elif` adds the negation of the conditions before it), early
// exits before it (`if ok: return` makes `not ok` a condition), loops,
// `except` handlers and `match` cases.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/guards.h"
#include "core/record.h"
#include "extract/flow/guards.h"

namespace errdex::extract::python {

using flow::GuardCache;
using flow::kMaxGuards;
using flow::kMaxGuardsPerStep;

// Guards of `target` within `scope` (a function definition or the module),
// outermost first. `source` is what the tree was parsed from.
std::vector<Guard> PythonGuards(TSNode scope, TSNode target, std::string_view source,
                                GuardCache* cache = nullptr);

// The guard of kind "message" that the test `cond` holding (or, `negated`,
// failing) makes: a test that chose the wording, not whether it raises, so
// it lists no values.
Guard PythonTestGuard(TSNode cond, bool negated, std::string_view source,
                      GuardCache* cache = nullptr);

}  // namespace errdex::extract::python
