// The explaining sections of an error's page (What it means, When it
// happens, Solutions, Example fix) written from the facts alone: every
// sentence comes from the type, kind, sites, triggers, valid values, family
// or labels, and says nothing those do not.
#pragma once

#include "analyze/family.h"
#include "catalog/catalog.h"
#include "core/analysis.h"

namespace errdex::analyze {

// `a` holds the family, labels and valid values already; `site_guards`
// are the parsed conditions of `e`'s sites, in order.
Prose WriteProse(const catalog::ErrorRecord& e, const Analysis& a,
                 const std::vector<std::vector<Guard>>& site_guards);

}  // namespace errdex::analyze
