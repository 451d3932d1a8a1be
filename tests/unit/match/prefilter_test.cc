#include "match/prefilter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "match/pattern.h"

namespace errdex::match {
namespace {

std::vector<int64_t> Pks(Prefilter& p, std::string_view text) {
  std::vector<PrefilterHit> hits;
  EXPECT_TRUE(p.Scan(text, hits).has_value());
  std::vector<int64_t> out;
  for (const PrefilterHit& h : hits) {
    if (h.fragments_found > 0) out.push_back(h.error_pk);
  }
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
  auto b_hit = std::find_if(hits.begin(), hits.end(),
                            [](const PrefilterHit& h) { return h.error_pk == 20; });
  ASSERT_NE(b_hit, hits.end());
  EXPECT_EQ(b_hit->fragments_found, 1);
  EXPECT_EQ(b_hit->fragments_total, 1);
  EXPECT_EQ(b_hit->words_found, 2);  // unsupported, pipeline
}

TEST(Prefilter, DistinctiveWordsFindChangedWording) {
  Template a = Template::Literal("Unsupported pipeline mode for this backend");
  Template b = Template::Literal("Invalid TMEMLayout");
  std::vector<Prefilter::Entry> entries = {{1, &a}, {2, &b}};
  Result<Prefilter> p = Prefilter::Load(*Prefilter::Build(entries));
  ASSERT_TRUE(p.has_value());
  std::vector<PrefilterHit> hits;
  ASSERT_TRUE(p->Scan("the PIPELINE mode is unsupported by the backend", hits).has_value());
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].error_pk, 1);
  EXPECT_EQ(hits[0].fragments_found, 0);
  EXPECT_EQ(hits[0].words_found, 3);  // pipeline, unsupported, backend; "mode" is too short
}

TEST(Prefilter, CommonWordsAreLeftOut) {
  std::vector<Template> templates;
  for (size_t i = 0; i < kMaxWordErrors + 5; ++i) {
    templates.push_back(Template::Literal("argument number " + std::to_string(i) + " is wrong"));
  }
  std::vector<Prefilter::Entry> entries;
  for (size_t i = 0; i < templates.size(); ++i) {
    entries.push_back({static_cast<int64_t>(i), &templates[i]});
  }
  Result<Prefilter> p = Prefilter::Load(*Prefilter::Build(entries));
  ASSERT_TRUE(p.has_value());
  std::vector<PrefilterHit> hits;
  ASSERT_TRUE(p->Scan("argument", hits).has_value());
  EXPECT_TRUE(hits.empty()) << "a word of more than kMaxWordErrors templates is not indexed";
}

// Words, not one letter repeated: every window of it is distinctive.
std::string LongText(size_t n, int seed) {
  std::string out;
  for (int i = 0; out.size() < n; ++i) out += "word" + std::to_string(seed * 100000 + i) + " ";
  out.resize(n);
  return out;
}

TEST(Prefilter, LiteralLongerThanTheVectorscanLimit) {
  // Vectorscan refuses literals over 16,000 bytes; one such template must
  // not stop the library's prefilter from being built.
  std::string literal = LongText(20'000, 1);
  Template long_one = Template::Literal(literal + ": ");
  long_one.AppendValue("x", ValueKind::kStr);
  Template other = Template::Literal(LongText(20'000, 2));
  Template short_one = Template::Literal("Invalid pipeline stage");
  for (const std::string& f : PrefilterFragments(long_one)) EXPECT_LE(f.size(), kMaxFragment);
  std::vector<Prefilter::Entry> entries = {{1, &long_one}, {2, &other}, {3, &short_one}};
  Result<std::string> blob = Prefilter::Build(entries);
  ASSERT_TRUE(blob.has_value()) << blob.error().message;
  Result<Prefilter> p = Prefilter::Load(*blob);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  std::string message = literal + ": 42";
  EXPECT_EQ(Pks(*p, "ValueError: " + message), (std::vector<int64_t>{1}));
  std::vector<PrefilterHit> hits;
  ASSERT_TRUE(p->Scan(message, hits).has_value());
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].fragments_found, hits[0].fragments_total) << "a complete candidate";
  EXPECT_EQ(Pks(*p, "Invalid pipeline stage"), (std::vector<int64_t>{3}));
  EXPECT_TRUE(Pks(*p, LongText(20'000, 3)).empty());
}

// More literals than one Vectorscan database holds: the databases are
// compiled on several threads and must come out the same bytes on every
// build, each template still found by its own text.
TEST(Prefilter, ManyDatabasesAreBuiltTheSameEachTimeAndAllScanned) {
  std::vector<Template> templates;
  const std::vector<std::string> nouns = {"axis", "shape", "dtype", "device", "mesh", "tracer"};
  for (int i = 0; i < 20000; ++i) {
    // Distinct literals with shared words and suffixes, as generated messages have.
    std::string text = "unexpected " + nouns[static_cast<size_t>(i) % nouns.size()] + " number " +
                       std::to_string(i * 7919 % 100003) + " in stage";
    templates.push_back(Template::Literal(text));
  }
  std::vector<Prefilter::Entry> entries;
  for (size_t i = 0; i < templates.size(); ++i) {
    entries.push_back({static_cast<int64_t>(i + 1), &templates[i]});
  }
  Result<std::string> first = Prefilter::Build(entries);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  Result<std::string> second = Prefilter::Build(entries);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_TRUE(*first == *second);
  Result<Prefilter> p = Prefilter::Load(*first);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(p->errors(), templates.size());
  // Every template, whichever database its literal fell into.
  for (size_t i = 0; i < templates.size(); ++i) {
    std::string message = "ValueError: " + templates[i].Display();
    std::vector<int64_t> pks = Pks(*p, message);
    EXPECT_NE(std::find(pks.begin(), pks.end(), static_cast<int64_t>(i + 1)), pks.end()) << message;
  }
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
