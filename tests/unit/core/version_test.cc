#include "core/version.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace errdex {
namespace {

TEST(Version, NamesCompareAsVersions) {
  EXPECT_LT(CompareVersionNames("1.9", "1.10"), 0);
  EXPECT_LT(CompareVersionNames("v1.24.2", "v1.25.0"), 0);
  EXPECT_LT(CompareVersionNames("jax-v0.4.9", "jax-v0.4.30"), 0);
  EXPECT_EQ(CompareVersionNames("1.02", "1.2"), 0);
  EXPECT_LT(CompareVersionNames("1.2", "1.2.1"), 0);
  EXPECT_LT(CompareVersionNames("2.0", "10"), 0);
  EXPECT_EQ(CompareVersionNames("", ""), 0);
}

// Antisymmetric and transitive on random names made of the pieces versions
// are made of: a total order, so sorting by it is well defined.
TEST(Version, NameOrderIsATotalOrder) {
  std::mt19937 rng(7);
  const char* parts[] = {"0", "1", "9", "10", "010", ".", "-", "v", "rc", "a"};
  auto name = [&] {
    std::string s;
    for (int k = static_cast<int>(rng() % 5); k >= 0; --k) s += parts[rng() % 10];
    return s;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string a = name(), b = name(), c = name();
    int ab = CompareVersionNames(a, b);
    EXPECT_EQ(ab, -CompareVersionNames(b, a)) << a << " " << b;
    if (ab <= 0 && CompareVersionNames(b, c) <= 0) {
      EXPECT_LE(CompareVersionNames(a, c), 0) << a << " " << b << " " << c;
    }
  }
}

// Differential: the C library's timegm is the reference.
TEST(Version, IsoTimesAgreeWithTimegm) {
  std::mt19937 rng(11);
  for (int i = 0; i < 5000; ++i) {
    struct tm tm = {};
    tm.tm_year = 70 + static_cast<int>(rng() % 100);
    tm.tm_mon = static_cast<int>(rng() % 12);
    tm.tm_mday = 1 + static_cast<int>(rng() % 28);
    tm.tm_hour = static_cast<int>(rng() % 24);
    tm.tm_min = static_cast<int>(rng() % 60);
    tm.tm_sec = static_cast<int>(rng() % 60);
    int offset = (static_cast<int>(rng() % 49) - 24) * 30;  // minutes
    char buf[64];
    int off = offset < 0 ? -offset : offset;
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  offset < 0 ? '-' : '+', off / 60, off % 60);
    int64_t expected = static_cast<int64_t>(timegm(&tm)) - offset * 60;
    EXPECT_EQ(ParseIsoTime(buf), expected) << buf;
  }
  EXPECT_EQ(ParseIsoTime("2024-05-06T07:08:09Z"), ParseIsoTime("2024-05-06T09:08:09+02:00"));
  for (const char* bad : {"", "2024-05-06", "2024-13-01T00:00:00Z", "2024-05-06T07:08:09",
                          "2024-05-06T07:08:09+0200", "x024-05-06T07:08:09Z"}) {
    EXPECT_FALSE(ParseIsoTime(bad)) << bad;
  }
}

TEST(Version, ReleasesByNumberThenOtherRevisionsByDate) {
  // A maintenance release tagged after a major one is still older.
  EXPECT_TRUE(VersionBefore("2024-08-01T00:00:00Z", "v1.26.5", "2024-06-01T00:00:00Z", "v2.0.0"));
  EXPECT_TRUE(VersionBefore("", "1.9", "", "1.10"));
  EXPECT_TRUE(VersionBefore("2021-01-01T00:00:00Z", "jax-v0.4.30", "2021-01-01T00:00:00Z",
                            "jaxlib-v0.4.30"));
  // Releases before HEAD or a branch; those by date.
  EXPECT_TRUE(VersionBefore("2030-01-01T00:00:00Z", "v9.0", "2020-01-01T00:00:00Z", "HEAD"));
  EXPECT_TRUE(VersionBefore("2020-01-01T00:00:00Z", "main", "2021-01-01T00:00:00Z", "HEAD"));
  EXPECT_FALSE(VersionBefore("", "1.10", "", "1.10"));
  EXPECT_EQ(ReleaseNumbers("v1.24.2"), (std::vector<uint64_t>{1, 24, 2}));
  EXPECT_FALSE(ReleaseNumbers("v1.24.0rc1"));
  EXPECT_FALSE(ReleaseNumbers("1"));
  EXPECT_FALSE(ReleaseNumbers("1." + std::string(30, '9')));
}

