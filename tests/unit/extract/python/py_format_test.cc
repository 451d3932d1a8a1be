#include "extract/python/py_format.h"

#include <gtest/gtest.h>

namespace errdex::extract::python {
namespace {

std::string Segment(std::string_view s, bool raw = false, bool fstring = false) {
  Template t;
  AppendStringSegment(s, raw, fstring, t);
  return t.Display();
}

TEST(StringSegment, DecodesEscapes) {
  EXPECT_EQ(Segment(R"(a\tb\nc\\d\'e\"f)"), "a\tb\nc\\d'e\"f");
  EXPECT_EQ(Segment(R"(\x41\101\u00e9\U0001D11E)"), "AAé𝄞");
  EXPECT_EQ(Segment("line\\\ncontinued"), "linecontinued");
  EXPECT_EQ(Segment(R"(unknown \d escape)"), "unknown \\d escape");
  EXPECT_EQ(Segment(R"(bad \x4 hex)"), "bad \\x4 hex");
}

TEST(StringSegment, RawKeepsBackslashes) {
  EXPECT_EQ(Segment(R"(raw \d+ \n)", true), "raw \\d+ \\n");
}

TEST(StringSegment, FStringBracesAreSingleAndPlainBracesText) {
  EXPECT_EQ(Segment("{{x}}", false, true), "{{x}}");  // displayed doubled: literal braces
  Template t;
  AppendStringSegment("{{x}}", false, true, t);
  EXPECT_EQ(t.pieces()[0].text, "{x}");
  Template plain;
  AppendStringSegment("{{x}}", false, false, plain);
  EXPECT_EQ(plain.pieces()[0].text, "{{x}}");
}

TEST(StringSegment, NamedCharacterIsOneCharacterValue) {
  Template t;
  AppendStringSegment(R"(a\N{BULLET}b)", false, false, t);
  ASSERT_EQ(t.pieces().size(), 3u);
  EXPECT_EQ(t.pieces()[1].kind, ValueKind::kChar);
}

TEST(FormatSpec, Kinds) {
  EXPECT_EQ(KindFromFormatSpec(""), ValueKind::kStr);
  EXPECT_EQ(KindFromFormatSpec("d"), ValueKind::kInt);
  EXPECT_EQ(KindFromFormatSpec(">10d"), ValueKind::kInt);
  EXPECT_EQ(KindFromFormatSpec(".3f"), ValueKind::kFloat);
  EXPECT_EQ(KindFromFormatSpec(".2%"), ValueKind::kFloat);
  EXPECT_EQ(KindFromFormatSpec("#x"), ValueKind::kHex);
  EXPECT_EQ(KindFromFormatSpec(">{width}"), ValueKind::kStr);
  EXPECT_EQ(KindFromFormatSpec(".3"), ValueKind::kStr);
}

FormatArg Expr(std::string e) { return FormatArg{std::move(e), std::nullopt}; }

TEST(Percent, SingleValue) {
  PercentArgs args;
  args.positional.push_back(Expr("mode"));
  args.expression = "mode";
  Template t = ApplyPercent(Template::Literal("bad mode: %s"), args);
  EXPECT_EQ(t.Display(), "bad mode: {mode}");
}

TEST(Percent, TupleKindsAndEscapes) {
  PercentArgs args;
  args.is_tuple = true;
  for (const char* e : {"a", "b", "n", "r", "h"}) args.positional.push_back(Expr(e));
  Template t = ApplyPercent(Template::Literal("%s %r 100%% %5d %.2f %x"), args);
  EXPECT_EQ(t.Display(), "{a} {b} 100% {n} {r} {h}");
  std::vector<ValueKind> kinds;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) kinds.push_back(p.kind);
  }
  EXPECT_EQ(kinds, (std::vector<ValueKind>{ValueKind::kStr, ValueKind::kRepr, ValueKind::kInt,
                                           ValueKind::kFloat, ValueKind::kHex}));
}

TEST(Percent, TruncatedString) {
  PercentArgs args;
  args.positional.push_back(Expr("name"));
  Template t = ApplyPercent(Template::Literal("'%.200s' object"), args);
  ASSERT_EQ(t.pieces().size(), 3u);
  EXPECT_EQ(t.pieces()[1].max_length, 200);
}

TEST(Percent, DictAndMissingKeys) {
  PercentArgs args;
  args.is_dict = true;
  args.named["name"] = FormatArg{"n", Template::Literal("literal")};
  Template t = ApplyPercent(Template::Literal("%(name)s and %(other)d"), args);
  EXPECT_EQ(t.Display(), "literal and {other}");
}

TEST(Percent, SingleOperandForSeveralConversions) {
  PercentArgs args;
  args.positional.push_back(Expr("pair"));
  args.expression = "pair";
  Template t = ApplyPercent(Template::Literal("%s-%s"), args);
  EXPECT_EQ(t.Display(), "{pair[0]}-{pair[1]}");
}

TEST(Percent, UnknownConversionStaysText) {
  PercentArgs args;
  Template t = ApplyPercent(Template::Literal("50%z done"), args);
  EXPECT_EQ(t.Display(), "50%z done");
}

TEST(StrFormat, PositionalIndexedKeywordAndChains) {
  std::vector<FormatArg> pos = {Expr("name"), Expr("np.dtype(x).name")};
  std::map<std::string, FormatArg, std::less<>> kw;
  kw["fname"] = FormatArg{"fname", Template::Literal("f")};
  kw["n"] = Expr("values");
  EXPECT_EQ(ApplyStrFormat(Template::Literal("{} does not accept dtype {}."), pos, kw).Display(),
            "{name} does not accept dtype {np.dtype(x).name}.");
  EXPECT_EQ(ApplyStrFormat(Template::Literal("{1} {0} {0!r}"), pos, kw).Display(),
            "{np.dtype(x).name} {name} {name!r}");
  EXPECT_EQ(ApplyStrFormat(Template::Literal("{fname}: {n.shape} {n[0]:>5}"), pos, kw).Display(),
            "f: {values.shape} {values[0]:>5}");
  EXPECT_EQ(ApplyStrFormat(Template::Literal("{{literal}} {missing} {7}"), pos, kw).Display(),
            "{{literal}} {missing} {args[7]}");
  EXPECT_EQ(ApplyStrFormat(Template::Literal("unmatched { brace"), pos, kw).Display(),
            "unmatched {{ brace");
}

TEST(StrFormat, ValuesAlreadyFormattedPassThrough) {
  // msg = f"..."; msg.format(...) is a no-op on the literal parts.
  Template t = Template::Literal("got ");
  t.AppendValue("x", ValueKind::kStr);
  std::map<std::string, FormatArg, std::less<>> kw;
  EXPECT_EQ(ApplyStrFormat(t, {Expr("a")}, kw).Display(), "got {x}");
}

TEST(Argument, ReprOfPartlyKnownString) {
  Template value = Template::Literal("it's ");
  value.AppendValue("x", ValueKind::kStr);
  Template out;
  AppendReprOf(value, out);
  EXPECT_EQ(out.Display(), "\"it's {x}\"");
}

}  // namespace
}  // namespace errdex::extract::python
