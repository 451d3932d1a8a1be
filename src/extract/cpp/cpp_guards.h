// The conditions under which a C or C++ statement runs: the shared guard
// reader (extract/flow/guards.h) over C's syntax. Branches (an `else if`
// is an if inside an else), early exits before the statement (`if (!p)
// return NULL;` and any shape of nested ifs, returns, throws, breaks,
// continues and gotos), loops, catch clauses and switch cases. A label
// before the statement ends what the exits above it say: a goto arrives
// there from anywhere.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "core/record.h"
#include "extract/flow/guards.h"

namespace errdex::extract::cpp {

// Guards of `target` within `scope` (a function definition or lambda),
// outermost first. `source` is what the tree was parsed from.
std::vector<Guard> CppGuards(TSNode scope, TSNode target, std::string_view source, bool is_c,
                             flow::GuardCache& cache);

}  // namespace errdex::extract::cpp
