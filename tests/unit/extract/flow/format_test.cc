// The evaluator's formatting operations, one per dialect, on hand-written
// cases; format_property_test.cc checks them against CPython and libc.
#include "extract/flow/format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace errdex::extract::flow {
namespace {

Template Percent(const Template& format, const FormatArgs& args) {
  return ApplyFormat(Format::kPercent, format, args);
}

Template StrFormat(const Template& format, const FormatArgs& args) {
  return ApplyFormat(Format::kStrFormat, format, args);
}

Template Printf(const Template& format, std::vector<Arg> args, Format dialect) {
  return ApplyFormat(dialect, format, FormatArgs::Positional(std::move(args)));
}

TEST(FlowFormatSpec, Kinds) {
  EXPECT_EQ(KindFromFormatSpec(""), ValueKind::kStr);
  EXPECT_EQ(KindFromFormatSpec("d"), ValueKind::kInt);
  EXPECT_EQ(KindFromFormatSpec(">10d"), ValueKind::kInt);
  EXPECT_EQ(KindFromFormatSpec(".3f"), ValueKind::kFloat);
  EXPECT_EQ(KindFromFormatSpec(".2%"), ValueKind::kFloat);
  EXPECT_EQ(KindFromFormatSpec("#x"), ValueKind::kHex);
  EXPECT_EQ(KindFromFormatSpec(">{width}"), ValueKind::kStr);
  EXPECT_EQ(KindFromFormatSpec(".3"), ValueKind::kStr);
}

Arg Expr(std::string e) { return Arg{std::move(e), std::nullopt}; }

TEST(FlowPercent, SingleValue) {
  FormatArgs args;
  args.positional.push_back(Expr("mode"));
  args.expression = "mode";
  Template t = Percent(Template::Literal("bad mode: %s"), args);
  EXPECT_EQ(t.Display(), "bad mode: {mode}");
}

TEST(FlowPercent, TupleKindsAndEscapes) {
  FormatArgs args;
  args.is_tuple = true;
  for (const char* e : {"a", "b", "n", "r", "h"}) args.positional.push_back(Expr(e));
  Template t = Percent(Template::Literal("%s %r 100%% %5d %.2f %x"), args);
  EXPECT_EQ(t.Display(), "{a} {b} 100% {n} {r} {h}");
  std::vector<ValueKind> kinds;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) kinds.push_back(p.kind);
  }
  EXPECT_EQ(kinds, (std::vector<ValueKind>{ValueKind::kStr, ValueKind::kRepr, ValueKind::kInt,
                                           ValueKind::kFloat, ValueKind::kHex}));
}

TEST(FlowPercent, TruncatedString) {
  FormatArgs args;
  args.positional.push_back(Expr("name"));
  Template t = Percent(Template::Literal("'%.200s' object"), args);
  ASSERT_EQ(t.pieces().size(), 3u);
  EXPECT_EQ(t.pieces()[1].max_length, 200);
}

TEST(FlowPercent, DictAndMissingKeys) {
  FormatArgs args;
  args.named["name"] = Arg{"n", Template::Literal("literal")};
  Template t = Percent(Template::Literal("%(name)s and %(other)d"), args);
  EXPECT_EQ(t.Display(), "literal and {other}");
}

TEST(FlowPercent, SingleOperandForSeveralConversions) {
  FormatArgs args;
  args.positional.push_back(Expr("pair"));
  args.expression = "pair";
  Template t = Percent(Template::Literal("%s-%s"), args);
  EXPECT_EQ(t.Display(), "{pair[0]}-{pair[1]}");
}

TEST(FlowPercent, UnknownConversionStaysText) {
  FormatArgs args;
  Template t = Percent(Template::Literal("50%z done"), args);
  EXPECT_EQ(t.Display(), "50%z done");
}

