#include "extract/rust/rust_sinks.h"

#include <cctype>

namespace errdex::extract::rust {
namespace {

using F = SinkForm;
using K = SiteKind;

// Panics are all of kind "panic": what a user sees is `thread '...' panicked
// at`, whichever macro wrote it.
constexpr Sink kSinks[] = {
    {"panic", F::kMacro, K::kFatal, "panic", 0},
    {"unreachable", F::kMacro, K::kFatal, "panic", 0},
    {"todo", F::kMacro, K::kFatal, "panic", 0},
    {"unimplemented", F::kMacro, K::kFatal, "panic", 0},
    {"assert", F::kMacro, K::kAssert, "panic", 1},
    {"debug_assert", F::kMacro, K::kAssert, "panic", 1},
    {"assert_eq", F::kMacro, K::kAssert, "panic", 2},
    {"assert_ne", F::kMacro, K::kAssert, "panic", 2},
    {"debug_assert_eq", F::kMacro, K::kAssert, "panic", 2},
    {"debug_assert_ne", F::kMacro, K::kAssert, "panic", 2},
    // anyhow and eyre: an error value built from a format.
    {"bail", F::kMacro, K::kRaise, "anyhow::Error", 0},
    {"anyhow", F::kMacro, K::kRaise, "anyhow::Error", 0},
    {"format_err", F::kMacro, K::kRaise, "anyhow::Error", 0},
    {"ensure", F::kMacro, K::kRaise, "anyhow::Error", 1},
    {"eyre", F::kMacro, K::kRaise, "eyre::Report", 0},
    // pydantic-core's and similar crates' PyO3 helpers: `py_err!(Type; fmt, ...)`.
    {"py_err", F::kTypedMacro, K::kRaise, "", 0},
    {"py_error_type", F::kTypedMacro, K::kRaise, "", 0},
    {"expect", F::kMethod, K::kFatal, "panic", 0},
    {"expect_err", F::kMethod, K::kFatal, "panic", 0},
    {"context", F::kMethod, K::kRaise, "anyhow::Error", 0},
    {"with_context", F::kMethod, K::kRaise, "anyhow::Error", 0},  // a closure giving the text
    {"wrap_err_with", F::kMethod, K::kRaise, "eyre::Report", 0},
    {"wrap_err", F::kMethod, K::kRaise, "eyre::Report", 0},
    {"new_err", F::kNewErr, K::kRaise, "", 0},
    {"new", F::kPyErrNew, K::kRaise, "", 0},
    // Raised where Python's warning filters say "error"; a category errdex
    // cannot name is `Warning`.
    {"warn", F::kPyErrWarn, K::kWarning, "Warning", 2},
    {"PyErr_SetObject", F::kFfiSetError, K::kRaise, "", 1},
    {"PyErr_SetString", F::kFfiSetError, K::kRaise, "", 1},
};

}  // namespace

std::span<const Sink> Sinks() { return kSinks; }

const Sink* FindSink(SinkForm form, std::string_view name) {
  for (const Sink& s : kSinks) {
    if (s.form == form && s.name == name) return &s;
  }
  return nullptr;
}

std::string PythonExceptionName(std::string_view written) {
  size_t cut = written.rfind("::");
  std::string_view name = cut == std::string_view::npos ? written : written.substr(cut + 2);
  // CPython's own names, as PyO3's ffi spells them: PyExc_TypeError.
  if (name.substr(0, 6) == "PyExc_" && name.size() > 6) return std::string(name.substr(6));
  // PyO3 names Python's builtin exceptions PyValueError, PyOSError ...
  // ... but PyErr, PyAny and PyResult are PyO3's own types, no exceptions.
  if (name.size() > 2 && name.substr(0, 2) == "Py" &&
      std::isupper(static_cast<unsigned char>(name[2])) && name != "PyErr" && name != "PyAny" &&
      name != "PyResult") {
    name.remove_prefix(2);
  }
  return std::string(name);
}

}  // namespace errdex::extract::rust
