// What the process's allocator does with memory it has freed.
#pragma once

namespace errdex {

// From now on, freed pages stay with the allocator for the rest of the
// process instead of going back to the kernel after a while. For a batch
// run that frees and remakes one revision's worth of objects again and
// again (indexing many revisions): returned pages are faulted in and
// zeroed again a few revisions later. Returns false, and does nothing,
// where the allocator is not jemalloc (the sanitizers' builds).
bool KeepFreedPages();

}  // namespace errdex
