#include "core/template.h"

#include <gtest/gtest.h>

#include <string_view>
#include <tuple>
#include <vector>

namespace errdex {
namespace {

TEST(Template, DisplayShowsValuesAsTheirExpression) {
  Template t = Template::Literal("Unsupported pipeline mode: ");
  t.AppendValue("pipeline_mode", ValueKind::kStr);
  t.AppendText(".");
  EXPECT_EQ(t.Display(), "Unsupported pipeline mode: {pipeline_mode}.");
}

TEST(Template, DisplayDoublesLiteralBraces) {
  Template t = Template::Literal("Invalid equality constraint: {e1} == {e2}");
  EXPECT_EQ(t.Display(), "Invalid equality constraint: {{e1}} == {{e2}}");
}

TEST(Template, DisplayShowsPythonSpecsButNotPrintfSpecs) {
  Template t;
  t.AppendValue("x", ValueKind::kRepr, "!r");
  t.AppendText(" ");
  t.AppendValue("ratio", ValueKind::kFloat, ":.3f");
  t.AppendText(" ");
  t.AppendValue("n", ValueKind::kInt, "%5d");
  EXPECT_EQ(t.Display(), "{x!r} {ratio:.3f} {n}");
}

TEST(Template, AdjacentLiteralsMerge) {
  Template t = Template::Literal("a");
  t.AppendText("b");
  t.Append(Template::Literal("c"));
  ASSERT_EQ(t.pieces().size(), 1u);
  EXPECT_EQ(t.pieces()[0].text, "abc");
}

TEST(Template, LiteralSizeAndDynamic) {
  Template empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.IsDynamic());
  Template only_value = Template::Value("msg", ValueKind::kAny);
  EXPECT_TRUE(only_value.IsDynamic());
  EXPECT_EQ(only_value.LiteralSize(), 0u);
  Template mixed = Template::Literal("abc");
  mixed.AppendValue("x", ValueKind::kStr);
  EXPECT_FALSE(mixed.IsDynamic());
  EXPECT_EQ(mixed.LiteralSize(), 3u);
}

TEST(Template, AssignNamesMakesNamesUnique) {
  Template t;
  t.AppendValue("x", ValueKind::kStr);
  t.AppendText(" and ");
  t.AppendValue("x", ValueKind::kRepr);
  t.AppendText(" ");
  t.AppendValue("self._sharding", ValueKind::kStr);
  t.AssignNames();
  EXPECT_EQ(t.pieces()[0].name, "x");
  EXPECT_EQ(t.pieces()[2].name, "x_2");
  EXPECT_EQ(t.pieces()[4].name, "sharding");
}

TEST(PlaceholderName, FollowsTheExpression) {
  EXPECT_EQ(PlaceholderName("pipeline_mode"), "pipeline_mode");
  EXPECT_EQ(PlaceholderName("self._sharding"), "sharding");
  EXPECT_EQ(PlaceholderName("type(mesh)"), "type_mesh");
  EXPECT_EQ(PlaceholderName("x.shape"), "x_shape");
  EXPECT_EQ(PlaceholderName("f.__name__"), "f_name");
  EXPECT_EQ(PlaceholderName("self"), "self");
  EXPECT_EQ(PlaceholderName("d['key']"), "d");
  EXPECT_EQ(PlaceholderName("1 + 2"), "value");
  EXPECT_EQ(PlaceholderName("größe"), "gr_e");
  EXPECT_LT(PlaceholderName("a_very_long_name.another_very_long_name.and_a_third_one").size(), 41u);
}

TEST(ValueKind, NamesRoundTrip) {
  for (ValueKind k : {ValueKind::kStr, ValueKind::kRepr, ValueKind::kInt, ValueKind::kFloat,
                      ValueKind::kHex, ValueKind::kChar, ValueKind::kPointer, ValueKind::kAny}) {
    EXPECT_EQ(ValueKindFromName(ValueKindName(k)), k);
  }
  EXPECT_FALSE(ValueKindFromName("nonsense").has_value());
}

// Assumptions travel with concatenation and literal rewriting, never into a
// template's identity; two of one name that cannot hold together mark a
// text no run prints.
TEST(TemplateAssumptions, TravelWithTheTextButNotIntoItsIdentity) {
  using When = Assumption::Test;
  Template a = Template::Literal("Cluster ");
  a.Assume({"name", When::kTruthy});
  Template b = Template::Literal("not found.");
  b.Assume({"name", When::kNotNone});
  b.Assume({"name", When::kTruthy});
  Template joined = a;
  joined.Append(b);
  EXPECT_EQ(joined.assumptions().size(), 2u);  // kTruthy once
  EXPECT_FALSE(joined.AssumesTheImpossible());
  EXPECT_EQ(joined, Template::Literal("Cluster not found."));
  Template mapped =
      MapLiterals(joined, [](std::string_view t, Template& out) { out.AppendText(t); });
  EXPECT_EQ(mapped.assumptions(), joined.assumptions());

  Template kept = joined;
  Template other_branch = Template::Literal("Cluster not found.");
  other_branch.Assume({"name", When::kTruthy});
  other_branch.Assume({"flag", When::kNone});
  kept.KeepCommonAssumptions(other_branch);
  EXPECT_EQ(kept.assumptions(), (std::vector<Assumption>{{"name", When::kTruthy}}));

  for (auto [x, y, possible] : std::vector<std::tuple<When, When, bool>>{
           {When::kNone, When::kFalsy, true},
           {When::kNone, When::kTruthy, false},
           {When::kNone, When::kNotNone, false},
           {When::kTruthy, When::kFalsy, false},
           {When::kTruthy, When::kNotNone, true},
           {When::kFalsy, When::kNotNone, true},  // '' or 0
       }) {
    Template t = Template::Literal("x");
    t.Assume({"p", x});
    t.Assume({"p", y});
    EXPECT_EQ(t.AssumesTheImpossible(), !possible) << static_cast<int>(x) << static_cast<int>(y);
    Template other = Template::Literal("x");
    other.Assume({"p", x});
    other.Assume({"q", y});  // another name: always possible
    EXPECT_FALSE(other.AssumesTheImpossible());
  }
}

}  // namespace
}  // namespace errdex
