// Runtime text of Rust code and of Python libraries built in Rust: panics
// with their backtraces, and pydantic-core's ValidationError report, which
// lists several errors each with its `[type=...]` key. Private to
// src/match: ParseRuntimeText (parse.h) calls these.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "match/parse.h"

namespace errdex::match {

// The panics in `text` (`thread 'main' panicked at src/x.rs:12:5:` and the
// message below it, or the older `panicked at 'msg', src/x.rs:12:5`), the
// location as the innermost frame and RUST_BACKTRACE's frames (`at
// ./src/x.rs:12:5`) outside it; nullopt when `text` has no panic line.
// Linear in the size of `text`.
std::optional<std::vector<ParsedError>> ParseRustPanics(std::string_view text);

// Replaces each error whose message is a pydantic report (`N validation
// errors for Model`, then per error a location line, the indented message
// ending in `[type=KEY, input_value=..., input_type=...]` and the docs URL)
// by one error per entry, `key` set to its type. A report of a PyO3 panic
// (`pyo3_runtime.PanicException`) is read as a panic. Linear.
void ExpandRustReports(std::vector<ParsedError>& errors);

}  // namespace errdex::match
