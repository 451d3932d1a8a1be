// The string-building half of the language-neutral evaluator: the
// formatting operations messages are written with, in every language errdex
// reads (Python's `%` and str.format, C's printf, the Python C-API's
// PyUnicode_FromFormat, absl::Substitute, fmt/std::format and Rust's
// format!), applied to a message template. Front ends name an operation
// (a value of `Format`, usually from a table of builder functions) and hand
// over the arguments; nothing here reads syntax.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/template.h"

namespace errdex::extract::flow {

// One argument of a formatting operation or a call: its source expression,
// and its template when it is a string the front end could resolve.
struct Arg {
  std::string expression;
  std::optional<Template> value;
};

enum class Format : uint8_t {
  kPercent,     // Python's `fmt % args`
  kStrFormat,   // Python's str.format (and a template's own fields)
  kPrintf,      // C's printf family, absl::StrFormat (%v too)
  kPyPrintf,    // PyErr_Format / PyUnicode_FromFormat: %S %R %A %U %V %T %N as well
  kSubstitute,  // absl::Substitute: $0..$9, $$
  kBraces,      // fmt::format, std::format, llvm::formatv, Rust's format!
};

std::string_view FormatName(Format format);

struct FormatArgs {
  std::vector<Arg> positional;
  std::map<std::string, Arg, std::less<>> named;
  // Python's `%`: whether the operand is a tuple literal (otherwise a lone
  // operand fills a single conversion), and the operand as written, to name
  // the values it does not spell out (`args[1]`).
  bool is_tuple = false;
  std::string expression;
  // kBraces: a named field no argument fills is a value named after it
  // (Rust's inline captures, `{name}`); otherwise it is printed as written,
  // as fmt leaves a field it cannot fill here.
  bool capture_names = false;

  static FormatArgs Positional(std::vector<Arg> args) {
    FormatArgs out;
    out.positional = std::move(args);
    return out;
  }
};

// `pattern` with the operation's fields in its literal pieces replaced by the
// arguments; values of `pattern` pass through unchanged.
Template ApplyFormat(Format format, const Template& pattern, const FormatArgs& args);

// How a language prints a value into a slot. Python: str() and repr() of a
// resolved string (repr quotes it as Python would), and of 3, True, None.
// Native (C, C++): a resolved string or a number literal in a %s/%d slot.
// Rust: as native, and a resolved string's Debug (`{:?}`) quoted and
// escaped as `str`'s Debug does.
enum class Printing : uint8_t { kPython, kNative, kRust };

Printing PrintingOf(Format format);

// Appends `arg` printed into a slot of `kind` (`spec` as written, at most
// `max_length` characters when not -1): inlined when the language prints it
// as its text, else a value named after its expression.
void AppendArg(Printing printing, const Arg& arg, ValueKind kind, std::string_view spec,
               int max_length, Template& out);

// The kind of value a Python format spec (without the leading ':') prints:
// `d` int, `x` hex, `.3f` float, no type str.
ValueKind KindFromFormatSpec(std::string_view spec);

// True for a decimal integer literal, True, False or None: Python's str()
// and repr() print exactly the source text.
bool IsPlainConstant(std::string_view expression);

// Appends Python's repr() of a string template: quotes around it, escapes inside.
void AppendReprOf(const Template& value, Template& out);

}  // namespace errdex::extract::flow
