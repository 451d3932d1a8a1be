// Line arithmetic over one source file, and the excerpt every site carries.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/record.h"

namespace errdex::extract {

// The bounds of a site's excerpt and statement every front end uses.
inline constexpr int kExcerptBefore = 20;
inline constexpr int kExcerptAfter = 20;
inline constexpr size_t kMaxExcerptBytes = 16384;
inline constexpr size_t kMaxStatementBytes = 4096;

class SourceLines {
 public:
  explicit SourceLines(std::string_view source) : src_(source) {}

  // Lines [first, last] (1-based, clamped) with their newlines.
  std::string_view Lines(int first, int last);

  // Sets `site.excerpt` and `excerpt_line`: `before` lines above `site.line`
  // to `after` lines below `site.end_line`, narrowed to stay within
  // `max_bytes` (cut at a character boundary if a single line is longer).
  void FillExcerpt(Site& site, int before, int after, size_t max_bytes);

 private:
  std::string_view src_;
  std::vector<uint32_t> starts_;
};

}  // namespace errdex::extract
