// The HTTP layer of `errdex serve` without the sockets: how a request is
// parsed (limits, strictness), checked, routed to the site and answered.
// The server (server.cc) only moves these bytes over connections with
// deadlines; ServeBytes runs the very same steps over a byte string, which
// is what the fuzzer and the protocol tests drive.
#pragma once

#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "catalog/postgres.h"
#include "core/status.h"
#include "web/metrics.h"
#include "web/server.h"

namespace errdex::web {

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
using RequestParser = http::request_parser<http::string_body>;

class Site;
class PageCache;

// Sets the header and body limits on a fresh parser. The body limit counts
// bytes as they arrive, whatever the framing: a chunked body over it fails
// when the limit is crossed, not after it was read whole.
void LimitParser(RequestParser& parser, const ServeOptions& options);

// What the parser lets through but a server for untrusted traffic must not:
// Content-Length with Transfer-Encoding (a smuggling vector behind proxies),
// a Transfer-Encoding other than chunked, a missing or repeated Host, a
// target not in origin form, an HTTP version other than 1.0 and 1.1.
// Called once the header is read; a response means refuse and close.
std::optional<HttpResponse> CheckHeader(const HttpRequest& header);

// The answer to a request the parser failed on (413 body too large, 431
// header too large, 400 otherwise); the connection closes after it.
HttpResponse ParseFailure(const boost::system::error_code& ec);

// A JSON error {"error", "status"}, never cached.
HttpResponse JsonError(int status, std::string_view message);

// When the catalog changed, so that sites and pages of an older generation
// are dropped. Generation() is what the workers compare; it never waits on
// the catalog.
//
// A SQLite catalog is a file: its identity and state (device, inode, size
// and time of the database and its WAL) are compared at most once a second;
// a new generation starts when they change (an `errdex index` run, a copy
// over it, a rename onto it).
//
// A PostgreSQL catalog is watched by a thread with a connection of its own
// (catalog::CatalogListener): every writer's commit NOTIFYs it, and every
// `poll` it also reads errdex_catalog.generation, since a hot standby
// delivers no notifications and a connection can drop. A change seen
// starts a new generation (at most one a second: a run writing snapshot
// after snapshot does not make the workers reopen at each). A lost
// connection is made again, waiting longer after each failure.
class CatalogWatch {
 public:
  explicit CatalogWatch(std::string db, std::chrono::milliseconds poll = std::chrono::seconds(2));
  ~CatalogWatch();
  CatalogWatch(const CatalogWatch&) = delete;
  CatalogWatch& operator=(const CatalogWatch&) = delete;

  uint64_t Generation();
  // The next Generation() looks at the file rather than wait for the second:
  // a site just failed on it. (PostgreSQL's watch keeps its own time.)
  void Recheck() { checked_ms_.store(0, std::memory_order_relaxed); }
  // Whether the database file is as long as its header says (when the
  // header keeps its size). A truncated file, or one half-copied over the
  // live one, reads in SQLite as missing rows rather than as an error: the
  // answers made from it would be wrong 404s.
  bool Whole() const;

  bool postgres() const { return postgres_; }
  // PostgreSQL: errdex_catalog.generation as last read (-1 before the
  // first read); whether the watch's connection is up and LISTENs (a
  // standby's is up and polled only); connections lost or refused so far.
  int64_t catalog_generation() const { return catalog_generation_.load(); }
  bool connected() const { return connected_.load(); }
  bool listening() const { return listening_.load(); }
  uint64_t failures() const { return failures_.load(); }

 private:
  std::string Stamp() const;
  void Watch(std::unique_ptr<catalog::CatalogListener> listener, bool known);
  bool Nap(std::chrono::milliseconds ms);
  std::string db_;
  bool postgres_;
  std::chrono::milliseconds poll_;
  std::mutex mu_;
  std::string stamp_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> checked_ms_{0};
  std::atomic<int64_t> catalog_generation_{-1};
  std::atomic<bool> connected_{false};
  std::atomic<bool> listening_{false};
  std::atomic<uint64_t> failures_{0};
  std::atomic<bool> stop_{false};
  int wake_fd_ = -1;  // eventfd: readable once the watch is to stop
  std::thread thread_;
};

// Routes requests to the catalog. Quick answers what needs no catalog (a
// cached page, a refused method, /metrics) and never blocks; Slow does the
// rest on a site (SQLite and a matcher, which block and are not
// thread-safe) owned by the calling worker, `worker` from 0 to workers() -
// 1. Both return finished responses (version, keep-alive, length, HEAD
// without its body).
class Handler {
 public:
  using Clock = std::chrono::steady_clock;

  // Opens and warms one site per worker; fails when the catalog cannot be read.
  static Result<std::unique_ptr<Handler>> Create(const ServeOptions& options, size_t workers);
  ~Handler();

  std::optional<HttpResponse> Quick(const HttpRequest& req);
  HttpResponse Slow(const HttpRequest& req, size_t worker);
  HttpResponse Handle(const HttpRequest& req, size_t worker) {
    Clock::time_point start = Clock::now();
    std::optional<HttpResponse> r = Quick(req);
    HttpResponse res = r ? std::move(*r) : Slow(req, worker);
    Record(req, res, start);
    return res;
  }
  // Counts an answered request for /metrics: its route, status and the
  // time since `start` (when it was read whole).
  void Record(const HttpRequest& req, const HttpResponse& res, Clock::time_point start) {
    metrics_->Record(RouteOf({req.target().data(), req.target().size()}), res.result_int(),
                     Clock::now() - start);
  }
  Metrics& metrics() { return *metrics_; }
  size_t workers() const { return slots_.size(); }

 private:
  struct Slot {
    std::unique_ptr<Site> site;
    uint64_t generation = 0;
    Error failure;  // why the site could not be opened, while it cannot
  };
  explicit Handler(ServeOptions options);
  Site* Acquire(Slot& slot);
  HttpResponse Finish(const HttpRequest& req, HttpResponse res);
  HttpResponse Health(const HttpRequest& req, Slot& slot);

  ServeOptions options_;
  std::unique_ptr<Metrics> metrics_;
  CatalogWatch watch_;
  std::unique_ptr<PageCache> cache_;
  std::vector<Slot> slots_;
};

// The server's request path over bytes instead of a socket: requests are
// parsed one after another from `input` (pipelined) with the same limits and
// checks, each answered by `handler` (as worker 0), and the answers returned
// as they would be sent. Stops where the connection would close: a request
// that fails to parse, one that asks to close, or input that ends mid-request.
std::string ServeBytes(Handler& handler, const ServeOptions& options, std::string_view input);

}  // namespace errdex::web
