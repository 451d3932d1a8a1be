// Python string literals without a syntax tree: escape decoding. The
// formatting operators (`%`, str.format) are the evaluator's
// (extract/flow/format.h).
#pragma once

#include <string_view>

#include "core/template.h"

namespace errdex::extract::python {

// Appends the runtime text of one literal segment of a string to `out`.
// Non-raw segments have their escapes decoded (\N{...} becomes a one-character
// placeholder); in f-strings `{{`/`}}` are single braces. In a bytes literal
// \N, \u and \U are no escapes, and each character stands for one byte.
void AppendStringSegment(std::string_view segment, bool raw, bool fstring, Template& out,
                         bool bytes = false);

}  // namespace errdex::extract::python
