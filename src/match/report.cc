#include "match/report.h"

#include "match/interpreter.h"

namespace errdex::match {
namespace {

using nlohmann::ordered_json;

constexpr size_t kMaxSitesListed = 10;

ordered_json InputJson(const ParsedError& e) {
  ordered_json frames = ordered_json::array();
  for (const Frame& f : e.frames) {
    frames.push_back({{"path", f.path}, {"line", f.line}, {"function", f.function}});
  }
  ordered_json input = {
      {"exception", e.exception.empty() ? ordered_json(nullptr) : ordered_json(e.exception)},
      {"message", e.message},
      {"frames", std::move(frames)},
  };
  if (!e.status.empty()) input["status"] = e.status;
  if (!e.key.empty()) input["key"] = e.key;
  input["source"] = e.source;
  if (e.ignored) input["ignored"] = true;
  if (IsInterpreterWording(e)) input["interpreter_wording"] = true;
  return input;
}

// Which versions raise the error, which one the sites are from, which ones
// the traceback fits, and what replaced the wording if the newest does not.
ordered_json VersionsJson(const Match& m) {
  ordered_json ranges = ordered_json::array();
  for (const catalog::VersionRange& r : catalog::RaisedIn(m.error.versions)) {
    ranges.push_back({{"first", r.first}, {"last", r.last}});
  }
  ordered_json out = {{"shown", m.error.version},
                      {"raised_in", std::move(ranges)},
                      {"newest", m.error.versions.back().rev},
                      {"traceback_fits", m.frame_versions}};
  ordered_json reworded = ordered_json::array();
  for (const Rewording& r : m.reworded_to) {
    reworded.push_back({{"id", r.id},
                        {"exception", r.exception},
                        {"template", r.template_text},
                        {"since", r.first_after}});
  }
  if (!reworded.empty()) out["reworded_as"] = std::move(reworded);
  return out;
}

ordered_json MatchJson(const Match& m) {
  ordered_json values = ordered_json::object();
  for (const auto& [name, value] : m.values) values[name] = value;
  ordered_json sites = ordered_json::array();
  for (size_t i = 0; i < m.error.sites.size() && i < kMaxSitesListed; ++i) {
    const catalog::SiteRecord& s = m.error.sites[i];
    ordered_json site = {{"path", s.path}, {"line", s.line}, {"function", s.function}};
    if (!s.commit.empty()) site["commit"] = s.commit;
    if (!s.rev.empty() && s.rev != s.commit) site["rev"] = s.rev;
    if (static_cast<int>(i) < m.frame_sites) site["in_traceback"] = true;
    sites.push_back(std::move(site));
  }
  ordered_json out = {{"id", m.error.id},
                      {"score", m.score},
                      {"fuzzy", m.fuzzy},
                      {"library", m.error.library},
                      {"exception", m.error.exception},
                      {"template", m.error.template_text},
                      {"values", std::move(values)},
                      {"sites", std::move(sites)},
                      {"sites_total", m.error.sites.size()},
                      {"evidence", m.evidence}};
  if (m.same_bare > 0) out["same_bare"] = m.same_bare;
  if (m.weak()) {
    out["weak"] = true;
    out["weak_reason"] = WeakReasonName(m.weak_reason);
  }
  // A library indexed at one version has nothing to say about versions.
  if (m.error.versions.size() > 1) out["versions"] = VersionsJson(m);
  return out;
}

}  // namespace

bool Report::any() const {
  for (const std::vector<Match>& m : matches) {
    if (!m.empty()) return true;
  }
  return false;
}

Result<Report> ExplainAll(Matcher& matcher, std::string_view text, const ExplainOptions& options) {
  Report report;
  report.errors = ParseRuntimeText(text);
  for (const ParsedError& p : report.errors) {
    Result<std::vector<Match>> matches = matcher.Explain(p, options);
    if (!matches) return tl::unexpected(matches.error());
    report.matches.push_back(std::move(*matches));
  }
  return report;
}

ordered_json ReportJson(const Report& report) {
  ordered_json errors = ordered_json::array();
  for (size_t i = 0; i < report.errors.size(); ++i) {
    ordered_json list = ordered_json::array();
    for (const Match& m : report.matches[i]) list.push_back(MatchJson(m));
    errors.push_back({{"input", InputJson(report.errors[i])}, {"matches", std::move(list)}});
  }
  ordered_json doc =
      errors.empty()
          ? ordered_json{{"input", nullptr}, {"matches", ordered_json::array()}}
          : ordered_json{{"input", errors.back()["input"]}, {"matches", errors.back()["matches"]}};
  doc["errors"] = std::move(errors);
  return doc;
}

}  // namespace errdex::match
