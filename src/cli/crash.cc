#include "cli/crash.h"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace errdex::cli {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// Everything the handler reads is set up before any crash: it may run
// with the allocator's lock held by the thread that crashed.
char g_executable[4096];
char g_addr2line[4096];  // its path on PATH, or empty
uintptr_t g_bias = 0;  // the executable's load address (it is built as PIE)
uintptr_t g_text_begin = 0, g_text_end = 0;
char g_command[64];
alignas(16) char g_alternate_stack[1 << 16];

int FindExecutable(dl_phdr_info* info, size_t /*size*/, void* /*data*/) {
  // The first object listed is the executable itself.
  g_bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (g_text_begin == 0 || begin < g_text_begin) g_text_begin = begin;
    if (begin + ph.p_memsz > g_text_end) g_text_end = begin + ph.p_memsz;
  }
  return 1;
}

void Write(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void Write(const char* s) { Write(s, strlen(s)); }

// `value` as 0x… into `out` (at least 19 bytes).
void Hex(uintptr_t value, char* out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value != 0);
  *out++ = '0';
  *out++ = 'x';
  while (n > 0) *out++ = digits[--n];
  *out = '\0';
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a signal";
  }
}

// Names the functions of the executable's frames with addr2line (binutils,
// there wherever errdex was built) in a child: the handler itself must not
// read debug information. Frames elsewhere are listed by their library, in
// stack order; without addr2line every frame is listed so.
bool NameFrames(void* const* frames, int n) {
  char addresses[64][20];
  const char* argv[64 + 10];
  int argc = 0;
  if (g_addr2line[0] == '\0') return false;
  for (const char* a : {"addr2line", "-C", "-f", "-i", "-p", "-e"}) argv[argc++] = a;
  argv[argc++] = g_executable;
  for (int i = 0; i < n; ++i) {
    // A return address is the instruction after the call: one back is the call's line.
    Hex(reinterpret_cast<uintptr_t>(frames[i]) - 1 - g_bias, addresses[i]);
    argv[argc++] = addresses[i];
  }
  argv[argc] = nullptr;
  // Not fork(): glibc's takes the allocator's locks, which the crashing
  // thread may hold (a double free's abort) once errdex has had threads.
  // The system call copies the process and runs no handlers.
  auto child = static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
  if (child == 0) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execve(g_addr2line, const_cast<char* const*>(argv), environ);
    _exit(127);
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

bool InExecutable(void* frame) {
  auto pc = reinterpret_cast<uintptr_t>(frame);
  return pc >= g_text_begin && pc < g_text_end;
}

void OnCrash(int sig, siginfo_t* /*info*/, void* /*context*/) {
  Write("errdex: crashed (");
  Write(SignalName(sig));
  Write(") during `errdex ");
  Write(g_command);
  Write("`; this is a bug in errdex. Where it happened:\n");
  void* frames[64];
  int n = backtrace(frames, 64);
  // The first frame is this handler's.
  for (int i = 1; i < n;) {
    int j = i;
    while (j < n && InExecutable(frames[j]) == InExecutable(frames[i])) ++j;
    if (!InExecutable(frames[i]) || !NameFrames(frames + i, j - i)) {
      backtrace_symbols_fd(frames + i, j - i, STDERR_FILENO);
    }
    i = j;
  }
  // The default action, so that whoever ran errdex sees the signal.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void ReportCrashes(int argc, char** argv) {
  // The sanitizers report a crash better, and their handler is installed first.
  if (kSanitized) return;
  ssize_t n = readlink("/proc/self/exe", g_executable, sizeof g_executable - 1);
  if (n <= 0) return;
  g_executable[n] = '\0';
  dl_iterate_phdr(FindExecutable, nullptr);
  if (argc > 1) strncpy(g_command, argv[1], sizeof g_command - 1);
  // The handler may not search PATH (execvp allocates): looked up now.
  if (const char* path = getenv("PATH")) {
    for (const char* dir = path; *dir != '\0';) {
      const char* end = strchr(dir, ':');
      size_t len = end == nullptr ? strlen(dir) : static_cast<size_t>(end - dir);
      if (len > 0 && len + sizeof "/addr2line" < sizeof g_addr2line) {
        memcpy(g_addr2line, dir, len);
        memcpy(g_addr2line + len, "/addr2line", sizeof "/addr2line");
        if (access(g_addr2line, X_OK) == 0) break;
      }
      g_addr2line[0] = '\0';
      if (end == nullptr) break;
      dir = end + 1;
    }
  }
  // backtrace() loads libgcc on its first call, which allocates: done here.
  void* warm[1];
  backtrace(warm, 1);
  // A stack overflow on the main thread still has a stack to report on.
  stack_t alternate{};
  alternate.ss_sp = g_alternate_stack;
  alternate.ss_size = sizeof g_alternate_stack;
  sigaltstack(&alternate, nullptr);
  struct sigaction action {};
  action.sa_sigaction = OnCrash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  // Another of them while the report is written ends the process at once.
  sigemptyset(&action.sa_mask);
  for (int sig : kCrashSignals) sigaddset(&action.sa_mask, sig);
  for (int sig : kCrashSignals) sigaction(sig, &action, nullptr);
}

}  // namespace errdex::cli
