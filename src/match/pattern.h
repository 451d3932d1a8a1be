// How a message template is looked for in runtime text: the normal form both
// sides are compared in, the RE2 pattern of a template, and the literal
// fragments the prefilter searches for.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/template.h"

namespace errdex::match {

// Runtime text and template literals are compared in this form: terminal
// escapes removed, every run of whitespace (newlines included) one space,
// ends trimmed. Paste and terminal wrapping change only whitespace.
std::string NormalizeText(std::string_view text);

// The RE2 pattern of `t`: normalized literals quoted, each value a named group
// (the piece's `name`) whose regex follows its kind (int: -?\d+, ...). Meant
// for RE2 with dot_nl; unanchored: callers pick the anchoring.
std::string TemplateRegex(const Template& t);

// Whether `t` is a repr around values (KeyError's message, quoted ' in the
// template): Python picks ' or " from the whole text, so either may open
// and close it at run time.
bool ReprQuoted(const Template& t);

// The RE2 pattern of every prefix of `t` that ends at a piece boundary:
// p0(?:p1(?:p2...)?)? -- matched against a whole message, it accepts one cut
// short, or one from a version that has since added text at the end.
std::string TruncatableTemplateRegex(const Template& t);

// How much of `t`'s literal text a message that starts like it shows:
// `found`, the bytes of the literal pieces found in `message` (normal form)
// in order from its start, each after the last, stopping at the first
// missing; `total`, all of `t`'s literal bytes. Values between pieces count
// for nothing, so a template whose first value swallows the rest of the
// message shows only its first piece.
struct LeadingLiterals {
  size_t found = 0;
  size_t total = 0;
  // The message ends with a whole line of the template's text (at least 8
  // bytes) that a line break follows in the template: it is the template
  // cut where one of its lines ends, not one cut after a value.
  bool ends_a_line = false;
};
LeadingLiterals FindLeadingLiterals(const Template& t, std::string_view message);

// Literal fragments of `t` (normalized, at least kMinFragment bytes) for the
// multi-literal prefilter: each literal piece, and for long pieces their first
// and last kWindow bytes too, so that a message cut short or wrapped still
// shows some of them. A piece longer than kMaxFragment bytes gives only its
// first kMaxFragment: Vectorscan refuses literals over 16,000 bytes, and a
// substring can only find more messages, never fewer (RE2 confirms). Empty
// for a template without literal text.
inline constexpr size_t kMinFragment = 4;
inline constexpr size_t kWindow = 24;
inline constexpr size_t kMaxFragment = 4096;
std::vector<std::string> PrefilterFragments(const Template& t);

// Text with ANSI escape sequences (colours, cursor moves) removed.
std::string StripAnsi(std::string_view text);

}  // namespace errdex::match
