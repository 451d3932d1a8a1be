// `errdex run -- CMD ARGS...`: runs a command with its output passed through
// unchanged and, when it fails, explains the error it died with.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace errdex::cli {

struct RunResult {
  int exit_code = 0;   // the command's, or 128 + signal
  std::string output;  // the end of what it wrote (stderr, then stdout), at most kept bytes
};

// Runs `argv` (no shell), copying its stdout and stderr to ours as they come
// and keeping the last `keep` bytes of each. Fails only if it cannot start.
Result<RunResult> RunCommand(const std::vector<std::string>& argv, size_t keep);

}  // namespace errdex::cli
