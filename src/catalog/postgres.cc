#include "catalog/postgres.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace errdex::catalog {

namespace {

// Type OIDs of PostgreSQL's built-in types (pg_type.dat), fixed since 7.x;
// the server headers that name them are not part of libpq-dev.
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23,
              kText = 25, kOid = 26, kFloat4 = 700, kFloat8 = 701, kJsonb = 3802;

// One transaction-scoped advisory lock key for "writes the catalog":
// "errdex" in ASCII. Writers wait for it, readers never take it.
constexpr int64_t kWriteLock = 0x657272646578;

int64_t ReadBigEndian(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  if (n < 8 && (v >> (8 * n - 1)) != 0) v |= ~uint64_t{0} << (8 * n);  // sign-extend
  return static_cast<int64_t>(v);
}

std::string Trimmed(const char* message) {
  std::string m = message != nullptr ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

// libpq's message for a failed result, with the error code mapped: data or
// index corruption is kCorrupt, like SQLite's; the rest kIo.
tl::unexpected<Error> ResultError(const PGresult* r, PGconn* conn) {
  const char* state = r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = Trimmed(r != nullptr ? PQresultErrorMessage(r) : PQerrorMessage(conn));
  if (message.empty()) message = Trimmed(PQerrorMessage(conn));
  bool corrupt = state != nullptr && (std::strcmp(state, "XX001") == 0 ||
                                      std::strcmp(state, "XX002") == 0);
  return Fail(corrupt ? ErrorCode::kCorrupt : ErrorCode::kIo, "PostgreSQL: " + message);
}

bool Succeeded(const PGresult* r) {
  ExecStatusType s = PQresultStatus(r);
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// ?N parameters to $N, outside quoted strings and identifiers.
std::string ToDollarParams(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      c = '$';
    }
    out.push_back(c);
  }
  return out;
}

// The connection and what its statements share, held by each statement
// too, so that they may outlive the Database in any order.
struct Session {
  PGconn* conn = nullptr;
  int64_t changes = 0;
  int64_t next_name = 0;
  std::vector<std::string> unused;  // prepared statements to deallocate
  BusyPolicy busy;

  ~Session() { PQfinish(conn); }

  // Deallocates the prepared statements of destroyed Statements, a batch at
  // a time, when the transaction state lets it.
  void Collect() {
    if (unused.size() < 32 || PQtransactionStatus(conn) == PQTRANS_INERROR) return;
    std::string sql;
    for (const std::string& name : unused) sql += "DEALLOCATE " + name + ";";
    unused.clear();
    PQclear(PQexec(conn, sql.c_str()));
  }

  void NoteChanges(const PGresult* r) {
    const char* n = PQcmdTuples(const_cast<PGresult*>(r));
    if (n != nullptr && *n != '\0') changes = std::strtoll(n, nullptr, 10);
  }
};

class PgStatement final : public StatementImpl {
 public:
  PgStatement(std::shared_ptr<Session> session, std::string sql)
      : session_(std::move(session)), sql_(std::move(sql)) {}
  ~PgStatement() override {
    if (!name_.empty()) session_->unused.push_back(name_);
  }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  void BindInt(int index, int64_t value) override {
    Param& p = At(index);
    p.type = kInt8;
    p.bytes.resize(8);
    auto v = static_cast<uint64_t>(value);
    for (int i = 7; i >= 0; --i, v >>= 8) p.bytes[static_cast<size_t>(i)] = static_cast<char>(v & 0xFF);
  }
  void BindText(int index, std::string_view value) override {
    Param& p = At(index);
    p.type = kText;
    p.bytes.assign(value.data(), value.size());
  }
  void BindBlob(int index, std::string_view value) override {
    Param& p = At(index);
    p.type = kBytea;
    p.bytes.assign(value.data(), value.size());
  }

  Result<bool> Step() override {
    if (!result_) ERRDEX_TRY(Execute());
    ++row_;
    return row_ < PQntuples(result_.get());
  }

  void Reset() override {
    result_.reset();
    row_ = -1;
    params_.clear();
  }

  int ColumnCount() const override { return result_ ? PQnfields(result_.get()) : 0; }

  int64_t Int(int column) const override {
    if (!Valid(column) || PQgetisnull(result_.get(), row_, column)) return 0;
    const char* v = PQgetvalue(result_.get(), row_, column);
    int n = PQgetlength(result_.get(), row_, column);
    switch (PQftype(result_.get(), column)) {
      case kInt8:
      case kInt4:
      case kInt2:
      case kOid:
        return ReadBigEndian(v, n);
      case kBool:
        return n > 0 && v[0] != 0;
      default:
        return std::strtoll(std::string(v, static_cast<size_t>(n)).c_str(), nullptr, 10);
    }
  }

