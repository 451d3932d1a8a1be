// Errors as values for the library layers: every fallible call returns
// Result<T>; only the CLI turns an Error into a message and an exit code.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace errdex {

enum class ErrorCode {
  kInvalidArgument,  // the caller passed something unusable
  kNotFound,         // a named thing (error id, library, file) does not exist
  kIo,               // the file system or a subprocess failed
  kCorrupt,          // stored data is unreadable or of another format/version
  kInternal,         // a broken invariant of errdex itself
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

template <typename T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

// Propagates a failed Result<void> from an expression (returns it
// from the calling function).
#define ERRDEX_TRY(expr)                                                      \
  do {                                                                        \
    auto errdex_try_result = (expr);                                          \
    if (!errdex_try_result) return tl::unexpected(errdex_try_result.error()); \
  } while (false)

}  // namespace errdex