TEST(FlowStrFormat, PositionalIndexedKeywordAndChains) {
  FormatArgs kw;
  kw.positional = {Expr("name"), Expr("np.dtype(x).name")};
  kw.named["fname"] = Arg{"fname", Template::Literal("f")};
  kw.named["n"] = Expr("values");
  EXPECT_EQ(StrFormat(Template::Literal("{} does not accept dtype {}."), kw).Display(),
            "{name} does not accept dtype {np.dtype(x).name}.");
  EXPECT_EQ(StrFormat(Template::Literal("{1} {0} {0!r}"), kw).Display(),
            "{np.dtype(x).name} {name} {name!r}");
  EXPECT_EQ(StrFormat(Template::Literal("{fname}: {n.shape} {n[0]:>5}"), kw).Display(),
            "f: {values.shape} {values[0]:>5}");
  EXPECT_EQ(StrFormat(Template::Literal("{{literal}} {missing} {7}"), kw).Display(),
            "{{literal}} {missing} {args[7]}");
  EXPECT_EQ(StrFormat(Template::Literal("unmatched { brace"), kw).Display(), "unmatched {{ brace");
}

TEST(FlowStrFormat, ValuesAlreadyFormattedPassThrough) {
  // msg = f"..."; msg.format(...) is a no-op on the literal parts.
  Template t = Template::Literal("got ");
  t.AppendValue("x", ValueKind::kStr);
  FormatArgs kw;
  kw.positional = {Expr("a")};
  EXPECT_EQ(StrFormat(t, kw).Display(), "got {x}");
}

TEST(FlowPythonRepr, ReprOfPartlyKnownString) {
  Template value = Template::Literal("it's ");
  value.AppendValue("x", ValueKind::kStr);
  Template out;
  AppendReprOf(value, out);
  EXPECT_EQ(out.Display(), "\"it's {x}\"");
}

std::vector<Arg> Args(std::vector<std::string> expressions) {
  std::vector<Arg> out;
  for (std::string& e : expressions) out.push_back(Arg{std::move(e), std::nullopt});
  return out;
}

std::string PrintfText(const std::string& format, std::vector<std::string> args,
                       Format dialect = Format::kPrintf) {
  return Printf(Template::Literal(format), Args(std::move(args)), dialect).Display();
}

TEST(FlowNativeFormat, PrintfConversionsBecomeTypedPlaceholders) {
  Template t = Printf(Template::Literal("index %lld of %zu: %s at %p, %5.2f%% %c %x"),
                      Args({"i", "n", "name", "ptr", "ratio", "c", "mask"}), Format::kPrintf);
  EXPECT_EQ(t.Display(), "index {i} of {n}: {name} at {ptr}, {ratio}% {c} {mask}");
  std::vector<ValueKind> kinds;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) kinds.push_back(p.kind);
  }
  EXPECT_EQ(kinds, (std::vector<ValueKind>{ValueKind::kInt, ValueKind::kInt, ValueKind::kStr,
                                           ValueKind::kPointer, ValueKind::kFloat, ValueKind::kChar,
                                           ValueKind::kHex}));
}

TEST(FlowNativeFormat, PythonDialectKnowsReprAndTruncation) {
  Template t = Printf(Template::Literal("'%.200s' object has no attribute %R (%S, %U)"),
                      Args({"tp_name", "name", "obj", "u"}), Format::kPyPrintf);
  EXPECT_EQ(t.Display(), "'{tp_name}' object has no attribute {name} ({obj}, {u})");
  EXPECT_EQ(t.pieces()[1].max_length, 200);
  EXPECT_EQ(t.pieces()[3].kind, ValueKind::kRepr);
  // %R is not a conversion for C's printf: it stays text.
  EXPECT_EQ(PrintfText("%R", {"x"}), "%R");
}

TEST(FlowNativeFormat, PrintfEdgeCases) {
  EXPECT_EQ(PrintfText("100%%", {}), "100%");
  EXPECT_EQ(PrintfText("%2$s then %1$s", {"a", "b"}), "{b} then {a}");
  EXPECT_EQ(PrintfText("width %*d", {"w", "n"}), "width {n}");
  EXPECT_EQ(PrintfText("trailing %", {}), "trailing %");
  EXPECT_EQ(PrintfText("more %d than %d", {"one"}), "more {one} than {...}");
  // Not a conversion printf accepts: printed as written.
  EXPECT_EQ(PrintfText("%99999999999999999999$s", {"x"}), "%99999999999999999999$s");
}

TEST(FlowNativeFormat, ResolvedArgumentsAreInlined) {
  std::vector<Arg> args = {Arg{"\"gesvd\"", Template::Literal("gesvd")},
                           Arg{"3", Template::Literal("3")}};
  EXPECT_EQ(Printf(Template::Literal("in %s, %d times"), args, Format::kPrintf).Display(),
            "in gesvd, 3 times");
}

