#include "extract/source_lines.h"

#include <algorithm>
#include <string>

#include "core/text.h"

namespace errdex::extract {

std::string_view SourceLines::Lines(int first, int last) {
  if (starts_.empty()) {
    starts_.push_back(0);
    for (size_t i = 0; i < src_.size(); ++i) {
      if (src_[i] == '\n') starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
  auto count = static_cast<int>(starts_.size());
  first = std::max(first, 1);
  last = std::min(last, count);
  if (first > last) return {};
  size_t b = starts_[static_cast<size_t>(first - 1)];
  size_t e = last < count ? starts_[static_cast<size_t>(last)] : src_.size();
  return src_.substr(b, e - b);
}

void SourceLines::FillExcerpt(Site& site, int before, int after, size_t max_bytes) {
  int first = std::max(1, site.line - before);
  int last = site.end_line + after;
  std::string_view excerpt = Lines(first, last);
  while (excerpt.size() > max_bytes && last > site.end_line) {
    first = std::min(site.line, first + 2);
    last = std::max(site.end_line, last - 2);
    excerpt = Lines(first, last);
  }
  site.excerpt_line = first;
  site.excerpt = std::string(TruncateUtf8(excerpt, max_bytes));
}

}  // namespace errdex::extract