  std::string_view TextView(int column) const override {
    if (!Valid(column) || PQgetisnull(result_.get(), row_, column)) return {};
    std::string_view v(PQgetvalue(result_.get(), row_, column),
                       static_cast<size_t>(PQgetlength(result_.get(), row_, column)));
    // jsonb's binary form is a version byte and the text.
    if (PQftype(result_.get(), column) == kJsonb && !v.empty()) v.remove_prefix(1);
    return v;
  }
  std::string_view BlobView(int column) const override { return TextView(column); }

  // Each value as SQLite would hold it (RowHasher): integers, reals, text
  // (and anything else by its bytes), blobs, NULL.
  int64_t HashColumns(int first, int count) const override {
    RowHasher h;
    for (int c = first; c < first + count; ++c) {
      if (!Valid(c) || PQgetisnull(result_.get(), row_, c)) {
        h.Null();
        continue;
      }
      switch (PQftype(result_.get(), c)) {
        case kInt8:
        case kInt4:
        case kInt2:
        case kOid:
        case kBool:
          h.Int(Int(c));
          break;
        case kFloat8:
        case kFloat4: {
          const char* v = PQgetvalue(result_.get(), row_, c);
          int64_t bits = ReadBigEndian(v, PQgetlength(result_.get(), row_, c));
          double d = 0;
          if (PQgetlength(result_.get(), row_, c) == 8) {
            std::memcpy(&d, &bits, sizeof d);
          } else {
            float f = 0;
            auto b32 = static_cast<uint32_t>(bits);
            std::memcpy(&f, &b32, sizeof f);
            d = f;
          }
          h.Real(d);
          break;
        }
        case kBytea:
          h.Blob(BlobView(c));
          break;
        default:
          h.Text(TextView(c));
      }
    }
    return h.Digest();
  }

 private:
  struct Param {
    Oid type = 0;  // 0: not bound, sent as NULL
    std::string bytes;
  };

  Param& At(int index) {
    if (index < 1) index = 1;
    if (params_.size() < static_cast<size_t>(index)) params_.resize(static_cast<size_t>(index));
    return params_[static_cast<size_t>(index - 1)];
  }

  bool Valid(int column) const {
    return result_ && row_ >= 0 && row_ < PQntuples(result_.get()) && column >= 0 &&
           column < PQnfields(result_.get());
  }

  // The first execution goes unnamed (parsed and run in one round trip); a
  // statement run again is prepared once and reused, as long as its
  // parameters keep their types.
  Result<void> Execute() {
    Session& s = *session_;
    s.Collect();
    std::vector<Oid> types;
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const Param& p : params_) {
      types.push_back(p.type);
      values.push_back(p.type == 0 ? nullptr : p.bytes.data());
      lengths.push_back(static_cast<int>(p.bytes.size()));
      formats.push_back(1);
    }
    int n = static_cast<int>(params_.size());
    ++executions_;
    PGresult* r = nullptr;
    if (!name_.empty() && types == prepared_types_) {
      r = PQexecPrepared(s.conn, name_.c_str(), n, values.data(), lengths.data(), formats.data(), 1);
    } else if (executions_ >= 2 && name_.empty()) {
      std::string name = "errdex_" + std::to_string(++s.next_name);
      ResultPtr prepared(PQprepare(s.conn, name.c_str(), sql_.c_str(), n, types.data()));
      if (!prepared || !Succeeded(prepared.get())) return ResultError(prepared.get(), s.conn);
      name_ = std::move(name);
      prepared_types_ = types;
      r = PQexecPrepared(s.conn, name_.c_str(), n, values.data(), lengths.data(), formats.data(), 1);
    } else {
      r = PQexecParams(s.conn, sql_.c_str(), n, types.data(), values.data(), lengths.data(),
                       formats.data(), 1);
    }
    ResultPtr result(r);
    if (!result || !Succeeded(result.get())) return ResultError(result.get(), s.conn);
    s.NoteChanges(result.get());
    result_ = std::move(result);
    row_ = -1;
    return {};
  }

  std::shared_ptr<Session> session_;
  std::string sql_;
  std::vector<Param> params_;
  std::string name_;
  std::vector<Oid> prepared_types_;
  int executions_ = 0;
  ResultPtr result_;
  int row_ = -1;
};