TEST(FlowNativeFormat, SubstituteAndBraces) {
  EXPECT_EQ(ApplyFormat(Format::kSubstitute, Template::Literal("$1 at $0 costs $$5 ($2)"),
                        FormatArgs::Positional(Args({"i", "a"})))
                .Display(),
            "{a} at {i} costs $5 ({...})");
  EXPECT_EQ(ApplyFormat(Format::kBraces, Template::Literal("{} of {:d} {{literal}} {1}"),
                        FormatArgs::Positional(Args({"a", "b"})))
                .Display(),
            "{a} of {b} {{literal}} {b}");
}

// format_fuzz's first find (its input is in fuzz/regressions/format): the
// spec of a conversion longer than the small string buffer was read after
// it was freed. This test runs that path; an ASan build reports the read.
TEST(FlowNativeFormat, ALongConversionKeepsItsSpec) {
  Template t = Printf(Template::Literal("n=%tttttttttttttttttd"), Args({"n"}), Format::kPyPrintf);
  ASSERT_EQ(t.pieces().size(), 2u);
  EXPECT_EQ(t.pieces()[1].spec, "%tttttttttttttttttd");
  EXPECT_EQ(t.pieces()[1].kind, ValueKind::kInt);
}

// Review finds: %V takes two arguments; a one-character width or a base
// changes what fmt prints; %d of a bool prints its int.
TEST(FlowFormat, ArgumentsConsumedAndPrintedAsTheRuntimeDoes) {
  EXPECT_EQ(PrintfText("%V then %s", {"obj", "fallback", "name"}, Format::kPyPrintf),
            "{obj} then {name}");
  std::vector<Arg> known = {Arg{"\"ab\"", Template::Literal("ab")},
                            Arg{"5", Template::Literal("5")}};
  EXPECT_EQ(ApplyFormat(Format::kBraces, Template::Literal("[{:5}] [{:b}] [{}] [{:d}]"),
                        FormatArgs::Positional({known[0], known[1], known[0], known[1]}))
                .Display(),
            "[{\"ab\":5}] [{5:b}] [ab] [5]");
  FormatArgs flags;
  flags.is_tuple = true;
  flags.positional = {Arg{"True", std::nullopt}, Arg{"False", std::nullopt},
                      Arg{"True", std::nullopt}};
  EXPECT_EQ(Percent(Template::Literal("%d %i %s"), flags).Display(), "1 0 True");
}

TEST(FlowNativeFormat, BracesNamedFieldsAreTextUnlessCaptured) {
  FormatArgs fmt = FormatArgs::Positional(Args({"a"}));
  EXPECT_EQ(ApplyFormat(Format::kBraces, Template::Literal("{} {name}"), fmt).Display(),
            "{a} {{name}}");
  FormatArgs rust = fmt;
  rust.capture_names = true;
  EXPECT_EQ(ApplyFormat(Format::kBraces, Template::Literal("{} {name}"), rust).Display(),
            "{a} {name}");
  rust.named["name"] = Arg{"\"x\"", Template::Literal("x")};
  EXPECT_EQ(ApplyFormat(Format::kBraces, Template::Literal("{} {name}"), rust).Display(), "{a} x");
}

TEST(FlowFormat, PrintingFollowsTheDialectsLanguage) {
  EXPECT_EQ(PrintingOf(Format::kPercent), Printing::kPython);
  EXPECT_EQ(PrintingOf(Format::kStrFormat), Printing::kPython);
  for (Format f : {Format::kPrintf, Format::kPyPrintf, Format::kSubstitute, Format::kBraces}) {
    EXPECT_EQ(PrintingOf(f), Printing::kNative) << FormatName(f);
  }
  // Python prints None as itself in a %s slot; C has no such constant.
  Template py;
  AppendArg(Printing::kPython, Arg{"None", std::nullopt}, ValueKind::kStr, "%s", -1, py);
  EXPECT_EQ(py.Display(), "None");
  Template native;
  AppendArg(Printing::kNative, Arg{"None", std::nullopt}, ValueKind::kStr, "", -1, native);
  EXPECT_EQ(native.Display(), "{None}");
}

}  // namespace
}  // namespace errdex::extract::flow
