// Python code that a module replaces with another module's when it can:
// the pure-Python definitions the standard library keeps beside its C
// accelerators (datetime.py's classes, rebound by `from _datetime import *`
// at its end; operator.py's functions, by `from _operator import *`), and
// whole modules that run only in place of one that failed to import
// (`except ImportError: from _pydecimal import *` in decimal.py).
//
// Their raises are real code but not what runs where the other module
// imports: the C module raises instead, often with other words. Each such
// site gets a guard that says so (kind "replaced" or "stands-in", see
// core/record.h), which the trigger sentence states and the matcher ranks
// after a site with no such guard; a star import of a module whose names
// errdex does not know gives "replaced-if-defined", which says as much and
// ranks nothing lower.
#pragma once

#include <cstddef>
#include <vector>

#include "core/record.h"
#include "extract/python/py_extractor.h"

namespace errdex::extract::python {

// Adds the guards to `sites[first...]`, the Python sites of `files`.
//
// A definition is replaced when a `from m import ...` at module level, or in
// the body of a module-level try that catches ImportError, names it after
// it is defined (or is `*` of a C accelerator of the standard library that
// defines it; `*` of another module marks every public name
// "replaced-if-defined"), or the try's `else:` deletes it; `m` is no module
// of the library, and no module-level statement before the import keeps a
// reference to it that outlives the import (TopReference in py_calls.h).
// A module stands in when such a try's ImportError handler imports from it,
// binding what the try's import binds, and nothing else imports it.
void MarkReplaced(const std::vector<const FileResult*>& files, std::vector<Site>& sites,
                  size_t first);

}  // namespace errdex::extract::python
