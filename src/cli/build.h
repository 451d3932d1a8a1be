// `errdex build MANIFEST`: indexes the libraries a manifest lists into one
// catalog, each by an `errdex index` process of its own, several at once.
// The manifest's format is doc/build.md's.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"

namespace errdex::cli {

struct BuildArgs {
  std::string manifest;  // its path
  std::string repos;     // --repos: where entries without a `path` are found
  std::string db;        // the catalog, resolved (--db, $ERRDEX_DB or the default)
  int jobs = 1;          // indexer processes at once
  int threads = 0;       // worker threads of each; 0: the cores shared among them
  bool force = false;    // read every revision again, even one stored unchanged
  bool json = false;
};

// Returns the exit code: 0 when every library is in the catalog; 2 for a
// manifest that cannot be used, with nothing written; 1 when some library
// failed to index (the others are written). Fails for what stops the whole
// run (the catalog cannot be opened, a process cannot be started).
Result<int> RunBuild(const BuildArgs& args, std::ostream& out, std::ostream& err);

}  // namespace errdex::cli
