// C and C++ string literals without a syntax tree: escape sequences. The
// formatting functions messages are built with (printf, PyUnicode_FromFormat,
// absl::Substitute, fmt/std::format) are the evaluator's
// (extract/flow/format.h).
#pragma once

#include <string>
#include <string_view>

namespace errdex::extract::cpp {

// Appends what one escape sequence (`\n`, `\x41`, `\u00e9`, `\101`) stands for.
void AppendEscape(std::string_view escape, std::string& out);

}  // namespace errdex::extract::cpp
