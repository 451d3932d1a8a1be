// What a function's docstring says about each of its parameters, for the
// valid values of a checked parameter (issue 12): the first sentence of its
// entry in an Args/Parameters section (Google), a Parameters section
// underlined with dashes (numpydoc) or a `:param name:` field (Sphinx/reST).
// A parameter the docstring only mentions in prose has no entry: a sentence
// read off the wrong line would mislead more than no sentence.
#pragma once

#include <tree_sitter/api.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace errdex::extract::python {

// Longest description kept, in characters; longer ones are cut at a word
// and end in "…".
inline constexpr size_t kMaxParameterDocChars = 200;

// The docstring of a function or class definition as Python holds it in
// __doc__ (escapes decoded) and inspect.cleandoc cleans it (tabs expanded,
// common indentation removed); nothing when the body does not start with a
// plain string literal (an f-string, bytes or an expression is no docstring).
std::optional<std::string> Docstring(TSNode definition, std::string_view source);

// Parameter name (without `*`/`**`) → the first sentence of its description,
// whitespace collapsed and reST roles and double backquotes reduced to
// `code`, at most kMaxParameterDocChars characters. `docstring` is cleaned
// as Docstring returns it. An entry without a description is left out.
std::map<std::string, std::string, std::less<>> ParameterDocs(std::string_view docstring);

}  // namespace errdex::extract::python
