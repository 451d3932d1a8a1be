#include "match/prefilter.h"

#include <gtest/gtest.h>

namespace errdex::match {
namespace {

std::vector<int64_t> Pks(Prefilter& p, std::string_view text) {
  std::vector<PrefilterHit> hits;
  EXPECT_TRUE(p.Scan(text, hits).has_value());
  std::vector<int64_t> out;
  for (const PrefilterHit& h : hits) out.push_back(h.error_pk);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Prefilter, BuildLoadScan) {
  Template a = Template::Literal("Invalid pipeline stage");
  Template b = Template::Literal("Unsupported pipeline mode: ");
  b.AppendValue("m", ValueKind::kStr);
  Template c = Template::Literal("Invalid pipeline stage");  // shares a fragment with a
  Template none = Template::Value("msg", ValueKind::kAny);
  std::vector<Prefilter::Entry> entries = {{10, &a}, {20, &b}, {30, &c}, {40, &none}};
  Result<std::string> blob = Prefilter::Build(entries);
  ASSERT_TRUE(blob.has_value()) << blob.error().message;
  Result<Prefilter> p = Prefilter::Load(*blob);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(p->errors(), 4u);
  EXPECT_EQ(p->fragments(), 2u);
  EXPECT_EQ(Pks(*p, "RuntimeError: Invalid pipeline stage"), (std::vector<int64_t>{10, 30}));
  EXPECT_EQ(Pks(*p, "Unsupported pipeline mode: 3."), (std::vector<int64_t>{20}));
  EXPECT_TRUE(Pks(*p, "nothing here").empty());
  std::vector<PrefilterHit> hits;
  ASSERT_TRUE(p->Scan("Unsupported pipeline mode: x", hits).has_value());
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].fragments_found, 1);
  EXPECT_EQ(hits[0].fragments_total, 1);
}

TEST(Prefilter, EmptyAndCorruptBlobs) {
  Result<std::string> empty = Prefilter::Build({});
  ASSERT_TRUE(empty.has_value());
  Result<Prefilter> p = Prefilter::Load(*empty);
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(Pks(*p, "anything").empty());
  EXPECT_FALSE(Prefilter::Load("").has_value());
  EXPECT_FALSE(Prefilter::Load("ERXPgarbage").has_value());
  Template a = Template::Literal("some literal text");
  Result<std::string> blob = Prefilter::Build({{1, &a}});
  ASSERT_TRUE(blob.has_value());
  for (size_t cut : {blob->size() - 1, blob->size() / 2, size_t{12}}) {
    EXPECT_FALSE(Prefilter::Load(blob->substr(0, cut)).has_value()) << cut;
  }
  std::string flipped = *blob;
  flipped[flipped.size() - 40] ^= 0x5A;  // inside the serialized database
  Result<Prefilter> maybe = Prefilter::Load(flipped);
  if (maybe) Pks(*maybe, "some literal text");  // must not crash either way
}

}  // namespace
}  // namespace errdex::match
