// A memo of what a front end made of one definition, shared by the threads
// of an index and kept from one revision to the next (the blob cache's,
// extractor.h): a file that changed is read again, but its definitions
// that did not are taken from here.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace errdex::extract {

// Implementations are thread-safe; `key` is a digest of the definition's
// text and of everything around it that its result depends on.
template <typename T>
class DefinitionMemo {
 public:
  virtual ~DefinitionMemo() = default;
  virtual std::shared_ptr<const T> Find(const std::string& key) = 0;
  virtual void Put(const std::string& key, std::shared_ptr<const T> value) = 0;
  // False when nothing put would be read again: nothing is then kept, and
  // nothing need be digested.
  virtual bool Keeping() const { return true; }
};

// A memo's key: the 16 bytes of a 128-bit digest (its low and high halves).
inline std::string DigestKey(uint64_t low, uint64_t high) {
  std::string key(sizeof low + sizeof high, '\0');
  std::memcpy(key.data(), &low, sizeof low);
  std::memcpy(key.data() + sizeof low, &high, sizeof high);
  return key;
}

}  // namespace errdex::extract
