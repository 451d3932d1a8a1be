#include "web/server.h"

#include <httplib.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "web/site.h"

namespace errdex::web {
namespace {

std::string ETag(const std::string& body) {
  XXH128_hash_t h = XXH3_128bits(body.data(), body.size());
  return fmt::format("\"{:016x}{:016x}\"", h.high64, h.low64);
}

// A GET's answer, rendered once.
struct Rendered {
  Page page;
  std::string etag;
};

// Rendered GET answers by path and query. The catalog is read-only here,
// but `errdex index` may write it while the server runs: once a second at
// most, the database and WAL files' sizes and times are compared with what
// they were, and any change empties the cache. Bounded in bytes; when full it
// starts over (a flood of distinct URLs cannot grow it).
class PageCache {
 public:
  PageCache(std::string db, size_t max_bytes) : db_(std::move(db)), max_bytes_(max_bytes) {
    stamp_ = Stamp();
  }

  std::shared_ptr<const Rendered> Find(const std::string& key) {
    Revalidate();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }

  std::shared_ptr<const Rendered> Put(const std::string& key, Page page) {
    auto r = std::make_shared<Rendered>();
    if (page.status == 200) r->etag = ETag(page.body);
    r->page = std::move(page);
    std::lock_guard<std::mutex> lock(mu_);
    size_t size = key.size() + r->page.body.size();
    if (bytes_ + size > max_bytes_) {
      map_.clear();
      bytes_ = 0;
    }
    if (size <= max_bytes_ && map_.emplace(key, r).second) bytes_ += size;
    return r;
  }

 private:
  std::string Stamp() const {
    std::string out;
    for (const std::string& f : {db_, db_ + "-wal"}) {
      struct stat st {};
      if (stat(f.c_str(), &st) == 0) {
        out += fmt::format("{}:{}.{};", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
      }
    }
    return out;
  }

  void Revalidate() {
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
    int64_t last = checked_ms_.load(std::memory_order_relaxed);
    if (now - last < 1000 || !checked_ms_.compare_exchange_strong(last, now)) return;
    std::string stamp = Stamp();
    std::lock_guard<std::mutex> lock(mu_);
    if (stamp != stamp_) {
      stamp_ = stamp;
      map_.clear();
      bytes_ = 0;
    }
  }

  std::string db_;
  size_t max_bytes_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Rendered>> map_;
  size_t bytes_ = 0;
  std::string stamp_;
  std::atomic<int64_t> checked_ms_{0};
};

// Pages change only when the catalog does: a CDN may keep them a while; the
// ETag lets it (and browsers) revalidate for free.
void Respond(const httplib::Request& req, httplib::Response& res, const Rendered& rendered,
             bool immutable_asset) {
  const Page& page = rendered.page;
  res.status = page.status;
  if (page.status == 200) {
    const std::string& etag = rendered.etag;
    res.set_header("ETag", etag);
    res.set_header("Cache-Control",
                   immutable_asset ? "public, max-age=86400" : "public, max-age=300");
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
  } else {
    res.set_header("Cache-Control", "no-store");
  }
  res.set_header("X-Content-Type-Options", "nosniff");
  if (page.content_type.rfind("text/html", 0) == 0) {
    // Pages run only errdex's own script, from its own origin.
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                   "object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
  }
  res.set_content(page.body, page.content_type.c_str());
}

// Sites lent to requests, at most `max` of them, opened as needed. When all
// are lent, requests wait in line and a returned site goes straight to the
// first in line: first come, first served, and one wake-up per hand-over (a
// shared condition variable woke waiters in no order, and under load some
// waited seconds).
class SitePool {
 public:
  // `sites`: opened already (and warmed); more are opened on demand up to `max`.
  SitePool(std::string db, size_t max, std::vector<std::unique_ptr<Site>> sites)
      : db_(std::move(db)), max_(max), free_(std::move(sites)), opened_(free_.size()) {}

  class Lease {
   public:
    Lease(SitePool* pool, std::unique_ptr<Site> site) : pool_(pool), site_(std::move(site)) {}
    Lease(Lease&&) = default;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (site_) pool_->Give(std::move(site_));
    }
    Site* operator->() const { return site_.get(); }
    bool operator==(std::nullptr_t) const { return site_ == nullptr; }

   private:
    SitePool* pool_;
    std::unique_ptr<Site> site_;
  };

  Lease Take() {
    std::unique_lock<std::mutex> lock(mu_);
    if (!free_.empty() && line_.empty()) {
      std::unique_ptr<Site> s = std::move(free_.back());
      free_.pop_back();
      return Lease(this, std::move(s));
    }
    if (opened_ < max_) {
      ++opened_;
      lock.unlock();
      Result<std::unique_ptr<Site>> s = Site::Open(db_, Links{});
      if (s) return Lease(this, std::move(*s));
      lock.lock();
      --opened_;
      return Lease(this, nullptr);
    }
    Waiter me;
    line_.push_back(&me);
    me.ready.wait(lock, [&] { return me.site != nullptr; });
    return Lease(this, std::move(me.site));
  }

  void Give(std::unique_ptr<Site> s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (line_.empty()) {
      free_.push_back(std::move(s));
      return;
    }
    Waiter* next = line_.front();
    line_.pop_front();
    next->site = std::move(s);
    next->ready.notify_one();
  }

