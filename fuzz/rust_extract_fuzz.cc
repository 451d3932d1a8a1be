// Feeds arbitrary bytes to the Rust extractor: parsing, macro token trees,
// format strings and message tables must neither crash nor hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/extractor.h"
#include "fuzz_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  errdex::Extraction x =
      errdex::extract::ExtractRustSource("fuzz.rs", text, errdex::fuzz::kParseMicros);
  for (const errdex::Site& s : x.sites) {
    (void)s.message.Display();
    (void)s.excerpt.size();
  }
  return 0;
}
