#include "core/error_id.h"

#include <gtest/gtest.h>

namespace errdex {
namespace {

TEST(ErrorId, IsStableAcrossBuilds) {
  // Pinned: URLs /errors/<id> must survive changes to errdex. (Catalog
  // schema 6 hashed the identity instead of the display form: ids of
  // templates with values changed once then, those without did not.)
  EXPECT_EQ(ErrorId("jax-ml/jax", "ValueError", "Invalid TMEMLayout: {self}"), "1c14a62d9897091b");
  Template t = Template::Literal("Invalid TMEMLayout: ");
  t.AppendValue("self", ValueKind::kStr);
  EXPECT_EQ(ErrorId("jax-ml/jax", "ValueError", t),
            ErrorId("jax-ml/jax", "ValueError", "Invalid TMEMLayout: {str}"));
}

TEST(ErrorId, LiteralTemplatesKeepTheirIds) {
  // A template without values is its own identity: such ids are unchanged.
  EXPECT_EQ(ErrorIdentity(Template::Literal("Empty domain")), "Empty domain");
  EXPECT_EQ(ErrorIdentity(Template::Literal("a {b}")), "a {{b}}");
}

TEST(ErrorId, PlaceholderNamesDoNotMakeAnotherError) {
  // graphql raises this at two sites, naming its value differently.
  Template in = Template::Literal("Int cannot represent non-integer value: ");
  in.AppendValue("inspect(input_value)", ValueKind::kStr);
  Template out = Template::Literal("Int cannot represent non-integer value: ");
  out.AppendValue("inspect(output_value)", ValueKind::kStr);
  in.AssignNames();
  out.AssignNames();
  ASSERT_NE(in.Display(), out.Display());
  EXPECT_EQ(ErrorIdentity(in), ErrorIdentity(out));
  EXPECT_EQ(ErrorId("pypi/graphql", "GraphQLError", in),
            ErrorId("pypi/graphql", "GraphQLError", out));
  EXPECT_EQ(ErrorIdentity(in), "Int cannot represent non-integer value: {str}");
}

TEST(ErrorId, KindSpecBoundAndPositionStillCount) {
  auto one = [](ValueKind kind, std::string_view spec = {}, int max = -1) {
    Template t = Template::Literal("bad ");
    t.AppendValue("x", kind, spec, max);
    return ErrorIdentity(t);
  };
  EXPECT_NE(one(ValueKind::kStr), one(ValueKind::kRepr, "!r"));
  EXPECT_EQ(one(ValueKind::kRepr, "!r"), one(ValueKind::kRepr, "%r"));  // the same text
  EXPECT_NE(one(ValueKind::kFloat, ":.3f"), one(ValueKind::kFloat, ":.2f"));
  EXPECT_NE(one(ValueKind::kStr, "%s"), one(ValueKind::kStr, "%.200s", 200));
  Template before = Template::Value("x", ValueKind::kStr);
  before.AppendText(" bad");
  Template after = Template::Literal(" bad");
  after.AppendValue("x", ValueKind::kStr);
  EXPECT_NE(ErrorIdentity(before), ErrorIdentity(after));
  // A literal that reads like a placeholder is not one.
  EXPECT_NE(ErrorIdentity(Template::Literal("bad {str}")), one(ValueKind::kStr));
}

TEST(ErrorId, EveryPartCounts) {
  std::string base = ErrorId("a/b", "ValueError", "msg");
  EXPECT_NE(base, ErrorId("a/c", "ValueError", "msg"));
  EXPECT_NE(base, ErrorId("a/b", "TypeError", "msg"));
  EXPECT_NE(base, ErrorId("a/b", "ValueError", "msg2"));
  // The separator keeps field boundaries: no ambiguity by concatenation.
  EXPECT_NE(ErrorId("a/b", "Value", "Errormsg"), ErrorId("a/b", "ValueError", "msg"));
}

TEST(ErrorId, Format) {
  std::string id = ErrorId("x/y", "E", "");
  EXPECT_TRUE(IsErrorId(id));
  EXPECT_FALSE(IsErrorId("0123456789ABCDEF"));
  EXPECT_FALSE(IsErrorId("0123456789abcde"));
  EXPECT_FALSE(IsErrorId("0123456789abcdeg"));
}

TEST(ErrorId, CanonicalFormOfEitherCase) {
  EXPECT_EQ(CanonicalErrorId("0123456789ABCDEF"), "0123456789abcdef");
  EXPECT_EQ(CanonicalErrorId("0123456789aBcDeF"), "0123456789abcdef");
  EXPECT_EQ(CanonicalErrorId("0123456789abcdef"), "0123456789abcdef");
  EXPECT_EQ(CanonicalErrorId("0123456789ABCDEG"), std::nullopt);
  EXPECT_EQ(CanonicalErrorId("0123456789ABCDE"), std::nullopt);
  EXPECT_EQ(CanonicalErrorId(" 123456789abcdef"), std::nullopt);
}

}  // namespace
}  // namespace errdex
