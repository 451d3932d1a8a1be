// Rewordings: an error that stops being raised after one version and an
// error that starts in the next, raised by the same function of the same
// file, are one error whose text changed.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "core/analysis.h"

namespace errdex::analyze {

// `errors` are one library's, each with its versions (ErrorRecord::versions,
// the same list for all) and the sites of the newest version raising it;
// fills reworded_from / reworded_to of the parallel `analyses`.
void LinkRewordings(const std::vector<const catalog::ErrorRecord*>& errors,
                    const std::vector<Analysis*>& analyses);

}  // namespace errdex::analyze
