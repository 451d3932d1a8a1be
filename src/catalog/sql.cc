#include "catalog/sql.h"

#include <xxhash.h>

namespace errdex::catalog {

RowHasher& RowHasher::Add(char tag, const void* data, size_t size) {
  uint64_t n = size;
  buffer_.push_back(tag);
  buffer_.append(reinterpret_cast<const char*>(&n), sizeof n);
  if (size > 0) buffer_.append(static_cast<const char*>(data), size);
  return *this;
}

int64_t RowHasher::Digest() const {
  return static_cast<int64_t>(XXH3_64bits(buffer_.data(), buffer_.size()));
}

bool IsPostgresUrl(std::string_view location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

}  // namespace errdex::catalog
