#include "web/server.h"

#include <sys/resource.h>

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "web/http.h"

namespace errdex::web {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr int kMaxRequestsPerConnection = 1000;
// Leftover bytes held between pipelined requests; a header larger than the
// header limit fails before this fills.
constexpr size_t kMaxBuffered = 128u << 10;
// After a final answer, what the client still sends is read and dropped for
// a moment (bounded in time and bytes, as nginx's lingering close): closing
// with unread bytes resets the connection, and a client still sending a body
// refused from its header (a 413) would lose the answer.
constexpr size_t kMaxDrained = 4u << 20;
constexpr auto kLinger = std::chrono::seconds(2);
// Refusals (a canned 503) in flight at once; past it a connection is closed
// without a word.
constexpr int kMaxRefusing = 1024;

// Threads that do the catalog work, each with the site Handler keeps for it.
class WorkerPool {
 public:
  explicit WorkerPool(size_t n) : n_(n) {}
  ~WorkerPool() { Stop(); }

  void Start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!threads_.empty()) return;
    stop_ = false;
    for (size_t i = 0; i < n_; ++i) {
      threads_.emplace_back([this, i] { Loop(i); });
    }
  }

  void Post(std::function<void(size_t)> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

  // Joins the workers; jobs not started are dropped.
  void Stop() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (std::thread& t : threads) t.join();
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.clear();
  }

 private:
  void Loop(size_t worker) {
    for (;;) {
      std::function<void(size_t)> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job(worker);
    }
  }

  size_t n_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(size_t)>> jobs_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

// Connections open, in total and per client address.
class Admission {
 public:
  Admission(size_t max_total, size_t max_per_ip) : max_total_(max_total), max_per_ip_(max_per_ip) {}

  bool Enter(const net::ip::address& a) {
    std::lock_guard<std::mutex> lock(mu_);
    if (total_ >= max_total_) return false;
    size_t& n = per_ip_[a];
    if (max_per_ip_ > 0 && n >= max_per_ip_) {
      if (n == 0) per_ip_.erase(a);
      return false;
    }
    ++n;
    ++total_;
    return true;
  }

  void Leave(const net::ip::address& a) {
    std::lock_guard<std::mutex> lock(mu_);
    --total_;
    auto it = per_ip_.find(a);
    if (it != per_ip_.end() && --it->second == 0) per_ip_.erase(it);
  }

 private:
  size_t max_total_;
  size_t max_per_ip_;
  std::mutex mu_;
  size_t total_ = 0;
  std::map<net::ip::address, size_t> per_ip_;
};

struct Shared {
  ServeOptions options;
  std::unique_ptr<Handler> handler;
  WorkerPool workers;
  Admission admission;
  std::atomic<int> refusing{0};

  Shared(ServeOptions o, std::unique_ptr<Handler> h, size_t max_connections)
      : options(std::move(o)),
        handler(std::move(h)),
        workers(handler->workers()),
        admission(max_connections,
                  static_cast<size_t>(std::max(0, options.max_connections_per_ip))) {}
};

bool IsHttpError(const beast::error_code& ec) {
  static const boost::system::error_category& http_category =
      http::make_error_code(http::error::bad_target).category();
  return ec.category() == http_category;
}

