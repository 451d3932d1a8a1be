// KeepFreedPages: after it, no arena of jemalloc's hands freed pages back
// to the kernel, neither those there already nor those made later. Run
// where the test binary has jemalloc (tests/CMakeLists.txt links it in
// when errdex's binaries have it); skipped under the sanitizers.
#include "core/memory.h"

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdlib>
#include <string>

extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace errdex {
namespace {

ssize_t Read(const std::string& name) {
  ssize_t v = 0;
  size_t size = sizeof(v);
  EXPECT_EQ(mallctl(name.c_str(), &v, &size, nullptr, 0), 0) << name;
  return v;
}

TEST(KeepFreedPages, NoArenaGivesPagesBackAfterIt) {
  if (mallctl == nullptr) GTEST_SKIP() << "built without jemalloc";
  void* p = std::malloc(1 << 20);  // arena 0 in use before the call
  std::free(p);
  ASSERT_NE(Read("arena.0.dirty_decay_ms"), -1) << "jemalloc's default already keeps them";
  ASSERT_TRUE(KeepFreedPages());
  for (const char* what : {"dirty", "muzzy"}) {
    SCOPED_TRACE(what);
    EXPECT_EQ(Read(std::string("arenas.") + what + "_decay_ms"), -1);
    EXPECT_EQ(Read(std::string("arena.0.") + what + "_decay_ms"), -1);
  }
  unsigned made = 0;
  size_t size = sizeof(made);
  ASSERT_EQ(mallctl("arenas.create", &made, &size, nullptr, 0), 0);
  EXPECT_EQ(Read("arena." + std::to_string(made) + ".dirty_decay_ms"), -1);
  EXPECT_EQ(Read("arena." + std::to_string(made) + ".muzzy_decay_ms"), -1);
}

}  // namespace
}  // namespace errdex
