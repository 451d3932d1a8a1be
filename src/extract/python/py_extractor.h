// The Python front end: one file's syntax tree to proto-sites, exception
// classes and helper functions; the linker (py_linker.h) then resolves what
// crosses files (exception classes that build their message, helpers that
// return exceptions or messages).
#pragma once

#include <tree_sitter/api.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.h"
#include "extract/flow/bind.h"
#include "extract/flow/format.h"
#include "extract/memo.h"
#include "extract/python/py_calls.h"
#include "extract/python/py_format.h"

namespace errdex::extract::python {

using flow::BindArguments;
using flow::Bindings;
using flow::CallArg;
using flow::Param;
using flow::PendingCall;
using flow::Reflowed;
using flow::Substitute;

// A site before linking: `site` holds what the file alone tells; `callee` and
// `args` let the linker redo the message when the callee is a library class
// or helper.
struct ProtoSite {
  Site site;
  std::string callee;  // short name of the called class or function
  bool callee_is_class = false;
  bool has_call = false;  // the exception was constructed with a call
  // `return error(...)` with an imported lowercase name: a site only if the
  // linker finds `error` to be an exception class.
  bool tentative = false;
  // `return self.make(...)` kept only for the linker to follow: never a
  // site of its own, and no evidence that the function returns exceptions.
  bool chained = false;
  // The parameter the type is read from when `callee` is its default
  // (`def f(msg, error_class=ValueError): raise error_class(msg)`).
  std::string type_param;
  // The classes a dict maps the class passed in `type_param` to, key to
  // class raised, as written: `error = _condition_map.get(condition,
  // condition)` raises the mapped class for a key, the passed one otherwise.
  std::vector<std::pair<std::string, std::string>> type_map;
  // The callee as written when the type is not it: `Error.from_data` when
  // the front end took the type from the class of an alternative constructor.
  std::string callee_written;
  std::vector<CallArg> args;
};

struct ClassInfo {
  std::string name;
  std::vector<std::string> bases;  // short names
  std::string path;
  int line = 0;
  bool has_init = false;
  std::vector<Param> init_params;  // without self
  // The arguments __init__ passes to super().__init__ / Base.__init__(self, ...),
  // evaluated in __init__ (its parameters appear as values named after them).
  // One list per way __init__ can build them (`if message is None: message =
  // ...` gives two).
  std::optional<std::vector<std::vector<CallArg>>> super_args;
  // The class named in Base.__init__(self, ...); empty for super().__init__.
  std::string super_target;
  std::vector<std::pair<std::string, flow::Arg>> self_attrs;   // self.x = <expr>
  std::vector<std::pair<std::string, flow::Arg>> class_attrs;  // x = <expr> in the class body
  std::set<std::string> conditional_attrs;  // self.x set only inside an if/try in __init__
  std::vector<Template> str_templates;  // what __str__ returns, every branch
  // `lines = []; if self.x is not None: lines.append(self.x); ...; return
  // sep.join(lines)` (yaml's MarkedYAMLError): the parts in order, each with
  // the attribute whose None leaves it out (empty: always there). The linker
  // joins, at each raise, the parts whose attribute the raise gives a value.
  struct JoinedPart {
    Template text;
    std::string unless_none;  // "self.context"
    bool truthy = false;      // `if self.x:`: an empty text leaves it out too
    bool more = false;        // `and` other conditions errdex does not decide
  };
  std::optional<std::pair<Template, std::vector<JoinedPart>>> str_joined;  // separator, parts
};

// A function that returns an exception (its return statements are sites) or
// a message string, for `raise helper(...)` and `X(helper(...))` elsewhere.
struct FunctionInfo {
  std::string name;
  std::string qualified;
  std::string path;
  std::vector<Param> params;           // self/cls of a method left out
  std::vector<size_t> returned_sites;  // indexes into FileResult::sites
  std::vector<Template> returned_messages;
  // Raises whose message or type comes from a parameter: the function is a
  // sink, and a caller passing text makes an error of its own.
  std::vector<size_t> sink_sites;  // indexes into FileResult::sites
};

// A call that may hand a message to a sink. Kept light (no excerpt, no
// guards): most calls reach no sink, and only the linker, which sees every
// file, can tell.
struct SinkCall {
  Site site;              // at the call statement; the excerpt is filled in later
  std::string callee;     // short name: "fail"
  std::string receiver;   // "self", "cls", "ctx"; empty for a plain name
  std::string owner;      // the class of the calling method, if any
  int function = -1;      // the caller's FileResult::functions index, -1 if none
  std::vector<std::vector<CallArg>> arg_alternatives;
};

struct FileResult {
  std::string path;
  std::vector<ProtoSite> sites;
  std::vector<NonSite> non_sites;
  std::vector<ClassInfo> classes;
  std::vector<FunctionInfo> functions;
  std::vector<SinkCall> calls;
  std::vector<FileIssue> issues;
  ModuleFacts facts;  // for the call graph
};

// What extracting one top-level function or class of a module, or one
// method of a top-level class, made: its sites, classes, helpers and calls,
// with what it read of the rest of its file (defined in py_extractor.cc).
struct DefinitionSites;
using DefinitionSitesMemo = DefinitionMemo<DefinitionSites>;

struct PythonOptions {
  int excerpt_before = 20;  // lines of context above a site
  int excerpt_after = 20;   // and below its statement
  size_t max_excerpt_bytes = 16384;
  // Cython: calls of the Python C-API's error functions (PyErr_SetString,
  // PyErr_Format) raise, as they do from C.
  bool cython = false;
  // Where the call graph's facts of functions and methods are kept from one
  // revision to the next; none if null.
  DefinitionFactsMemo* facts_memo = nullptr;
  // Where the extraction of each top-level function and class, and of each
  // method of a top-level class, is kept from one revision to the next: one
  // that did not change, in a module whose top-level statements that mention
  // the names it reads did not either, is not walked again. The result is the same as without, unless the file
  // runs out of a work budget (what is cut then depends on what was spent
  // before). Only for a tree parsed from `source` as it is, without
  // errors; none if null.
  DefinitionSitesMemo* sites_memo = nullptr;
};

// Extracts one parsed file. `source` must outlive the call and be what `tree`
// was parsed from. Never throws on any input; recursion is bounded.
FileResult ExtractPythonFile(std::string_view path, std::string_view source, TSTree* tree,
                             const PythonOptions& options);

// Every field of a file's result, one site, class, function or call per
// line (with its guards and arguments): two extractions compared as text.
std::string FileResultText(const FileResult& result);

const TSLanguage* PythonLanguage();

// What str(exception) prints when no class in between adds anything: nothing,
// the single argument (its repr for KeyError), "[Errno n] text" for OSError
// and its subclasses, the template argument of a compiled class that prints
// one (pydantic_core's PydanticCustomError), or the tuple of the arguments.
Template BuiltinMessage(std::string_view exception, const std::vector<CallArg>& args);

// True for builtin exception and warning class names (ValueError, UserWarning).
bool IsBuiltinException(std::string_view name);

// True for names that read as an exception class: a builtin, or a capitalised
// name ending in Error, Exception, Warning, Exit, Interrupt or Failure.
bool LooksLikeExceptionClass(std::string_view name);

}  // namespace errdex::extract::python
