#include "cli/build.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "core/text.h"
#include "extract/extractor.h"
#include "source/git_tree.h"

extern char** environ;

namespace errdex::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One library of the manifest, checked and resolved.
struct Entry {
  size_t number = 0;  // its place in the manifest, from 1, for messages
  std::string name;
  fs::path repository;
  std::vector<std::string> rev;
  std::string revs;
  size_t last = 0;
  std::vector<std::string> exclude;
  std::string url;
  uint64_t max_file_size = 0;         // 0: index's default
  std::vector<std::string> selected;  // the revisions to index, oldest first
  uint64_t bytes = 0;                 // of its newest revision's source files: the queue's order
};

const std::set<std::string> kTopKeys = {"libraries", "exclude"};
const std::set<std::string> kEntryKeys = {"name", "path",    "repo", "rev",          "revs",
                                          "last", "exclude", "url",  "max_file_size"};

std::string Joined(const std::set<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// fnmatch takes any text, matching an unclosed '[' literally: in a manifest
// that is a typo, and silently matching nothing would hide it.
std::string GlobProblem(std::string_view glob) {
  if (glob.empty()) return "is empty";
  for (size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      if (++i == glob.size()) return "ends in a lone '\\'";
    } else if (glob[i] == '[') {
      size_t j = i + 1;
      if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
      if (j < glob.size() && glob[j] == ']') ++j;
      while (j < glob.size() && glob[j] != ']') ++j;
      if (j == glob.size()) return "has a '[' that is never closed";
      i = j;
    }
  }
  return "";
}

