// Feeds arbitrary bytes to the C/C++ extractor: macro collection and
// expansion, both grammars, message evaluation must neither crash nor hang.
// The first byte picks the file name, so both grammars and the C-header
// guess are reached.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/extractor.h"
#include "fuzz_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr const char* kPaths[] = {"fuzz.c", "fuzz.cc", "fuzz.h", "fuzz.cu"};
  const char* path = kPaths[data[0] % 4];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  errdex::Extraction x = errdex::extract::ExtractCppSource(path, text, errdex::fuzz::kParseMicros);
  for (const errdex::Site& s : x.sites) {
    (void)s.message.Display();
    (void)s.excerpt.size();
  }
  return 0;
}
