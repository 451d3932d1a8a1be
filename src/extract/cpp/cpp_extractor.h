// The C/C++ front end: one file (parsed with tree-sitter-c or -cpp) to
// error sites — throw, absl::Status and the xla/tsl helpers, glog CHECK and
// LOG(FATAL), TF_RET_CHECK, the Python C-API, nanobind/pybind11, c10's
// TORCH_CHECK family, MLIR diagnostics — and project macros that wrap them,
// expanded where they are used.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/record.h"

namespace errdex::extract::cpp {

// A function-like `#define` whose body raises an error
// (`#define PYERR(e, m) {PyErr_SetString(e, m); goto fail;}`).
struct MacroDef {
  std::string name;
  std::vector<std::string> params;  // "..." last when variadic
  std::string body;                 // line splices removed
  std::string path;
  int line = 0;
};
using MacroTable = std::unordered_map<std::string, MacroDef>;

// The function-like macros `text` defines, appended to `out`. A cheap scan,
// no parse, so that macros defined in headers reach every file.
void CollectMacros(std::string_view path, std::string_view text, std::vector<MacroDef>& out);

// Of `defs` (in file order; the first definition of a name wins), the macros
// that raise: a sink in the body, or a call of another such macro.
MacroTable SinkMacros(std::vector<MacroDef> defs);

struct FileResult {
  std::vector<Site> sites;
  std::vector<NonSite> non_sites;
  std::vector<FileIssue> issues;  // not UTF-8, syntax errors, parse timeouts
};

// True for the file names the C/C++ front end reads; `is_c` tells which
// grammar the name asks for: tree-sitter-c for .c (and numpy's .c.src),
// tree-sitter-cpp otherwise (ExtractCppBytes still reads a header with no
// C++ in it as C).
bool IsCppSourcePath(std::string_view path, bool* is_c = nullptr);

// Decodes (UTF-8, else Latin-1), parses with `parser` (C's grammar for .c
// and headers without C++ in them) and extracts one C/C++ file as read from
// disk. Never throws on any input; work per file is bounded.
FileResult ExtractCppBytes(TSParser* parser, std::string_view path, std::string bytes,
                           const MacroTable& macros);

}  // namespace errdex::extract::cpp
