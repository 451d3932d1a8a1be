// The Rust adapter of the shared data flow (flow/dataflow.h): a function's
// body lowered to the statements that bind names (`let`, `m = ...`,
// `m += ...`, `m.push_str(...)`) and the blocks, branches (if, if let,
// match), loops, labelled breaks and exits between them.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

#include "extract/flow/dataflow.h"
#include "extract/ts_util.h"

namespace errdex::extract::rust {

// `body` (a function's block, or a closure's block or expression) lowered;
// closures, async blocks and items inside are not entered. `source` must be what the tree was
// parsed from and outlive the result (names are views into it).
flow::FlowBody LowerFlow(std::string_view source, TSNode body);

// A macro invocation's name without its path: `anyhow::bail!` -> "bail".
std::string_view MacroName(TSNode invocation, std::string_view source);

// Whether a macro of this name never returns (`panic!`, `bail!`): control
// leaves the function there.
bool DivergingMacro(std::string_view name);

}  // namespace errdex::extract::rust