Result<std::vector<std::string>> StringList(const json& value, const std::string& what) {
  std::vector<std::string> out;
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
    return out;
  }
  if (!value.is_array())
    return Fail(ErrorCode::kInvalidArgument, what + " must be a string or a list of strings");
  for (const json& v : value) {
    if (!v.is_string()) return Fail(ErrorCode::kInvalidArgument, what + " must hold strings only");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<Entry> ReadEntry(const json& j, size_t number, const std::vector<std::string>& exclude,
                        const fs::path& manifest_dir, const std::string& repos) {
  Entry e;
  e.number = number;
  std::string where = fmt::format("library {}", number);
  auto bad = [&](const std::string& why) {
    return Fail(ErrorCode::kInvalidArgument, where + ": " + why);
  };
  if (!j.is_object()) return bad("must be an object");
  if (j.contains("name") && j["name"].is_string()) {
    e.name = j["name"].get<std::string>();
    where += " (" + e.name + ")";
  }
  for (const auto& [key, value] : j.items()) {
    if (!kEntryKeys.count(key))
      return bad("unknown key '" + key + "' (known: " + Joined(kEntryKeys) + ")");
  }
  if (!j.contains("name")) return bad("no 'name' (OWNER/REPO)");
  if (!j["name"].is_string() || !catalog::IsLibraryName(e.name)) {
    return bad("'name' must be OWNER/REPO (letters, digits, '.', '_', '-')");
  }
  auto text = [&](const char* key, std::string& into) -> Result<void> {
    if (!j.contains(key)) return {};
    if (!j[key].is_string() || j[key].get<std::string>().empty()) {
      return bad(std::string("'") + key + "' must be a non-empty string");
    }
    into = j[key].get<std::string>();
    return {};
  };
  std::string path, repo;
  ERRDEX_TRY(text("path", path));
  ERRDEX_TRY(text("repo", repo));
  ERRDEX_TRY(text("revs", e.revs));
  ERRDEX_TRY(text("url", e.url));
  if (j.contains("rev")) {
    Result<std::vector<std::string>> revs = StringList(j["rev"], "'rev'");
    if (!revs) return bad(revs.error().message);
    e.rev = std::move(*revs);
    for (const std::string& r : e.rev) {
      if (r.empty() || r.front() == '-')
        return bad("'rev' holds '" + r + "', which is no revision name");
    }
  }
  if (j.contains("last")) {
    if (!j["last"].is_number_unsigned() || j["last"].get<uint64_t>() == 0) {
      return bad("'last' must be a positive whole number");
    }
    e.last = j["last"].get<size_t>();
  }
  if (j.contains("max_file_size")) {
    if (!j["max_file_size"].is_number_unsigned() || j["max_file_size"].get<uint64_t>() == 0) {
      return bad("'max_file_size' must be a positive number of bytes");
    }
    e.max_file_size = j["max_file_size"].get<uint64_t>();
  }
  e.exclude = exclude;
  if (j.contains("exclude")) {
    Result<std::vector<std::string>> more = StringList(j["exclude"], "'exclude'");
    if (!more) return bad(more.error().message);
    e.exclude.insert(e.exclude.end(), more->begin(), more->end());
  }
  if (e.rev.empty() && e.revs.empty() && e.last == 0) {
    return bad("nothing to index: give 'rev', 'revs' or 'last'");
  }
  if (!e.revs.empty()) {
    if (std::string p = GlobProblem(e.revs); !p.empty())
      return bad("'revs' glob '" + e.revs + "' " + p);
  }
  for (const std::string& g : e.exclude) {
    if (std::string p = GlobProblem(g); !p.empty()) return bad("'exclude' glob '" + g + "' " + p);
  }

  // Where its repository is: `path` as written (relative to the manifest),
  // or `repo` (default: the name) under --repos, so that a manifest to
  // share names no directory of one machine.
  std::error_code ec;
  if (!path.empty() && !repo.empty()) return bad("give 'path' or 'repo', not both");
  if (!path.empty()) {
    e.repository = fs::path(path).is_absolute() ? fs::path(path) : manifest_dir / path;
  } else {
    if (repos.empty()) {
      return bad("no 'path', and no --repos DIR to find '" + (repo.empty() ? e.name : repo) +
                 "' in");
    }
    fs::path base = fs::path(repos) / (repo.empty() ? e.name : repo);
    fs::path bare = base;
    bare += ".git";
    e.repository = !fs::exists(base, ec) && fs::exists(bare, ec) ? bare : base;
  }
  if (!fs::is_directory(e.repository, ec)) {
    return bad("no repository at " + e.repository.string());
  }
  Result<std::unique_ptr<source::GitRepository>> opened = source::GitRepository::Open(e.repository);
  if (!opened) return bad(e.repository.string() + ": " + opened.error().message);
  Result<std::vector<source::Revision>> selected =
      source::SelectRevisions(**opened, e.rev, e.revs, e.last);
  if (!selected) return bad(e.repository.string() + ": " + selected.error().message);
  for (const source::Revision& r : *selected) e.selected.push_back(r.name);
  // A size to schedule by, largest first: a big library started last would
  // leave the other processes idle at the end. A tree that cannot be listed
  // is left to its indexer to report.
  source::WalkOptions walk;
  walk.want = extract::IsSourcePath;
  walk.exclude = e.exclude;
  if (e.max_file_size > 0) walk.max_file_size = e.max_file_size;
  if (Result<source::WalkResult> files = (*opened)->List(selected->back(), walk)) {
    for (const source::SourceFile& f : files->files) e.bytes += f.size;
  }
  return e;
}

Result<std::vector<Entry>> ReadManifest(const std::string& file, const std::string& repos) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return Fail(ErrorCode::kInvalidArgument, "no such file");
  std::ifstream in(file, std::ios::binary);
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Fail(ErrorCode::kInvalidArgument, "not valid JSON");
  if (!doc.is_object()) return Fail(ErrorCode::kInvalidArgument, "must be a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (!kTopKeys.count(key)) {
      return Fail(ErrorCode::kInvalidArgument,
                  "unknown key '" + key + "' (known: " + Joined(kTopKeys) + ")");
    }
  }
  std::vector<std::string> exclude;
  if (doc.contains("exclude")) {
    Result<std::vector<std::string>> e = StringList(doc["exclude"], "'exclude'");
    if (!e) return tl::unexpected(e.error());
    exclude = std::move(*e);
  }
  if (!doc.contains("libraries") || !doc["libraries"].is_array() || doc["libraries"].empty()) {
    return Fail(ErrorCode::kInvalidArgument, "'libraries' must be a list of at least one library");
  }
  fs::path dir = fs::absolute(file, ec).parent_path();
  std::vector<Entry> entries;
  std::map<std::string, size_t> seen;
  for (const json& j : doc["libraries"]) {
    Result<Entry> e = ReadEntry(j, entries.size() + 1, exclude, dir, repos);
    if (!e) return tl::unexpected(e.error());
    auto [it, fresh] = seen.emplace(e->name, e->number);
    if (!fresh) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("library {} ({}): listed already as library {}", e->number, e->name,
                              it->second));
    }
    entries.push_back(std::move(*e));
  }
  return entries;
}