// One client connection, on its own strand: read a header (deadline), check
// it, read the body (deadline, body limit), answer from the cache on the
// spot or hand the request to a worker and write the answer when it is
// posted back; then the next request, in order (pipelining).
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared* shared, net::ip::address peer, bool admitted)
      : stream_(std::move(socket)),
        shared_(shared),
        peer_(peer),
        admitted_(admitted),
        buffer_(kMaxBuffered) {
    if (admitted_) shared_->handler->metrics().Opened();
  }
  ~Connection() {
    if (admitted_) {
      shared_->handler->metrics().Closed();
      shared_->admission.Leave(peer_);
    } else {
      shared_->refusing.fetch_sub(1);
    }
  }

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->admitted_) {
        self->ReadHeader();
      } else {
        HttpResponse res = JsonError(503, "too many connections; try again shortly");
        res.set(http::field::retry_after, "1");
        res.keep_alive(false);
        res.prepare_payload();
        self->Write(std::move(res));
      }
    });
  }

 private:
  const ServeOptions& options() const { return shared_->options; }

  void ReadHeader() {
    parser_.emplace();
    LimitParser(*parser_, options());
    if (served_ == 0) {
      stream_.expires_after(std::chrono::milliseconds(options().header_timeout_ms));
    } else {
      stream_.expires_after(std::chrono::seconds(options().keep_alive_seconds));
    }
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return Failed(ec);
    if (std::optional<HttpResponse> refused = CheckHeader(parser_->get())) {
      return Write(std::move(*refused));
    }
    if (parser_->is_done()) return Dispatch();
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(std::chrono::seconds(options().timeout_seconds));
      net::async_write(stream_, net::buffer(kContinue, sizeof kContinue - 1),
                       [self = shared_from_this()](beast::error_code e, size_t) {
                         if (e) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    // One deadline for the whole body, however it trickles in.
    stream_.expires_after(std::chrono::seconds(options().timeout_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Failed(ec);
                       self->Dispatch();
                     });
  }

  // A request the parser refused gets its answer; a deadline, a reset or a
  // client that left mid-request just ends the connection.
  void Failed(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        !IsHttpError(ec)) {
      return Close();
    }
    Write(ParseFailure(ec));
  }

  // A request's time runs from here, read whole, to its answer ready: a
  // wait for a worker counts, the client's own pace does not.
  void Dispatch() {
    Handler::Clock::time_point start = Handler::Clock::now();
    auto req = std::make_shared<HttpRequest>(parser_->release());
    parser_.reset();
    Handler& handler = *shared_->handler;
    if (std::optional<HttpResponse> res = handler.Quick(*req)) {
      handler.Record(*req, *res, start);
      return Write(std::move(*res));
    }
    shared_->workers.Post([self = shared_from_this(), req, start](size_t worker) {
      Handler& h = *self->shared_->handler;
      HttpResponse res = h.Slow(*req, worker);
      h.Record(*req, res, start);
      net::post(self->stream_.get_executor(),
                [self, res = std::move(res)]() mutable { self->Write(std::move(res)); });
    });
  }

  void Write(HttpResponse res) {
    if (++served_ >= kMaxRequestsPerConnection) res.keep_alive(false);
    res_ = std::make_unique<HttpResponse>(std::move(res));
    stream_.expires_after(std::chrono::seconds(options().timeout_seconds));
    http::async_write(stream_, *res_, [self = shared_from_this()](beast::error_code ec, size_t) {
      bool keep = self->res_->keep_alive();
      self->res_.reset();
      if (ec) return self->Close();
      if (!keep) return self->Linger();
      self->ReadHeader();
    });
  }

  void Linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return Close();
    scratch_.resize(16u << 10);
    stream_.expires_after(kLinger);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(net::buffer(scratch_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kMaxDrained) return self->Close();
                              self->Drain();
                            });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  Shared* shared_;
  net::ip::address peer_;
  bool admitted_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::unique_ptr<HttpResponse> res_;
  std::vector<char> scratch_;
  size_t drained_ = 0;
  int served_ = 0;
};

// The descriptors this process may open: raised to the hard limit, since
// each connection is one.
size_t RaiseDescriptorLimit() {
  struct rlimit rl {};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit raised = rl;
    raised.rlim_cur = std::min<rlim_t>(rl.rlim_max, 1u << 20);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return rl.rlim_cur == RLIM_INFINITY ? (1u << 20) : static_cast<size_t>(rl.rlim_cur);
}

}  // namespace

struct Server::Impl {
  std::unique_ptr<Shared> shared;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  net::steady_timer retry{ioc};
  int io_threads = 1;
  int port = 0;

  explicit Impl(int threads) : ioc(threads) {}

  ~Impl() {
    // Workers post answers to the loop: they stop before it goes away.
    ioc.stop();
    if (shared) shared->workers.Stop();
  }

