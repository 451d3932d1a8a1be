// Feeds arbitrary bytes to the Python extractor, then to analysis:
// decoding, parsing, evaluation, linking, families, related errors and
// prose must neither crash nor hang on any input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/analyze.h"
#include "analyze/related.h"
#include "catalog/json.h"
#include "extract/extractor.h"
#include "fuzz_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  errdex::Extraction x =
      errdex::extract::ExtractPythonSource("fuzz.py", text, errdex::fuzz::kParseMicros);
  std::vector<errdex::analyze::RelatedInput> related;
  for (const errdex::Site& s : x.sites) {
    // What the catalog would store, read back as analysis reads it.
    errdex::catalog::ErrorRecord e;
    e.id = std::to_string(related.size());
    e.library = "fuzz/fuzz";
    e.exception = s.exception;
    e.kind = std::string(errdex::SiteKindName(s.kind));
    e.template_text = s.message.Display();
    e.message = s.message;
    e.internal = s.internal;
    e.dynamic = s.message.IsDynamic();
    errdex::catalog::SiteRecord r;
    r.path = s.path;
    r.line = s.line;
    r.function = s.function;
    r.excerpt = s.excerpt;
    r.excerpt_line = s.excerpt_line;
    r.internal = s.internal;
    r.trigger = s.trigger;
    r.guards_json = errdex::catalog::GuardsToJson(s.guards).dump();
    e.sites.push_back(r);
    errdex::Analysis a = errdex::analyze::AnalyzeError(e, {});
    related.push_back({e.id,
                       e.exception,
                       e.template_text,
                       e.template_text,
                       a.family.slug,
                       {{s.path, s.function}}});
  }
  (void)errdex::analyze::FindRelated(related);
  return 0;
}
