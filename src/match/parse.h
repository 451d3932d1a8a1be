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
  // Printed under "Exception ignored in: ...": the interpreter reported it
  // (in a destructor, at shutdown) and went on, so it is not what the
  // program died with.
  bool ignored = false;
  // The text says a library removed frames from the traceback (jax's
  // "removed its internal frames"): the last frame printed need not be
  // where the error was raised.
  bool frames_hidden = false;
};

// Every error in `text`, in the order they appear, except that errors the
// interpreter ignored come before the rest: the last one is what the program
// died with. Never fails: text with no
// recognisable structure is one error whose message is the text. Linear in
// the size of `text`.
std::vector<ParsedError> ParseRuntimeText(std::string_view text);

// A frame of a compiled Cython module as errdex's catalog names it. Cython
// prints the source file's name as given to the compiler, often only its
// basename (`File "mtrand.pyx", line 958, in
// numpy.random.mtrand.RandomState.choice`), and the function with its
// module: the module's package becomes the path's directories
// (`numpy/random/mtrand.pyx`) and the function loses the module
// (`RandomState.choice`). Any other frame is returned as it is.
Frame ResolveCythonFrame(const Frame& frame);

// The short form of a printed exception type: "json.decoder.JSONDecodeError"
// -> "JSONDecodeError", "std::runtime_error" -> "runtime_error".
std::string ShortExceptionName(std::string_view printed);

}  // namespace errdex::match