  void Accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, most likely: wait a moment rather than spin.
        retry.expires_after(std::chrono::milliseconds(50));
        retry.async_wait([this](beast::error_code e) {
          if (!e) Accept();
        });
        return;
      }
      Admit(std::move(socket));
      Accept();
    });
  }

  void Admit(tcp::socket socket) {
    beast::error_code ec;
    tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) return;
    // Header and body may go out in separate writes: without TCP_NODELAY
    // the second waits for the client's delayed ACK, 40 ms an answer.
    socket.set_option(tcp::no_delay(true), ec);
    bool admitted = shared->admission.Enter(peer.address());
    if (!admitted) shared->handler->metrics().Refused();
    if (!admitted && shared->refusing.fetch_add(1) >= kMaxRefusing) {
      shared->refusing.fetch_sub(1);
      return;  // closed as the socket goes out of scope
    }
    std::make_shared<Connection>(std::move(socket), shared.get(), peer.address(), admitted)
        ->Start();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;
int Server::port() const { return impl_->port; }
void Server::Stop() { impl_->ioc.stop(); }

Result<std::unique_ptr<Server>> Server::Create(const ServeOptions& options) {
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  size_t workers = options.threads > 0 ? static_cast<size_t>(options.threads) : cores + 1;
  // A damaged catalog is refused at start, before any matcher is loaded,
  // rather than found out a page at a time: the whole of `errdex check`
  // (0.1 s for the standard library).
  {
    Result<catalog::Catalog> cat = catalog::Catalog::Open(options.db, catalog::OpenMode::kReadOnly);
    if (!cat) return tl::unexpected(cat.error());
    Result<catalog::CheckReport> report = cat->Check();
    if (!report) return tl::unexpected(report.error());
    if (!report->problems.empty()) {
      return Fail(ErrorCode::kCorrupt, "the catalog is damaged: " + report->problems.front() +
                                           " (run errdex check)");
    }
  }
  // Fails now, not at the first request, when the catalog cannot be read.
  Result<std::unique_ptr<Handler>> handler = Handler::Create(options, workers);
  if (!handler) return tl::unexpected(handler.error());
  size_t descriptors = RaiseDescriptorLimit();
  // Each site holds a few descriptors (database, WAL, shared memory).
  size_t reserve = 64 + 4 * workers;
  size_t max_connections =
      options.max_connections > 0
          ? static_cast<size_t>(options.max_connections)
          : std::min<size_t>(10000, descriptors > reserve + 16 ? descriptors - reserve : 16);
  int io_threads = options.io_threads > 0 ? options.io_threads : (cores > 1 ? 2 : 1);
  auto impl = std::make_unique<Impl>(io_threads);
  impl->io_threads = io_threads;
  impl->shared = std::make_unique<Shared>(options, std::move(*handler), max_connections);
  beast::error_code ec;
  net::ip::address address = net::ip::make_address(options.host, ec);
  if (ec) {
    // A name rather than an address ("localhost"): its first address.
    tcp::resolver resolver(impl->ioc);
    auto found = resolver.resolve(options.host, std::to_string(options.port), ec);
    if (ec || found.empty()) {
      return Fail(ErrorCode::kIo, fmt::format("cannot resolve {}", options.host));
    }
    address = found.begin()->endpoint().address();
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  tcp::acceptor& acceptor = impl->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Fail(ErrorCode::kIo, fmt::format("cannot listen on {}:{}: {}", options.host,
                                            options.port, ec.message()));
  }
  impl->port = acceptor.local_endpoint().port();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Result<void> Server::Run() {
  Impl& impl = *impl_;
  impl.shared->workers.Start();
  impl.Accept();
  std::vector<std::thread> loops;
  for (int i = 1; i < impl.io_threads; ++i) loops.emplace_back([&impl] { impl.ioc.run(); });
  impl.ioc.run();
  for (std::thread& t : loops) t.join();
  impl.shared->workers.Stop();
  return {};
}

}  // namespace errdex::web