// What one indexer process did, from its JSON lines and exit status.
struct Outcome {
  int exit_code = 0;
  double seconds = 0;
  std::vector<json> snapshots;
  std::string error;  // its last `errdex: error:` line, when it failed
  int64_t read = 0, unchanged = 0, files = 0, parsed = 0, errors = 0;
  double lock_wait = 0, lock_held = 0;
};

struct Running {
  const Entry* entry = nullptr;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
  std::string out, err;
  std::chrono::steady_clock::time_point started;
};

std::string SelfExecutable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("errdex") : self.string();
}

Result<Running> Start(const Entry& e, const BuildArgs& args, int threads, const std::string& exe) {
  // The analysis is left to the end of the run (RunBuild says why).
  std::vector<std::string> argv = {exe,       "index",  e.repository.string(),
                                   "--name",  e.name,   "--json",
                                   "--quiet", "--jobs", std::to_string(threads),
                                   "--no-analyze"};
  for (const std::string& r : e.selected) argv.insert(argv.end(), {"--rev", r});
  for (const std::string& x : e.exclude) argv.insert(argv.end(), {"--exclude", x});
  if (!e.url.empty()) argv.insert(argv.end(), {"--url", e.url});
  if (e.max_file_size > 0)
    argv.insert(argv.end(), {"--max-file-size", std::to_string(e.max_file_size)});
  if (args.force) argv.emplace_back("--force");
  // The catalog goes by the environment, not the command line: a
  // PostgreSQL URL may hold a password, which `ps` would show.
  std::vector<std::string> env = {"ERRDEX_DB=" + args.db};
  for (char** v = environ; *v != nullptr; ++v) {
    if (std::strncmp(*v, "ERRDEX_DB=", 10) != 0) env.emplace_back(*v);
  }
  std::vector<char*> cargv, cenv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (std::string& v : env) cenv.push_back(v.data());
  cenv.push_back(nullptr);

  // Close-on-exec, so that no indexer holds another's pipes open.
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  Running r;
  r.entry = &e;
  r.started = std::chrono::steady_clock::now();
  int failed = posix_spawn(&r.pid, exe.c_str(), &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (failed != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return Fail(ErrorCode::kIo, "cannot run " + exe + ": " + std::strerror(failed));
  }
  r.out_fd = out_pipe[0];
  r.err_fd = err_pipe[0];
  return r;
}

Outcome Finish(Running& r) {
  int status = 0;
  while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    if (j.value("read", true)) {
      ++o.read;
      o.files += j.value("files", int64_t{0});
      o.parsed += j.value("parsed_files", int64_t{0});
      // The newest revision's: snapshots come oldest first.
      o.errors = j.value("errors", int64_t{0});
      o.lock_wait += j.value("lock_wait_seconds", 0.0);
      o.lock_held += j.value("lock_held_seconds", 0.0);
    } else {
      ++o.unchanged;
    }
    o.snapshots.push_back(std::move(j));
  }
  if (o.exit_code != 0) {
    std::istringstream errs(r.err);
    for (std::string line; std::getline(errs, line);) {
      if (line.rfind("errdex: error: ", 0) == 0) o.error = line.substr(15);
    }
    if (o.error.empty()) o.error = fmt::format("the indexer exited with status {}", o.exit_code);
  }
  return o;
}

