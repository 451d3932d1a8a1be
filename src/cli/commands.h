// The `errdex` command line: parses arguments and runs one subcommand.
#pragma once

#include <ostream>

namespace errdex::cli {

// Runs the command line `argv`, writing results to `out` and diagnostics to
// `err`. Returns the process exit code: 0 success, 1 failure, 2 usage error.
int Run(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace errdex::cli
