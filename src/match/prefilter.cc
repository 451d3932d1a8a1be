#include "match/prefilter.h"

#include <sys/mman.h>
#include <algorithm>
#include <atomic>
#include <cctype>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/threads.h"
#include "match/pattern.h"

namespace errdex::match {
namespace {

constexpr char kMagic[4] = {'E', 'R', 'X', 'P'};

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
void PutVector(std::string& out, const std::vector<T>& v) {
  Put<uint64_t>(out, v.size());
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  template <typename T>
  bool Get(T& value) {
    if (data_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool GetVector(std::vector<T>& v) {
    uint64_t n = 0;
    if (!Get(n) || n > (data_.size() - pos_) / sizeof(T)) return false;
    v.resize(n);
    // An empty vector's data() may be null, which memcpy may not be given.
    if (n > 0) std::memcpy(v.data(), data_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  std::string_view Rest() const { return data_.substr(pos_); }
  void Skip(size_t n) { pos_ += std::min(n, data_.size() - pos_); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Vectorscan databases of large catalogs are tens of megabytes, loaded at
// every start: on 2 MiB pages they take a few page faults, not thousands.
void* AllocateDatabase(size_t size) {
  constexpr size_t kHuge = 2u << 20;
  if (size < kHuge) return std::malloc(size);
  void* p = nullptr;
  if (posix_memalign(&p, kHuge, (size + kHuge - 1) / kHuge * kHuge) != 0) return nullptr;
  madvise(p, size, MADV_HUGEPAGE);
  return p;
}

void UseHugePages() {
  static const bool done = [] {
    hs_set_database_allocator(AllocateDatabase, std::free);
    return true;
  }();
  (void)done;
}

int OnMatch(unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
  static_cast<std::vector<unsigned>*>(ctx)->push_back(id);
  return 0;
}

// The distinct lowercase words of a template's literal text, kMinWord+ long.
std::vector<std::string> Words(const Template& t) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;  // a long literal has thousands of words
  for (const Piece& p : t.pieces()) {
    if (p.is_value) continue;
    std::string word;
    auto flush = [&] {
      if (word.size() >= kMinWord && seen.insert(word).second) out.push_back(word);
      word.clear();
    };
    for (char c : p.text) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      } else {
        flush();
      }
    }
    flush();
  }
  return out;
}

// Literals per Vectorscan database: compile time near linear (2.2 s for
// 8,192 literals sharing a suffix), and at most ~30 scans a message at 100k
// templates.
constexpr size_t kChunk = 8192;

// One serialized Vectorscan database of the literals given.
Result<std::string> CompileChunk(std::vector<const char*> expressions, std::vector<size_t> sizes,
                                 std::vector<unsigned> flags, std::vector<unsigned> ids) {
  hs_database_t* db = nullptr;
  // A literal Vectorscan refuses is left out and the others compiled again:
  // one odd template costs its own prefilter entry, never the library's.
  // Its errors keep counting it, so they are only found as incomplete.
  for (int attempt = 0;; ++attempt) {
    hs_compile_error_t* error = nullptr;
    if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), sizes.data(),
                             static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &db,
                             &error) == HS_SUCCESS) {
      break;
    }
    std::string message = error != nullptr ? error->message : "unknown error";
    int bad = error != nullptr ? error->expression : -1;
    hs_free_compile_error(error);
    if (bad < 0 || static_cast<size_t>(bad) >= expressions.size() || attempt >= 16 ||
        expressions.size() == 1) {
      return Fail(ErrorCode::kInternal, "building the prefilter: " + message);
    }
    auto at = static_cast<std::ptrdiff_t>(bad);
    expressions.erase(expressions.begin() + at);
    sizes.erase(sizes.begin() + at);
    flags.erase(flags.begin() + at);
    ids.erase(ids.begin() + at);
  }
  char* bytes = nullptr;
  size_t length = 0;
  hs_error_t rc = hs_serialize_database(db, &bytes, &length);
  hs_free_database(db);
  if (rc != HS_SUCCESS) return Fail(ErrorCode::kInternal, "serializing the prefilter");
  std::string out(bytes, length);
  free(bytes);  // allocated by Vectorscan's default allocator (malloc)
  return out;
}

}  // namespace

Result<std::string> Prefilter::Build(const std::vector<Entry>& entries) {
  // Identical fragments of different errors share one literal and a posting list.
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::string> literals;
  std::vector<std::vector<uint32_t>> postings;
  std::unordered_map<std::string, std::vector<uint32_t>> words;
  std::vector<int64_t> pks;
  std::vector<uint16_t> counts;
  for (const Entry& e : entries) {
    auto index = static_cast<uint32_t>(pks.size());
    pks.push_back(e.error_pk);
    std::vector<std::string> fragments = PrefilterFragments(*e.message);
    counts.push_back(static_cast<uint16_t>(std::min<size_t>(fragments.size(), 65535)));
    for (std::string& f : fragments) {
      auto [it, fresh] = ids.emplace(f, static_cast<uint32_t>(literals.size()));
      if (fresh) {
        literals.push_back(std::move(f));
        postings.emplace_back();
      }
      postings[it->second].push_back(index);
    }
    for (std::string& w : Words(*e.message)) {
      std::vector<uint32_t>& list = words[w];
      if (list.size() <= kMaxWordErrors) list.push_back(index);
    }
  }
  // Common words say little and cost a long posting list: only the rare ones.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> rare;
  for (auto& [w, list] : words) {
    if (list.size() <= kMaxWordErrors) rare.emplace_back(w, std::move(list));
  }
  std::sort(rare.begin(), rare.end());
  std::string out(kMagic, sizeof kMagic);
  Put<uint32_t>(out, kPrefilterFormat);
  PutVector(out, pks);
  PutVector(out, counts);
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> flat;
  std::vector<uint32_t> lengths;
  for (size_t i = 0; i < literals.size(); ++i) {
    offsets.push_back(static_cast<uint32_t>(flat.size()));
    flat.insert(flat.end(), postings[i].begin(), postings[i].end());
    lengths.push_back(static_cast<uint32_t>(literals[i].size()));
  }
  offsets.push_back(static_cast<uint32_t>(flat.size()));
  PutVector(out, offsets);
  PutVector(out, flat);
  PutVector(out, lengths);
  std::vector<uint32_t> word_offsets;
  std::vector<uint32_t> word_flat;
  for (const auto& [w, list] : rare) {
    word_offsets.push_back(static_cast<uint32_t>(word_flat.size()));
    word_flat.insert(word_flat.end(), list.begin(), list.end());
  }
  word_offsets.push_back(static_cast<uint32_t>(word_flat.size()));
  PutVector(out, word_offsets);
  PutVector(out, word_flat);
  if (literals.empty() && rare.empty()) {
    Put<uint64_t>(out, 0);
    return out;
  }
  std::vector<const char*> expressions;
  std::vector<size_t> sizes;
  std::vector<unsigned> flags(literals.size(), HS_FLAG_SINGLEMATCH);
  std::vector<unsigned> hs_ids;
  for (size_t i = 0; i < literals.size(); ++i) {
    expressions.push_back(literals[i].data());
    sizes.push_back(literals[i].size());
    hs_ids.push_back(static_cast<unsigned>(i));
  }
  for (size_t i = 0; i < rare.size(); ++i) {
    expressions.push_back(rare[i].first.data());
    sizes.push_back(rare[i].first.size());
    flags.push_back(HS_FLAG_SINGLEMATCH | HS_FLAG_CASELESS);
    hs_ids.push_back(static_cast<unsigned>(literals.size() + i));
  }
  // Databases of at most kChunk literals each: Vectorscan's compile time
  // grows faster than the count when literals share a suffix (20,000
  // generated "... is invalid:" take 10 s in one database, 5 s in three),
  // and each more database costs a scan about 0.3 us.
  // The chunks are independent databases: compiled on every core, written
  // in order, so the bytes are those of compiling them one after another.
  const size_t chunks = (expressions.size() + kChunk - 1) / kChunk;
  std::vector<Result<std::string>> dbs(chunks);
  std::atomic<size_t> next{0};
  auto compile = [&] {
    for (size_t c = next++; c < chunks; c = next++) {
      auto from = static_cast<std::ptrdiff_t>(c * kChunk);
      auto to = static_cast<std::ptrdiff_t>(std::min(expressions.size(), (c + 1) * kChunk));
      dbs[c] = CompileChunk({expressions.begin() + from, expressions.begin() + to},
                            {sizes.begin() + from, sizes.begin() + to},
                            {flags.begin() + from, flags.begin() + to},
                            {hs_ids.begin() + from, hs_ids.begin() + to});
    }
  };
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  OnThreads(static_cast<int>(std::min(chunks, cores)), compile);
  Put<uint64_t>(out, chunks);
  for (const Result<std::string>& db : dbs) {
    if (!db) return tl::unexpected(db.error());
    Put<uint64_t>(out, db->size());
    out += *db;
  }
  return out;
}

Result<Prefilter> Prefilter::Load(std::string_view blob) {
  if (blob.size() < 8 || std::memcmp(blob.data(), kMagic, 4) != 0) {
    return Fail(ErrorCode::kCorrupt, "not a prefilter");
  }
  Reader r(blob.substr(4));
  uint32_t format = 0;
  Prefilter p;
  uint64_t db_count = 0;
  if (!r.Get(format) || format != kPrefilterFormat || !r.GetVector(p.error_pks_) ||
      !r.GetVector(p.fragment_counts_) || !r.GetVector(p.posting_offsets_) ||
      !r.GetVector(p.postings_) || !r.GetVector(p.fragment_lengths_) ||
      !r.GetVector(p.word_offsets_) || !r.GetVector(p.word_postings_) || !r.Get(db_count)) {
    return Fail(ErrorCode::kCorrupt, "prefilter of another format or truncated");
  }
  if (p.fragment_counts_.size() != p.error_pks_.size() ||
      p.posting_offsets_.size() != p.fragment_lengths_.size() + 1 ||
      (!p.posting_offsets_.empty() && p.posting_offsets_.back() != p.postings_.size())) {
    return Fail(ErrorCode::kCorrupt, "inconsistent prefilter");
  }
  if (p.word_offsets_.empty() || p.word_offsets_.back() != p.word_postings_.size()) {
    return Fail(ErrorCode::kCorrupt, "inconsistent prefilter");
  }
  for (const std::vector<uint32_t>* list : {&p.postings_, &p.word_postings_}) {
    for (uint32_t e : *list) {
      if (e >= p.error_pks_.size()) return Fail(ErrorCode::kCorrupt, "inconsistent prefilter");
    }
  }
  for (const std::vector<uint32_t>* offsets : {&p.posting_offsets_, &p.word_offsets_}) {
    for (size_t i = 1; i < offsets->size(); ++i) {
      if ((*offsets)[i] < (*offsets)[i - 1]) {
        return Fail(ErrorCode::kCorrupt, "inconsistent prefilter");
      }
    }
  }
  if (db_count > 1'000'000) return Fail(ErrorCode::kCorrupt, "inconsistent prefilter");
  if (db_count > 0) UseHugePages();
  for (uint64_t i = 0; i < db_count; ++i) {
    uint64_t size = 0;
    std::string_view rest = r.Rest();
    if (!r.Get(size) || size > rest.size() - sizeof size) {
      return Fail(ErrorCode::kCorrupt, "truncated prefilter");
    }
    hs_database_t* db = nullptr;
    if (hs_deserialize_database(rest.data() + sizeof size, size, &db) != HS_SUCCESS) {
      return Fail(ErrorCode::kCorrupt, "prefilter was built for another CPU or Vectorscan version");
    }
    p.dbs_.push_back(db);
    r.Skip(size);
    // One scratch grown to fit every database.
    if (hs_alloc_scratch(db, &p.scratch_) != HS_SUCCESS) {
      return Fail(ErrorCode::kInternal, "cannot allocate prefilter scratch space");
    }
  }
  if (!r.Rest().empty()) return Fail(ErrorCode::kCorrupt, "trailing bytes after the prefilter");
  return p;
}

Prefilter::Prefilter(Prefilter&& o) noexcept
    : dbs_(std::move(o.dbs_)),
      scratch_(std::exchange(o.scratch_, nullptr)),
      error_pks_(std::move(o.error_pks_)),
      fragment_counts_(std::move(o.fragment_counts_)),
      posting_offsets_(std::move(o.posting_offsets_)),
      postings_(std::move(o.postings_)),
      fragment_lengths_(std::move(o.fragment_lengths_)),
      word_offsets_(std::move(o.word_offsets_)),
      word_postings_(std::move(o.word_postings_)) {}

Prefilter& Prefilter::operator=(Prefilter&& o) noexcept {
  std::swap(dbs_, o.dbs_);
  std::swap(scratch_, o.scratch_);
  error_pks_ = std::move(o.error_pks_);
  fragment_counts_ = std::move(o.fragment_counts_);
  posting_offsets_ = std::move(o.posting_offsets_);
  postings_ = std::move(o.postings_);
  fragment_lengths_ = std::move(o.fragment_lengths_);
  word_offsets_ = std::move(o.word_offsets_);
  word_postings_ = std::move(o.word_postings_);
  return *this;
}

Prefilter::~Prefilter() {
  hs_free_scratch(scratch_);
  for (hs_database_t* db : dbs_) hs_free_database(db);
}

Result<void> Prefilter::Scan(std::string_view text, std::vector<PrefilterHit>& hits) {
  if (dbs_.empty() || text.empty()) return {};
  std::vector<unsigned> found;
  if (text.size() > 0xFFFFFFFFu) text = text.substr(0, 0xFFFFFFFFu);
  for (hs_database_t* db : dbs_) {
    hs_error_t rc =
        hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch_, OnMatch, &found);
    if (rc != HS_SUCCESS) return Fail(ErrorCode::kInternal, "prefilter scan failed");
  }
  std::unordered_map<uint32_t, size_t> slot;
  auto hit = [&](uint32_t e) -> PrefilterHit& {
    auto [it, fresh] = slot.emplace(e, hits.size());
    if (fresh) {
      PrefilterHit h;
      h.error_pk = error_pks_[e];
      h.fragments_total = fragment_counts_[e];
      hits.push_back(h);
    }
    return hits[it->second];
  };
  size_t fragments = fragment_lengths_.size();
  for (unsigned f : found) {
    if (f < fragments) {
      for (uint32_t k = posting_offsets_[f]; k < posting_offsets_[f + 1]; ++k) {
        PrefilterHit& h = hit(postings_[k]);
        ++h.fragments_found;
        h.bytes_found += static_cast<int>(fragment_lengths_[f]);
      }
    } else if (size_t w = f - fragments; w + 1 < word_offsets_.size()) {
      for (uint32_t k = word_offsets_[w]; k < word_offsets_[w + 1]; ++k)
        ++hit(word_postings_[k]).words_found;
    }
  }
  return {};
}

}  // namespace errdex::match
