#include "source/walk.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>
#include <utility>

namespace errdex::source {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 8> kSkippedDirectories = {
    ".git", ".hg", ".svn", "__pycache__", "node_modules", ".tox", ".mypy_cache", ".pytest_cache",
};

bool IsInside(const fs::path& path, const fs::path& root) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

class Walker {
 public:
  Walker(fs::path root, const WalkOptions& options, WalkResult& out)
      : root_(std::move(root)), options_(options), out_(out) {}

  void Run() {
    struct stat st;
    if (::stat(root_.c_str(), &st) == 0) visited_.insert({st.st_dev, st.st_ino});
    std::vector<std::pair<fs::path, std::string>> stack = {{root_, ""}};
    while (!stack.empty()) {
      auto [dir, rel] = std::move(stack.back());
      stack.pop_back();
      VisitDirectory(dir, rel, stack);
    }
    std::sort(out_.files.begin(), out_.files.end(),
              [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
    std::sort(out_.issues.begin(), out_.issues.end(),
              [](const FileIssue& a, const FileIssue& b) { return a.path < b.path; });
  }

  void AddFile(const fs::path& absolute, const std::string& rel, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) {
      Issue(rel, "not-regular-file", "not a regular file");
      return;
    }
    auto size = static_cast<uint64_t>(st.st_size);
    if (size == 0) {
      Issue(rel, "empty", "");
    } else if (size > options_.max_file_size) {
      Issue(rel, "too-large",
            std::to_string(size) + " bytes > limit " + std::to_string(options_.max_file_size));
    } else {
      out_.files.push_back(SourceFile{rel, absolute, size, ""});
    }
  }

 private:
  bool Wanted(const std::string& rel) const { return !options_.want || options_.want(rel); }

  bool Excluded(const std::string& rel, const std::string& name) const {
    return IsExcluded(options_, rel, name);
  }

  void Issue(const std::string& rel, std::string reason, std::string detail) {
    out_.issues.push_back(FileIssue{rel, std::move(reason), std::move(detail), true});
  }

  // Links may point anywhere; errdex reads only what is under the root.
  bool LinkStaysInside(const fs::path& link, const std::string& rel) {
    std::error_code ec;
    fs::path target = fs::canonical(link, ec);
    if (!ec && IsInside(target, root_)) return true;
    Issue(rel, "symlink-outside-root", ec ? ec.message() : target.string());
    return false;
  }

  void VisitDirectory(const fs::path& dir, const std::string& rel,
                      std::vector<std::pair<fs::path, std::string>>& stack) {
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
      Issue(rel.empty() ? "." : rel, "unreadable", ec.message());
      return;
    }
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      entries.push_back(*it);
    }
    if (ec) Issue(rel.empty() ? "." : rel, "unreadable", ec.message());
    for (const fs::directory_entry& entry : entries) {
      std::string name = entry.path().filename().string();
      std::string child_rel = rel.empty() ? name : rel + "/" + name;
      if (Excluded(child_rel, name)) continue;
      struct stat lst;
      if (::lstat(entry.path().c_str(), &lst) != 0) continue;
      struct stat st = lst;
      bool is_link = S_ISLNK(lst.st_mode);
      if (is_link && ::stat(entry.path().c_str(), &st) != 0) {
        // A dangling link: worth a warning only if it looks like a source file.
        if (Wanted(child_rel)) Issue(child_rel, "unreadable", "dangling symbolic link");
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        if (IsSkippedDirectory(name)) continue;
        if (is_link && !LinkStaysInside(entry.path(), child_rel)) continue;
        if (!visited_.insert({st.st_dev, st.st_ino}).second) {
          if (is_link) Issue(child_rel, "symlink-loop", "directory already visited");
          continue;
        }
        stack.emplace_back(entry.path(), child_rel);
        continue;
      }
      if (!Wanted(child_rel)) continue;
      if (is_link && !LinkStaysInside(entry.path(), child_rel)) continue;
      AddFile(entry.path(), child_rel, st);
    }
  }

  fs::path root_;
  const WalkOptions& options_;
  WalkResult& out_;
  std::set<std::pair<dev_t, ino_t>> visited_;
};

}  // namespace

bool IsExcluded(const WalkOptions& options, const std::string& rel, const std::string& name) {
  for (const std::string& pattern : options.exclude) {
    if (fnmatch(pattern.c_str(), rel.c_str(), 0) == 0 ||
        fnmatch(pattern.c_str(), name.c_str(), 0) == 0) {
      return true;
    }
  }
  return false;
}

bool IsExcludedPath(const WalkOptions& options, const std::string& rel) {
  for (size_t slash = rel.find('/');; slash = rel.find('/', slash + 1)) {
    std::string prefix = rel.substr(0, slash);
    size_t last = prefix.rfind('/');
    std::string name = last == std::string::npos ? prefix : prefix.substr(last + 1);
    if (IsExcluded(options, prefix, name)) return true;
    if (slash == std::string::npos) return false;
  }
}

bool IsSkippedDirectory(std::string_view name) {
  return std::find(kSkippedDirectories.begin(), kSkippedDirectories.end(), name) !=
         kSkippedDirectories.end();
}

Result<WalkResult> Walk(const fs::path& root, const WalkOptions& options) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (ec) return Fail(ErrorCode::kNotFound, root.string() + ": " + ec.message());
  WalkResult out;
  Walker walker(canonical, options, out);
  struct stat st;
  if (::stat(canonical.c_str(), &st) != 0) {
    return Fail(ErrorCode::kIo, root.string() + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    // A single file: index it under its own name.
    walker.AddFile(canonical, canonical.filename().string(), st);
    return out;
  }
  if (::access(canonical.c_str(), R_OK | X_OK) != 0) {
    return Fail(ErrorCode::kIo, root.string() + ": " + std::strerror(errno));
  }
  walker.Run();
  return out;
}

namespace {

// Reads a regular file: all of it, refusing more than `max_size` bytes, or
// (`truncate`) its first `max_size` bytes.
Result<std::string> ReadRegular(const fs::path& path, uint64_t max_size, bool truncate) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Fail(ErrorCode::kIo, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Fail(ErrorCode::kIo, "not a regular file");
  }
  if (!truncate && static_cast<uint64_t>(st.st_size) > max_size) {
    ::close(fd);
    return Fail(ErrorCode::kInvalidArgument, "larger than " + std::to_string(max_size) + " bytes");
  }
  std::string data;
  data.resize(static_cast<size_t>(std::min<uint64_t>(static_cast<uint64_t>(st.st_size), max_size)));
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Fail(ErrorCode::kIo, std::strerror(err));
    }
    if (n == 0) break;  // the file shrank while we read it
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  return data;
}

}  // namespace

Result<std::string> ReadFile(const fs::path& path, uint64_t max_size) {
  return ReadRegular(path, max_size, false);
}

Result<std::string> ReadFilePrefix(const fs::path& path, uint64_t max_size) {
  return ReadRegular(path, max_size, true);
}

bool IsInsideDirectory(const fs::path& path, const fs::path& root) { return IsInside(path, root); }

}  // namespace errdex::source
