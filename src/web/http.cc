#include "web/http.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <boost/beast/core/buffers_to_string.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <sstream>
#include <unordered_map>

#include "core/text.h"
#include "web/site.h"

namespace errdex::web {

namespace beast = boost::beast;

namespace {

std::string ETag(const std::string& body) {
  XXH128_hash_t h = XXH3_128bits(body.data(), body.size());
  return fmt::format("\"{:016x}{:016x}\"", h.high64, h.low64);
}

std::string_view Sv(beast::string_view s) { return {s.data(), s.size()}; }

bool Compressible(std::string_view type) {
  return StartsWith(type, "text/") || StartsWith(type, "application/json") ||
         StartsWith(type, "application/javascript");
}

// gzip of `in`; empty when zlib fails (the answer then goes uncompressed).
std::string Gzip(std::string_view in) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

// Whether Accept-Encoding admits gzip ("gzip", "gzip;q=0.5", "*"; not "gzip;q=0").
bool AcceptsGzip(std::string_view header) {
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? "" : header.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    size_t semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
    if (!beast::iequals(beast::string_view(coding.data(), coding.size()), "gzip") && coding != "*")
      continue;
    if (semi == std::string_view::npos) return true;
    std::string_view params = item.substr(semi + 1);
    size_t q = params.find("q=");
    if (q == std::string_view::npos) return true;
    std::string_view v = params.substr(q + 2);
    // q=0, q=0.0, q=0.000: refused; anything else is some preference.
    if (v.empty() || v[0] != '0') return true;
    for (char c : v.substr(1)) {
      if (c != '.' && c != '0' && c != ' ') return true;
    }
  }
  return false;
}

int FromHex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding; `plus` turns '+' into a space (query strings).
std::optional<std::string> Decode(std::string_view s, bool plus) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = FromHex(s[i + 1]), lo = FromHex(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (plus && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

const char* kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

}  // namespace

// A GET's answer, rendered once, and gzipped once when it is worth it.
struct Rendered {
  Page page;
  std::string etag;
  std::string gzipped;  // empty: send as is
};

// Rendered GET answers by path and query, of one catalog generation. Bounded
// in bytes; when full it starts over (a flood of distinct URLs cannot grow
// it).
class PageCache {
 public:
  explicit PageCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  std::shared_ptr<const Rendered> Find(const std::string& key, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mu_);
    Sync(generation);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }

  // Pages rendered by a site of an older generation are not kept.
  std::shared_ptr<const Rendered> Put(const std::string& key, Page page, uint64_t generation) {
    auto r = std::make_shared<Rendered>();
    if (page.status == 200) r->etag = ETag(page.body);
    if (page.body.size() >= 256 && Compressible(page.content_type)) {
      r->gzipped = Gzip(page.body);
      if (r->gzipped.size() >= page.body.size()) r->gzipped.clear();
    }
    r->page = std::move(page);
    std::lock_guard<std::mutex> lock(mu_);
    Sync(generation);
    if (generation != generation_) return r;
    size_t size = key.size() + r->page.body.size() + r->gzipped.size();
    if (bytes_ + size > max_bytes_) {
      map_.clear();
      bytes_ = 0;
    }
    if (size <= max_bytes_ && map_.emplace(key, r).second) bytes_ += size;
    return r;
  }

 private:
  void Sync(uint64_t generation) {
    if (generation <= generation_) return;
    generation_ = generation;
    map_.clear();
    bytes_ = 0;
  }

  size_t max_bytes_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Rendered>> map_;
  size_t bytes_ = 0;
  uint64_t generation_ = 0;
};

CatalogWatch::CatalogWatch(std::string db, std::chrono::milliseconds poll)
    : db_(std::move(db)), postgres_(catalog::IsPostgresUrl(db_)), poll_(poll) {
  if (!postgres_) {
    stamp_ = Stamp();
    return;
  }
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  auto listener = std::make_unique<catalog::CatalogListener>(db_, wake_fd_);
  // The first read comes before any site opens (Handler::Create): a commit
  // after it is one they may not have seen. Without it, the first read the
  // thread makes starts a new generation, to be safe.
  bool known = false;
  if (listener->Connect(std::chrono::seconds(10))) {
    Result<int64_t> g = listener->Generation(std::chrono::seconds(10));
    if (g) {
      known = true;
      catalog_generation_.store(*g);
      connected_.store(true);
      listening_.store(listener->listening());
    }
  }
  if (!known) {
    failures_.fetch_add(1);
    listener->Close();
  }
  thread_ =
      std::thread([this, l = std::move(listener), known]() mutable { Watch(std::move(l), known); });
}

CatalogWatch::~CatalogWatch() {
  if (thread_.joinable()) {
    stop_.store(true);
    uint64_t one = 1;
    // Wakes whatever wait the thread is in (the descriptor stays readable).
    // Should it fail, the thread still stops at its next deadline.
    ssize_t written = write(wake_fd_, &one, sizeof one);
    (void)written;
    thread_.join();
  }
  if (wake_fd_ >= 0) close(wake_fd_);
}

// Waits `ms`; false when told to stop meanwhile.
bool CatalogWatch::Nap(std::chrono::milliseconds ms) {
  auto end = std::chrono::steady_clock::now() + ms;
  while (!stop_.load()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    pollfd p{wake_fd_, POLLIN, 0};
    poll(&p, wake_fd_ >= 0 ? 1 : 0, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
  }
  return false;
}

void CatalogWatch::Watch(std::unique_ptr<catalog::CatalogListener> listener, bool known) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kTimeout = std::chrono::seconds(10);
  constexpr auto kMinGap = std::chrono::seconds(1);
  constexpr auto kMaxBackoff = std::chrono::milliseconds(10000);
  auto backoff = std::chrono::milliseconds(250);
  int64_t seen = catalog_generation_.load();
  bool pending = false;  // a change seen whose generation has not started yet
  Clock::time_point last_bump{};
  Clock::time_point next_poll = Clock::now() + poll_;
  auto lost = [&] {
    if (stop_.load()) return;
    failures_.fetch_add(1);
    connected_.store(false);
    listening_.store(false);
    listener->Close();
  };
  while (!stop_.load()) {
    bool read = false;
    bool notified = false;
    if (!listener->connected()) {
      if (!listener->Connect(kTimeout)) {
        lost();
        if (!Nap(backoff)) return;
        backoff = std::min(backoff * 2, kMaxBackoff);
        continue;
      }
      // Notifications sent while it was down are lost: the generation tells.
      read = true;
    } else {
      Clock::time_point until = next_poll;
      if (pending) until = std::min(until, last_bump + kMinGap);
      auto wait =
          std::max(std::chrono::milliseconds(0),
                   std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()));
      Result<bool> woke = listener->Wait(wait);
      if (!woke) {
        lost();
        continue;
      }
      notified = *woke;
      read = notified || Clock::now() >= next_poll;
    }
    if (read) {
      Result<int64_t> g = listener->Generation(kTimeout);
      if (!g) {
        lost();
        continue;
      }
      next_poll = Clock::now() + poll_;
      if (!known || notified || *g != seen) pending = true;
      known = true;
      seen = *g;
      catalog_generation_.store(*g);
      connected_.store(true);
      listening_.store(listener->listening());
      backoff = std::chrono::milliseconds(250);
    }
    if (pending && Clock::now() - last_bump >= kMinGap) {
      generation_.fetch_add(1);
      last_bump = Clock::now();
      pending = false;
    }
  }
}

