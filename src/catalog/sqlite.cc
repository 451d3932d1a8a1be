#include "catalog/sqlite.h"

#include <xxhash.h>

#include <algorithm>
#include <thread>

namespace errdex::catalog {

namespace {

// A damaged file shows as SQLITE_CORRUPT or NOTADB, and as a short read
// when it was truncated.
ErrorCode CodeOf(int rc) {
  return (rc & 0xFF) == SQLITE_CORRUPT || (rc & 0xFF) == SQLITE_NOTADB ||
                 rc == SQLITE_IOERR_SHORT_READ
             ? ErrorCode::kCorrupt
             : ErrorCode::kIo;
}

// SQLite calls this while another connection holds the lock; returning 0
// gives up with SQLITE_BUSY. Sleeps grow to 200 ms: a writer holding the
// lock for minutes costs nothing, one holding it for a moment is not waited
// for long.
int OnBusy(void* state_ptr, int attempt) {
  auto* state = static_cast<Database::BusyState*>(state_ptr);
  auto now = std::chrono::steady_clock::now();
  if (attempt == 0) {
    state->since = now;
    state->noticed = false;
  }
  auto waited = now - state->since;
  if (waited >= state->policy.limit) return 0;
  if (!state->noticed && waited >= std::chrono::milliseconds(500) && state->policy.notice) {
    state->noticed = true;
    state->policy.notice();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(200, 2 << std::min(attempt, 7))));
  return 1;
}

// Collects the tagged values and hashes them at once: the same XXH3-64 as
// feeding them one by one, without the per-call cost of the streaming API
// (a row is a dozen small values).
class Hasher {
 public:
  void Add(char tag, const void* data, size_t size) {
    uint64_t n = size;
    buffer_.push_back(tag);
    buffer_.append(reinterpret_cast<const char*>(&n), sizeof n);
    if (size > 0) buffer_.append(static_cast<const char*>(data), size);
  }
  // The value as SQLite holds it: integers as 8 bytes, text and blobs as
  // their bytes, each tagged with its type so that 1 and '1' differ.
  void Add(sqlite3_value* v) {
    switch (sqlite3_value_type(v)) {
      case SQLITE_INTEGER: {
        int64_t i = sqlite3_value_int64(v);
        Add('i', &i, sizeof i);
        break;
      }
      case SQLITE_FLOAT: {
        double d = sqlite3_value_double(v);
        Add('f', &d, sizeof d);
        break;
      }
      case SQLITE_TEXT: {
        const unsigned char* t = sqlite3_value_text(v);
        Add('t', t, static_cast<size_t>(sqlite3_value_bytes(v)));
        break;
      }
      case SQLITE_BLOB: {
        const void* b = sqlite3_value_blob(v);
        Add('b', b, static_cast<size_t>(sqlite3_value_bytes(v)));
        break;
      }
      default:
        Add('n', nullptr, 0);
    }
  }
  int64_t Digest() const {
    return static_cast<int64_t>(XXH3_64bits(buffer_.data(), buffer_.size()));
  }

 private:
  std::string buffer_;
};

void RowHashFunction(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  sqlite3_result_int64(ctx, RowHash(argv, argc));
}

void SumStep(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  auto* sum = static_cast<int64_t*>(sqlite3_aggregate_context(ctx, sizeof(int64_t)));
  if (sum != nullptr && sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    *sum = AddHashes(*sum, sqlite3_value_int64(argv[0]));
  }
}

void SumFinal(sqlite3_context* ctx) {
  auto* sum = static_cast<int64_t*>(sqlite3_aggregate_context(ctx, 0));
  sqlite3_result_int64(ctx, sum != nullptr ? *sum : 0);
}

}  // namespace

int64_t RowHash(sqlite3_value** values, int count) {
  Hasher h;
  for (int i = 0; i < count; ++i) h.Add(values[i]);
  return h.Digest();
}

Database::~Database() { sqlite3_close_v2(db_); }

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    busy_ = std::move(other.busy_);
  }
  return *this;
}

Result<Database> Database::Open(const std::string& path, int flags, BusyPolicy busy) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Fail(rc == SQLITE_CANTOPEN ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": " + message);
  }
  Database out;
  out.db_ = db;
  out.busy_ = std::make_unique<BusyState>();
  out.busy_->policy = std::move(busy);
  sqlite3_busy_handler(db, OnBusy, out.busy_.get());
  sqlite3_extended_result_codes(db, 1);
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  if (sqlite3_create_function(db, "errdex_row_hash", -1, kFlags, nullptr, RowHashFunction, nullptr,
                              nullptr) != SQLITE_OK ||
      sqlite3_create_function(db, "errdex_sum", 1, kFlags, nullptr, nullptr, SumStep,
                              SumFinal) != SQLITE_OK) {
    return Fail(ErrorCode::kInternal, "cannot register errdex's SQL functions");
  }
  return out;
}

Result<void> Database::Exec(std::string_view sql) {
  std::string owned(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    return Fail(CodeOf(rc), message);
  }
  return {};
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    int base = rc & 0xFF;
    return Fail(base == SQLITE_NOTADB || base == SQLITE_CORRUPT ? ErrorCode::kCorrupt
                                                                : ErrorCode::kInternal,
                std::string(sqlite3_errmsg(db_)) + " in: " + std::string(sql.substr(0, 80)));
  }
  return Statement(stmt, db_);
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
  }
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view value) {
  sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  return *this;
}

std::string Statement::Blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(n)) : std::string();
}

std::string_view Statement::BlobView(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return data ? std::string_view(static_cast<const char*>(data), static_cast<size_t>(n))
              : std::string_view();
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Fail(CodeOf(rc), sqlite3_errmsg(db_));
}

int64_t Statement::HashColumns(int first, int count) const {
  Hasher h;
  for (int i = first; i < first + count; ++i) h.Add(sqlite3_column_value(stmt_, i));
  return h.Digest();
}

Result<void> Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row) {
      Reset();
      return tl::unexpected(row.error());
    }
    if (!*row) break;
  }
  Reset();
  return {};
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n))
              : std::string();
}

}  // namespace errdex::catalog
