// errdex: a catalog of the errors a library can raise, from its source.
#include <iostream>

#include "cli/commands.h"
#include "cli/crash.h"

int main(int argc, char** argv) {
  errdex::cli::ReportCrashes(argc, argv);
  return errdex::cli::Run(argc, argv, std::cout, std::cerr);
}
