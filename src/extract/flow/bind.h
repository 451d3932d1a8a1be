// The call-binding half of the language-neutral evaluator: a call's
// arguments bound to a function's parameters, and a template written in
// terms of those parameters read at the call. Python's keyword and default
// rules are a superset of what C and C++ need (positions, and `...`), so
// one binding serves every front end.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/template.h"
#include "extract/flow/format.h"

namespace errdex::extract::flow {

struct CallArg;

// A call to a function the front end may only find in another file.
struct PendingCall {
  std::string callee;  // short name: "xp_unsupported_param_msg"
  std::vector<CallArg> args;
};

// One argument of a call, evaluated where the call is.
struct CallArg {
  std::string keyword;  // empty for a positional argument
  bool splat = false;   // *args or **kwargs: the rest cannot be bound
  Arg arg;
  std::optional<PendingCall> call;  // the argument is itself a helper call
};

struct Param {
  std::string name;
  std::optional<Arg> default_value;
  bool variadic = false;  // Python's *args / **kwargs, C's `...`
};

using Bindings = std::map<std::string, Arg, std::less<>>;

// Binds call arguments to parameters as Python does (C's positions are the
// case without keywords); unbound parameters with a default take it.
// Positional arguments past a variadic parameter go to `rest` when given.
void BindArguments(const std::vector<Param>& params, const std::vector<CallArg>& args,
                   Bindings& bindings, std::vector<Arg>* rest = nullptr);

// `t` with each value whose expression is a bound name replaced by the
// argument, printed as `printing` prints it (a whole message passed through
// is inlined as it is).
Template Substitute(const Template& t, const Bindings& bindings,
                    Printing printing = Printing::kPython);

// What a text-reflowing call (textwrap.fill, dedent) shows: every run of
// whitespace in the literal text one space, none at the ends.
Template Reflowed(const Template& t);

}  // namespace errdex::extract::flow
