// The conditions under which a Rust expression runs: the shared guard
// reader (extract/flow/guards.h) over Rust's syntax. `if` and `else if`
// arms, early exits before the expression (`if c { return Err(..); }`,
// `panic!`, `bail!`, and any shape of them), `while`, `for`, `loop` and
// `match` arms.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "core/record.h"
#include "extract/flow/guards.h"

namespace errdex::extract::rust {

// Guards of `target` within `scope` (a function item or closure), outermost
// first. `source` is what the tree was parsed from.
std::vector<Guard> RustGuards(TSNode scope, TSNode target, std::string_view source,
                              flow::GuardCache& cache);

}  // namespace errdex::extract::rust
