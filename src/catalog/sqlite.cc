#include "catalog/sqlite.h"

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <utility>

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

// Heap-held so that the busy handler's pointer survives moves.
struct BusyState {
  BusyPolicy policy;
  std::chrono::steady_clock::time_point since{};
  bool noticed = false;
};

// SQLite calls this while another connection holds the lock; returning 0
// gives up with SQLITE_BUSY. Sleeps grow to 200 ms: a writer holding the
// lock for minutes costs nothing, one holding it for a moment is not waited
// for long.
int OnBusy(void* state_ptr, int attempt) {
  auto* state = static_cast<BusyState*>(state_ptr);
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

// The value as SQLite holds it, tagged with its type (RowHasher).
void AddValue(RowHasher& h, sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      h.Int(sqlite3_value_int64(v));
      break;
    case SQLITE_FLOAT:
      h.Real(sqlite3_value_double(v));
      break;
    case SQLITE_TEXT:
      h.Text(std::string_view(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                              static_cast<size_t>(sqlite3_value_bytes(v))));
      break;
    case SQLITE_BLOB: {
      const void* b = sqlite3_value_blob(v);
      size_t n = static_cast<size_t>(sqlite3_value_bytes(v));
      h.Blob(b != nullptr ? std::string_view(static_cast<const char*>(b), n) : std::string_view());
      break;
    }
    default:
      h.Null();
  }
}

int64_t RowHash(sqlite3_value** values, int count) {
  RowHasher h;
  for (int i = 0; i < count; ++i) AddValue(h, values[i]);
  return h.Digest();
}

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


class SqliteStatement final : public StatementImpl {
 public:
  SqliteStatement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt(int index, int64_t value) override { sqlite3_bind_int64(stmt_, index, value); }
  void BindText(int index, std::string_view value) override {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
  }
  void BindBlob(int index, std::string_view value) override {
    sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  }
  Result<bool> Step() override {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return Fail(CodeOf(rc), sqlite3_errmsg(db_));
  }
  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  int ColumnCount() const override { return sqlite3_column_count(stmt_); }
  int64_t Int(int column) const override { return sqlite3_column_int64(stmt_, column); }
  std::string_view TextView(int column) const override {
    const unsigned char* text = sqlite3_column_text(stmt_, column);
    int n = sqlite3_column_bytes(stmt_, column);
    return text ? std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(n))
                : std::string_view();
  }
  std::string_view BlobView(int column) const override {
    const void* data = sqlite3_column_blob(stmt_, column);
    int n = sqlite3_column_bytes(stmt_, column);
    return data ? std::string_view(static_cast<const char*>(data), static_cast<size_t>(n))
                : std::string_view();
  }
  int64_t HashColumns(int first, int count) const override {
    RowHasher h;
    for (int i = first; i < first + count; ++i) AddValue(h, sqlite3_column_value(stmt_, i));
    return h.Digest();
  }

 private:
  sqlite3_stmt* stmt_;
  sqlite3* db_;
};

// A prepared INSERT, run once per row.
class SqliteBulk final : public BulkWriter {
 public:
  explicit SqliteBulk(std::unique_ptr<StatementImpl> insert) : insert_(std::move(insert)) {}
  Result<void> Add(std::initializer_list<SqlValue> row) override {
    int i = 0;
    for (const SqlValue& v : row) {
      ++i;
      if (v.kind == SqlValue::Kind::kInt) {
        insert_->BindInt(i, v.i);
      } else {
        insert_->BindText(i, v.s);
      }
    }
    while (true) {
      Result<bool> more = insert_->Step();
      if (!more) {
        insert_->Reset();
        return tl::unexpected(more.error());
      }
      if (!*more) break;
    }
    insert_->Reset();
    return {};
  }
  Result<void> Finish() override { return {}; }

 private:
  std::unique_ptr<StatementImpl> insert_;
};

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(sqlite3* db, BusyPolicy busy) : db_(db), busy_(std::make_unique<BusyState>()) {
    busy_->policy = std::move(busy);
    sqlite3_busy_handler(db, OnBusy, busy_.get());
  }
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Dialect dialect() const override { return Dialect::kSqlite; }

  Result<void> Exec(std::string_view sql) override {
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

  Result<std::unique_ptr<StatementImpl>> Prepare(std::string_view sql) override {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) {
      int base = rc & 0xFF;
      return Fail(base == SQLITE_NOTADB || base == SQLITE_CORRUPT ? ErrorCode::kCorrupt
                                                                  : ErrorCode::kInternal,
                  std::string(sqlite3_errmsg(db_)) + " in: " + std::string(sql.substr(0, 80)));
    }
    return std::unique_ptr<StatementImpl>(new SqliteStatement(stmt, db_));
  }

  Result<std::unique_ptr<BulkWriter>> BulkInsert(std::string_view table,
                                                 std::string_view columns) override {
    std::string values;
    int n = static_cast<int>(std::count(columns.begin(), columns.end(), ',')) + 1;
    for (int i = 1; i <= n; ++i) values += (i > 1 ? ", ?" : "?") + std::to_string(i);
    Result<std::unique_ptr<StatementImpl>> insert =
        Prepare("INSERT INTO " + std::string(table) + " (" + std::string(columns) +
                ") VALUES (" + values + ")");
    if (!insert) return tl::unexpected(insert.error());
    return std::unique_ptr<BulkWriter>(new SqliteBulk(std::move(*insert)));
  }

  int64_t Changes() const override { return sqlite3_changes(db_); }
  bool InAutocommit() const override { return sqlite3_get_autocommit(db_) != 0; }
  Result<void> BeginWrite() override { return Exec("BEGIN IMMEDIATE"); }

  Result<int64_t> DataVersion() override {
    if (!data_version_) {
      Result<std::unique_ptr<StatementImpl>> st = Prepare("PRAGMA data_version");
      if (!st) return tl::unexpected(st.error());
      data_version_ = std::move(*st);
    }
    Result<bool> row = data_version_->Step();
    int64_t v = row && *row ? data_version_->Int(0) : 0;
    data_version_->Reset();
    if (!row) return tl::unexpected(row.error());
    return v;
  }

 private:
  sqlite3* db_;
  std::unique_ptr<BusyState> busy_;
  std::unique_ptr<StatementImpl> data_version_;  // finalized before db_ closes
};

}  // namespace

Result<Database> OpenSqlite(const std::string& path, int flags, BusyPolicy busy) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Fail(rc == SQLITE_CANTOPEN ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": " + message);
  }
  auto connection = std::make_unique<SqliteConnection>(db, std::move(busy));
  sqlite3_extended_result_codes(db, 1);
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  if (sqlite3_create_function(db, "errdex_row_hash", -1, kFlags, nullptr, RowHashFunction, nullptr,
                              nullptr) != SQLITE_OK ||
      sqlite3_create_function(db, "errdex_sum", 1, kFlags, nullptr, nullptr, SumStep,
                              SumFinal) != SQLITE_OK) {
    return Fail(ErrorCode::kInternal, "cannot register errdex's SQL functions");
  }
  return Database(std::move(connection));
}

}  // namespace errdex::catalog
