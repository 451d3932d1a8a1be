// The Rust front end: one file (parsed with tree-sitter-rust) to error
// sites — PyO3 exceptions, panics and assertions, `.expect`, anyhow/eyre,
// thiserror's `#[error]`, Display impls of error types, and message tables
// (a `match self` mapping each variant to its text, pydantic-core's
// ErrorType). Sinks come from rust_sinks.h.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
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

struct FileResult {
  std::vector<Site> sites;
  std::vector<MacroAlias> macro_aliases;
  std::vector<MacroUse> macro_uses;
  std::vector<NonSite> non_sites;
  std::vector<FileIssue> issues;  // not UTF-8, syntax errors, parse timeouts
  // Python exception classes PyO3's create_exception! defines.
  std::vector<ExceptionClass> classes;
  flow::HelperFacts helpers;  // for LinkHelpers
};

// The post-pass over a library's Rust files: functions that raise with
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