// Rows in COPY's text format, sent a few megabytes at a time.
class PgBulk final : public BulkWriter {
 public:
  PgBulk(std::shared_ptr<Session> session, std::string copy)
      : session_(std::move(session)), copy_(std::move(copy)) {}

  Result<void> Add(std::initializer_list<SqlValue> row) override {
    bool first = true;
    for (const SqlValue& v : row) {
      if (!first) buffer_.push_back('\t');
      first = false;
      if (v.kind == SqlValue::Kind::kInt) {
        buffer_ += std::to_string(v.i);
        continue;
      }
      for (char c : v.s) {
        switch (c) {
          case '\\':
            buffer_ += "\\\\";
            break;
          case '\n':
            buffer_ += "\\n";
            break;
          case '\r':
            buffer_ += "\\r";
            break;
          case '\t':
            buffer_ += "\\t";
            break;
          default:
            buffer_.push_back(c);
        }
      }
    }
    buffer_.push_back('\n');
    if (buffer_.size() >= (size_t{8} << 20)) return Flush();
    return {};
  }

  Result<void> Finish() override { return buffer_.empty() ? Result<void>() : Flush(); }

 private:
  Result<void> Flush() {
    PGconn* conn = session_->conn;
    ResultPtr start(PQexec(conn, copy_.c_str()));
    if (!start || PQresultStatus(start.get()) != PGRES_COPY_IN) {
      return ResultError(start.get(), conn);
    }
    bool sent = PQputCopyData(conn, buffer_.data(), static_cast<int>(buffer_.size())) == 1;
    buffer_.clear();
    PQputCopyEnd(conn, sent ? nullptr : "errdex could not send the rows");
    Result<void> out;
    while (PGresult* r = PQgetResult(conn)) {
      ResultPtr done(r);
      if (PQresultStatus(r) != PGRES_COMMAND_OK && out) out = ResultError(r, conn);
    }
    return out;
  }

  std::shared_ptr<Session> session_;
  std::string copy_;
  std::string buffer_;
};

class PgConnection final : public Connection {
 public:
  explicit PgConnection(std::shared_ptr<Session> session) : session_(std::move(session)) {}

  Dialect dialect() const override { return Dialect::kPostgres; }

  Result<void> Exec(std::string_view sql) override {
    session_->Collect();
    std::string owned(sql);
    ResultPtr r(PQexec(session_->conn, owned.c_str()));
    if (!r || !Succeeded(r.get())) return ResultError(r.get(), session_->conn);
    session_->NoteChanges(r.get());
    return {};
  }

  Result<std::unique_ptr<StatementImpl>> Prepare(std::string_view sql) override {
    return std::unique_ptr<StatementImpl>(new PgStatement(session_, ToDollarParams(sql)));
  }

  Result<std::unique_ptr<BulkWriter>> BulkInsert(std::string_view table,
                                                 std::string_view columns) override {
    return std::unique_ptr<BulkWriter>(new PgBulk(
        session_, "COPY " + std::string(table) + " (" + std::string(columns) + ") FROM STDIN"));
  }

  int64_t Changes() const override { return session_->changes; }

  bool InAutocommit() const override {
    return PQtransactionStatus(session_->conn) == PQTRANS_IDLE;
  }

  // Writers queue on an advisory lock held until their transaction ends,
  // as SQLite's BEGIN IMMEDIATE queues them on the file; readers are not
  // blocked (MVCC). The wait polls, so that it can say it is waiting.
  Result<void> BeginWrite() override {
    ERRDEX_TRY(Exec("BEGIN"));
    Result<std::unique_ptr<StatementImpl>> lock =
        Prepare("SELECT pg_try_advisory_xact_lock(" + std::to_string(kWriteLock) + ")");
    if (!lock) return tl::unexpected(lock.error());
    const BusyPolicy& busy = session_->busy;
    auto since = std::chrono::steady_clock::now();
    bool noticed = false;
    for (int attempt = 0;; ++attempt) {
      Result<bool> row = (*lock)->Step();
      bool got = row && *row && (*lock)->Int(0) != 0;
      (*lock)->Reset();
      if (!row) {
        (void)Exec("ROLLBACK");
        return tl::unexpected(row.error());
      }
      if (got) return {};
      auto waited = std::chrono::steady_clock::now() - since;
      if (waited >= busy.limit) {
        (void)Exec("ROLLBACK");
        return Fail(ErrorCode::kIo, "the catalog is locked by another errdex writing it");
      }
      if (!noticed && waited >= std::chrono::milliseconds(500) && busy.notice) {
        noticed = true;
        busy.notice();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(200, 2 << std::min(attempt, 7))));
    }
  }

  // Every write's commit bumps errdex_catalog.generation (Catalog::Seal).
  Result<int64_t> DataVersion() override {
    if (!version_) {
      Result<std::unique_ptr<StatementImpl>> st =
          Prepare("SELECT generation FROM errdex_catalog");
      if (!st) return tl::unexpected(st.error());
      version_ = std::move(*st);
    }
    Result<bool> row = version_->Step();
    int64_t v = row && *row ? version_->Int(0) : 0;
    version_->Reset();
    if (!row) return tl::unexpected(row.error());
    return v;
  }

 private:
  std::shared_ptr<Session> session_;
  std::unique_ptr<StatementImpl> version_;
};

