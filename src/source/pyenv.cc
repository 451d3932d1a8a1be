#include "source/pyenv.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <fstream>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace errdex::source {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Printed after a marker so that whatever a sitecustomize prints on stdout
// is not taken for the answer. Paths that are not UTF-8 stop the script
// with a message rather than reaching JSON as lone surrogates.
constexpr char kMarker[] = "errdex-pyenv ";
constexpr char kScript[] = R"PY(import json, os, site, sys, sysconfig
def p(x):
    if x is None: return None
    try: os.fsencode(x).decode("utf-8")
    except UnicodeError: sys.exit("errdex: a path is not UTF-8: %r" % (x,))
    return x
v = sys.version_info
lvl = {"alpha": "a", "beta": "b", "candidate": "rc"}.get(v.releaselevel, "")
paths = sysconfig.get_paths()
sp = site.getsitepackages() if hasattr(site, "getsitepackages") else []
us = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
same_ids = not hasattr(os, "getuid") or (os.getuid() == os.geteuid() and os.getgid() == os.getegid())
isolated_venv = sys.prefix != sys.base_prefix and sys.base_prefix not in getattr(site, "PREFIXES", [])
print("errdex-pyenv " + json.dumps({
    "executable": p(sys.executable), "implementation": sys.implementation.name,
    "version": "%d.%d.%d" % tuple(v[:3]) + (lvl + str(v.serial) if lvl else ""),
    "version_info": list(v[:3]), "prefix": p(sys.prefix), "base_prefix": p(sys.base_prefix),
    "stdlib": p(paths.get("stdlib")), "platstdlib": p(paths.get("platstdlib")),
    "purelib": p(paths.get("purelib")), "platlib": p(paths.get("platlib")),
    "site_packages": [p(x) for x in sp], "user_site": p(us),
    "user_site_enabled": bool(us) and same_ids and not isolated_venv}))
)PY";

constexpr size_t kMaxOutput = 1u << 20;
constexpr size_t kKeptStderr = 4096;

struct Captured {
  int status = 0;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

// Runs argv with stdin from /dev/null, collecting stdout (up to kMaxOutput)
// and the tail of stderr, killing its process group at the deadline.
Result<Captured> RunCaptured(const std::vector<std::string>& argv,
                             std::chrono::milliseconds timeout) {
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    CloseAll({out_pipe[0], out_pipe[1]});
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    CloseAll({out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]});
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Built before fork: the child only makes system calls until exec
  // (another thread may hold the allocator's lock).
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    CloseAll(
        {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1], null_fd});
    return Fail(ErrorCode::kIo, std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    // Its own process group, so that a timeout also ends what it started.
    ::setpgid(0, 0);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execvp(args[0], args.data());
    int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  CloseAll({out_pipe[1], err_pipe[1], exec_pipe[1], null_fd});
  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  ::close(exec_pipe[0]);
  if (got == sizeof exec_errno) {
    CloseAll({out_pipe[0], err_pipe[0]});
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return Fail(exec_errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                "cannot run " + argv[0] + ": " + std::strerror(exec_errno));
  }
  Captured c;
  bool out_open = true, err_open = true, timed_out = false, too_much = false;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0},
                     {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      std::string& to = i == 0 ? c.out : c.err;
      to.append(buf, static_cast<size_t>(n));
      if (i == 1 && to.size() > 2 * kKeptStderr) to.erase(0, to.size() - kKeptStderr);
      if (i == 0 && to.size() > kMaxOutput) too_much = true;
    }
    if (too_much) break;
  }
  CloseAll({out_pipe[0], err_pipe[0]});
  int status = 0;
  // A child that closed its output may still be running: the deadline
  // holds for its exit too.
  bool reaped = false;
  while (!timed_out && !too_much) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      reaped = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
      break;
    }
    ::usleep(5000);
  }
  if (!reaped) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out) {
    return Fail(ErrorCode::kIo,
                argv[0] + " did not answer within " + std::to_string(timeout.count()) + " ms");
  }
  if (too_much) {
    return Fail(ErrorCode::kCorrupt,
                argv[0] + " printed more than " + std::to_string(kMaxOutput) + " bytes");
  }
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (c.err.size() > kKeptStderr) c.err.erase(0, c.err.size() - kKeptStderr);
  return c;
}

}  // namespace

namespace {

constexpr size_t kMaxField = 4096;

// The script's output is not trusted: each field is checked for its type
// and shape before it is used.
class EnvReader {
 public:
  explicit EnvReader(const json& j) : j_(j) {}

