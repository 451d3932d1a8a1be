// The C/C++ front end: one file (parsed with tree-sitter-c or -cpp) to
// error sites — throw, absl::Status and the xla/tsl helpers, glog CHECK and
// LOG(FATAL), TF_RET_CHECK, the Python C-API, nanobind/pybind11, c10's
// TORCH_CHECK family, MLIR diagnostics — and project macros that wrap them,
// expanded where they are used.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/record.h"
#include "extract/flow/helpers.h"

namespace errdex::extract::cpp {

// How a Python C-API error function (PyErr_SetString, PyErr_Format,
// PyErr_WarnEx, ...) takes its exception and text: for front ends that see
// it called from another language (Cython).
struct CApiCall {
  std::string exception;  // fixed by the name; empty: the first argument names it
  int message_at = -1;    // the argument holding the message or format; -1: none
  bool printf = false;    // that argument is a PyUnicode_FromFormat format
  SiteKind kind = SiteKind::kRaise;
  bool internal = false;
};

// The C-API function `name`, or nullopt when it raises nothing.
std::optional<CApiCall> PythonCApiCall(std::string_view name);

// The Python type a PyExc_* expression or exception-state object names
// (`PyExc_ValueError`, `(PyObject *)PyExc_TypeError`): "ValueError".
std::string PythonTypeOf(std::string_view expression);

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

// What one C/C++ file defines, calls and binds to Python: the facts the
// library's call graph (python/py_callgraph.h) joins to the Python side.
struct NativeFunction {
  std::string name;  // as Site::function names it: "f", "Class::m", a binding's name
  int line = 0;
  bool file_local = false;  // `static`
  // NB_MODULE(_xla, m) / PYBIND11_MODULE: the Python module it initialises.
  std::string module;
  // Its variable `m`, or a parameter of type nb::module_& / py::module_&
  // that bindings in a helper are made on.
  std::string module_var;
  bool bound = false;                // a lambda bound by `m.def("name", ...)`
  std::vector<std::string> params;  // the binding's nb::arg names, when all are named
};

struct NativeCall {
  int caller = -1;     // index into NativeFacts::functions
  std::string callee;  // "f", "ns::f", "Class::f" as written; `this->f` as "f"
};

// `m.def("name", &f)` or `m.def("name", [](...) {...})`.
struct NativeBinding {
  int function = -1;     // where the binding is made
  std::string receiver;  // `m`
  std::string name;      // the Python name
  std::string target;    // `f` for a function bound by name
  int lambda = -1;       // else the bound lambda (index into functions)
};

struct NativeFacts {
  std::vector<NativeFunction> functions;
  std::vector<NativeCall> calls;
  std::vector<NativeBinding> bindings;
};

struct FileResult {
  NativeFacts facts;  // for the call graph
  std::vector<Site> sites;
  std::vector<NonSite> non_sites;
  std::vector<FileIssue> issues;  // not UTF-8, syntax errors, parse timeouts
  flow::HelperFacts helpers;      // for LinkHelpers
};

// The post-pass over a library's C/C++ files: helpers (and helpers that
// call helpers with their own parameter, to a bounded depth) found in any
// file; each call passing one text becomes a site of its own in the
// caller's file. Clears the helper data it read.
void LinkHelpers(std::vector<FileResult>& files);

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
