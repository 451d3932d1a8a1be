// Human-readable renderings of catalog records for the terminal.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace errdex::cli {

struct Style {
  bool color = false;
};

// One line per error: id, exception, template, site count.
// Terminal output must not let catalog or pasted text (third-party source)
// move the cursor or change colours: control characters are shown escaped.
std::string Printable(std::string_view text);

void RenderErrorLine(const catalog::ErrorRecord& e, const Style& style, std::ostream& out);

// The whole record: header, template, every site with its excerpt.
void RenderError(const catalog::ErrorRecord& e, const Style& style, std::ostream& out);

void RenderStats(const catalog::Stats& s, std::ostream& out);

}  // namespace errdex::cli
