// The order of a library's versions: releases by their version numbers
// (1.26.5, tagged after 2.0.0, is still older), then other revisions (HEAD,
// a branch, a hash) by commit date, then by name.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace errdex {

// Negative, zero or positive as `a` sorts before, with or after `b`; runs of
// digits compare as numbers, everything else byte by byte.
int CompareVersionNames(std::string_view a, std::string_view b);

// Seconds since the epoch of an ISO 8601 date-time with an offset
// ("2024-05-06T07:08:09+02:00", "...Z"); nullopt for anything else.
std::optional<int64_t> ParseIsoTime(std::string_view text);

// The numbers of a release name: digits and dots, at least one dot, after
// an optional prefix of letters, '-', '_' or '/' ("v1.24.2" -> 1,24,2;
// "jax-v0.4.30"); nullopt for anything else (pre-releases "1.0rc1", "main").
std::optional<std::vector<uint64_t>> ReleaseNumbers(std::string_view name);

// A release, or a pre- or post-release of one: "v2.0.0rc1", "jax-v0.3.25-rc",
// "1.0b2", "1.0.dev3", "1.0.post1" (stages as Python's packaging orders
// them: dev, alpha, beta, release candidate, the release, post).
struct ReleaseVersion {
  enum Stage : int { kDev, kAlpha, kBeta, kCandidate, kFinal, kPost };
  std::vector<uint64_t> numbers;
  Stage stage = kFinal;
  uint64_t stage_number = 0;  // "rc" alone is rc0
  friend auto operator<=>(const ReleaseVersion&, const ReleaseVersion&) = default;
};

// The numbers as ReleaseNumbers reads them, then an optional stage
// ("-rc", ".dev3", "b2", "-alpha.1"); nullopt for any other suffix.
std::optional<ReleaseVersion> ParseReleaseVersion(std::string_view name);

// Whether the snapshot (date_a, rev_a) is an earlier version than (date_b,
// rev_b): releases by number, a pre-release before its release (so
// "jax-v0.3.25-rc" comes between 0.3.24 and 0.3.25), then by date (dated first), then by name;
// other revisions after every release, by date (dated first), then by name.
// A strict weak order over any inputs.
bool VersionBefore(std::string_view date_a, std::string_view rev_a, std::string_view date_b,
                   std::string_view rev_b);

}  // namespace errdex
