// C and C++ string semantics without a syntax tree: escape sequences and the
// formatting functions messages are built with — printf (C, Python's
// PyUnicode_FromFormat, absl::StrFormat), absl::Substitute and
// fmt/std::format — applied to a message template.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/template.h"

namespace errdex::extract::cpp {

// Appends what one escape sequence (`\n`, `\x41`, `\u00e9`, `\101`) stands for.
void AppendEscape(std::string_view escape, std::string& out);

// One argument of a formatting call: its source text, and its template when
// errdex could resolve it to a string.
struct Arg {
  std::string expression;
  std::optional<Template> value;
};

enum class PrintfDialect {
  kC,       // printf, absl::StrFormat (%v too), xla::InvalidArgument
  kPython,  // PyErr_Format / PyUnicode_FromFormat: %S %R %A %U %V %T %N as well
};

// Applies printf conversions found in the literal pieces of `format` to `args`.
Template ApplyPrintf(const Template& format, const std::vector<Arg>& args, PrintfDialect dialect);

// absl::Substitute: `$0`..`$9` are arguments, `$$` is a dollar sign.
Template ApplySubstitute(const Template& format, const std::vector<Arg>& args);

// fmt::format / std::format / llvm::formatv: `{}`, `{0}`, `{:x}`; `{{` `}}` are braces.
// A named field (`{name}`, Rust's format! and inline captures) is filled by
// `named` where it gives an argument, else kept as written.
Template ApplyBraces(const Template& format, const std::vector<Arg>& args,
                     const std::function<std::optional<Arg>(std::string_view)>& named = nullptr);

// Appends an argument into a slot of `kind`: a resolved string is inlined into
// a string slot, anything else becomes a placeholder named after it.
void AppendArg(const Arg& arg, ValueKind kind, std::string_view spec, int max_length,
               Template& out);

}  // namespace errdex::extract::cpp