void IgnoreNotice(void* /*arg*/, const char* /*message*/) {}

}  // namespace

std::string RedactUrl(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  size_t start = scheme + 3;
  size_t end = url.find_first_of("/?", start);
  std::string_view authority = url.substr(start, end == std::string_view::npos ? url.npos : end - start);
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  std::string_view userinfo = authority.substr(0, at);
  size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return std::string(url);
  std::string out(url.substr(0, start));
  out += userinfo.substr(0, colon);
  out += ":***";
  out += url.substr(start + at);
  return out;
}

namespace {

// libpq may quote the URL it could not parse, password and all. The search
// goes on after each replacement: a URL without a password is its own
// redaction.
std::string WithoutPassword(std::string reason, const std::string& url) {
  std::string redacted = RedactUrl(url);
  for (size_t at = 0; (at = reason.find(url, at)) != std::string::npos; at += redacted.size()) {
    reason.replace(at, url.size(), redacted);
  }
  return reason;
}

}  // namespace

struct CatalogListener::Conn {
  PGconn* pg = nullptr;
  ~Conn() { PQfinish(pg); }
};

CatalogListener::CatalogListener(std::string url, int wake_fd)
    : url_(std::move(url)), wake_fd_(wake_fd) {}

CatalogListener::~CatalogListener() = default;

bool CatalogListener::connected() const {
  return conn_ != nullptr && PQstatus(conn_->pg) == CONNECTION_OK;
}

void CatalogListener::Close() {
  conn_.reset();
  listening_ = false;
  notified_ = false;
}

// Until the connection's socket has `events`, the deadline passes or the
// owner wakes us: libpq's own waits know neither a deadline per query nor
// a way to be interrupted.
// False when the deadline passed.
Result<bool> CatalogListener::Await(short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd fds[2] = {{PQsocket(conn_->pg), events, 0}, {wake_fd_, POLLIN, 0}};
    int n = poll(fds, wake_fd_ >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, std::string("poll: ") + std::strerror(errno));
    if (wake_fd_ >= 0 && fds[1].revents != 0) return Fail(ErrorCode::kIo, "stopped");
    if (fds[0].revents != 0) return true;
  }
}

// Moves the notifications libpq has read out of its queue; whether any.
bool CatalogListener::Drain() {
  bool any = false;
  while (PGnotify* n = PQnotifies(conn_->pg)) {
    any = true;
    PQfreemem(n);
  }
  return any;
}

