// What one Python module declares, imports and calls: the facts the
// library's call graph (py_callgraph.h) is built from. Read in one walk over
// the tree, separate from the site extraction, which never enters most
// expressions.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/memo.h"

namespace errdex::extract::python {

struct SigParam {
  std::string name;
  std::string kind;  // "pos" positional only, "any", "kw" keyword only, "*", "**"
  std::string doc;   // its docstring line (py_docstring.h), when documented
};

struct DefinedFunction {
  std::string qualified;  // "Class.method", "outer.<locals>.inner"
  std::string owner;      // the class it is a method of (qualified), or ""
  int line = 0;
  std::vector<SigParam> params;
};

struct DefinedClass {
  std::string qualified;
  std::vector<std::string> bases;  // as written, when a dotted name
  int line = 0;
};

// A call inside a function whose callee is a dotted name.
struct CallFact {
  int caller = -1;     // index into ModuleFacts::functions
  std::string callee;  // "f", "mod.f", "self.m", "cls.m", "super.m"
  // A function defined inside the caller (index into functions): named in
  // a call, or defined at all, since it only exists once its definer runs.
  int local = -1;
  int line = 0;
  // Arguments that are the caller's own parameters, by position or keyword.
  struct Passed {
    int position = -1;
    std::string keyword;
    std::string param;
  };
  std::vector<Passed> passed;
};

struct ImportFact {
  std::string local;   // the name bound in the module
  std::string module;  // absolute, or relative to the package with `level` dots
  std::string name;    // the imported name; empty when a module is bound
  int level = 0;
  bool reexport = false;  // `from m import x as x`: PEP 484's explicit re-export
};

// A function registered under a key object: `register_lowering(prim, rule)`,
// `table[prim] = rule`, `prim.def_impl(rule)`, `@register_rule(prim)`. Any
// function that calls a method of the key (`prim.bind(...)`) may run it:
// the dispatch tables of jax-style primitives, which a call graph of
// spelled-out calls cannot see through.
struct Registration {
  std::string key;       // dotted, as written
  std::string function;  // dotted, as written; or
  int local = -1;        // a function of this module (index into functions)
  int line = 0;
};

// A module an import statement names, wherever it is: `import a.b` names
// a.b, `from a import b` names a and a.b (b may be a module), `from .m
// import *` names .m. What py_replaced.h asks: which modules are imported
// at all, in full, where ImportFact records the names bound.
struct ImportedModule {
  std::string module;  // dotted, without the leading dots
  int level = 0;
  int line = 0;
};

// A `from m import ...` at module level, or in the body or an ImportError
// handler of a try at module level: what may rebind the names the module
// defined above it (`try: from _datetime import *` / `except ImportError:
// pass` at the end of datetime.py), or stand in for an import that failed
// (`except ImportError: from _pydecimal import *` in decimal.py).
struct TopImport {
  std::string module;              // as written, without the leading dots
  int level = 0;                   // the leading dots
  std::vector<std::string> names;  // the names it binds; empty for `*`
  bool star = false;
  int line = 0;
  std::string code;  // the statement as written, on one line
  // In the handler of a try catching ImportError: the first `from` import
  // of the try's body (index into ModuleFacts::top_imports), whose failure
  // this one answers; -1 elsewhere.
  int instead_of = -1;
  // The first import of a try's body: what the try's `else:` deletes once
  // it succeeded (`del (_check_date_fields, ...)` in datetime.py).
  std::vector<std::string> deletes;
};

// A module-level statement that names top-level definitions of its module
// while the module runs (not inside a function's body, which looks the
// name up when it is called): `_py_f = f`, `default = C()`, `class B(A)`,
// a decorator, a default argument. It keeps the Python definition reachable
// past an import that rebinds the name, unless what holds it goes too.
// Read only in modules with a top-level import that may rebind.
struct TopReference {
  int line = 0;
  // What holds the reference: the def or class statement's own name, X of
  // `X.attr = ...`, V of `V = ...`, each target's of `V = X.a = ...`; none
  // for anything else (an expression, a tuple target), which holds it for
  // good.
  std::vector<std::string> holders;
  std::vector<std::string> names;  // the top-level definitions named
};

struct ModuleFacts {
  std::vector<DefinedFunction> functions;
  std::vector<DefinedClass> classes;
  std::vector<CallFact> calls;
  std::vector<ImportFact> imports;
  // Module-level `g = f` and `g = wrapper(f, ...)` (functools.partial,
  // jit): g calls f.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::optional<std::vector<std::string>> all;  // __all__, when a literal
  std::vector<std::string> variables;  // module-level names assigned anything
  std::vector<Registration> registrations;
  std::vector<TopImport> top_imports;
  std::vector<ImportedModule> imported;
  std::vector<TopReference> top_references;
};

// The parameters of a function definition in order.
std::vector<SigParam> ReadParameters(TSNode function, std::string_view source);

// The facts of a top-level function, or of a method in a class's body,
// depend on its text and place alone (the module, or the class it is in):
// indexing revisions, a function that did not change is not read again
// however its file changed around it. An entry is the function's facts with
// lines counted from its first line (0) and function indexes from its own
// (0).
using DefinitionFactsMemo = DefinitionMemo<ModuleFacts>;

// Never fails; nesting deeper than a bound is not entered. `every_node`
// walks into call-free expressions too (the walk skips them otherwise):
// the reference the faster walk is tested against. With a memo, functions
// and methods are taken from it or put there; the facts are the same.
ModuleFacts ReadModuleFacts(TSNode root, std::string_view source, bool every_node = false,
                            DefinitionFactsMemo* memo = nullptr);

// The facts as text, one per line, every field written: two readings of a
// module compared by tests and fuzzers.
std::string FactsText(const ModuleFacts& facts);

}  // namespace errdex::extract::python