std::string CatalogWatch::Stamp() const {
  std::string out;
  for (const std::string& f : {db_, db_ + "-wal"}) {
    struct stat st {};
    if (stat(f.c_str(), &st) == 0) {
      out += fmt::format("{}:{}:{}:{}.{};", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                         st.st_mtim.tv_nsec);
    } else {
      out += "-;";
    }
  }
  return out;
}

bool CatalogWatch::Whole() const {
  if (postgres_) return true;  // the server's pages are its own to check
  int fd = open(db_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char h[100];
  struct stat st {};
  bool read = fstat(fd, &st) == 0 && pread(fd, h, sizeof h, 0) == static_cast<ssize_t>(sizeof h);
  close(fd);
  if (!read || std::memcmp(h, "SQLite format 3", 16) != 0) return false;
  auto be32 = [&h](int at) {
    return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) |
           uint32_t{h[at + 3]};
  };
  uint64_t page_size = (uint32_t{h[16]} << 8) | h[17];
  if (page_size == 1) page_size = 65536;
  // The size at offset 28 is kept only when the "version valid for" number
  // matches the change counter (SQLite's file format, section 1.3.7).
  uint32_t pages = be32(28);
  if (pages == 0 || be32(92) != be32(24)) return true;
  return static_cast<uint64_t>(st.st_size) >= pages * page_size;
}

