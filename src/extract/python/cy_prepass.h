// Cython (.pyx, .pxd, .pxi) and its Tempita templates (.pyx.in, .pxi.in)
// rewritten into the Python that tree-sitter-python 0.23 reads, so the
// Python front end extracts them. No maintained tree-sitter Cython grammar
// is published for the ABI Debian 12's libtree-sitter loads (see
// doc/extraction.md, "Cython").
#pragma once

#include <string>
#include <string_view>

namespace errdex::extract::python {

// True for the paths RewriteCython is for: .pyx, .pxd, .pxi, and those with
// a Tempita `.in` after them.
bool IsCythonPath(std::string_view path);

// True for a Tempita template (`.pyx.in`, `.pxi.in`, `.pxd.in`).
bool IsTempitaPath(std::string_view path);

// Rewrites `text` in place, byte for byte, like RewriteForGrammar: its
// length and every line break stay where they were, every name, string and
// expression Python can read stays at its offset; only Cython's own syntax
// becomes spaces or a shorter Python spelling written over it:
//  - `cdef`/`cpdef` functions become `def` with their parameter names (the
//    C types, `not None`, and the tail `except -1 nogil` blanked);
//    `cdef class` becomes `class`; `property x:` a class holding its
//    accessors;
//  - typed declarations (`cdef Py_ssize_t i = 0`, the lines of a `cdef:`
//    block, `DEF N = 3`) become `0;` and the assignment (`0;  i = 0`), or
//    the statement `0` when they assign nothing;
//  - `cimport`s, `include "x.pxi"`, `ctypedef`s and `cdef extern`/`struct`/
//    `enum`/`union`/`cppclass` blocks become `0` and blank lines;
//  - casts (`<double>x`, `<np.ndarray?>`), address-of `&x`, a pointer star
//    after a type (`sizeof(double*)`), a char literal's `c` prefix; `IF`/
//    `ELIF`/`ELSE` become `if`/`elif`/`else`; `for i from 0 <= i < n` reads
//    `for i in ...`;
//  - with `tempita`, `{{...}}` directives (`{{for ...}}`, `{{py: ...}}`)
//    become spaces and substitutions in code become underscores (an
//    identifier); in strings they stay, for the caller to make placeholders.
// Strings and comments are never rewritten. Linear in the text's size on
// any input; never throws. Returns the number of rewrites.
int RewriteCython(std::string& text, bool tempita);

}  // namespace errdex::extract::python
