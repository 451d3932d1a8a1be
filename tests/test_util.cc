#include "test_util.h"

#include <cstdio>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "extract/extractor.h"
#include "source/walk.h"

namespace errdex::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path p = fs::temp_directory_path() / ("errdex-test-" + std::to_string(rd()));
    if (fs::create_directory(p)) {
      path_ = p;
      return;
    }
  }
  ADD_FAILURE() << "cannot create a temporary directory";
}

namespace {

// The tests' server: its socket directory, from ERRDEX_TEST_PG's file.
std::string PostgresHost() {
  const char* state = std::getenv("ERRDEX_TEST_PG");
  if (state == nullptr || *state == '\0') return "";
  std::ifstream in(state);
  std::string dir;
  std::getline(in, dir);
  return dir;
}

// Runs `sql` as the server's superuser; "" or libpq's complaint.
std::string AdminSql(const std::string& sql) {
  std::string host = PostgresHost();
  if (host.empty()) {
    return "the PostgreSQL test server is not running (no directory in $ERRDEX_TEST_PG: run the "
           "suite with ctest, whose pg_server fixture starts it)";
  }
  return PostgresExec("host='" + host + "' user=postgres dbname=postgres connect_timeout=10", sql);
}

}  // namespace

std::string PostgresExec(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = "cannot reach PostgreSQL at " + url + ": " + PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
      out = sql + ": " + PQresultErrorMessage(r);
    }
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

bool TestingPostgres() {
  const char* state = std::getenv("ERRDEX_TEST_PG");
  return state != nullptr && *state != '\0';
}

std::string TempDir::Catalog(const std::string& name) const {
  if (!TestingPostgres()) return (path_ / name).string();
  auto known = databases_.find(name);
  if (known == databases_.end()) {
    static int counter = 0;
    std::string db = "errdex_test_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    std::string failed = AdminSql("CREATE DATABASE " + db + " TEMPLATE template0");
    if (!failed.empty()) ADD_FAILURE() << failed;
    known = databases_.emplace(name, db).first;
  }
  return "postgresql:///" + known->second + "?host=" + PostgresHost() + "&user=postgres";
}

