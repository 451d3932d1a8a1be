// Errors named by a key the runtime text carries beside the message:
// pydantic's report prints each entry's ErrorType variant as
// `[type=int_parsing, ...]`, and the Rust front end writes a message
// table's sites as `ErrorType::IntParsing`.
#pragma once

#include <string_view>

#include "catalog/catalog.h"

namespace errdex::match {

// What a site raising the variant the pasted key names adds to a match's
// rank: enough to put that arm before an arm whose template also matches
// (`Input should be {expected}` matches most of pydantic's texts).
inline constexpr double kKeyAgrees = 0.3;

// True when a site of `e` is written as the variant `key` names in snake
// case (`int_parsing` names `ErrorType::IntParsing`).
bool RaisesKey(const catalog::ErrorRecord& e, std::string_view key);

}  // namespace errdex::match