  bool String(const char* key, std::string* out, bool path, bool required = true) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      if (!required) return true;
      return Bad(key, "missing");
    }
    return StringValue(key, *it, out, path, required);
  }

  bool StringValue(const char* key, const json& v, std::string* out, bool path, bool required) {
    if (!v.is_string()) return Bad(key, "not a string");
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() > kMaxField || !IsValidUtf8(s) || s.find('\0') != std::string::npos) {
      return Bad(key, "not a short UTF-8 string");
    }
    if (path && !s.empty() && s[0] != '/') return Bad(key, "not an absolute path");
    if (required && s.empty()) return Bad(key, "empty");
    *out = s;
    return true;
  }

  bool Bad(const char* key, const char* what) {
    if (error_.empty()) error_ = std::string("field '") + key + "' is " + what;
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  const json& j_;
  std::string error_;
};

bool ParseVersion(const std::string& v, int* major, int* minor, int* micro) {
  int parts[3] = {0, 0, 0};
  size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    size_t start = i;
    while (i < v.size() && i - start < 6 && v[i] >= '0' && v[i] <= '9') {
      parts[k] = parts[k] * 10 + (v[i] - '0');
      ++i;
    }
    if (i == start) return false;
    if (k < 2) {
      if (i >= v.size() || v[i] != '.') return false;
      ++i;
    }
  }
  std::string_view rest = std::string_view(v).substr(i);
  if (!rest.empty()) {
    size_t letters = rest.starts_with("rc") ? 2 : (rest[0] == 'a' || rest[0] == 'b') ? 1 : 0;
    std::string_view serial = rest.substr(letters);
    if (letters == 0 || serial.empty() || serial.size() > 4 ||
        serial.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
  }
  *major = parts[0];
  *minor = parts[1];
  *micro = parts[2];
  return true;
}

void AddSiteDir(const fs::path& dir, std::set<fs::path>* seen, std::vector<fs::path>* out) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return;
  fs::path canonical = fs::canonical(dir, ec);
  if (ec || !seen->insert(canonical).second) return;
  out->push_back(dir);
}

}  // namespace

Result<PythonEnv> ParsePythonEnv(std::string_view output) {
  std::string_view line;
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    if (end == std::string_view::npos) end = output.size();
    std::string_view l = output.substr(at, end - at);
    if (l.starts_with(kMarker)) line = l.substr(sizeof kMarker - 1);
    at = end + 1;
  }
  if (line.empty()) {
    return Fail(ErrorCode::kCorrupt, "printed no description (is it a Python 3 interpreter?)");
  }
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Fail(ErrorCode::kCorrupt, "printed a description that is not a JSON object");
  }
  PythonEnv env;
  EnvReader r(j);
  std::string prefix, base_prefix, stdlib, platstdlib, purelib, platlib, user_site;
  bool ok = r.String("executable", &env.executable, true, false) &&
            r.String("implementation", &env.implementation, false) &&
            r.String("version", &env.version, false) && r.String("prefix", &prefix, true) &&
            r.String("base_prefix", &base_prefix, true) && r.String("stdlib", &stdlib, true) &&
            r.String("platstdlib", &platstdlib, true) && r.String("purelib", &purelib, true) &&
            r.String("platlib", &platlib, true) && r.String("user_site", &user_site, true, false);
  if (ok && env.implementation.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
                std::string::npos) {
    ok = r.Bad("implementation", "not a lowercase name");
  }
  if (ok && !ParseVersion(env.version, &env.major, &env.minor, &env.micro)) {
    ok = r.Bad("version", "not a Python version");
  }
  if (ok) {
    auto info = j.find("version_info");
    if (info == j.end() || !info->is_array() || info->size() != 3 || (*info)[0] != env.major ||
        (*info)[1] != env.minor || (*info)[2] != env.micro) {
      ok = r.Bad("version_info", "not the version's three numbers");
    }
  }
  if (ok) {
    auto sp = j.find("site_packages");
    if (sp == j.end() || !sp->is_array() || sp->size() > 64) {
      ok = r.Bad("site_packages", "not a list of paths");
    } else {
      for (const json& v : *sp) {
        std::string s;
        if (!(ok = r.StringValue("site_packages", v, &s, true, true))) break;
        env.site_packages.emplace_back(s);
      }
    }
  }
  if (ok) {
    auto enabled = j.find("user_site_enabled");
    if (enabled == j.end() || !enabled->is_boolean()) {
      ok = r.Bad("user_site_enabled", "not a boolean");
    } else {
      env.user_site_enabled = enabled->get<bool>() && !user_site.empty();
    }
  }
  if (!ok) return Fail(ErrorCode::kCorrupt, "printed an unexpected description: " + r.error());
  env.prefix = prefix;
  env.base_prefix = base_prefix;
  env.stdlib = stdlib;
  env.platstdlib = platstdlib;
  env.purelib = purelib;
  env.platlib = platlib;
  env.user_site = user_site;
  std::set<fs::path> seen;
  if (env.user_site_enabled) AddSiteDir(env.user_site, &seen, &env.site_dirs);
  for (const fs::path& p : env.site_packages) AddSiteDir(p, &seen, &env.site_dirs);
  AddSiteDir(env.purelib, &seen, &env.site_dirs);
  AddSiteDir(env.platlib, &seen, &env.site_dirs);
  return env;
}

