#include "catalog/json.h"

#include <gtest/gtest.h>

namespace errdex::catalog {
namespace {

TEST(Json, PiecesRoundTrip) {
  Template t = Template::Literal("got ");
  t.AppendValue("x", ValueKind::kRepr, "!r");
  t.AppendText(" of ");
  t.AppendValue("name", ValueKind::kStr, "%.200s", 200);
  t.AssignNames();
  nlohmann::json j = PiecesToJson(t);
  Result<Template> back = PiecesFromJson(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->Display(), t.Display());
  ASSERT_EQ(back->pieces().size(), 4u);
  EXPECT_EQ(back->pieces()[1].kind, ValueKind::kRepr);
  EXPECT_EQ(back->pieces()[3].max_length, 200);
  EXPECT_FALSE(PiecesFromJson(nlohmann::json::object()).has_value());
}

TEST(Json, SummaryHasTheContractFields) {
  ErrorRecord e;
  e.id = "60c64382c7af521f";
  e.library = "jax-ml/jax";
  e.exception = "RuntimeError";
  e.template_text = "Invalid pipeline stage";
  e.kind = "raise";
  SiteRecord s;
  s.path = "jaxlib/xla.cc";
  s.line = 187;
  s.function = "register_xla_transform";
  e.sites.push_back(s);
  nlohmann::json j = ErrorSummaryJson(e);
  EXPECT_EQ(j.dump(),
            R"({"exception":"RuntimeError","id":"60c64382c7af521f","kind":"raise",)"
            R"("library":"jax-ml/jax","sites":[{"function":"register_xla_transform",)"
            R"("line":187,"path":"jaxlib/xla.cc"}],"template":"Invalid pipeline stage"})");
  nlohmann::json full = ErrorJson(e);
  for (const char* key : {"id", "library", "exception", "template", "kind", "sites", "pieces",
                          "dynamic", "no_message", "internal"}) {
    EXPECT_TRUE(full.contains(key)) << key;
  }
  EXPECT_EQ(full["sites"][0]["line"], 187);
  EXPECT_EQ(full["no_message"], true);  // no pieces: raised without a message
  EXPECT_TRUE(full["sites"][0].contains("excerpt"));
}

}  // namespace
}  // namespace errdex::catalog
