// Feeds arbitrary patterns and arguments to the shared evaluator's
// formatting operations (every dialect, both printings): whatever a front
// end hands over from a source file must neither crash nor hang, and the
// result must keep its own invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "extract/flow/format.h"

namespace {

constexpr errdex::extract::flow::Format kFormats[] = {
    errdex::extract::flow::Format::kPercent,  errdex::extract::flow::Format::kStrFormat,
    errdex::extract::flow::Format::kPrintf,   errdex::extract::flow::Format::kPyPrintf,
    errdex::extract::flow::Format::kSubstitute, errdex::extract::flow::Format::kBraces,
};

}  // namespace

// Byte 0 picks the dialect and the flags; the rest is NUL-separated: the
// pattern, then arguments (a leading 'k' makes one known, '=' after a name
// makes it a keyword).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using errdex::Template;
  namespace flow = errdex::extract::flow;
  if (size == 0) return 0;
  uint8_t head = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> parts;
  for (size_t at; (at = rest.find('\0')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + 1);
  }
  parts.push_back(rest);
  flow::FormatArgs args;
  args.is_tuple = (head & 0x08) != 0;
  args.capture_names = (head & 0x10) != 0;
  args.expression = "operand";
  for (size_t i = 1; i < parts.size() && i < 64; ++i) {
    std::string_view p = parts[i];
    flow::Arg a;
    if (!p.empty() && p.front() == 'k') {
      a.value = Template::Literal(p.substr(1));
      if ((head & 0x20) != 0) a.value->set_repr_is_text(true);
    }
    a.expression = "v" + std::to_string(i);
    size_t eq = p.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      args.named[std::string(p.substr(0, eq))] = a;
    } else {
      args.positional.push_back(a);
    }
  }
  Template pattern = Template::Literal(parts[0]);
  if ((head & 0x40) != 0) pattern.AppendValue("tail", errdex::ValueKind::kAny);
  Template out = flow::ApplyFormat(kFormats[head % 6], pattern, args);
  // A value that came in stays a value: formatting rewrites literal text only.
  if ((head & 0x40) != 0 && (out.pieces().empty() || !out.pieces().back().is_value)) std::abort();
  out.AssignNames();
  (void)out.Display();
  Template repr;
  flow::AppendReprOf(out, repr);
  (void)repr.Display();
  return 0;
}
