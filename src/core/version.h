// The order of a library's versions: by commit date when both are known,
// else by the version names compared as versions ("1.10" after "1.9").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace errdex {

// Negative, zero or positive as `a` sorts before, with or after `b`; runs of
// digits compare as numbers, everything else byte by byte.
int CompareVersionNames(std::string_view a, std::string_view b);

// Seconds since the epoch of an ISO 8601 date-time with an offset
// ("2024-05-06T07:08:09+02:00", "...Z"); nullopt for anything else.
std::optional<int64_t> ParseIsoTime(std::string_view text);

// Whether the snapshot (date_a, rev_a) is an earlier version than (date_b, rev_b).
bool VersionBefore(std::string_view date_a, std::string_view rev_a, std::string_view date_b,
                   std::string_view rev_b);

}  // namespace errdex
