// Helpers of the languages whose calls name a plain function (C, C++,
// Rust): what a front end records per file — functions that raise with what
// their caller passes, and calls that may pass text to one — and the one
// post-pass that joins them across a library's files on the sink linker
// (sinks.h). Python, whose calls reach methods through classes and modules,
// lowers to the sink linker from its own linker (python/py_linker.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/record.h"
#include "core/template.h"
#include "extract/flow/format.h"
#include "extract/flow/sinks.h"

namespace errdex::extract::flow {

// A function that raises with text (or a type) its caller passes: C's
// `static int type_error(const char *fmt, PyObject *obj) { PyErr_Format(
// PyExc_TypeError, fmt, Py_TYPE(obj)->tp_name); ...}`, Rust's `fn
// invalid(what: &str) -> PyErr { PyValueError::new_err(format!("invalid
// {what}")) }`.
struct HelperSink {
  std::string name;  // as a call names it: the last part of a qualified name
  std::string path;
  bool file_local = false;  // C's `static`, Rust's private items: calls in its own file reach it
  std::vector<std::string> params;  // by position; `...` for a C variadic
  std::string type_param;           // the parameter holding the exception type, if any
  std::string exception;            // else the type it raises
  SiteKind kind = SiteKind::kRaise;
  // The text raised: values named after a parameter are what the caller
  // passes. With `type_param` and no parameter in it, the helper's own
  // object, which the class passed (its __str__) spells.
  Template message;
  std::optional<SinkRaise::Fill> fill;  // the message is a format filled once bound
  bool guarded = false;                 // a condition inside the helper decides too
};

// A call of a plain function with text, a type or a parameter of its
// caller among its arguments: a site when the post-pass finds the callee to
// be a helper.
struct HelperCall {
  std::string callee;  // the last part of the name called
  std::string caller;  // the enclosing function
  bool caller_file_local = false;
  std::vector<std::string> caller_params;
  std::vector<std::string> args;              // argument text
  std::vector<std::vector<Template>> values;  // alternatives of text arguments
  // At the call, message and type unset; line 0 when the call only passes
  // a parameter on (a chain of helpers, never a site of its own).
  Site site;
};

// What one file gives the post-pass.
struct HelperFacts {
  std::string path;  // the file's
  std::vector<HelperSink> sinks;
  std::vector<HelperCall> calls;
  // Every function the file defines, named as calls name them, when the
  // front end lists them: a call of one of these names in this file
  // reaches this file's function, helper or not (Rust; C lists none).
  std::vector<std::string> defined;
  // The file may define functions errdex does not see (a macro that writes
  // `fn`): a call of a name it does not list reaches no other file's.
  bool closed = false;
};

// How a language's helpers link.
struct HelperLanguage {
  Printing printing = Printing::kNative;
  // The class a written type argument names, when it is one.
  SinkLinker::TypeNamed type_named;
  int max_depth = 3;  // helpers calling helpers with their own parameter
  // Two functions visible to all under one name: a call reaches neither
  // (else the first one).
  bool ambiguous_reaches_none = false;
};

// One library's files: helpers (and helpers calling helpers with their own
// parameter, to `max_depth`) found in any file; each call passing text
// becomes a site of its own, appended to `sites[i]` of its file. A call
// reaches the function its file defines under that name, else its file's
// own file-local helper of that name, else one visible to all. Clears the
// facts it read.
void LinkHelpers(const std::vector<HelperFacts*>& facts,
                 const std::vector<std::vector<Site>*>& sites, const HelperLanguage& language);

// The same over a front end's per-file results, each with its `helpers`
// and `sites`.
template <typename FileResult>
void LinkHelpers(std::vector<FileResult>& files, const HelperLanguage& language) {
  std::vector<HelperFacts*> facts;
  std::vector<std::vector<Site>*> sites;
  for (FileResult& f : files) {
    facts.push_back(&f.helpers);
    sites.push_back(&f.sites);
  }
  LinkHelpers(facts, sites, language);
}

}  // namespace errdex::extract::flow