uint64_t CatalogWatch::Generation() {
  if (postgres()) return generation_.load();
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  int64_t last = checked_ms_.load(std::memory_order_relaxed);
  if (now - last >= 1000 && checked_ms_.compare_exchange_strong(last, now)) {
    std::string stamp = Stamp();
    std::lock_guard<std::mutex> lock(mu_);
    if (stamp != stamp_) {
      stamp_ = std::move(stamp);
      generation_.fetch_add(1);
    }
  }
  return generation_.load();
}

void LimitParser(RequestParser& parser, const ServeOptions& options) {
  parser.header_limit(static_cast<std::uint32_t>(std::min<size_t>(options.max_header, UINT32_MAX)));
  parser.body_limit(options.max_body);
}

HttpResponse JsonError(int status, std::string_view message) {
  HttpResponse res{static_cast<http::status>(status), 11};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  nlohmann::json j = {{"error", message}, {"status", status}};
  res.body() = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return res;
}

namespace {

HttpResponse Refuse(int status, std::string_view message, unsigned version) {
  HttpResponse res = JsonError(status, message);
  res.version(version == 10 ? 10 : 11);
  res.keep_alive(false);
  res.prepare_payload();
  return res;
}

}  // namespace

std::optional<HttpResponse> CheckHeader(const HttpRequest& header) {
  unsigned version = header.version();
  if (version != 10 && version != 11) {
    return Refuse(400, "only HTTP/1.0 and HTTP/1.1 are served", 11);
  }
  bool has_length = header.find(http::field::content_length) != header.end();
  size_t encodings = header.count(http::field::transfer_encoding);
  if (has_length && encodings > 0) {
    return Refuse(400, "Content-Length and Transfer-Encoding together", version);
  }
  if (encodings > 1 ||
      (encodings == 1 && !beast::iequals(header[http::field::transfer_encoding], "chunked"))) {
    return Refuse(400, "the only Transfer-Encoding served is chunked", version);
  }
  if (encodings > 0 && version == 10) {
    return Refuse(400, "Transfer-Encoding in an HTTP/1.0 request", version);
  }
  size_t hosts = header.count(http::field::host);
  if (hosts > 1 || (hosts == 0 && version == 11)) {
    return Refuse(400, "an HTTP/1.1 request has exactly one Host", version);
  }
  beast::string_view target = header.target();
  if (target.empty() || target[0] != '/') {
    if (!(target == "*" && header.method() == http::verb::options)) {
      return Refuse(400, "the request target must be a path", version);
    }
  }
  return std::nullopt;
}

HttpResponse ParseFailure(const boost::system::error_code& ec) {
  if (ec == http::error::body_limit) return Refuse(413, "request body too large", 11);
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    return Refuse(431, "request header too large", 11);
  }
  return Refuse(400, "bad request", 11);
}

Result<std::unique_ptr<Handler>> Handler::Create(const ServeOptions& options, size_t workers) {
  auto handler = std::unique_ptr<Handler>(new Handler(options));
  workers = std::max<size_t>(1, workers);
  // Every site opened and its matcher loaded before the first request: a
  // matcher loaded under load made the first matches wait seconds. Each
  // takes the generation from before it opened: a change while it opens
  // reopens it rather than pass unseen.
  while (handler->slots_.size() < workers) {
    uint64_t generation = handler->watch_.Generation();
    Result<std::unique_ptr<Site>> s = Site::Open(options.db, Links{});
    if (!s) return tl::unexpected(s.error());
    ERRDEX_TRY((*s)->Warm());
    handler->slots_.push_back(Slot{std::move(*s), generation, {}});
  }
  return handler;
}

