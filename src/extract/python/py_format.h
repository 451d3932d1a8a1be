// Python string semantics the extractor needs without a syntax tree: escape
// decoding, the format-spec mini-language, and the two formatting operators
// (`%` and str.format) applied to a message template.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/template.h"

namespace errdex::extract::python {

// Appends the runtime text of one literal segment of a string to `out`.
// Non-raw segments have their escapes decoded (\N{...} becomes a one-character
// placeholder); in f-strings `{{`/`}}` are single braces.
void AppendStringSegment(std::string_view segment, bool raw, bool fstring, Template& out);

// The kind of value an f-string/str.format spec (without the leading ':')
// prints: `d` int, `x` hex, `.3f` float, no type str.
ValueKind KindFromFormatSpec(std::string_view spec);

// One argument of a formatting operation: its source expression, and its
// template when it is itself a string errdex could resolve.
struct FormatArg {
  std::string expression;
  std::optional<Template> value;
};

// The right-hand side of `fmt % rhs`.
struct PercentArgs {
  std::vector<FormatArg> positional;                    // a tuple's elements, or the single operand
  std::map<std::string, FormatArg, std::less<>> named;  // a dict literal's entries
  bool is_tuple = false;                                // rhs is a tuple literal
  bool is_dict = false;                                 // rhs is a dict literal
  std::string expression;  // the whole rhs, to name values it does not spell out
};

// Applies `%` conversions found in the literal pieces of `format`.
Template ApplyPercent(const Template& format, const PercentArgs& args);

// Applies str.format fields found in the literal pieces of `format`.
Template ApplyStrFormat(const Template& format, const std::vector<FormatArg>& positional,
                        const std::map<std::string, FormatArg, std::less<>>& keywords);

// True for a decimal integer literal, True, False or None: str() and repr()
// print exactly the source text.
bool IsPlainConstant(std::string_view expression);

// Appends repr() of a string template: quotes around it, escapes inside.
void AppendReprOf(const Template& value, Template& out);

// How a value is printed when it fills a placeholder of kind `kind`: a
// resolved string argument is inlined into a str slot, quoted into a repr slot.
void AppendArgument(const FormatArg& arg, ValueKind kind, std::string_view spec, int max_length,
                    Template& out);

}  // namespace errdex::extract::python
