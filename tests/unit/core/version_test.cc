#include "core/version.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>
#include <string>

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

// Whatever mix of dated and undated, release and other names: a strict
// weak order, so sorting snapshots by it is well defined.
TEST(Version, VersionOrderIsAStrictWeakOrder) {
  std::mt19937 rng(13);
  const char* revs[] = {"v1.9", "v1.10", "1.10", "jax-v0.4.30", "HEAD", "main", "v2.0rc1", "abc"};
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