Handler::Handler(ServeOptions options)
    : options_(std::move(options)),
      metrics_(std::make_unique<Metrics>()),
      watch_(options_.db, std::chrono::milliseconds(std::max(100, options_.catalog_poll_ms))),
      cache_(std::make_unique<PageCache>(size_t{256} << 20)) {}

Handler::~Handler() = default;

// The worker's site, reopened when the catalog changed or the site failed;
// null while the catalog cannot be opened (slot.failure says why).
Site* Handler::Acquire(Slot& slot) {
  uint64_t generation = watch_.Generation();
  if (slot.site != nullptr && slot.generation == generation) return slot.site.get();
  slot.site.reset();
  metrics_->Reopened();
  Result<std::unique_ptr<Site>> s = Site::Open(options_.db, Links{});
  if (!s) {
    slot.failure = s.error();
    watch_.Recheck();
    return nullptr;
  }
  slot.site = std::move(*s);
  slot.generation = generation;
  return slot.site.get();
}

namespace {

struct Target {
  std::string path;
  Query query;
  std::string key;  // path and query, for the page cache
};

std::optional<Target> ParseTarget(beast::string_view target) {
  std::string_view t(target.data(), target.size());
  size_t q = t.find('?');
  std::optional<std::string> path = Decode(t.substr(0, q), false);
  if (!path) return std::nullopt;
  Target out;
  out.path = std::move(*path);
  out.key = out.path;
  if (q != std::string_view::npos) {
    std::string_view rest = t.substr(q + 1);
    while (!rest.empty()) {
      size_t amp = rest.find('&');
      std::string_view item = rest.substr(0, amp);
      rest = amp == std::string_view::npos ? "" : rest.substr(amp + 1);
      if (item.empty()) continue;
      size_t eq = item.find('=');
      std::optional<std::string> k = Decode(item.substr(0, eq), true);
      std::optional<std::string> v =
          eq == std::string_view::npos ? std::string() : Decode(item.substr(eq + 1), true);
      if (!k || !v) return std::nullopt;
      out.query.emplace(std::move(*k), std::move(*v));
    }
    for (const auto& [k, v] : out.query) out.key += "\n" + k + "=" + v;
  }
  return out;
}

bool Get(const HttpRequest& req) {
  return req.method() == http::verb::get || req.method() == http::verb::head;
}

// Pages change only when the catalog does: a CDN may keep them a while; the
// ETag lets it (and browsers) revalidate for free.
HttpResponse FromRendered(const HttpRequest& req, const Rendered& r, bool immutable_asset) {
  const Page& page = r.page;
  HttpResponse res{static_cast<http::status>(page.status), 11};
  res.set("X-Content-Type-Options", "nosniff");
  if (page.status == 200) {
    res.set(http::field::etag, r.etag);
    res.set(http::field::cache_control,
            immutable_asset ? "public, max-age=86400" : "public, max-age=300");
    if (req[http::field::if_none_match] == r.etag) {
      res.result(http::status::not_modified);
      return res;
    }
  } else {
    res.set(http::field::cache_control, "no-store");
  }
  if (StartsWith(page.content_type, "text/html")) {
    // Pages run only errdex's own script, from its own origin.
    res.set("Content-Security-Policy", kCsp);
  }
  res.set(http::field::content_type, page.content_type);
  if (!r.gzipped.empty()) {
    res.set(http::field::vary, "Accept-Encoding");
    if (AcceptsGzip(Sv(req[http::field::accept_encoding]))) {
      res.set(http::field::content_encoding, "gzip");
      res.body() = r.gzipped;
      return res;
    }
  }
  res.body() = page.body;
  return res;
}

// Why the catalog cannot serve, for /healthz: the kind of failure, not its
// message, which may name hosts and paths of the deployment.
std::string Reason(const Error& e) {
  switch (e.code) {
    case ErrorCode::kCorrupt:
      return "the catalog is damaged or not an errdex catalog (run errdex check)";
    case ErrorCode::kNotFound:
      return "there is no catalog";
    case ErrorCode::kIo:
      return "the catalog cannot be reached or read";
    default:
      return "the catalog cannot be read";
  }
}

HttpResponse Unavailable() {
  HttpResponse res = JsonError(503, "the catalog cannot be read; try again shortly");
  res.set(http::field::retry_after, "5");
  return res;
}

}  // namespace

