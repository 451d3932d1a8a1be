// The conditions under which a Python statement runs, read off the syntax
// tree from the start of its function: the branches it sits in (an `else`
// or later `elif` adds the negation of the conditions before it), early
// exits before it (`if ok: return` makes `not ok` a condition), loops,
// `except` handlers and `match` cases.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/record.h"
#include "core/guards.h"

namespace errdex::extract::python {

// At most this many guards per statement (the outermost), and per block's
// early exits or per elif chain (the nearest to the statement). The most a
// raise of the Python 3.11 stdlib or its site-packages has is 38 in all, 28
// early exits, 37 elifs; generated code with thousands of `if x == k: raise`
// in one block would otherwise give each raise every condition before it.
inline constexpr size_t kMaxGuards = 64;
inline constexpr size_t kMaxGuardsPerStep = 48;

// What PythonGuards keeps between the statements of one file: the early
// exits of each block, read once rather than once per raise in it, and
// whether some statement had more guards than kMaxGuards.
struct GuardCache {
  std::unordered_map<const void*, std::vector<std::pair<uint32_t, Guard>>> exits;
  int first_cut_line = 0;  // the first statement whose guards were cut; 0 if none
  // The names whose module-level assignments were read, in the order asked,
  // when `note_module_names`: a caller that keeps guards apart from their
  // module drains it.
  bool note_module_names = false;
  std::vector<std::string> module_names;
};

// Guards of `target` within `scope` (a function definition or the module),
// outermost first. `source` is what the tree was parsed from.
std::vector<Guard> PythonGuards(TSNode scope, TSNode target, std::string_view source,
                                GuardCache* cache = nullptr);

}  // namespace errdex::extract::python
