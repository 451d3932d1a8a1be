// Links the Python front end's per-file results across the library: exception
// classes that build their own message, helpers that return an exception or
// a message, and the final naming of every template's values.
#pragma once

#include <vector>

#include "core/record.h"
#include "extract/python/py_callgraph.h"
#include "extract/python/py_extractor.h"

namespace errdex::extract::python {

// Adds the sites, non-sites, issues and exception classes of `files` to
// `out`, resolving what one file alone could not; `files` are only read
// (the blob cache shares them across revisions). Deterministic for the same
// input order.
// `native`, when given, holds the C/C++ sites of the same library: one
// whose message is all values and whose type is a Python exception class
// that composes its text (numpy's C raising `_UFuncNoLoopError` by name)
// takes the class's templates.
// `native_files`, when given, are the library's C/C++ files, whose
// functions and bindings join the call graph (py_callgraph.h).
void LinkPython(const std::vector<const FileResult*>& files, Extraction& out,
                std::vector<Site>* native = nullptr,
                const std::vector<NativeFile>* native_files = nullptr);

}  // namespace errdex::extract::python
