// Valid Python that the pinned grammar (tree-sitter-python 0.23) rejects,
// rewritten to what it reads before parsing. The newer 0.25 grammar is ABI
// 15, which Debian 12's libtree-sitter 0.20 cannot load, and rejects the
// same constructs besides.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace errdex::extract::python {

// Rewrites `text` in place, byte for byte: its length and every line break
// stay where they were, so the tree's offsets, lines and columns are the
// source's and the front end quotes the source itself. What changes:
//  - a star before a subscript's element (PEP 646: `x[*(a, b)]`,
//    `x[i, *idx]`) becomes a space, leaving the element the grammar reads;
//  - a type parameter's default (PEP 696: `def f[T = int]()`) becomes spaces;
//  - a template string's `t` prefix (PEP 750: `t"{x}"`) becomes `f`, the
//    f-string of the same syntax.
// A string's text and a comment are never rewritten (a replacement field is
// code). Linear in the text's size on any input, never throws. Returns the
// number of rewrites.
int RewriteForGrammar(std::string& text);

// True for a byte of a name or number as the pre-passes scan them: ASCII
// letters, digits, `_`, and every byte of a multi-byte UTF-8 character.
bool IsPythonWordByte(char c);

// Past the blanks at `i` that are no token: spaces, tabs, a backslash and
// the byte after it (a line continuation), a comment up to its newline.
// Returns `i` when there are none; never past the text's end.
size_t SkipPythonBlank(std::string_view text, size_t i);

}  // namespace errdex::extract::python
