// The call graph inside one Python library, from each module's facts
// (py_calls.h): which public functions reach the function a site is in.
//
// Calls are resolved only where the code says what is called: a module's own
// functions and classes, names imported from the library's modules
// (relative imports included), module-level aliases and functools.partial,
// `self.m`/`cls.m`/`super().m` through the class and its bases. A call on
// an object of unknown type (`x.m()`) is no edge: an entry point that is
// shown is one that really calls down, never a guess by method name.
//
// Public: a name a public module exports (its `__all__`, else the names it
// defines, and those it imports where importing is exporting: in a
// package's __init__, or as `from m import x as x`; never with a leading
// underscore), where a
// public module has no path component starting with an underscore and is
// not under tests/, test/, benchmarks/, examples/ or docs/. A public class
// makes its `__init__` (called as the class) and its public methods public.
#pragma once

#include <cstddef>
#include <vector>

#include "core/record.h"
#include "extract/cpp/cpp_extractor.h"
#include "extract/python/py_extractor.h"

namespace errdex::extract::python {

// At most this many entry points are kept per site, shortest first.
inline constexpr size_t kMaxEntryPoints = 3;

// A C/C++ file of the same library: its functions, calls and Python
// bindings join the graph. Python reaches a binding through the extension
// module NB_MODULE/PYBIND11_MODULE names (`import jaxlib._xla as _xla`, the
// module named after the file's directory), and C++ functions through calls
// whose callee's name is defined once in the library (or `static` in the
// caller's file): an overloaded or ambiguous name is no edge.
struct NativeFile {
  std::string path;
  const cpp::NativeFacts* facts = nullptr;
};

// Sets Site::entries on `sites[first...]`, Python sites of `files`, and on
// `native_sites`, the C/C++ sites of `native`, when given.
void AssignEntryPoints(const std::vector<const FileResult*>& files,
                       const std::vector<NativeFile>& native, std::vector<Site>& sites,
                       size_t first, std::vector<Site>* native_sites = nullptr);

// The dotted module name of a path relative to the library's root:
// "pkg/sub/__init__.py" → "pkg.sub"; a leading "src/" is dropped.
std::string ModuleName(std::string_view path);

// The absolute module `from m import x` names in the module `importer`
// (a package's __init__ when `package`): `.debug` in jinja2.environment is
// jinja2.debug.
std::string AbsoluteImport(std::string_view importer, bool package, const ImportFact& i);

}  // namespace errdex::extract::python
