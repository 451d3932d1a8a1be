// The Rust front end: one file (parsed with tree-sitter-rust) to error
// sites — PyO3 exceptions and warnings, CPython's calls through PyO3's ffi,
// panics and assertions, `.expect`, anyhow/eyre, thiserror's `#[error]`,
// Display impls of error types, and message tables (a `match self` mapping
// each variant to its text, pydantic-core's ErrorType) — and, with the
// library's other files, the texts types' Display impls compose into the
// raises that print them. Sinks come from rust_sinks.h.
#pragma once

#include <tree_sitter/api.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record.h"
#include "extract/flow/helpers.h"

namespace errdex::extract::rust {

// A macro the crate defines to raise with a format its caller writes, by
// handing its arguments on to a raising macro: pydantic-core's
// `py_schema_err!(...)` is `Err(py_schema_error_type!(...))`, which is
// `py_error_type!(SchemaError; ...)`.
struct MacroAlias {
  std::string name;
  std::string forwards;           // the macro it hands its arguments to, or
  std::string exception_written;  // the type it raises, when that macro is a table's
  std::vector<TSNode> handed;     // while its file is read: the tokens it hands on
};

// A call of a macro no table knows, with the messages its arguments make
// as a format: a site once the post-pass finds the macro an alias.
struct MacroUse {
  std::string name;
  Site site;
  std::vector<Template> messages;
};

// A value of a composed text whose type the crate may declare: what prints
// there is that type's Display (`method` "fmt": `{self.kind}`, `{pos}`,
// `e.to_string()`) or the text of one of its methods (`e.description(d)`).
struct ComposedSlot {
  std::string value;  // the value's expression, as the template holds it
  // `T`, a path (`crate::errors::T`), or where the crate declares it:
  // `T.field`, `T.0`, `T::Variant#0`, `T::Variant.field`, `T::method()` (a
  // return type); empty when not known (a method found by its name alone).
  std::string type;
  std::string method;
};

// Text a type prints (one arm of its Display's `write!`/`write_str`, or a
// method of the type whose value is a `format!`: `fn description(&self, ..)
// -> String { format!("{} at {}", self.error_type, position) }`), or a
// raise whose message prints such a type. The post-pass composes them
// across files: each text of a value's type is one alternative of the whole.
struct ComposedText {
  std::string owner;  // `T::fmt` (T's Display), `T::description`; empty for a raise
  Site site;          // where its words are written; the message is the text
  std::vector<ComposedSlot> slots;
  // The text as written is a site even when it is a value alone (thiserror's
  // `#[error("{0}")]`, as it was before the post-pass wrote it).
  bool keeps_value = false;
};

struct FileResult {
  std::vector<Site> sites;
  std::vector<MacroAlias> macro_aliases;
  std::vector<MacroUse> macro_uses;
  std::vector<NonSite> non_sites;
  std::vector<FileIssue> issues;  // not UTF-8, syntax errors, parse timeouts
  // Python exception classes PyO3's create_exception! defines.
  std::vector<ExceptionClass> classes;
  flow::HelperFacts helpers;  // for LinkHelpers
  std::vector<ComposedText> composed;
  // What the types the file declares hold (keys as ComposedSlot::type has
  // them: `T.field`, `T::Variant#0`, `T::method()`), as a type reference.
  std::map<std::string, std::string> declared;
  std::vector<std::string> error_types;  // `impl Error for T`, `derive(Error)`
  // Statics set to a CPython exception (`JsonEncodeError =
  // PyExc_TypeError`): the name, and the Python exception it is.
  std::vector<std::pair<std::string, std::string>> exception_aliases;
  std::vector<std::string> statics;  // the file's `static` items, by name
};

// The post-pass over a library's Rust files: the texts types' Display and
// methods compose, at the errors that print them (an error type's own
// Display, a raise of `e.description(..)`); functions that raise with
// text their caller passes (`fn invalid(what: &str) -> PyErr {
// PyValueError::new_err(format!("invalid {what}")) }`), found in any file;
// each call passing text becomes a site of its own in the caller's file.
// Clears the helper data it read.
void LinkHelpers(std::vector<FileResult>& files);

// True for the file names the Rust front end reads (.rs).
bool IsRustSourcePath(std::string_view path);

// Checks UTF-8, parses with `parser` and extracts one Rust file as read from
// disk. Never throws on any input; work per file is linear in its size.
FileResult ExtractRustBytes(TSParser* parser, std::string_view path, std::string bytes);

// The text tree-sitter-rust parses: `bytes`, but a macro named like a
// primitive type (`str![..]`) renamed at the same length so that it parses as
// the macro it is; empty when nothing needs it.
std::string ParseableRust(std::string_view bytes);

}  // namespace errdex::extract::rust
