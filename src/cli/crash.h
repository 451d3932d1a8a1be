#pragma once

namespace errdex::cli {

// On a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), says on stderr
// which command crashed and the functions and lines on the stack, then
// dies of the same signal. A report from a CI machine or a user's run is
// otherwise one exit status.
void ReportCrashes(int argc, char** argv);

}  // namespace errdex::cli
