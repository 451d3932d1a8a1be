// Feeds arbitrary bytes to the Python extractor: decoding, parsing,
// evaluation and linking must neither crash nor hang on any input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/extractor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  errdex::Extraction x = errdex::extract::ExtractPythonSource("fuzz.py", text);
  for (const errdex::Site& s : x.sites) {
    // Touch every output the catalog would store.
    (void)s.message.Display();
    (void)s.excerpt.size();
  }
  return 0;
}
