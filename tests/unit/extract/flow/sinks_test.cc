// The shared sink linker on its own records, as a front end lowers them:
// binding, the constants a raise needs or rules out, formats filled once
// bound, classes a caller names, and helpers calling helpers.
#include "extract/flow/sinks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace errdex::extract::flow {
namespace {

std::vector<Param> Params(std::initializer_list<const char*> names) {
  std::vector<Param> out;
  for (const char* n : names) {
    std::string name(n);
    out.push_back(Param{name, std::nullopt, name == "..." || name[0] == '*'});
  }
  return out;
}

CallArg Literal(const std::string& written, const std::string& text) {
  CallArg a;
  a.arg = Arg{written, Template::Literal(text)};
  return a;
}

CallArg Name(const std::string& written) {
  CallArg a;
  a.arg = Arg{written, std::nullopt};
  return a;
}

std::optional<std::string> NoClass(std::string_view, int) { return std::nullopt; }

std::optional<std::string> ClassesEndInError(std::string_view written, int) {
  if (written.size() > 5 && written.substr(written.size() - 5) == "Error") {
    return std::string(written);
  }
  return std::nullopt;
}

TEST(SinkLinker, TheConstantsARaiseNeedsOrRulesOutDecideWhichCallsReachIt) {
  std::vector<Param> params = Params({"mode"});
  SinkLinker sinks(Printing::kPython, NoClass);
  int sink = sinks.AddFunction(&params);
  SinkRaise needs;
  needs.exception = "ValueError";
  needs.message = Template::Literal("bad ");
  needs.message.Append(Template::Value("mode", ValueKind::kRepr));
  needs.requires_equal = {{"mode", {"'a'", "'b'"}}};
  SinkRaise excludes = needs;
  excludes.requires_equal.clear();
  excludes.excludes = {{"mode", {"'a'"}}};

  auto bind = [&](const SinkRaise& r, CallArg a) { return sinks.Bind(sink, r, {std::move(a)}); };
  // Quotes do not matter; another constant does.
  EXPECT_TRUE(bind(needs, Literal("'a'", "a")));
  EXPECT_TRUE(bind(needs, Literal("\"b\"", "b")));
  EXPECT_FALSE(bind(needs, Literal("'c'", "c")));
  EXPECT_FALSE(bind(excludes, Literal("\"a\"", "a")));
  EXPECT_TRUE(bind(excludes, Literal("'c'", "c")));
  // Numbers whole; a conditional is not one literal.
  SinkRaise number = needs;
  number.requires_equal = {{"mode", {"1.0"}}};
  EXPECT_FALSE(bind(number, Name("2.0")));
  EXPECT_TRUE(bind(number, Name("1.0")));
  EXPECT_TRUE(bind(needs, Name("'c' if flag else 'a'")));
  // A name may hold one of the literals: neither ruled in nor out.
  EXPECT_TRUE(bind(needs, Name("MODE_A")));
  EXPECT_TRUE(bind(excludes, Name("MODE_A")));
  // The caller's own parameter carries the condition up to its callers.
  std::optional<SinkRaise> carried = bind(excludes, Name("kind"));
  ASSERT_TRUE(carried);
  ASSERT_EQ(carried->excludes.size(), 1u);
  EXPECT_EQ(carried->excludes[0].first, "kind");
}

TEST(SinkLinker, AFormatTheCallerPassesIsFilledOnceBound) {
  // C: `static int type_error(const char *fmt, PyObject *obj)` formats with
  // its own arguments; `fail(const char *fmt, va_list v)` with what a
  // variadic caller, `value_error(const char *fmt, ...)`, was passed.
  std::vector<Param> own = Params({"fmt", "obj"});
  std::vector<Param> with_list = Params({"fmt", "v"});
  std::vector<Param> variadic = Params({"f", "..."});
  SinkLinker sinks(Printing::kNative, NoClass);
  int type_error = sinks.AddFunction(&own);
  int fail = sinks.AddFunction(&with_list);
  int value_error = sinks.AddFunction(&variadic);
  SinkRaise r;
  r.exception = "TypeError";
  r.message = Template::Value("fmt", ValueKind::kAny);
  r.fill = SinkRaise::Fill{Format::kPyPrintf, {Arg{"Py_TYPE(obj)->tp_name", std::nullopt}}, false};
  sinks.AddRaise(type_error, r);
  r.exception = "ValueError";
  r.fill = SinkRaise::Fill{Format::kPyPrintf, {}, true};
  sinks.AddRaise(fail, r);

  std::vector<std::vector<CallArg>> own_call = {{Literal("\"expected %s\"", "expected %s")}};
  SinkCall c{-1, &own_call, false};
  std::vector<SinkRaise> made = sinks.Made(c, type_error);
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].message.Display(), "expected {Py_TYPE(obj)->tp_name}");

  // value_error(f, ...) calls fail(f, v): it becomes a sink whose callers
  // fill the format with what they pass after it.
  std::vector<std::vector<CallArg>> chain = {{Name("f"), Name("v")}};
  std::vector<std::vector<CallArg>> top = {
      {Literal("\"bad %d of %s\"", "bad %d of %s"), Name("n"), Literal("\"axes\"", "axes")}};
  std::vector<SinkCall> calls = {{value_error, &chain, false}, {-1, &top, false}};
  sinks.Propagate(
      calls, [&](size_t i) { return i == 0 ? fail : value_error; }, 3);
  ASSERT_TRUE(sinks.IsSink(value_error));
  made = sinks.Made(calls[1], value_error);
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].exception, "ValueError");
  EXPECT_EQ(made[0].message.Display(), "bad {n} of axes");

  // Python: `def check2(fmt, *extra): _fail(fmt, "fixed")` fills with what
  // it passes, not with its own variadic arguments.
  std::vector<Param> py_fail = Params({"fmt", "*args"});
  std::vector<Param> check2 = Params({"fmt", "*extra"});
  SinkLinker py(Printing::kPython, NoClass);
  int py_fail_id = py.AddFunction(&py_fail);
  int check2_id = py.AddFunction(&check2);
  r.fill = SinkRaise::Fill{Format::kPercent, {}, true};
  py.AddRaise(py_fail_id, r);
  std::vector<std::vector<CallArg>> fixed = {{Name("fmt"), Literal("\"fixed\"", "fixed")}};
  std::vector<std::vector<CallArg>> outer = {
      {Literal("'other thing %s'", "other thing %s"), Name("x")}};
  std::vector<SinkCall> py_calls = {{check2_id, &fixed, false}, {-1, &outer, false}};
  py.Propagate(
      py_calls, [&](size_t i) { return i == 0 ? py_fail_id : check2_id; }, 3);
  made = py.Made(py_calls[1], check2_id);
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].message.Display(), "other thing fixed");
}

