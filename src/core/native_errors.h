// How errors born in C and C++ reach a Python user: the Python type a C++
// exception is translated to, and the codes an absl::Status prints.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace errdex {

// The status codes as absl prints them before a message ("INVALID_ARGUMENT: ").
inline constexpr std::array<std::string_view, 16> kStatusCodes = {
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

bool IsStatusCode(std::string_view name);

// "InvalidArgument" (absl::InvalidArgumentError, xla::InvalidArgument) or
// "kInvalidArgument" (absl::StatusCode::kInvalidArgument) -> "INVALID_ARGUMENT";
// empty when the name is no status code.
std::string StatusCodeFromName(std::string_view name);

// The Python exception a C++ exception type becomes when it crosses a
// nanobind/pybind11 boundary: `nb::value_error`, `std::invalid_argument` ->
// "ValueError", `std::out_of_range` -> "IndexError", other std exceptions ->
// "RuntimeError". Empty for types with no fixed translation (project types).
std::string_view PythonTypeOfCpp(std::string_view written);

}  // namespace errdex
