#include "core/memory.h"

#include <sys/types.h>

#include <cstddef>
#include <initializer_list>
#include <string>

// jemalloc's control interface, weak: the binaries link jemalloc, the
// sanitizers' builds and some tests do not, and there it is null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace errdex {

bool KeepFreedPages() {
  if (mallctl == nullptr) return false;
  // -1: never decay. First the default of arenas made later (jemalloc makes
  // the one for large objects on first use, with a decay of 0 unless this
  // default is -1), then each arena there is: "arena.<i>" takes no
  // all-arenas index for these two.
  ssize_t never = -1;
  bool ok = true;
  for (const char* name : {"arenas.dirty_decay_ms", "arenas.muzzy_decay_ms"}) {
    ok = mallctl(name, nullptr, nullptr, &never, sizeof(never)) == 0 && ok;
  }
  unsigned arenas = 0;
  size_t size = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) return false;
  for (unsigned i = 0; i < arenas; ++i) {
    // An index not made yet fails, and is covered by the default above.
    for (const char* what : {"dirty", "muzzy"}) {
      std::string name = "arena." + std::to_string(i) + "." + what + "_decay_ms";
      mallctl(name.c_str(), nullptr, nullptr, &never, sizeof(never));
    }
  }
  return ok;
}

}  // namespace errdex
