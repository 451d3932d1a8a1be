// Human-readable renderings of catalog records for the terminal.
#pragma once

#include <ostream>

#include "catalog/catalog.h"

namespace errdex::cli {

struct Style {
  bool color = false;
};

// One line per error: id, exception, template, site count.
void RenderErrorLine(const catalog::ErrorRecord& e, const Style& style, std::ostream& out);

// The whole record: header, template, every site with its excerpt.
void RenderError(const catalog::ErrorRecord& e, const Style& style, std::ostream& out);

void RenderStats(const catalog::Stats& s, std::ostream& out);

}  // namespace errdex::cli