// 200 when this worker's catalog connection answers a query, 503 with why
// not; never cached (not by the page cache, nor by a proxy).
HttpResponse Handler::Health(const HttpRequest& req, Slot& slot) {
  nlohmann::json j = {{"status", "ok"},
                      {"backend", watch_.postgres() ? "postgresql" : "sqlite"},
                      {"generation", watch_.Generation()}};
  if (watch_.postgres()) {
    j["watch"] = !watch_.connected()  ? "reconnecting"
                 : watch_.listening() ? "listening"
                                      : "polling";
  }
  auto unavailable = [&](const std::string& reason) {
    j["status"] = "unavailable";
    j["reason"] = reason;
    HttpResponse res{http::status::service_unavailable, 11};
    res.set(http::field::retry_after, "5");
    return res;
  };
  HttpResponse res{http::status::ok, 11};
  Site* site = Acquire(slot);
  if (site == nullptr) {
    res = unavailable(Reason(slot.failure));
  } else if (!watch_.Whole()) {
    slot.site.reset();
    watch_.Recheck();
    res = unavailable("the catalog file is shorter than its header says (cut, or being copied)");
  } else if (Result<catalog::CatalogHealth> h = site->catalog().Health(); !h) {
    slot.site.reset();
    watch_.Recheck();
    res = unavailable(Reason(h.error()));
  } else {
    j["libraries"] = h->libraries;
    j["snapshots"] = h->snapshots;
    if (watch_.postgres()) j["catalog_generation"] = h->data_version;
  }
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = j.dump() + "\n";
  return Finish(req, std::move(res));
}

HttpResponse Handler::Finish(const HttpRequest& req, HttpResponse res) {
  res.version(req.version() == 10 ? 10 : 11);
  res.keep_alive(req.keep_alive());
  if (req.method() == http::verb::head) {
    size_t n = res.body().size();
    res.body().clear();
    if (res.result() != http::status::not_modified && res.result() != http::status::no_content) {
      res.content_length(n);
    }
  } else {
    res.prepare_payload();
  }
  return res;
}

std::optional<HttpResponse> Handler::Quick(const HttpRequest& req) {
  std::optional<Target> t = ParseTarget(req.target());
  if (!t) return Finish(req, JsonError(400, "the request target is not valid percent-encoding"));
  // /api/match reads the pasted text from a body, so it takes a POST and
  // nothing else; every other route is a page or a resource to GET. A
  // wrong method on a route is a 405 naming the right one, not a 404.
  bool match = t->path == "/api/match";
  if (Get(req) && t->path == "/metrics") {
    CatalogGauges gauges;
    gauges.generation = watch_.Generation();
    if (watch_.postgres()) {
      gauges.catalog_generation = watch_.catalog_generation();
      gauges.watch_connected = watch_.connected() ? 1 : 0;
      gauges.watch_failures = watch_.failures();
    }
    HttpResponse res{http::status::ok, 11};
    res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    res.body() = metrics_->Render(gauges);
    return Finish(req, std::move(res));
  }
  // A health check asks the catalog every time (Slow), never the cache.
  if (Get(req) && t->path == "/healthz") return std::nullopt;
  if (Get(req) && !match) {
    std::shared_ptr<const Rendered> r = cache_->Find(t->key, watch_.Generation());
    if (r == nullptr) return std::nullopt;
    return Finish(req, FromRendered(req, *r, StartsWith(t->path, "/static/")));
  }
  if (req.method() == http::verb::post && match) return std::nullopt;
  if (req.method() == http::verb::options) {
    HttpResponse res{http::status::no_content, 11};
    res.set(http::field::allow, t->path == "*" ? "GET, HEAD, POST, OPTIONS"
                                : match        ? "POST, OPTIONS"
                                               : "GET, HEAD, OPTIONS");
    return Finish(req, std::move(res));
  }
  HttpResponse res = JsonError(
      405, match ? "/api/match takes a POST of the error text (plain text, or JSON {\"text\": ...})"
                 : "method not allowed");
  res.set(http::field::allow, match ? "POST" : "GET, HEAD");
  return Finish(req, std::move(res));
}

