// The extract stage: source files in, error sites out. Picks the front end by
// file name, parses on all cores, and never fails on a file: what cannot be
// read or parsed is reported as a FileIssue.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/record.h"
#include "source/walk.h"

namespace errdex::extract {

// What the front ends made of each file before linking, kept by content:
// indexing N revisions of a repository parses each distinct blob once. The
// links between files (helpers, exception classes, C macros) are redone for
// every revision, since any file may change them; the texts the link cuts
// excerpts from are kept for it, so it does not read those blobs again.
// Thread-safe.
class FileCache {
 public:
  FileCache();
  ~FileCache();
  FileCache(const FileCache&) = delete;
  FileCache& operator=(const FileCache&) = delete;

  size_t hits() const;
  size_t misses() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// What one file's parses may take together (a second parse after a rewrite
// and macro expansions included) before it is skipped. A fuzzer passes the
// one-file entry points below less than its own per-input timeout, so that
// a slow parse is seen taking the skip path rather than reported as a hang.
inline constexpr uint64_t kDefaultParseTimeoutMicros = 20'000'000;

struct Options {
  int jobs = 0;                                // worker threads; 0: one per core
  uint64_t max_file_size = 5u << 20;           // larger files are skipped
  uint64_t parse_timeout_micros = kDefaultParseTimeoutMicros;
  // Reads a file's bytes, refusing more than the limit; thread-safe. Default:
  // from disk at `absolute`.
  std::function<Result<std::string>(const source::SourceFile&, uint64_t max_size)> read;
  // Where results of files with a blob id are kept and found; none if null.
  FileCache* cache = nullptr;
  // With a cache: whether a later run will read it. The last revision of a
  // run keeps nothing that only a later revision would read (the call
  // graph's facts of each function, python::DefinitionFactsMemo).
  bool later_runs = true;
  // Called from worker threads, serialised, after each file.
  std::function<void(size_t done, size_t total)> progress;
};

// True for files some front end reads: .py, C/C++ sources and headers, .rs.
bool IsSourcePath(std::string_view path);

// Extracts every error site of `files`. Sites come in file order, then in
// source order. Thread-safe; uses its own threads. The same as LinkFiles
// after ParseFiles.
Extraction ExtractFiles(const std::vector<source::SourceFile>& files, const Options& options);

// What the front ends made of each file of one run, not linked yet.
class ParsedFiles {
 public:
  ParsedFiles();
  ~ParsedFiles();
  ParsedFiles(ParsedFiles&&) noexcept;
  ParsedFiles& operator=(ParsedFiles&&) noexcept;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// ExtractFiles in two halves. The first reads, parses and walks every file
// on all cores, taking results from the cache or putting them there (and
// ends the cache's run); the second, on the calling thread, links files to
// each other (helpers, exception classes, C macros) and fills excerpts.
// Indexing revisions, the next revision's files are parsed while one is
// linked: the link is one core's work. `files` and `options` must be the
// ones ParseFiles was given; another run may use the cache meanwhile.
ParsedFiles ParseFiles(const std::vector<source::SourceFile>& files, const Options& options);
Extraction LinkFiles(ParsedFiles parsed, const std::vector<source::SourceFile>& files,
                     const Options& options);

// Extracts one in-memory Python file (for tests, fuzzing and benchmarks).
Extraction ExtractPythonSource(std::string_view path, std::string_view text,
                               uint64_t parse_timeout_micros = kDefaultParseTimeoutMicros);

// Extracts one in-memory C/C++ file, the grammar chosen by its name; the
// macros it defines are expanded where it uses them.
Extraction ExtractCppSource(std::string_view path, std::string_view text,
                            uint64_t parse_timeout_micros = kDefaultParseTimeoutMicros);

// Extracts one in-memory Rust file.
Extraction ExtractRustSource(std::string_view path, std::string_view text,
                             uint64_t parse_timeout_micros = kDefaultParseTimeoutMicros);

}  // namespace errdex::extract
