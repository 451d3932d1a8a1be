# Finds errdex's dependencies; each failure names the Debian package to install.
include(FindPkgConfig)

function(errdex_require_pkg prefix module debian_package)
  pkg_check_modules(${prefix} IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${module} not found: apt-get install ${debian_package}")
  endif()
  set(${prefix}_VERSION "${${prefix}_VERSION}" PARENT_SCOPE)
endfunction()

macro(errdex_require_cmake_package name debian_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "${name} not found: apt-get install ${debian_package}")
  endif()
endmacro()

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: apt-get install pkg-config")
endif()

errdex_require_pkg(TREE_SITTER tree-sitter libtree-sitter-dev)
errdex_require_pkg(LIBGIT2 libgit2 libgit2-dev)
errdex_require_pkg(XXHASH libxxhash libxxhash-dev)
errdex_require_pkg(HTTPLIB cpp-httplib libcpp-httplib-dev)
errdex_require_cmake_package(SQLite3 libsqlite3-dev)
# The PostgreSQL backend of the catalog (src/catalog/postgres.cc).
errdex_require_pkg(LIBPQ libpq libpq-dev)
# The web server: Boost.Beast and Asio (header-only) and zlib for gzip.
errdex_require_cmake_package(Boost libboost-dev 1.74 CONFIG)
errdex_require_cmake_package(ZLIB zlib1g-dev)
errdex_require_cmake_package(fmt libfmt-dev)
errdex_require_cmake_package(nlohmann_json nlohmann-json3-dev)
errdex_require_cmake_package(CLI11 libcli11-dev)
errdex_require_cmake_package(tl-expected libexpected-dev)
find_package(Threads REQUIRED)
# jemalloc for the binaries: extraction allocates and frees millions of small
# tree and record objects on several threads, and glibc's allocator spent
# about a sixth of an index run in _int_malloc, consolidation and page faults
# (bench/README.md). Not under the sanitizers or libFuzzer, which bring their
# own allocator.
if(NOT ERRDEX_SANITIZE AND NOT ERRDEX_FUZZ)
  errdex_require_pkg(JEMALLOC jemalloc libjemalloc-dev)
  # jemalloc with errdex's options (src/alloc/jemalloc_conf.cc), compiled
  # into each executable that links it: the options are a global the
  # library reads before main, so they cannot sit in a static library the
  # linker may leave out.
  add_library(errdex_allocator INTERFACE)
  target_sources(errdex_allocator INTERFACE "${PROJECT_SOURCE_DIR}/src/alloc/jemalloc_conf.cc")
  target_link_libraries(errdex_allocator INTERFACE PkgConfig::JEMALLOC)
endif()
if(ERRDEX_TESTS)
  errdex_require_cmake_package(GTest googletest)
endif()
if(ERRDEX_BENCH)
  errdex_require_cmake_package(benchmark libbenchmark-dev)
endif()