HttpResponse Handler::Slow(const HttpRequest& req, size_t worker) {
  Slot& slot = slots_[worker % slots_.size()];
  if (Get(req)) {
    std::optional<Target> t = ParseTarget(req.target());
    if (t && t->path == "/healthz") return Health(req, slot);
  }
  Site* site = Acquire(slot);
  if (site == nullptr) return Finish(req, Unavailable());
  uint64_t generation = slot.generation;
  // Any failure inside the site is the catalog's (SQLite: corrupt, I/O,
  // not a database; a file replaced or truncated under it): the site is
  // dropped, the next request reopens one, and this one gets a 503.
  auto failed = [&] {
    slot.site.reset();
    watch_.Recheck();
    return Finish(req, Unavailable());
  };
  if (!watch_.Whole()) return failed();
  try {
    if (req.method() == http::verb::post) {
      Page page = site->Match(req.body(), Sv(req[http::field::content_type]));
      // Checked again after: the file may have been cut while it was read.
      if (page.status >= 500 || !watch_.Whole()) return failed();
      HttpResponse res{static_cast<http::status>(page.status), 11};
      res.set(http::field::cache_control, "no-store");
      res.set("X-Content-Type-Options", "nosniff");
      res.set(http::field::content_type, page.content_type);
      if (page.body.size() >= 256 && AcceptsGzip(Sv(req[http::field::accept_encoding]))) {
        std::string gz = Gzip(page.body);
        if (!gz.empty() && gz.size() < page.body.size()) {
          res.set(http::field::content_encoding, "gzip");
          page.body = std::move(gz);
        }
      }
      res.body() = std::move(page.body);
      return Finish(req, std::move(res));
    }
    std::optional<Target> t = ParseTarget(req.target());
    if (!t) return Finish(req, JsonError(400, "the request target is not valid percent-encoding"));
    Page page = site->Get(t->path, t->query);
    if (page.status >= 500 || !watch_.Whole()) return failed();
    std::shared_ptr<const Rendered> r = cache_->Put(t->key, std::move(page), generation);
    return Finish(req, FromRendered(req, *r, StartsWith(t->path, "/static/")));
  } catch (const std::exception&) {
    return failed();
  }
}

std::string ServeBytes(Handler& handler, const ServeOptions& options, std::string_view input) {
  std::string out;
  auto send = [&out](const HttpResponse& res) {
    std::ostringstream os;
    os << res;
    out += os.str();
  };
  while (!input.empty()) {
    RequestParser parser;
    LimitParser(parser, options);
    boost::system::error_code ec;
    // The header first, checked before any of the body is read, as the
    // server does (read header, check, read body).
    while (!parser.is_header_done()) {
      size_t n = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
      input.remove_prefix(n);
      if (ec == http::error::need_more) return out;  // the deadline would close it
      if (ec) {
        send(ParseFailure(ec));
        return out;
      }
    }
    if (std::optional<HttpResponse> refused = CheckHeader(parser.get())) {
      send(*refused);
      return out;
    }
    parser.eager(true);
    while (!parser.is_done()) {
      if (input.empty()) return out;
      size_t n = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
      input.remove_prefix(n);
      if (ec == http::error::need_more) {
        if (n == 0) return out;
        continue;
      }
      if (ec) {
        send(ParseFailure(ec));
        return out;
      }
    }
    HttpRequest req = parser.release();
    HttpResponse res = handler.Handle(req, 0);
    send(res);
    if (!res.keep_alive()) return out;
  }
  return out;
}

}  // namespace errdex::web
