#include "cli/run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errdex::cli {
namespace {

void Keep(std::string& buffer, const char* data, size_t n, size_t keep) {
  buffer.append(data, n);
  if (buffer.size() > keep + keep / 2) buffer.erase(0, buffer.size() - keep);
}

void WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // our own output is gone: keep draining the child
    data += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

Result<RunResult> RunCommand(const std::vector<std::string>& argv, size_t keep) {
  if (argv.empty()) return Fail(ErrorCode::kInvalidArgument, "no command to run");
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  // Built before fork: between fork and exec the child only makes system
  // calls, never allocates (another thread may hold the allocator's lock).
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Fail(ErrorCode::kIo, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0]}) close(fd);
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(exec_pipe[1], &e, sizeof e);
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    close(exec_pipe[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    return Fail(ErrorCode::kNotFound, "cannot run " + argv[0] + ": " + std::strerror(exec_errno));
  }
  close(exec_pipe[0]);
  // Ctrl-C reaches the command (same process group); we wait for it to end.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  std::string out_tail, err_tail;
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0},
                     {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      WriteAll(i == 0 ? 1 : 2, buf, static_cast<size_t>(n));
      Keep(i == 0 ? out_tail : err_tail, buf, static_cast<size_t>(n), keep);
    }
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // A traceback goes to stderr; stdout can hold the error of a program that
  // prints its own.
  r.output = err_tail.size() > keep ? err_tail.substr(err_tail.size() - keep) : err_tail;
  if (r.output.find_first_not_of(" \n\t") == std::string::npos) {
    r.output = out_tail.size() > keep ? out_tail.substr(out_tail.size() - keep) : out_tail;
  }
  return r;
}

}  // namespace errdex::cli
