// What CPython itself raises while running code: a missing attribute or
// name, an index out of range, an operand of the wrong type. Libraries copy
// these wordings (a `__getattr__` raising "'Client' object has no attribute
// 'x'"), so a pasted message of the kind fits their raises word for word,
// though a traceback that never enters them says the interpreter raised it.
#pragma once

#include <string>
#include <string_view>

namespace errdex::match {

// True when `message` (normal form) is worded as CPython words an error of
// the short type `type` that it raises itself (3.8 and later).
bool IsInterpreterWording(std::string_view type, std::string_view message);

// `message` without the suggestion Python 3.10 and later print after a
// name error's text (`module 'numpy' has no attribute 'int'. Did you mean:
// 'inf'?`): the exception's text, which the library wrote, ends before it.
std::string WithoutSuggestion(std::string_view type, std::string message);

struct ParsedError;

// The same of a pasted error: its short type and its message, normalised.
bool IsInterpreterWording(const ParsedError& e);

}  // namespace errdex::match
