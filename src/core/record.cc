#include "core/record.h"

#include <array>
#include <utility>

namespace errdex {
namespace {

constexpr std::array<std::pair<SiteKind, std::string_view>, 6> kSiteKindNames = {{
    {SiteKind::kRaise, "raise"},
    {SiteKind::kAssert, "assert"},
    {SiteKind::kWarning, "warning"},
    {SiteKind::kReturn, "return"},
    {SiteKind::kFatal, "fatal"},
    {SiteKind::kStatus, "status"},
}};

}  // namespace

std::string_view SiteKindName(SiteKind kind) {
  for (const auto& [k, name] : kSiteKindNames) {
    if (k == kind) return name;
  }
  return "raise";
}

std::optional<SiteKind> SiteKindFromName(std::string_view name) {
  for (const auto& [k, n] : kSiteKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace errdex