std::string StatusOf(const Outcome& o) {
  if (o.exit_code != 0) return "failed";
  return o.read > 0 ? "indexed" : "unchanged";
}

}  // namespace

Result<int> RunBuild(const BuildArgs& args, std::ostream& out, std::ostream& err) {
  auto started = std::chrono::steady_clock::now();
  Result<std::vector<Entry>> entries = ReadManifest(args.manifest, args.repos);
  if (!entries) {
    err << "errdex: error: " << args.manifest << ": " << entries.error().message << '\n';
    return 2;
  }
  // Created (or upgraded) once, before the indexers race to it, and a
  // catalog that cannot be opened stops the run before any work.
  {
    Result<catalog::Catalog> cat = catalog::Catalog::Open(args.db, catalog::OpenMode::kReadWrite);
    if (!cat) return tl::unexpected(cat.error());
  }
  int jobs = std::max(1, args.jobs);
  int threads = args.threads;
  if (threads <= 0) {
    int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, cores / jobs);
  }
  std::vector<const Entry*> order;
  for (const Entry& e : *entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Entry* a, const Entry* b) { return a->bytes > b->bytes; });
  std::deque<const Entry*> queue(order.begin(), order.end());
  std::string exe = SelfExecutable();
  std::vector<Running> running;
  std::map<size_t, Outcome> outcomes;  // by manifest number
  std::optional<Error> start_error;

  auto report = [&](const Entry& e, const Outcome& o) {
    if (args.json) {
      json line = {{"library", e.name},
                   {"revs", e.selected},
                   {"status", StatusOf(o)},
                   {"exit_code", o.exit_code},
                   {"seconds", o.seconds},
                   {"read", o.read},
                   {"unchanged", o.unchanged},
                   {"files", o.files},
                   {"parsed_files", o.parsed},
                   {"errors", o.errors},
                   {"lock_wait_seconds", o.lock_wait},
                   {"lock_held_seconds", o.lock_held},
                   {"snapshots", o.snapshots}};
      if (!o.error.empty()) line["error"] = o.error;
      out << line.dump(-1, ' ', false, json::error_handler_t::replace) << '\n' << std::flush;
      return;
    }
    if (o.exit_code != 0) {
      out << fmt::format("{}: failed: {}\n", e.name, o.error) << std::flush;
    } else if (o.read == 0) {
      out << fmt::format("{}: unchanged, not read ({} in {:.2f} s)\n", e.name,
                         Counted(o.unchanged, "revision"), o.seconds)
          << std::flush;
    } else {
      out << fmt::format("{}: {} read, {} ({} parsed), {} in {:.2f} s\n", e.name,
                         Counted(o.read, "revision"), Counted(o.files, "file"), o.parsed,
                         Counted(o.errors, "error"), o.seconds)
          << std::flush;
    }
  };

  char buf[65536];
  while (!queue.empty() || !running.empty()) {
    while (!queue.empty() && static_cast<int>(running.size()) < jobs) {
      const Entry* e = queue.front();
      queue.pop_front();
      Result<Running> r = Start(*e, args, threads, exe);
      if (!r) {
        // No more are started; those running are waited for, none is cut
        // off half-way through a write.
        start_error = r.error();
        queue.clear();
        break;
      }
      running.push_back(std::move(*r));
    }
    if (running.empty()) break;
    std::vector<pollfd> fds;
    for (const Running& r : running) {
      fds.push_back({r.out_fd, POLLIN, 0});
      fds.push_back({r.err_fd, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return Fail(ErrorCode::kIo, std::string("poll: ") + std::strerror(errno));
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Running& r = running[i / 2];
      int& fd = i % 2 == 0 ? r.out_fd : r.err_fd;
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fd);
        fd = -1;
        continue;
      }
      std::string& into = i % 2 == 0 ? r.out : r.err;
      into.append(buf, static_cast<size_t>(n));
      // Warnings can be many; the error that ends a failed run is last.
      if (i % 2 == 1 && into.size() > (1u << 20)) into.erase(0, into.size() - (1u << 19));
    }
    for (size_t i = 0; i < running.size();) {
      if (running[i].out_fd >= 0 || running[i].err_fd >= 0) {
        ++i;
        continue;
      }
      Outcome o = Finish(running[i]);
      report(*running[i].entry, o);
      outcomes[running[i].entry->number] = std::move(o);
      running.erase(running.begin() + static_cast<ptrdiff_t>(i));
    }
  }

  if (start_error) return tl::unexpected(*start_error);
  int64_t indexed = 0, unchanged = 0, failed = 0, files = 0, parsed = 0, errors = 0;
  double lock_wait = 0, lock_held = 0;
  for (const auto& [number, o] : outcomes) {
    std::string status = StatusOf(o);
    (status == "failed" ? failed : status == "indexed" ? indexed : unchanged) += 1;
    files += o.files;
    parsed += o.parsed;
    errors += o.errors;
    lock_wait += o.lock_wait;
    lock_held += o.lock_held;
  }

  // One analysis of the whole catalog, once every library is written: an
  // error's family can depend on another library's classes (scipy raises
  // numpy's LinAlgError, a ValueError), so libraries analysed as each is
  // written would depend on the order the indexers happened to finish in.
  // It is also one writer's work, under the lock once instead of each time.
  double analysis_seconds = 0;
  int64_t analysed = 0;
  {
    auto analysing = std::chrono::steady_clock::now();
    Result<catalog::Catalog> cat = catalog::Catalog::Open(args.db, catalog::OpenMode::kReadWrite);
    if (!cat) return tl::unexpected(cat.error());
    Result<int64_t> unanalysed = cat->CountUnanalyzed("");
    if (!unanalysed) return tl::unexpected(unanalysed.error());
    if (indexed > 0 || *unanalysed > 0) {
      Result<analyze::AnalyzeSummary> a = analyze::AnalyzeCatalog(*cat, "");
      if (!a) return tl::unexpected(a.error());
      analysed = a->errors;
    }
    analysis_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - analysing).count();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (args.json) {
    out << json({{"libraries", entries->size()},
                 {"indexed", indexed},
                 {"unchanged", unchanged},
                 {"failed", failed},
                 {"files", files},
                 {"parsed_files", parsed},
                 {"errors", errors},
                 {"jobs", jobs},
                 {"threads", threads},
                 {"seconds", seconds},
                 {"analysed", analysed},
                 {"analysis_seconds", analysis_seconds},
                 {"lock_wait_seconds", lock_wait},
                 {"lock_held_seconds", lock_held}})
               .dump()
        << '\n';
  } else {
    out << fmt::format("\n{:<40} {:>8} {:>8} {:>8} {:>8}  {}\n", "library", "seconds", "files",
                       "parsed", "errors", "status");
    for (const Entry& e : *entries) {
      const Outcome& o = outcomes[e.number];
      out << fmt::format("{:<40} {:>8.2f} {:>8} {:>8} {:>8}  {}\n", e.name, o.seconds, o.files,
                         o.parsed, o.errors, StatusOf(o));
    }
    out << fmt::format(
        "{}: {} indexed, {} unchanged, {} failed; {} ({} parsed), {} in {:.2f} s with {} "
        "({} thread{} each); the write lock waited for {:.2f} s, held {:.2f} s\n",
        Counted(static_cast<int64_t>(entries->size()), "library"), indexed, unchanged, failed,
        Counted(files, "file"), parsed, Counted(errors, "error"), seconds, Counted(jobs, "indexer"),
        threads, threads == 1 ? "" : "s", lock_wait, lock_held);
    if (analysed > 0) {
      out << fmt::format("analysed the catalog's {} in {:.2f} s\n", Counted(analysed, "error"),
                         analysis_seconds);
    }
  }
  out.flush();
  if (failed > 0) {
    err << fmt::format(
        "errdex: error: {} of {} not indexed (see above); the others are in the catalog, and a "
        "rerun reads only what is not\n",
        failed, Counted(static_cast<int64_t>(entries->size()), "library"));
    return 1;
  }
  return 0;
}

}  // namespace errdex::cli