Result<PythonEnv> DescribePythonEnv(const std::string& python, const DescribeOptions& options) {
  if (python.empty()) return Fail(ErrorCode::kInvalidArgument, "no Python interpreter given");
  Result<Captured> run = RunCaptured({python, "-I", "-c", kScript}, options.timeout);
  if (!run) return tl::unexpected(run.error());
  std::string err(Trim(run->err));
  if (run->status != 0) {
    return Fail(ErrorCode::kIo, python + " failed (exit status " + std::to_string(run->status) +
                                    ")" + (err.empty() ? "" : ": " + ToValidUtf8(err)));
  }
  Result<PythonEnv> env = ParsePythonEnv(run->out);
  if (!env) {
    std::string shown(TruncateUtf8(ToValidUtf8(Trim(run->out)), 200));
    return Fail(env.error().code, python + " " + env.error().message +
                                      (shown.empty() ? "" : "; it printed: " + shown));
  }
  return env;
}

namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A segment of the catalog's OWNER/REPO (catalog::IsLibraryName's rule).
bool IsNameSegment(std::string_view s) {
  if (s.empty() || s.size() > 100 || s[0] == '.' || s.find("..") != std::string_view::npos) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

// PEP 508's name: letters and digits, with '.', '_', '-' inside.
bool IsDistName(std::string_view s) {
  if (s.empty() || s.size() > 150 || !IsAsciiAlnum(s.front()) || !IsAsciiAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

// Loose on purpose (legacy versions are not PEP 440), strict on what could
// harm a file name, a URL or a terminal.
bool IsDistVersion(std::string_view s) {
  if (s.empty() || s.size() > 100 || !IsAsciiAlnum(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '!';
  });
}

// Known forges whose URLs name a repository as /OWNER/REPO.
bool IsForge(std::string_view host) {
  return host == "github.com" || host == "gitlab.com" || host == "codeberg.org" ||
         host == "bitbucket.org";
}

// First path segments that are pages of the forge, not owners.
bool IsReservedOwner(std::string_view owner) {
  static const std::set<std::string, std::less<>> kReserved = {
      "sponsors", "orgs",  "apps",     "marketplace", "topics", "features", "settings",
      "about",    "login", "join",     "explore",     "users",  "groups",   "dashboard",
      "help",     "-",     "security", "collections", "site",   "search",   "enterprise"};
  return kReserved.count(Lower(owner)) > 0;
}

// GitLab paths before "/-/" may be subgroups; these older page names end
// the repository's part without it.
bool IsGitlabPage(std::string_view s) {
  return s == "issues" || s == "tree" || s == "blob" || s == "merge_requests" || s == "wikis" ||
         s == "raw" || s == "commits" || s == "tags" || s == "releases" || s == "pipelines";
}

}  // namespace

std::string NormalizeDistName(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      in_run = true;
      continue;
    }
    if (in_run && !out.empty()) out += '-';
    in_run = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

RepositoryRef RepositoryFromUrl(std::string_view url) {
  url = Trim(url);
  if (url.size() > 2048 ||
      !std::all_of(url.begin(), url.end(), [](char c) { return c > ' ' && c < 0x7f; })) {
    return {};
  }
  std::string lower = Lower(url);
  size_t scheme_end = lower.find("://");
  if (scheme_end == std::string::npos) return {};
  std::string scheme = lower.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https" && scheme != "git+https") return {};
  std::string_view rest = url.substr(scheme_end + 3);
  size_t path_at = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_at);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  std::string host = Lower(authority.substr(0, authority.find(':')));
  if (host.empty()) return {};
  if (host.starts_with("www.")) host.erase(0, 4);
  RepositoryRef ref;
  ref.url = std::string(url);
  if (!IsForge(host)) return ref;
  std::string_view path = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  path = path.substr(0, path.find_first_of("?#"));
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    if (!seg.empty()) segments.push_back(seg);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  if (segments.size() < 2 || IsReservedOwner(segments[0])) return {};
  if (host == "gitlab.com" && segments.size() > 2 && segments[2] != "-" &&
      !IsGitlabPage(segments[2])) {
    return ref;  // a subgroup: no OWNER/REPO for it
  }
  std::string_view owner = segments[0];
  std::string_view repo = segments[1];
  if (repo.size() > 4 && Lower(repo.substr(repo.size() - 4)) == ".git") {
    repo.remove_suffix(4);
  }
  if (!IsNameSegment(owner) || !IsNameSegment(repo)) return ref;
  ref.url = "https://" + host + "/" + std::string(owner) + "/" + std::string(repo);
  ref.library = Lower(owner) + "/" + Lower(repo);
  return ref;
}

namespace {

struct Header {
  std::string name;  // lowercased
  std::string value;
};

// RFC 822-style headers up to the first blank line (the body is the long
// description). Lines that are neither a header nor a continuation are
// ignored: metadata written by hand or damaged still gives what it can.
std::vector<Header> ParseHeaders(std::string_view text) {
  std::vector<Header> headers;
  bool last_was_header = false;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      if (last_was_header && headers.back().value.size() < 65536) {
        headers.back().value += '\n';
        headers.back().value += Trim(line);
      }
      continue;
    }
    size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    last_was_header = colon != std::string_view::npos && !name.empty() && name.size() <= 64 &&
                      std::all_of(name.begin(), name.end(),
                                  [](char c) { return IsAsciiAlnum(c) || c == '-' || c == '_'; });
    if (last_was_header)
      headers.push_back({Lower(name), std::string(Trim(line.substr(colon + 1)))});
  }
  return headers;
}