TEST(SinkLinker, ARaiseWithAFormatPendingIsNotTheSameRaiseWithout) {
  // `if args: raise ValueError(msg % args)` then `raise ValueError(msg)`.
  std::vector<Param> params = Params({"msg", "*args"});
  SinkLinker sinks(Printing::kPython, NoClass);
  int fail = sinks.AddFunction(&params);
  SinkRaise plain;
  plain.exception = "ValueError";
  plain.message = Template::Value("msg", ValueKind::kAny);
  SinkRaise formatted = plain;
  formatted.fill = SinkRaise::Fill{Format::kPercent, {}, true};
  EXPECT_TRUE(sinks.AddRaise(fail, formatted));
  EXPECT_TRUE(sinks.AddRaise(fail, plain));
  std::vector<std::vector<CallArg>> call = {{Literal("'fully 100% sure'", "fully 100% sure")}};
  std::vector<std::string> made;
  for (const SinkRaise& r : sinks.Made(SinkCall{-1, &call, false}, fail)) {
    made.push_back(r.message.Display());
  }
  EXPECT_NE(std::find(made.begin(), made.end(), "fully 100% sure"), made.end())
      << ::testing::PrintToString(made);
}

TEST(SinkLinker, AClassTheCallerNamesIsRaisedButNotItsOwnParameter) {
  std::vector<Param> sink_params = Params({"exc"});
  std::vector<Param> caller_params = Params({"exc"});
  SinkLinker sinks(Printing::kPython, ClassesEndInError);
  int sink = sinks.AddFunction(&sink_params);
  int caller = sinks.AddFunction(&caller_params);
  SinkRaise r;
  r.type_param = "exc";
  r.message = Template::Literal("no such thing");
  sinks.AddRaise(sink, r);
  std::vector<std::vector<CallArg>> named = {{Name("KeyError")}};
  std::vector<SinkRaise> made = sinks.Made(SinkCall{-1, &named, false}, sink);
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].exception, "KeyError");
  EXPECT_TRUE(made[0].type_from_caller);
  // `ExcError` is the caller's parameter here, not the class of that name.
  std::vector<Param> shadowing = Params({"ExcError"});
  int other = sinks.AddFunction(&shadowing);
  std::vector<std::vector<CallArg>> own = {{Name("ExcError")}};
  EXPECT_TRUE(sinks.Made(SinkCall{other, &own, false}, sink).empty());
  // Passed on from the caller's own parameter: the caller is a sink of the
  // type in turn.
  std::vector<std::vector<CallArg>> forwarded = {{Name("exc")}};
  std::vector<SinkCall> calls = {{caller, &forwarded, false}};
  sinks.Propagate(
      calls, [&](size_t) { return sink; }, 3);
  ASSERT_TRUE(sinks.IsSink(caller));
  EXPECT_EQ(sinks.Raises(caller)[0].type_param, "exc");
}

}  // namespace
}  // namespace errdex::extract::flow