TempDir::~TempDir() {
  for (const auto& [name, db] : databases_) {
    (void)AdminSql("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
  }
  std::error_code ec;
  // Tests chmod things; make sure everything can be removed.
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

fs::path TempDir::Write(const std::string& relative, const std::string& content) const {
  fs::path p = path_ / relative;
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << content;
  return p;
}

fs::path SourceDir() { return ERRDEX_SOURCE_DIR; }

fs::path FixtureDir(const std::string& name) { return SourceDir() / "tests" / "fixtures" / name; }

std::vector<std::pair<fs::path, std::string>> PythonFixtures() {
  std::vector<std::pair<fs::path, std::string>> out;
  for (const auto& entry : fs::recursive_directory_iterator(SourceDir() / "tests" / "fixtures")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    out.emplace_back(entry.path(), std::string((std::istreambuf_iterator<char>(in)),
                                               std::istreambuf_iterator<char>()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int Git(const std::filesystem::path& dir, const std::string& args, const std::string& date) {
  std::string cmd = "cd '" + dir.string() + "' && GIT_AUTHOR_DATE='" + date +
                    "' GIT_COMMITTER_DATE='" + date +
                    "' git -c user.name=t -c user.email=t@example.invalid "
                    "-c init.defaultBranch=main -c advice.detachedHead=false " +
                    args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

std::vector<nlohmann::json> JsonLines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

uint32_t PropertySeed(uint32_t fixed) {
  const char* env = std::getenv("ERRDEX_PROPERTY_SEED");
  return env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : fixed;
}

std::string ReadFileOrEmpty(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) r.out.append(buf, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

Extraction ExtractTree(const std::filesystem::path& root) {
  source::WalkOptions walk;
  walk.want = extract::IsSourcePath;
  Result<source::WalkResult> files = source::Walk(root, walk);
  EXPECT_TRUE(files.has_value());
  if (!files) return {};
  extract::Options options;
  options.jobs = 2;
  return extract::ExtractFiles(files->files, options);
}

CommandResult RunPython(const std::filesystem::path& script, const std::string& args) {
  return RunCommand("python3 '" + script.string() + "' " + args + " 2>&1");
}

const char* const kPythonCallsHarness = R"PY(
import json
out = {}
for name, f in CALLS:
    try:
        f()
        out[name] = None
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
print(json.dumps(out))
)PY";

nlohmann::json RunPythonForJson(const std::string& program) {
  TempDir dir;
  std::filesystem::path script = dir.Write("check.py", program);
  if (const char* dump = std::getenv("ERRDEX_PROPERTY_DUMP")) {
    std::filesystem::copy_file(script, dump, std::filesystem::copy_options::overwrite_existing);
  }
  CommandResult run = RunPython(script);
  if (run.exit_code != 0) {
    ADD_FAILURE() << "python3 exited " << run.exit_code << ": " << run.out.substr(0, 4000);
    return nullptr;
  }
  nlohmann::json printed = nlohmann::json::parse(run.out, nullptr, false);
  if (printed.is_discarded()) {
    ADD_FAILURE() << "python3 printed no JSON: " << run.out.substr(0, 4000);
    return nullptr;
  }
  return printed;
}

CommandResult RunErrdex(const std::vector<std::string>& args, const std::string& input) {
  return RunErrdexAt(ERRDEX_BINARY, args, input);
}

CommandResult RunErrdexAt(const std::string& executable, const std::vector<std::string>& args,
                          const std::string& input) {
  // errdex may exit before reading all of `input` (it refuses large input):
  // a write to the closed pipe must fail, not kill the test.
  signal(SIGPIPE, SIG_IGN);
  CommandResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return result;
  // Everything the child needs is built before fork: a test that serves
  // from other threads may fork while one of them holds the allocator's
  // lock, and a child that allocates then waits for it for ever.
  std::string binary = executable;
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  argv.push_back(binary.data());
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  size_t written = 0;
  fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  bool in_open = true;
  if (input.empty()) {
    close(in_pipe[1]);
    in_open = false;
  }
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[3] = {{out_pipe[0], POLLIN, 0},
                     {err_pipe[0], POLLIN, 0},
                     {in_open ? in_pipe[1] : -1, POLLOUT, 0}};
    // No timeout of its own: a quiet minute is normal for a long index run
    // (--quiet), and giving up then kept half a line of its output. CTest's
    // timeout ends a child that really hangs.
    int ready = poll(fds, 3, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    if (in_open && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in_pipe[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == input.size()) {
        close(in_pipe[1]);
        in_open = false;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  if (in_open) close(in_pipe[1]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

int StartErrdex(const std::vector<std::string>& args, const std::filesystem::path& output) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  std::string binary = ERRDEX_BINARY;
  argv.push_back(binary.data());
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);  // or the child writes what this process has buffered
  pid_t pid = fork();
  if (pid == 0) {
    int out_fd = open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  fs::path path = SourceDir() / "tests" / "golden" / name;
  const char* update = std::getenv("ERRDEX_UPDATE_GOLDEN");
  if (update != nullptr && std::strcmp(update, "1") == 0) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with ERRDEX_UPDATE_GOLDEN=1";
  std::string expected = ReadFileOrEmpty(path);
  if (expected == actual) return;
  // Show the first differing line rather than two walls of text.
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (true) {
    bool more_e = static_cast<bool>(std::getline(e, el));
    bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) break;
    if (el != al || more_e != more_a) {
      ADD_FAILURE() << name << " differs at line " << line << "\n  expected: " << el
                    << "\n  actual:   " << al
                    << "\n(ERRDEX_UPDATE_GOLDEN=1 rewrites the golden file)";
      return;
    }
    ++line;
  }
}

}  // namespace errdex::testing