const std::string* FirstHeader(const std::vector<Header>& headers, std::string_view name) {
  for (const Header& h : headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

// 0: names the source; 1: a home page; 2: anything else that is not
// about money; -1: ignored.
int LabelRank(std::string_view label) {
  std::string l;
  for (char c : label) {
    if (IsAsciiAlnum(c)) l += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  static const std::set<std::string, std::less<>> kSource = {
      "source", "sourcecode", "sources", "repository", "repo", "code", "github", "gitlab", "git"};
  static const std::set<std::string, std::less<>> kHome = {"homepage", "home", "upstream",
                                                           "website"};
  if (kSource.count(l)) return 0;
  if (kHome.count(l)) return 1;
  if (l.find("fund") != std::string::npos || l.find("donat") != std::string::npos ||
      l.find("sponsor") != std::string::npos || l.find("tidelift") != std::string::npos) {
    return -1;
  }
  return 2;
}

// Picks the repository among the metadata's URLs: a forge URL under the
// best-ranked label, else the best-ranked source or home page as written.
RepositoryRef ChooseRepository(const std::vector<Header>& headers) {
  struct Candidate {
    int rank;
    RepositoryRef ref;
  };
  std::vector<Candidate> candidates;
  for (const Header& h : headers) {
    if (h.name == "project-url") {
      size_t comma = h.value.find(',');
      std::string_view label = comma == std::string::npos
                                   ? std::string_view()
                                   : std::string_view(h.value).substr(0, comma);
      std::string_view url = comma == std::string::npos
                                 ? std::string_view(h.value)
                                 : std::string_view(h.value).substr(comma + 1);
      int rank = LabelRank(label);
      if (rank >= 0) candidates.push_back({rank, RepositoryFromUrl(url)});
    }
  }
  // Home-page comes after the Project-URL home pages it usually repeats.
  if (const std::string* home = FirstHeader(headers, "home-page")) {
    candidates.push_back({1, RepositoryFromUrl(*home)});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
  for (const Candidate& c : candidates) {
    if (!c.ref.library.empty()) return c.ref;
  }
  for (const Candidate& c : candidates) {
    if (c.rank <= 1 && !c.ref.url.empty()) return c.ref;
  }
  return {};
}

// The first field of each CSV record (Python's csv module's default
// dialect: quotes doubled inside quoted fields, which may hold commas and
// line breaks).
std::vector<std::string> CsvFirstFields(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    std::string field;
    if (text[i] == '"') {
      ++i;
      while (i < text.size()) {
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
    }
    // Unquoted text (or whatever follows a closing quote) up to the
    // field's end.
    while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
      field += text[i++];
    }
    out.push_back(std::move(field));
    // Skip the rest of the record, minding quotes that hide line breaks.
    bool quoted = false;
    while (i < text.size()) {
      char c = text[i++];
      if (c == '"') quoted = !quoted;
      if (!quoted && c == '\n') break;
    }
  }
  return out;
}

// A path from a file list, relative to the site dir once `base` (segments
// the list's paths are relative to) is applied; nullopt when it is
// absolute, leaves the site dir, or cannot be a file name.
std::optional<std::string> SiteRelative(std::string_view base, std::string_view raw) {
  if (raw.empty() || raw.size() > 4096 || raw[0] == '/' ||
      raw.find('\0') != std::string_view::npos || raw.find('\\') != std::string_view::npos ||
      !IsValidUtf8(raw)) {
    return std::nullopt;
  }
  if (raw.size() >= 2 && raw[1] == ':') return std::nullopt;  // C:/...
  std::vector<std::string_view> segments;
  for (std::string_view part : {base, raw}) {
    while (!part.empty()) {
      size_t slash = part.find('/');
      std::string_view seg = part.substr(0, slash);
      if (seg == "..") {
        if (segments.empty()) return std::nullopt;
        segments.pop_back();
      } else if (!seg.empty() && seg != ".") {
        segments.push_back(seg);
      }
      if (slash == std::string_view::npos) break;
      part.remove_prefix(slash + 1);
    }
  }
  if (segments.empty()) return std::nullopt;
  std::string out;
  for (std::string_view seg : segments) {
    if (!out.empty()) out += '/';
    out += seg;
  }
  return out;
}

class DistReader {
 public:
  DistReader(const DistributionOptions& options, std::vector<FileIssue>* issues)
      : options_(options), issues_(issues) {}

  void Issue(const fs::path& path, std::string reason, std::string detail, bool skipped = true) {
    if (issues_ != nullptr) {
      issues_->push_back(FileIssue{path.string(), std::move(reason), std::move(detail), skipped});
    }
  }

  bool Wanted(std::string_view rel) const { return !options_.want || options_.want(rel); }

  // Adds `rel` to the distribution's files if it is wanted and is a
  // readable file under the site dir. `listed`: the metadata names this
  // file as installed, so its absence is worth a warning.
  void AddFile(const fs::path& site_real, const std::string& rel, bool listed, Distribution& d) {
    if (!Wanted(rel)) return;
    fs::path absolute = d.site_dir / rel;
    std::error_code ec;
    fs::path real = fs::canonical(absolute, ec);
    if (ec) {
      if (listed) Issue(absolute, "missing", ec.message());
      return;
    }
    if (!IsInsideDirectory(real, site_real)) {
      Issue(absolute, "symlink-outside-root", real.string());
      return;
    }
    struct stat st;
    if (::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      Issue(absolute, "not-regular-file", "not a regular file");
      return;
    }
    auto size = static_cast<uint64_t>(st.st_size);
    if (size == 0) {
      Issue(absolute, "empty", "");
    } else if (size > options_.max_file_size) {
      Issue(absolute, "too-large",
            std::to_string(size) + " bytes > limit " + std::to_string(options_.max_file_size));
    } else {
      d.files.push_back(SourceFile{rel, absolute, size, ""});
    }
  }

  const DistributionOptions& options() const { return options_; }

 private:
  const DistributionOptions& options_;
  std::vector<FileIssue>* issues_;
};

}  // namespace

namespace {

constexpr uint64_t kMaxSmallFile = 64u << 10;

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    if (!line.empty()) out.emplace_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

std::vector<std::string> ReadTopLevel(const fs::path& file) {
  std::vector<std::string> out;
  Result<std::string> text = ReadFilePrefix(file, kMaxSmallFile);
  if (!text) return out;
  for (std::string& line : Lines(*text)) {
    if (IsNameSegment(line) && std::find(out.begin(), out.end(), line) == out.end()) {
      out.push_back(std::move(line));
    }
  }
  return out;
}

bool ReadEditable(const fs::path& file) {
  Result<std::string> text = ReadFilePrefix(file, kMaxSmallFile);
  if (!text) return false;
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto dir_info = j.find("dir_info");
  if (dir_info == j.end() || !dir_info->is_object()) return false;
  auto editable = dir_info->find("editable");
  return editable != dir_info->end() && editable->is_boolean() && editable->get<bool>();
}

// Without a file list (Debian strips RECORD; egg-info from distro packages
// has none), the top-level packages named in top_level.txt, or guessed from
// the distribution's name, are read whole.
void FilesFromTopLevel(DistReader& reader, const fs::path& site_real, Distribution& d) {
  std::vector<std::string> names = d.top_level;
  if (names.empty()) {
    std::string guess = d.normalized_name;
    std::replace(guess.begin(), guess.end(), '-', '_');
    names.push_back(guess);
  }
  for (std::string name : names) {
    std::error_code ec;
    fs::path dir = d.site_dir / name;
    // A namespace package (no __init__.py) is shared: "lazr.uri" and
    // "lazr.restfulclient" both list "lazr"; each takes its own part.
    std::string own =
        d.name.size() > name.size() + 1 && d.name.starts_with(name) && d.name[name.size()] == '.'
            ? d.name.substr(name.size() + 1)
            : "";
    std::replace(own.begin(), own.end(), '.', '/');
    if (!own.empty() && fs::is_directory(dir, ec) && !fs::exists(dir / "__init__.py", ec) &&
        (fs::is_directory(dir / own, ec) || fs::is_regular_file(dir / (own + ".py"), ec))) {
      name += "/" + own;
      dir = d.site_dir / name;
    }
    if (fs::is_directory(dir, ec)) {
      // Walk follows the root itself wherever it points: check first.
      fs::path real = fs::canonical(dir, ec);
      if (ec || !IsInsideDirectory(real, site_real)) {
        reader.Issue(dir, "symlink-outside-root", ec ? ec.message() : real.string());
        continue;
      }
      WalkOptions walk;
      walk.want = [&](std::string_view rel) {
        return reader.Wanted(name + "/" + std::string(rel));
      };
      walk.max_file_size = reader.options().max_file_size;
      Result<WalkResult> walked = Walk(dir, walk);
      if (!walked) continue;
      for (const FileIssue& i : walked->issues) {
        reader.Issue(dir / i.path, i.reason, i.detail, i.skipped);
      }
      for (const SourceFile& f : walked->files) {
        std::string rel = name + "/" + f.path;
        if (IsInsideDirectory(f.absolute, site_real)) {
          d.files.push_back(SourceFile{rel, d.site_dir / rel, f.size, ""});
        } else {
          reader.Issue(d.site_dir / rel, "symlink-outside-root", f.absolute.string());
        }
      }
    } else if (fs::is_regular_file(d.site_dir / (name + ".py"), ec)) {
      reader.AddFile(site_real, name + ".py", false, d);
    }
  }
}

// Maps SOURCES.txt (paths in the source tree) onto the site dir: a path
// whose first segment, or second (src/ layouts), is a top-level name.
void FilesFromSources(DistReader& reader, const fs::path& site_real, std::string_view sources,
                      Distribution& d) {
  auto top = [&](std::string_view rel) {
    std::string_view first = rel.substr(0, rel.find('/'));
    if (first.ends_with(".py")) first.remove_suffix(3);
    return std::find(d.top_level.begin(), d.top_level.end(), first) != d.top_level.end();
  };
  for (const std::string& line : Lines(sources)) {
    std::optional<std::string> rel = SiteRelative("", line);
    if (!rel) continue;
    if (!top(*rel)) {
      size_t slash = rel->find('/');
      if (slash == std::string::npos) continue;
      rel = rel->substr(slash + 1);
      if (!top(*rel)) continue;
    }
    reader.AddFile(site_real, *rel, false, d);
  }
}

}  // namespace

namespace {

// Reads one .dist-info or .egg-info (directory, or the single-file form
// distutils wrote); nullopt when it is not a usable distribution.
std::optional<Distribution> ReadOne(DistReader& reader, const fs::path& site_dir,
                                    const fs::path& site_real, const std::string& entry) {
  const DistributionOptions& options = reader.options();
  Distribution d;
  d.site_dir = site_dir;
  d.metadata_dir = site_dir / entry;
  d.format = entry.ends_with(".dist-info") ? "dist-info" : "egg-info";
  std::error_code ec;
  bool is_dir = fs::is_directory(d.metadata_dir, ec);
  if (d.format == "dist-info" && !is_dir) return std::nullopt;
  fs::path metadata_file =
      !is_dir ? d.metadata_dir
              : d.metadata_dir / (d.format == "dist-info" ? "METADATA" : "PKG-INFO");
  Result<std::string> metadata = ReadFilePrefix(metadata_file, options.max_metadata_size);
  if (!metadata) {
    reader.Issue(d.metadata_dir, "bad-metadata",
                 metadata_file.filename().string() + ": " + metadata.error().message);
    return std::nullopt;
  }
  if (metadata->size() >= options.max_metadata_size) {
    metadata->resize(metadata->rfind('\n') + 1);  // a header cut short is no header
  }
  std::vector<Header> headers = ParseHeaders(*metadata);
  const std::string* name = FirstHeader(headers, "name");
  const std::string* version = FirstHeader(headers, "version");
  if (name == nullptr || !IsDistName(*name)) {
    reader.Issue(d.metadata_dir, "bad-metadata", name == nullptr ? "no Name" : "invalid Name");
    return std::nullopt;
  }
  if (version == nullptr || !IsDistVersion(*version)) {
    reader.Issue(d.metadata_dir, "bad-metadata",
                 version == nullptr ? "no Version" : "invalid Version");
    return std::nullopt;
  }
  d.name = *name;
  d.normalized_name = NormalizeDistName(d.name);
  d.version = *version;
  RepositoryRef repo = ChooseRepository(headers);
  d.repository_url = repo.url;
  d.library = !repo.library.empty() ? repo.library : "pypi/" + d.normalized_name;
  if (is_dir) {
    d.top_level = ReadTopLevel(d.metadata_dir / "top_level.txt");
    d.editable = ReadEditable(d.metadata_dir / "direct_url.json");
  }

  // The file list, and what the fingerprint covers besides the metadata.
  std::string list_name = d.format == "dist-info" ? "RECORD" : "installed-files.txt";
  fs::path list_file = d.metadata_dir / list_name;
  if (is_dir && d.format == "egg-info" && !fs::exists(list_file, ec)) {
    list_name = "SOURCES.txt";
    list_file = d.metadata_dir / list_name;
  }
  std::string list;
  bool has_list = is_dir && fs::exists(list_file, ec);
  if (has_list) {
    Result<std::string> read = ReadFile(list_file, options.max_record_size);
    if (!read) {
      reader.Issue(d.metadata_dir,
                   read.error().code == ErrorCode::kInvalidArgument ? "too-large" : "bad-metadata",
                   list_name + ": " + read.error().message);
      return std::nullopt;
    }
    list = std::move(*read);
  }
  std::string hashed = *metadata;
  hashed += '\0';
  hashed += list;
  d.fingerprint = XXH3_64bits(hashed.data(), hashed.size());

  if (!has_list) {
    reader.Issue(
        d.metadata_dir, "no-file-list",
        "files taken from the top-level packages " +
            std::string(d.top_level.empty() ? "guessed from the name" : "in top_level.txt"),
        false);
    FilesFromTopLevel(reader, site_real, d);
  } else if (list_name == "SOURCES.txt") {
    FilesFromSources(reader, site_real, list, d);
  } else {
    // RECORD paths are relative to the site dir, installed-files.txt's to
    // the .egg-info directory.
    std::string_view base = list_name == "RECORD" ? std::string_view() : std::string_view(entry);
    std::vector<std::string> raw = list_name == "RECORD" ? CsvFirstFields(list) : Lines(list);
    for (const std::string& r : raw) {
      std::optional<std::string> rel = SiteRelative(base, r);
      // Scripts in bin/ and data files outside the site dir are not its
      // code; neither is the metadata itself.
      if (!rel || *rel == entry || rel->starts_with(entry + "/")) continue;
      reader.AddFile(site_real, *rel, true, d);
    }
  }
  std::sort(d.files.begin(), d.files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  d.files.erase(
      std::unique(d.files.begin(), d.files.end(),
                  [](const SourceFile& a, const SourceFile& b) { return a.path == b.path; }),
      d.files.end());
  return d;
}

}  // namespace

Result<std::vector<Distribution>> ReadDistributions(const std::vector<fs::path>& site_dirs,
                                                    const DistributionOptions& options,
                                                    std::vector<FileIssue>* issues) {
  // Read into a list of our own first: the issues raised while one
  // distribution is read are that distribution's.
  std::vector<FileIssue> all;
  DistReader reader(options, &all);
  std::vector<Distribution> out;
  std::map<std::string, size_t> by_name;  // normalized name -> index in out
  size_t readable = 0;
  std::string last_error;
  for (const fs::path& site_dir : site_dirs) {
    std::error_code ec;
    fs::path site_real = fs::canonical(site_dir, ec);
    std::vector<std::string> entries;
    if (!ec) {
      for (fs::directory_iterator it(site_real, ec); !ec && it != fs::directory_iterator();
           it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.ends_with(".dist-info") || name.ends_with(".egg-info")) entries.push_back(name);
      }
    }
    if (ec) {
      last_error = site_dir.string() + ": " + ec.message();
      reader.Issue(site_dir, "unreadable", ec.message());
      continue;
    }
    ++readable;
    // Directory order is arbitrary; leftovers of an interrupted upgrade
    // (two versions in one dir) resolve the same way every run.
    std::sort(entries.begin(), entries.end());
    for (const std::string& entry : entries) {
      size_t first_issue = all.size();
      std::optional<Distribution> d = ReadOne(reader, site_dir, site_real, entry);
      if (!d) continue;
      d->issues.assign(all.begin() + static_cast<std::ptrdiff_t>(first_issue), all.end());
      auto [it, inserted] = by_name.emplace(d->normalized_name, out.size());
      if (!inserted) {
        const Distribution& first = out[it->second];
        reader.Issue(d->metadata_dir, "shadowed",
                     d->name + " " + d->version + " is shadowed by " + first.version + " in " +
                         first.metadata_dir.string());
        continue;
      }
      out.push_back(std::move(*d));
    }
  }
  if (issues != nullptr) {
    for (FileIssue& i : all) issues->push_back(std::move(i));
  }
  if (readable == 0 && !site_dirs.empty()) return Fail(ErrorCode::kIo, last_error);
  std::sort(out.begin(), out.end(), [](const Distribution& a, const Distribution& b) {
    return a.normalized_name < b.normalized_name;
  });
  return out;
}

uint64_t FingerprintReading(const std::vector<std::string>& exclude, uint64_t max_file_size) {
  // Read once per process: 20 MB hashes in a few milliseconds. An
  // executable that cannot be read counts as one identity: reruns then
  // depend on the options and the files alone, as before.
  static const uint64_t binary = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    std::vector<char> buffer(1 << 16);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(in.gcount()));
    }
    uint64_t h = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return h;
  }();
  std::string key = std::to_string(max_file_size);
  for (const std::string& e : exclude) key += '\0' + e;
  uint64_t parts[2] = {binary, XXH3_64bits(key.data(), key.size())};
  return XXH3_64bits(parts, sizeof parts);
}

