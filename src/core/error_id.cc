#include "core/error_id.h"

#include <xxhash.h>

#include <cstdio>

namespace errdex {

std::string ErrorIdentity(const Template& message) {
  std::string out;
  for (const Piece& p : message.pieces()) {
    if (!p.is_value) {
      AppendDisplayLiteral(out, p.text);
      continue;
    }
    // The kind stands for the conversion (`!r`, `%r` are both repr); what
    // follows a Python spec's ':' changes the text, so it counts too.
    out.push_back('{');
    out.append(ValueKindName(p.kind));
    if (size_t colon = p.spec.find(':'); colon != std::string::npos && p.spec.front() != '%') {
      out.append(p.spec, colon, std::string::npos);
    }
    if (p.max_length >= 0) out.append("." + std::to_string(p.max_length));
    out.push_back('}');
  }
  return out;
}

std::string ErrorId(std::string_view library, std::string_view exception, const Template& message) {
  return ErrorId(library, exception, ErrorIdentity(message));
}

std::string ErrorId(std::string_view library, std::string_view exception,
                    std::string_view identity) {
  std::string key;
  key.reserve(library.size() + exception.size() + identity.size() + 2);
  key.append(library);
  key.push_back('\0');
  key.append(exception);
  key.push_back('\0');
  key.append(identity);
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

std::optional<std::string> CanonicalErrorId(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  std::string id(text);
  for (char& c : id) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  if (!IsErrorId(id)) return std::nullopt;
  return id;
}

}  // namespace errdex
