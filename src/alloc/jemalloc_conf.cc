// jemalloc's options, read once when the allocator starts (before main).
//
// Transparent huge pages for jemalloc's own mappings: an index keeps
// hundreds of MB of trees and records alive at once, and with 4 KiB pages
// it spent a tenth of its time on first-touch page faults (one per page,
// costly under a hypervisor) and more on TLB misses while tree-sitter walks
// its nodes. Measured in bench/README.md ("Huge pages for the allocator").
// The kernel's default THP mode, madvise, honours this; MALLOC_CONF in the
// environment still overrides it.
//
// Freed pages are kept 30 s before they go back to the kernel, not 10:
// indexing revisions frees one revision's results while the next one's are
// made, and pages returned at 10 s were faulted in (and zeroed) again a
// few revisions later. Same section of bench/README.md. A run of many
// revisions keeps them all (KeepFreedPages, src/core/memory.h).
//
// One arena for every thread: the parse's workers allocate what the link's
// thread frees, and with an arena per thread each held its own high-water
// mark of freed pages; with pages kept through a run, that was a third
// more peak memory. One arena cost nothing measurable on one revision with
// two workers, whose small objects come from per-thread caches anyway
// (bench/README.md, "Freed pages kept through a run of revisions").
extern "C" {
// NOLINTNEXTLINE: the name is jemalloc's interface, read by the library.
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,narenas:1,dirty_decay_ms:30000,muzzy_decay_ms:30000";
}