uint64_t FingerprintFiles(const std::vector<SourceFile>& files) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  for (const SourceFile& f : files) {
    struct stat st {};
    int64_t parts[3] = {static_cast<int64_t>(f.size), -1, -1};
    if (::stat(f.absolute.c_str(), &st) == 0) {
      parts[0] = st.st_size;
      parts[1] = st.st_mtim.tv_sec;
      parts[2] = st.st_mtim.tv_nsec;
    }
    uint64_t n = f.path.size();
    XXH3_64bits_update(state, &n, sizeof n);
    XXH3_64bits_update(state, f.path.data(), f.path.size());
    XXH3_64bits_update(state, parts, sizeof parts);
  }
  uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

void DisambiguateLibraries(std::vector<Distribution>& dists) {
  std::map<std::string, std::vector<size_t>> by_library;
  for (size_t i = 0; i < dists.size(); ++i) by_library[dists[i].library].push_back(i);
  std::set<std::string> taken;
  std::vector<size_t> renamed;
  for (const auto& [library, members] : by_library) {
    if (members.size() == 1) {
      taken.insert(library);
      continue;
    }
    std::string repo = NormalizeDistName(library.substr(library.find('/') + 1));
    for (size_t i : members) {
      if (dists[i].normalized_name == repo && !taken.count(library)) {
        taken.insert(library);
      } else {
        renamed.push_back(i);
      }
    }
  }
  // Sorted by normalized name, so that which one falls back does not
  // depend on the order the caller listed them in.
  std::sort(renamed.begin(), renamed.end(), [&](size_t a, size_t b) {
    return dists[a].normalized_name < dists[b].normalized_name;
  });
  for (size_t i : renamed) {
    Distribution& d = dists[i];
    std::string owner = d.library.substr(0, d.library.find('/'));
    std::string name = owner + "/" + d.normalized_name;
    if (taken.count(name)) name = "pypi/" + d.normalized_name;
    // pypi/ is also a GitHub owner's name; a clash with one of its
    // repositories is unlikely, but must not merge two distributions.
    for (int n = 2; taken.count(name); ++n) {
      name = "pypi/" + d.normalized_name + "-" + std::to_string(n);
    }
    d.library = name;
    taken.insert(name);
  }
}

}  // namespace errdex::source
