// Sinks: functions that raise with what their caller passes (a message, a
// format, an exception type), and the errors each call of one makes. One
// linker for every front end: a front end lowers its functions to parameter
// lists, the raises that use a parameter to `SinkRaise`s and its calls to
// `SinkCall`s, says which function a call reaches (`CalleeOf`) and which
// written type names an exception (`TypeNamed`); the rounds that find
// helpers calling helpers, the binding of arguments (keywords, defaults,
// variadics, the branches a message was built in, the constants a
// dispatching helper compares a parameter with) and the rule for which
// calls are errors of their own live here.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record.h"
#include "core/template.h"
#include "extract/flow/bind.h"
#include "extract/flow/format.h"

namespace errdex::extract::flow {

// A helper forwarding three named values to a checker that dispatches on a
// constraint constant (numpy's disc -> check_constraint) carries 3 x 12
// conditional raises before its callers' constants pick theirs.
inline constexpr size_t kMaxSinkRaises = 48;

// One way a sink raises, before its parameters are bound to a caller's
// arguments; values of `message` named after a parameter are what the
// caller fills.
struct SinkRaise {
  std::string exception;
  std::string exception_written;
  std::string type_param;  // the parameter that passes the type, if any
  // What a dict maps a passed class to (ProtoSite::type_map).
  std::vector<std::pair<std::string, std::string>> type_map;
  Template message;
  SiteKind kind = SiteKind::kRaise;
  bool guarded = false;  // a condition inside the sink (or a call on the way) decides
  // Parameters the raise is reached only with, each with the constants it
  // must equal (`if cons == CONS_POSITIVE:`): a helper that dispatches on
  // a mode its callers pass as a constant raises, for each caller, only
  // the branch of that constant.
  std::vector<std::pair<std::string, std::vector<std::string>>> requires_equal;
  // And the constants a parameter must not equal: a raise after `if mode ==
  // "clip": return ...`, or in the `else` of `if s is None or s == "fill"`,
  // is never reached by a caller passing "clip" or "fill".
  std::vector<std::pair<std::string, std::vector<std::string>>> excludes;
  // The message is a format the caller passes, filled once it is known:
  // C's `type_error(const char *fmt, PyObject *obj)` formats with its own
  // arguments; a `...` helper with what its caller passes after the format.
  struct Fill {
    Format format = Format::kPyPrintf;
    std::vector<Arg> args;  // the helper's own, when not variadic
    bool variadic = false;
  };
  std::optional<Fill> fill;
  // Set by Bind: the call's argument named the class (not a default).
  bool type_from_caller = false;
};

// A call that may hand text to a sink.
struct SinkCall {
  int caller = -1;  // the function it is in (an id of the linker), -1 at module level
  // Its arguments, each way the caller can build them.
  const std::vector<std::vector<CallArg>>* ways = nullptr;
  bool guarded = false;  // the call sits under a condition
};

class SinkLinker {
 public:
  // The function (an id) call `i` of those given to Propagate reaches, or -1.
  // Asked again each round: a callee may become a sink only in a later one.
  using CalleeOf = std::function<int(size_t call)>;
  // The exception class a type argument written `written` names, when the
  // front end can tell it is one, for sink `sink`.
  using TypeNamed = std::function<std::optional<std::string>(std::string_view written, int sink)>;

  SinkLinker(Printing printing, TypeNamed type_named);

  // `params` must outlive the linker.
  int AddFunction(const std::vector<Param>* params);
  // False when the raise adds nothing (the same text, type and branches).
  bool AddRaise(int function, SinkRaise raise);
  bool IsSink(int function) const;
  const std::vector<SinkRaise>& Raises(int function) const;

  // Round by round, to `max_depth` calls deep: a caller passing its own
  // parameter on to a sink is one too.
  void Propagate(const std::vector<SinkCall>& calls, const CalleeOf& callee, int max_depth);

  // The errors `call` makes by passing text to `sink` (or by naming the type
  // it raises): each bound raise in which the caller wrote some of the text
  // or named the class, distinct by type and text.
  std::vector<SinkRaise> Made(const SinkCall& call, int sink) const;

  // `r` with the sink's parameters bound to `args` of a call in `caller`
  // (-1: none); nothing when the arguments rule out the branch it is
  // raised in.
  std::optional<SinkRaise> Bind(int sink, const SinkRaise& r, const std::vector<CallArg>& args,
                                int caller = -1) const;

 private:
  struct Function {
    const std::vector<Param>* params;
    std::vector<SinkRaise> raises;
  };
  bool HasParam(int function, std::string_view name) const;
  bool MentionsParam(int function, const Template& t) const;
  bool IsVariadic(int function) const;

  Printing printing_;
  TypeNamed type_named_;
  std::vector<Function> functions_;
};

// A constant as a mode argument is written: an upper-case name (maybe
// qualified), a number or a string literal.
bool IsConstantExpression(std::string_view e);

// Whether binding `b` contradicts one of the assumptions: the branch they
// belong to is never taken with these arguments (None, True, a number or a
// string literal passed where the branch needs otherwise).
bool Contradicts(const std::vector<Assumption>& assumed, const Bindings& b);

// The trigger of a site made at a call of `sink` whose raise a condition
// inside the sink decides too: the call alone does not decide, and the
// sentence says so rather than claim it does.
std::string GuardedSinkTrigger(const Site& call, std::string_view sink);

// Letters and digits in a template's literal text.
size_t WordCharacters(const Template& t);

}  // namespace errdex::extract::flow
