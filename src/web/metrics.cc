#include "web/metrics.h"

#include <fmt/format.h>

#include "core/text.h"

namespace errdex::web {

namespace {

constexpr std::array<std::string_view, static_cast<size_t>(Route::kCount)> kLabels = {
    "/",
    "/errors/{id}",
    "/api/errors/{id}",
    "/libraries/{owner}/{name}",
    "/families/{slug}",
    "/api/libraries/{owner}/{name}/errors",
    "/api/families/{slug}/errors",
    "/api/libraries",
    "/api/families",
    "/api/search",
    "/api/match",
    "/api/openapi.json",
    "/static/{file}",
    "/healthz",
    "/metrics",
    "other",
};

// Prometheus' float: shortest round-trip form; integers without ".0".
std::string Number(double v) { return fmt::format("{}", v); }

void Family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

// As Site::Get routes them (site.cc), on the raw target: a percent-encoded
// prefix is "other" here, which only costs that request its own label.
Route RouteOf(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  if (path == "/" || path == "/index.html") return Route::kHome;
  if (StartsWith(path, "/errors/")) return Route::kError;
  if (StartsWith(path, "/api/errors/")) return Route::kErrorJson;
  if (StartsWith(path, "/libraries/")) return Route::kLibrary;
  if (StartsWith(path, "/families/")) return Route::kFamily;
  if (StartsWith(path, "/api/libraries/") && EndsWith(path, "/errors") && path.size() > 22) {
    return Route::kLibraryErrorsJson;
  }
  if (StartsWith(path, "/api/families/") && EndsWith(path, "/errors") && path.size() > 21) {
    return Route::kFamilyErrorsJson;
  }
  if (path == "/api/libraries") return Route::kLibrariesJson;
  if (path == "/api/families") return Route::kFamiliesJson;
  if (path == "/api/search") return Route::kSearch;
  if (path == "/api/match") return Route::kMatch;
  if (path == "/api/openapi.json") return Route::kOpenApi;
  if (StartsWith(path, "/static/")) return Route::kStatic;
  if (path == "/healthz") return Route::kHealth;
  if (path == "/metrics") return Route::kMetrics;
  return Route::kOther;
}

std::string_view RouteLabel(Route route) { return kLabels.at(static_cast<size_t>(route)); }

Metrics::Metrics()
    : start_seconds_(
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count()) {}

void Metrics::Record(Route route, int status, std::chrono::nanoseconds took) {
  PerRoute& r = routes_.at(static_cast<size_t>(route));
  if (status < kMinStatus || status >= kMinStatus + kStatuses) status = 500;
  r.by_status[static_cast<size_t>(status - kMinStatus)].fetch_add(1, std::memory_order_relaxed);
  double seconds = std::chrono::duration<double>(took).count();
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  r.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  r.nanoseconds.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, took.count())),
                          std::memory_order_relaxed);
}

std::string Metrics::Render(const CatalogGauges& catalog) const {
  std::string out;
  out.reserve(8192);
  Family(out, "errdex_http_requests_total", "counter",
         "Requests answered, by route template and status code.");
  for (size_t i = 0; i < routes_.size(); ++i) {
    for (size_t s = 0; s < kStatuses; ++s) {
      uint64_t n = routes_[i].by_status[s].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += fmt::format("errdex_http_requests_total{{route=\"{}\",code=\"{}\"}} {}\n", kLabels[i],
                         s + kMinStatus, n);
    }
  }
  Family(out, "errdex_http_request_duration_seconds", "histogram",
         "Time from a request read whole to its answer ready, by route template.");
  for (size_t i = 0; i < routes_.size(); ++i) {
    const PerRoute& r = routes_[i];
    // Each bucket is read once, and _count is the last cumulative sum: the
    // buckets rise and _count is +Inf's within a scrape, whatever is
    // recorded meanwhile.
    std::array<uint64_t, kBuckets.size() + 1> counts{};
    uint64_t total = 0;
    for (size_t b = 0; b < counts.size(); ++b) {
      counts[b] = r.buckets[b].load(std::memory_order_relaxed);
      total += counts[b];
    }
    if (total == 0) continue;
    uint64_t cumulative = 0;
    for (size_t b = 0; b < counts.size(); ++b) {
      cumulative += counts[b];
      out +=
          fmt::format("errdex_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
                      kLabels[i], b < kBuckets.size() ? Number(kBuckets[b]) : "+Inf", cumulative);
    }
    out += fmt::format(
        "errdex_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n", kLabels[i],
        Number(static_cast<double>(r.nanoseconds.load(std::memory_order_relaxed)) / 1e9));
    out += fmt::format("errdex_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                       kLabels[i], cumulative);
  }
  Family(out, "errdex_http_open_connections", "gauge", "Client connections open now.");
  out += fmt::format("errdex_http_open_connections {}\n", open_.load(std::memory_order_relaxed));
  Family(out, "errdex_http_refused_connections_total", "counter",
         "Connections refused over --max-connections or --max-connections-per-ip.");
  out += fmt::format("errdex_http_refused_connections_total {}\n",
                     refused_.load(std::memory_order_relaxed));
  Family(out, "errdex_catalog_generation", "gauge",
         "Catalog changes this server has seen since it started.");
  out += fmt::format("errdex_catalog_generation {}\n", catalog.generation);
  Family(out, "errdex_catalog_reopens_total", "counter",
         "Catalog connections a worker opened again, the catalog having changed or failed.");
  out +=
      fmt::format("errdex_catalog_reopens_total {}\n", reopened_.load(std::memory_order_relaxed));
  if (catalog.catalog_generation >= 0) {
    Family(out, "errdex_catalog_commits", "gauge",
           "errdex_catalog.generation of the PostgreSQL catalog, as last read.");
    out += fmt::format("errdex_catalog_commits {}\n", catalog.catalog_generation);
  }
  if (catalog.watch_connected >= 0) {
    Family(out, "errdex_catalog_watch_up", "gauge",
           "Whether the PostgreSQL catalog watch's connection is up.");
    out += fmt::format("errdex_catalog_watch_up {}\n", catalog.watch_connected);
    Family(out, "errdex_catalog_watch_failures_total", "counter",
           "Times the PostgreSQL catalog watch lost or could not make its connection.");
    out += fmt::format("errdex_catalog_watch_failures_total {}\n", catalog.watch_failures);
  }
  Family(out, "process_start_time_seconds", "gauge",
         "Start time of the process since the Unix epoch, in seconds.");
  out += fmt::format("process_start_time_seconds {}\n", Number(start_seconds_));
  return out;
}

}  // namespace errdex::web
