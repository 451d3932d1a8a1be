#include "match/keys.h"

#include "core/text.h"

namespace errdex::match {

bool RaisesKey(const catalog::ErrorRecord& e, std::string_view key) {
  if (key.empty()) return false;
  for (const catalog::SiteRecord& s : e.sites) {
    std::string_view written = s.exception_written;
    size_t cut = written.rfind("::");
    if (cut == std::string_view::npos) continue;
    if (SnakeCase(written.substr(cut + 2)) == key) return true;
  }
  return false;
}

}  // namespace errdex::match
