// What raises an error in Rust, as data: the macros, methods and
// constructors whose message argument is an error's text, and how a PyO3
// exception type reads in Python. The Rust front end holds no other rule
// knowledge; a reviewer scans this table and a test iterates it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/record.h"

namespace errdex::extract::rust {

enum class SinkForm {
  kMacro,       // `panic!(fmt, args...)`: the format is argument `message_arg`
  kTypedMacro,  // `py_err!(PyTypeError; fmt, args...)`: the type before `;`
  kMethod,      // `x.expect("msg")`: the text is argument `message_arg` of the call
  kNewErr,      // `PyValueError::new_err(msg)`: the type is the path before `::new_err`
  kPyErrNew,    // `PyErr::new::<PyValueError, _>(msg)`: the type is the first type argument
  // `PyErr::warn(py, &category, &CString::new(msg)?, 0)`: the category is a
  // type object argument 1 names (`PyUserWarning::type_object(py)`).
  kPyErrWarn,
  // `ffi::PyErr_SetObject(PyExc_TypeError, msg)`, CPython's own call: the
  // type is argument 0, a `PyExc_*` or a static set to one.
  kFfiSetError,
};

struct Sink {
  std::string_view name;  // macro or method name, without `!`
  SinkForm form;
  SiteKind kind;
  // The exception a site reports; empty: from the type the call names.
  std::string_view exception;
  int message_arg;  // which argument (comma-separated, from 0) holds the message
};

// Every sink, in lookup order.
std::span<const Sink> Sinks();

// The sink `name` of `form`, or null.
const Sink* FindSink(SinkForm form, std::string_view name);

// The Python name of a PyO3 exception type written `written`
// (`exceptions::PyValueError` -> `ValueError`, `MyError` -> `MyError`).
std::string PythonExceptionName(std::string_view written);

}  // namespace errdex::extract::rust
