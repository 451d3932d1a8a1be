// The C/C++ adapter of the shared data flow (flow/dataflow.h): a function's
// body or a translation unit lowered to the statements that bind names (a
// declaration, `m = ...`, `m += ...`, `oss << ...`, `StrAppend(&m, ...)`,
// `snprintf(buf, ...)`) and the blocks, branches, loops, switches,
// preprocessor arms and exits between them.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

#include "extract/flow/dataflow.h"
#include "extract/ts_util.h"

namespace errdex::extract::cpp {

// `body` (a compound statement or a translation unit) lowered; function
// definitions and lambdas inside are not entered. `source` must be what the
// tree was parsed from and outlive the result (names are views into it).
flow::FlowBody LowerFlow(std::string_view source, const SymbolTable& symbols, TSNode body);

// The name a declarator declares (`*buf[64]` -> "buf"), or empty.
std::string_view DeclaredName(TSNode declarator, std::string_view source,
                              const SymbolTable& symbols);

// The position of the buffer's format among a call's arguments when it
// formats into its first one (`sprintf(buf, fmt, ...)` 1, `snprintf(buf,
// n, fmt, ...)` 2), else 0.
size_t FormatIntoBuffer(std::string_view function);

}  // namespace errdex::extract::cpp
