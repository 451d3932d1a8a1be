#include "core/version.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <utility>

namespace errdex {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Parses exactly `n` digits at `at`.
std::optional<int> Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

int CompareVersionNames(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t ei = i;
      size_t ej = j;
      while (ei < a.size() && IsDigit(a[ei])) ++ei;
      while (ej < b.size() && IsDigit(b[ej])) ++ej;
      // Leading zeros do not make a number larger.
      size_t si = i;
      size_t sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj ? -1 : 1;
      int c = a.substr(si, ei - si).compare(b.substr(sj, ej - sj));
      if (c != 0) return c < 0 ? -1 : 1;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

std::optional<int64_t> ParseIsoTime(std::string_view s) {
  auto year = Digits(s, 0, 4);
  auto month = Digits(s, 5, 2);
  auto day = Digits(s, 8, 2);
  auto hour = Digits(s, 11, 2);
  auto minute = Digits(s, 14, 2);
  auto second = Digits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' || *month < 1 ||
      *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  int64_t t = DaysFromCivil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second;
  std::string_view zone = s.substr(19);
  if (zone == "Z") return t;
  auto oh = Digits(zone, 1, 2);
  auto om = Digits(zone, 4, 2);
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':' || !oh || !om) {
    return std::nullopt;
  }
  int64_t offset = *oh * 3600 + *om * 60;
  return zone[0] == '+' ? t - offset : t + offset;
}

std::optional<ReleaseVersion> ParseReleaseVersion(std::string_view name) {
  size_t i = 0;
  while (i < name.size() && !IsDigit(name[i])) {
    char c = name[i];
    if (std::isalpha(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '/') {
      return std::nullopt;
    }
    ++i;
  }
  ReleaseVersion out;
  std::string_view suffix;
  while (i < name.size()) {
    size_t start = i;
    uint64_t v = 0;
    while (i < name.size() && IsDigit(name[i])) {
      if (i - start == 18) return std::nullopt;  // no version number is that long
      v = v * 10 + static_cast<uint64_t>(name[i] - '0');
      ++i;
    }
    if (i == start) return std::nullopt;  // "1..2", "1.", ".5"
    out.numbers.push_back(v);
    if (i == name.size()) break;
    if (name[i] == '.' && i + 1 < name.size() && IsDigit(name[i + 1])) {
      ++i;
      continue;
    }
    suffix = name.substr(i);
    break;
  }
  if (out.numbers.size() < 2) return std::nullopt;
  if (suffix.empty()) return out;
  // [-._]? stage [-._]? digits?
  size_t k = 0;
  if (suffix[k] == '-' || suffix[k] == '.' || suffix[k] == '_') ++k;
  std::string word;
  while (k < suffix.size() && std::isalpha(static_cast<unsigned char>(suffix[k])) != 0) {
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(suffix[k])));
    ++k;
  }
  static const std::pair<std::string_view, ReleaseVersion::Stage> kStages[] = {
      {"dev", ReleaseVersion::kDev},       {"a", ReleaseVersion::kAlpha},
      {"alpha", ReleaseVersion::kAlpha},   {"b", ReleaseVersion::kBeta},
      {"beta", ReleaseVersion::kBeta},     {"c", ReleaseVersion::kCandidate},
      {"rc", ReleaseVersion::kCandidate},  {"pre", ReleaseVersion::kCandidate},
      {"preview", ReleaseVersion::kCandidate}, {"post", ReleaseVersion::kPost}};
  const auto* stage = std::find_if(std::begin(kStages), std::end(kStages),
                                   [&](const auto& s) { return s.first == word; });
  if (stage == std::end(kStages)) return std::nullopt;
  out.stage = stage->second;
  bool separated = k < suffix.size() && (suffix[k] == '-' || suffix[k] == '.' || suffix[k] == '_');
  if (separated) ++k;
  size_t digits = k;
  while (k < suffix.size() && IsDigit(suffix[k])) {
    if (k - digits == 18) return std::nullopt;
    out.stage_number = out.stage_number * 10 + static_cast<uint64_t>(suffix[k] - '0');
    ++k;
  }
  // "rc-" and "rc." need their number; anything after it is not a version.
  if (k != suffix.size() || (separated && k == digits)) return std::nullopt;
  return out;
}

std::optional<std::vector<uint64_t>> ReleaseNumbers(std::string_view name) {
  std::optional<ReleaseVersion> v = ParseReleaseVersion(name);
  if (!v || v->stage != ReleaseVersion::kFinal) return std::nullopt;
  return std::move(v->numbers);
}

bool VersionBefore(std::string_view date_a, std::string_view rev_a, std::string_view date_b,
                   std::string_view rev_b) {
  std::optional<ReleaseVersion> na = ParseReleaseVersion(rev_a);
  std::optional<ReleaseVersion> nb = ParseReleaseVersion(rev_b);
  if (na.has_value() != nb.has_value()) return na.has_value();
  if (na && *na != *nb) return *na < *nb;
  std::optional<int64_t> ta = ParseIsoTime(date_a);
  std::optional<int64_t> tb = ParseIsoTime(date_b);
  if (ta.has_value() != tb.has_value()) return ta.has_value();
  if (ta && *ta != *tb) return *ta < *tb;
  return CompareVersionNames(rev_a, rev_b) < 0;
}

}  // namespace errdex
