// Stable error ids: the same library, exception type and message template give
// the same id in every snapshot and every catalog, so /errors/<id> URLs last.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/template.h"

namespace errdex {

// What makes two templates one error: the literal text (braces doubled, as
// in the display form) and, for each value, where it stands, its kind
// (repr, str, int...), its format spec (`:.3f`) and its bound (`%.200s`) --
// not its name or expression. `f"...{inspect(input_value)}"` and
// `f"...{inspect(output_value)}"` are one error; `{x!r}` and `{x}` are two.
// A template with no values has its display form as identity, so the ids of
// such errors are those earlier errdex versions gave them.
std::string ErrorIdentity(const Template& message);

// 16 lowercase hex digits of XXH3-64 over `library \0 exception \0 identity`
// (the identity of the template, above).
std::string ErrorId(std::string_view library, std::string_view exception,
                    std::string_view identity);
std::string ErrorId(std::string_view library, std::string_view exception, const Template& message);

// True for a string of 16 lowercase hex digits.
bool IsErrorId(std::string_view text);

// The id `text` spells, in lowercase: 16 hex digits in either case (an id
// read aloud, or copied from something that capitalised it, is still the
// error). nullopt for anything else.
std::optional<std::string> CanonicalErrorId(std::string_view text);

}  // namespace errdex
