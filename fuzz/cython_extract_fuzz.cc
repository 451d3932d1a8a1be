// Feeds arbitrary bytes to the Cython path: the pre-pass must keep the
// text's shape (length, line breaks) and the Python front end after it must
// neither crash nor hang. The first byte picks the file name, so Tempita
// templates are fuzzed too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "extract/extractor.h"
#include "extract/python/cy_prepass.h"
#include "fuzz_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr const char* kPaths[] = {"fuzz.pyx", "fuzz.pxd", "fuzz.pxi", "fuzz.pyx.in"};
  const char* path = kPaths[data[0] % 4];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string rewritten(text);
  errdex::extract::python::RewriteCython(rewritten, errdex::extract::python::IsTempitaPath(path));
  if (rewritten.size() != text.size()) std::abort();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] == '\n') != (rewritten[i] == '\n')) std::abort();
  }
  (void)errdex::extract::ExtractPythonSource(path, text, errdex::fuzz::kParseMicros);
  return 0;
}