 private:
  struct Waiter {
    std::condition_variable ready;
    std::unique_ptr<Site> site;
  };

  std::string db_;
  size_t max_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Site>> free_;
  std::deque<Waiter*> line_;
  size_t opened_;
};

}  // namespace

struct Server::Impl {
  ServeOptions options;
  httplib::Server http;
  int port = 0;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;
int Server::port() const { return impl_->port; }
void Server::Stop() { impl_->http.stop(); }

Result<std::unique_ptr<Server>> Server::Create(const ServeOptions& options) {
  // Fail now, not at the first request, when the catalog cannot be read.
  Result<std::unique_ptr<Site>> probe = Site::Open(options.db, Links{});
  if (!probe) return tl::unexpected(probe.error());
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  httplib::Server& http = impl->http;
  // httplib gives each connection a thread for as long as it is kept alive:
  // enough threads for the connections a CDN or a load test keeps open. The
  // work itself runs on a pool of sites, one per core (and a spare), each
  // with its own SQLite connection and matcher; that bounds memory however
  // many connections there are.
  int connections = options.threads > 0 ? options.threads : 256;
  http.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  http.set_payload_max_length(options.max_body);
  http.set_read_timeout(options.timeout_seconds, 0);
  http.set_write_timeout(options.timeout_seconds, 0);
  http.set_keep_alive_timeout(5);
  http.set_keep_alive_max_count(1000);
  // Headers and body go out in separate writes: without TCP_NODELAY the
  // body waits for the client's delayed ACK, 40 ms a response.
  http.set_tcp_nodelay(true);
  size_t workers = std::max<size_t>(2, std::thread::hardware_concurrency() + 1);
  // Every site opened and its matcher loaded before the first request: a
  // matcher loaded under load made the first matches wait seconds.
  std::vector<std::unique_ptr<Site>> sites;
  sites.push_back(std::move(*probe));
  while (sites.size() < workers) {
    Result<std::unique_ptr<Site>> s = Site::Open(options.db, Links{});
    if (!s) return tl::unexpected(s.error());
    sites.push_back(std::move(*s));
  }
  for (std::unique_ptr<Site>& s : sites) ERRDEX_TRY(s->Warm());
  auto pool = std::make_shared<SitePool>(options.db, workers, std::move(sites));
  auto site = [pool]() { return pool->Take(); };
  // All routing here, by string: no regex engine sees the request path.
  auto cache = std::make_shared<PageCache>(options.db, size_t{256} << 20);
  auto unavailable = [](httplib::Response& res) {
    res.status = 503;
    res.set_content("{\"error\": \"the catalog cannot be opened\", \"status\": 503}\n",
                    "application/json");
    return httplib::Server::HandlerResponse::Handled;
  };
  http.set_pre_routing_handler([site, cache, unavailable](const httplib::Request& req,
                                                          httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD") {
      std::string key = req.path;
      for (const auto& [k, v] : req.params) key += "\n" + k + "=" + v;
      std::shared_ptr<const Rendered> r = cache->Find(key);
      if (r == nullptr) {
        SitePool::Lease s = site();
        if (s == nullptr) return unavailable(res);
        Query query(req.params.begin(), req.params.end());
        r = cache->Put(key, s->Get(req.path, query));
      }
      Respond(req, res, *r, req.path.rfind("/static/", 0) == 0);
    } else if (req.method == "POST" && req.path == "/api/match") {
      // The body is read after this handler: the route below answers.
      return httplib::Server::HandlerResponse::Unhandled;
    } else if (req.method == "OPTIONS") {
      res.status = 204;
      res.set_header("Allow", "GET, HEAD, POST, OPTIONS");
    } else {
      res.status = 405;
      res.set_header("Allow", req.path == "/api/match" ? "POST" : "GET, HEAD");
      res.set_content("{\"error\": \"method not allowed\", \"status\": 405}\n", "application/json");
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  // What the library itself refuses (a body over the limit, a malformed
  // request) gets a JSON body too.
  // httplib matches this literal pattern with std::regex; a literal cannot
  // backtrack, and nothing else is routed that way.
  http.Post("/api/match", [site](const httplib::Request& req, httplib::Response& res) {
    SitePool::Lease s = site();
    Page page = s == nullptr
                    ? Page{503, "application/json",
                           "{\"error\": \"the catalog cannot be opened\", \"status\": 503}\n"}
                    : s->Match(req.body, req.get_header_value("Content-Type"));
    res.status = page.status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(page.body, page.content_type.c_str());
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string_view what = res.status == 413   ? "request body too large"
                            : res.status == 400 ? "bad request"
                            : res.status == 414 ? "request URI too long"
                                                : "error";
    res.set_content(fmt::format("{{\"error\": \"{}\", \"status\": {}}}\n", what, res.status),
                    "application/json");
  });
  if (options.port == 0) {
    impl->port = http.bind_to_any_port(options.host.c_str());
  } else {
    impl->port = http.bind_to_port(options.host.c_str(), options.port) ? options.port : -1;
  }
  if (impl->port <= 0) {
    return Fail(ErrorCode::kIo, fmt::format("cannot listen on {}:{}", options.host, options.port));
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Result<void> Server::Run() {
  if (!impl_->http.listen_after_bind()) {
    return Fail(ErrorCode::kIo, "the server stopped with an error");
  }
  return {};
}

}  // namespace errdex::web