TEST(Version, PreReleasesComeBeforeTheirRelease) {
  auto v = [](const char* name) { return ParseReleaseVersion(name); };
  EXPECT_EQ(v("jax-v0.3.25-rc")->stage, ReleaseVersion::kCandidate);
  EXPECT_EQ(v("jax-v0.3.25-rc1")->stage_number, 1u);
  EXPECT_EQ(v("v2.0.0rc2")->numbers, (std::vector<uint64_t>{2, 0, 0}));
  EXPECT_EQ(v("1.0.dev3")->stage, ReleaseVersion::kDev);
  EXPECT_EQ(v("1.0-alpha.1")->stage_number, 1u);
  EXPECT_EQ(v("1.0.post1")->stage, ReleaseVersion::kPost);
  EXPECT_EQ(v("v1.24.2")->stage, ReleaseVersion::kFinal);
  for (const char* bad : {"1.0-rc-", "1.0rc.", "1.0-foo", "1.0rc1x", "1.0-", "main", "1rc1",
                          "1.0rc1.2"}) {
    EXPECT_FALSE(v(bad)) << bad;
  }
  // Tagged on the release branch after later releases of main: the
  // numbers decide, not the date.
  EXPECT_TRUE(VersionBefore("2022-11-14T16:43:38-08:00", "jax-v0.3.24", "2022-11-14T20:37:41-08:00",
                            "jax-v0.3.25-rc"));
  EXPECT_TRUE(VersionBefore("2022-11-14T16:43:38-08:00", "jax-v0.3.25-rc",
                            "2022-11-14T18:31:08-08:00", "jax-v0.3.25-rc1"));
  EXPECT_TRUE(VersionBefore("2022-11-14T20:37:41-08:00", "jax-v0.3.25-rc1", "2022-11-14T18:31:08-08:00",
                            "jax-v0.3.25"));
  EXPECT_TRUE(VersionBefore("2024-06-01T00:00:00Z", "jax-v0.4.29-rc", "2024-01-01T00:00:00Z",
                            "jax-v0.5.0"));
  EXPECT_TRUE(VersionBefore("", "1.0.dev1", "", "1.0a1"));
  EXPECT_TRUE(VersionBefore("", "1.0b1", "", "1.0rc1"));
  EXPECT_TRUE(VersionBefore("", "1.0", "", "1.0.post1"));
  EXPECT_TRUE(VersionBefore("", "1.0.post1", "", "1.0.1"));
}

// Differential against a reference written apart: each generated name is
// built from its parts, so the order its parts imply (PEP 440's, for the
// stages both know) is known without parsing; sorting the names by
// VersionBefore must give that order.
TEST(Version, GeneratedReleaseNamesSortAsTheirPartsSay) {
  std::mt19937 rng(17);
  const char* prefixes[] = {"", "v", "jax-v", "release/"};
  struct Stage {
    const char* spelling;
    int rank;
    bool numbered;
  };
  const Stage stages[] = {{"", 4, false},     {".dev", 0, true},  {"a", 1, true},
                          {"-alpha.", 1, true}, {"b", 2, true},   {"-beta", 2, true},
                          {"rc", 3, true},    {"-rc", 3, false},  {"-rc", 3, true},
                          {".post", 5, true}};
  struct Named {
    std::string name;
    std::tuple<std::vector<uint64_t>, int, uint64_t> key;
  };
  for (int round = 0; round < 200; ++round) {
    const char* prefix = prefixes[rng() % 4];
    std::vector<Named> names;
    for (int i = 0; i < 12; ++i) {
      std::vector<uint64_t> numbers(2 + rng() % 2);
      std::string name = prefix;
      for (size_t k = 0; k < numbers.size(); ++k) {
        numbers[k] = rng() % 4;
        name += (k ? "." : "") + std::to_string(numbers[k]);
      }
      const Stage& st = stages[rng() % 10];
      uint64_t n = st.numbered ? rng() % 3 : 0;
      name += st.spelling;
      if (st.numbered) name += std::to_string(n);
      names.push_back({name, {numbers, st.rank, n}});
    }
    std::vector<Named> sorted = names;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Named& a, const Named& b) {
      return VersionBefore("", a.name, "", b.name);
    });
    for (size_t i = 1; i < sorted.size(); ++i) {
      EXPECT_LE(sorted[i - 1].key, sorted[i].key) << sorted[i - 1].name << " " << sorted[i].name;
    }
  }
}

// Whatever mix of dated and undated, release and other names: a strict
// weak order, so sorting snapshots by it is well defined.
TEST(Version, VersionOrderIsAStrictWeakOrder) {
  std::mt19937 rng(13);
  const char* revs[] = {"v1.9", "v1.10", "1.10", "jax-v0.4.30", "HEAD", "main", "v2.0rc1", "abc"};  // v2.0rc1: a pre-release
  const char* dates[] = {"", "2021-01-01T00:00:00Z", "2021-06-01T00:00:00+02:00",
                         "2022-01-01T00:00:00Z", "bad"};
  struct V {
    std::string date, rev;
  };
  auto pick = [&] { return V{dates[rng() % 5], revs[rng() % 8]}; };
  auto before = [](const V& a, const V& b) { return VersionBefore(a.date, a.rev, b.date, b.rev); };
  for (int i = 0; i < 20000; ++i) {
    V a = pick(), b = pick(), c = pick();
    EXPECT_FALSE(before(a, a));
    if (before(a, b)) {
      EXPECT_FALSE(before(b, a));
    }
    if (before(a, b) && before(b, c)) {
      EXPECT_TRUE(before(a, c)) << a.rev << b.rev << c.rev;
    }
    // Incomparability is transitive too.
    bool ab = !before(a, b) && !before(b, a), bc = !before(b, c) && !before(c, b);
    if (ab && bc) {
      EXPECT_TRUE(!before(a, c) && !before(c, a));
    }
  }
}

}  // namespace
}  // namespace errdex