Result<void> CatalogListener::Connect(std::chrono::milliseconds timeout) {
  Close();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  const char* keywords[] = {"application_name", "client_encoding", "dbname", nullptr};
  const char* values[] = {"errdex serve (watch)", "UTF8", url_.c_str(), nullptr};
  conn_ = std::make_unique<Conn>();
  conn_->pg = PQconnectStartParams(keywords, values, 1);
  auto failed = [&](const std::string& why) {
    Close();
    return Fail(ErrorCode::kIo, "cannot connect to PostgreSQL at " + RedactUrl(url_) + ": " + why);
  };
  if (conn_->pg == nullptr) return failed("out of memory");
  if (PQstatus(conn_->pg) == CONNECTION_BAD) return failed(Trimmed(PQerrorMessage(conn_->pg)));
  PostgresPollingStatusType state = PGRES_POLLING_WRITING;
  while (state != PGRES_POLLING_OK) {
    if (state == PGRES_POLLING_FAILED) {
      return failed(WithoutPassword(Trimmed(PQerrorMessage(conn_->pg)), url_));
    }
    Result<bool> ready = Await(state == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
    if (!ready) return failed(ready.error().message);
    if (!*ready) return failed("timed out");
    state = PQconnectPoll(conn_->pg);
  }
  PQsetNoticeProcessor(conn_->pg, IgnoreNotice, nullptr);
  Result<void> listen = Run("LISTEN " + std::string(kCatalogChannel), timeout, nullptr);
  // A standby refuses LISTEN ("cannot execute LISTEN during recovery")
  // and stays usable: its changes are seen by polling alone.
  listening_ = static_cast<bool>(listen);
  if (!listen && !connected()) return failed(listen.error().message);
  return {};
}

// Runs `sql`; with `value`, its first row's first column, as an integer.
Result<void> CatalogListener::Run(const std::string& sql, std::chrono::milliseconds timeout,
                                  int64_t* value) {
  if (!connected()) return Fail(ErrorCode::kIo, "not connected to PostgreSQL");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  PGconn* pg = conn_->pg;
  if (PQsendQuery(pg, sql.c_str()) != 1) return ResultError(nullptr, pg);
  Result<void> out;
  bool first = true;
  for (;;) {
    while (PQisBusy(pg)) {
      Result<bool> ready = Await(POLLIN, deadline);
      if (!ready) return tl::unexpected(ready.error());
      if (!*ready) return Fail(ErrorCode::kIo, "PostgreSQL did not answer in time: " + sql);
      if (PQconsumeInput(pg) != 1) return ResultError(nullptr, pg);
    }
    ResultPtr r(PQgetResult(pg));
    if (!r) break;
    if (!first) continue;
    first = false;
    if (!Succeeded(r.get())) {
      out = ResultError(r.get(), pg);
    } else if (value != nullptr) {
      if (PQntuples(r.get()) < 1 || PQgetisnull(r.get(), 0, 0)) {
        out = Fail(ErrorCode::kIo, "PostgreSQL: " + sql + " returned no row");
      } else {
        *value = std::strtoll(PQgetvalue(r.get(), 0, 0), nullptr, 10);
      }
    }
  }
  notified_ |= Drain();
  return out;
}

Result<bool> CatalogListener::Wait(std::chrono::milliseconds timeout) {
  if (!connected()) return Fail(ErrorCode::kIo, "not connected to PostgreSQL");
  bool any = std::exchange(notified_, false) || Drain();
  if (any) return true;
  Result<bool> ready = Await(POLLIN, std::chrono::steady_clock::now() + timeout);
  if (!ready) return tl::unexpected(ready.error());
  if (!*ready) return false;
  // Readable with nothing to read is a closed connection.
  if (PQconsumeInput(conn_->pg) != 1 || PQstatus(conn_->pg) != CONNECTION_OK) {
    return ResultError(nullptr, conn_->pg);
  }
  return Drain();
}

Result<int64_t> CatalogListener::Generation(std::chrono::milliseconds timeout) {
  int64_t v = 0;
  ERRDEX_TRY(Run("SELECT generation FROM errdex_catalog", timeout, &v));
  return v;
}

Result<Database> OpenPostgres(const std::string& url, bool read_only, BusyPolicy busy) {
  // Defaults first: what the URL says wins (expand_dbname). A server that
  // does not answer is given up on after 10 s, not the TCP timeout.
  const char* keywords[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
                            nullptr};
  const char* values[] = {"10", "errdex", "UTF8", url.c_str(), nullptr};
  auto session = std::make_shared<Session>();
  session->conn = PQconnectdbParams(keywords, values, 1);
  session->busy = std::move(busy);
  if (session->conn == nullptr) {
    return Fail(ErrorCode::kIo, "cannot connect to " + RedactUrl(url) + ": out of memory");
  }
  if (PQstatus(session->conn) != CONNECTION_OK) {
    std::string reason = WithoutPassword(Trimmed(PQerrorMessage(session->conn)), url);
    return Fail(ErrorCode::kIo, "cannot connect to PostgreSQL at " + RedactUrl(url) + ": " + reason);
  }
  PQsetNoticeProcessor(session->conn, IgnoreNotice, nullptr);
  auto connection = std::make_unique<PgConnection>(session);
  // UTF-8 whatever the server's default, and comparisons of the catalog's
  // text by bytes (its columns are COLLATE "C").
  ERRDEX_TRY(connection->Exec("SET client_encoding = 'UTF8'"));
  if (read_only) ERRDEX_TRY(connection->Exec("SET default_transaction_read_only = on"));
  return Database(std::move(connection));
}

}  // namespace errdex::catalog
