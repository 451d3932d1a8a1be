// Runtime text to errors: what a developer pastes (a bare message, a Python
// traceback, pytest or IPython output, a C++ terminate message, a glog CHECK
// line, a warning) becomes one ParsedError per error it shows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace errdex::match {

struct Frame {
  std::string path;  // as printed
  int line = 0;
  std::string function;
};

struct ParsedError {
  std::string exception;      // as printed ("json.decoder.JSONDecodeError"), or empty
  std::string message;        // the message, status prefix and trailing notes removed
  std::string status;         // an absl status code the message started with ("INVALID_ARGUMENT")
  std::vector<Frame> frames;  // outermost first, the raising frame last
  // A name the text gives the error by, beside its message: the type of an
  // entry of pydantic's report (`[type=int_parsing, ...]`); empty if none.
  std::string key;
  std::string
      source;  // "traceback", "pytest", "ipython", "terminate", "glog", "warning", "panic", "message"
};

// Every error in `text`, in the order they appear; for a chained traceback
// the last one is what the program died with. Never fails: text with no
// recognisable structure is one error whose message is the text. Linear in
// the size of `text`.
std::vector<ParsedError> ParseRuntimeText(std::string_view text);

// The short form of a printed exception type: "json.decoder.JSONDecodeError"
// -> "JSONDecodeError", "std::runtime_error" -> "runtime_error".
std::string ShortExceptionName(std::string_view printed);

}  // namespace errdex::match
