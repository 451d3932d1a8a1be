// The Python adapter of the shared data flow (flow/dataflow.h): a function's
// block or a module lowered to the statements that bind names and the
// blocks, branches, loops, handlers and exits between them.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

#include "extract/flow/dataflow.h"

namespace errdex::extract::python {

using flow::Def;
using flow::DefList;
using flow::DefPtr;
using flow::kMaxDefinitions;
using flow::kMaxFlowDepth;

// `body` (a block or the module) lowered; nested function and class bodies
// are leaves that bind their name. `source` must be what the tree was
// parsed from, and outlive the result (names are views into it).
flow::FlowBody LowerFlow(std::string_view source, TSNode body);

}  // namespace errdex::extract::python
