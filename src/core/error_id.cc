#include "core/error_id.h"

#include <xxhash.h>

#include <cstdio>

namespace errdex {

std::string ErrorId(std::string_view library, std::string_view exception,
                    std::string_view display_template) {
  std::string key;
  key.reserve(library.size() + exception.size() + display_template.size() + 2);
  key.append(library);
  key.push_back('\0');
  key.append(exception);
  key.push_back('\0');
  key.append(display_template);
  XXH64_hash_t h = XXH3_64bits(key.data(), key.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool IsErrorId(std::string_view text) {
  if (text.size() != 16) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace errdex
