// The multi-literal prefilter over one library's templates: a Vectorscan
// database of their literal fragments (and of their distinctive words, for
// messages whose wording changed), serialized into the catalog at index time
// so that `errdex explain` starts without compiling anything.
#pragma once

#include <hs/hs.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/template.h"

namespace errdex::match {

// 4: a repr's outer quotes are no longer part of a fragment (a stored
// format-3 prefilter is rebuilt in memory until the library is indexed again).
inline constexpr int kPrefilterFormat = 4;

// Words of at least this many characters, shared by at most kMaxWordErrors
// templates, are the prefilter's words.
inline constexpr size_t kMinWord = 6;
inline constexpr size_t kMaxWordErrors = 64;

struct PrefilterHit {
  int64_t error_pk = 0;
  int fragments_found = 0;  // distinct fragments of this error seen in the text
  int fragments_total = 0;  // fragments the error has
  int bytes_found = 0;      // their total length
  int words_found = 0;      // distinctive words of the error seen in the text
};

class Prefilter {
 public:
  struct Entry {
    int64_t error_pk = 0;
    const Template* message = nullptr;
  };

  // The serialized prefilter of `entries` (fragments from PrefilterFragments).
  static Result<std::string> Build(const std::vector<Entry>& entries);

  // Reads a blob Build made. Fails (kCorrupt) on a truncated or foreign blob,
  // or one serialized on a CPU whose Vectorscan features this one lacks.
  static Result<Prefilter> Load(std::string_view blob);

  Prefilter(Prefilter&&) noexcept;
  Prefilter& operator=(Prefilter&&) noexcept;
  ~Prefilter();

  // Adds to `hits` the errors with a fragment in `text`. Not thread-safe
  // (one scratch per Prefilter); use one Prefilter per thread.
  Result<void> Scan(std::string_view text, std::vector<PrefilterHit>& hits);

  size_t errors() const { return error_pks_.size(); }
  size_t fragments() const { return fragment_lengths_.size(); }

 private:
  Prefilter() = default;
  std::vector<hs_database_t*> dbs_;  // the literals in chunks, each its own database
  hs_scratch_t* scratch_ = nullptr;
  std::vector<int64_t> error_pks_;
  std::vector<uint16_t> fragment_counts_;   // per error
  std::vector<uint32_t> posting_offsets_;   // per fragment, into postings_
  std::vector<uint32_t> postings_;          // error indexes
  std::vector<uint32_t> fragment_lengths_;  // per fragment
  // Words: ids from fragments() on, with postings of their own.
  std::vector<uint32_t> word_offsets_;
  std::vector<uint32_t> word_postings_;
};

}  // namespace errdex::match
