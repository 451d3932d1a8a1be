// What `errdex serve` counts for GET /metrics (Prometheus' text format
// 0.0.4): requests by route and status code, their latency by route,
// connections, catalog refreshes. Every counter is a relaxed atomic in a
// fixed table: recording a request takes no lock and allocates nothing,
// and the routes are the server's templates, not the paths asked, so a
// client cannot grow the table or the scrape.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace errdex::web {

// The route templates requests are counted under; kOther is every path no
// route serves (and `*`).
enum class Route {
  kHome,
  kError,
  kErrorJson,
  kLibrary,
  kFamily,
  kLibraryErrorsJson,
  kFamilyErrorsJson,
  kLibrariesJson,
  kFamiliesJson,
  kSearch,
  kMatch,
  kOpenApi,
  kStatic,
  kHealth,
  kMetrics,
  kOther,
  kCount,
};

// The route of a request target ("/api/errors/0123?x=1" -> kErrorJson),
// and its label ("/api/errors/{id}").
Route RouteOf(std::string_view target);
std::string_view RouteLabel(Route route);

// What the scrape says of the catalog, read when it is rendered.
struct CatalogGauges {
  uint64_t generation = 0;          // changes the server has seen since it started
  int64_t catalog_generation = -1;  // errdex_catalog.generation (PostgreSQL); -1: none
  int watch_connected = -1;         // PostgreSQL: whether the watch's connection is up; -1: a file
  uint64_t watch_failures = 0;
};

class Metrics {
 public:
  // Upper bounds of the latency buckets, in seconds (+Inf is implicit).
  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  Metrics();

  void Record(Route route, int status, std::chrono::nanoseconds took);
  void Opened() { open_.fetch_add(1, std::memory_order_relaxed); }
  void Closed() { open_.fetch_sub(1, std::memory_order_relaxed); }
  void Refused() { refused_.fetch_add(1, std::memory_order_relaxed); }
  // A worker opened its catalog connection again: the catalog changed, or
  // the one it had failed.
  void Reopened() { reopened_.fetch_add(1, std::memory_order_relaxed); }

  // The exposition, every family with its HELP and TYPE.
  std::string Render(const CatalogGauges& catalog) const;

 private:
  static constexpr int kMinStatus = 100;
  static constexpr int kStatuses = 500;  // 100 to 599
  struct PerRoute {
    std::array<std::atomic<uint64_t>, kStatuses> by_status{};
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};  // not cumulative; last: +Inf
    std::atomic<uint64_t> nanoseconds{0};
  };

  std::array<PerRoute, static_cast<size_t>(Route::kCount)> routes_;
  std::atomic<int64_t> open_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> reopened_{0};
  double start_seconds_;  // Unix time the server started
};

}  // namespace errdex::web
