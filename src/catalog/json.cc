#include "catalog/json.h"

#include "core/text.h"

namespace errdex::catalog {

using nlohmann::json;

json PiecesToJson(const Template& t) {
  json out = json::array();
  for (const Piece& p : t.pieces()) {
    if (!p.is_value) {
      out.push_back({{"text", p.text}});
      continue;
    }
    json v = {{"expr", p.text}, {"name", p.name}, {"kind", ValueKindName(p.kind)}};
    if (!p.spec.empty()) v["spec"] = p.spec;
    if (p.max_length >= 0) v["max_length"] = p.max_length;
    out.push_back(std::move(v));
  }
  return out;
}

Result<Template> PiecesFromJson(const json& j) {
  if (!j.is_array()) return Fail(ErrorCode::kCorrupt, "pieces are not a JSON array");
  Template t;
  for (const json& p : j) {
    if (!p.is_object()) return Fail(ErrorCode::kCorrupt, "a piece is not a JSON object");
    if (p.contains("text")) {
      t.AppendText(p.value("text", ""));
      continue;
    }
    Piece v;
    v.is_value = true;
    v.text = p.value("expr", "");
    v.name = p.value("name", "");
    v.kind = ValueKindFromName(p.value("kind", "str")).value_or(ValueKind::kStr);
    v.spec = p.value("spec", "");
    v.max_length = p.value("max_length", -1);
    t.AppendPiece(std::move(v));
  }
  return t;
}

json ErrorSummaryJson(const ErrorRecord& e) {
  json sites = json::array();
  for (const SiteRecord& s : e.sites) {
    sites.push_back({{"path", s.path}, {"line", s.line}, {"function", s.function}});
  }
  return {{"id", e.id},
          {"library", e.library},
          {"exception", e.exception},
          {"template", e.template_text},
          {"kind", e.kind},
          {"sites", std::move(sites)}};
}

json ErrorJson(const ErrorRecord& e) {
  json out = ErrorSummaryJson(e);
  out["pieces"] = PiecesToJson(e.message);
  out["dynamic"] = e.dynamic;
  out["no_message"] = e.message.empty();
  out["internal"] = e.internal;
  json sites = json::array();
  for (const SiteRecord& s : e.sites) {
    json site = {
        {"path", s.path},
        {"line", s.line},
        {"column", s.column},
        {"end_line", s.end_line},
        {"function", s.function},
        {"kind", s.kind},
        {"language", s.language},
        {"exception_written", s.exception_written},
        {"statement", s.statement},
        {"excerpt", {{"first_line", s.excerpt_line}, {"text", s.excerpt}}},
        {"internal", s.internal},
        {"snapshot",
         {{"rev", s.rev}, {"commit", s.commit}, {"date", s.date}, {"subdir", s.subdir}}},
    };
    if (!s.trigger.empty()) {
      json conditions = json::parse(s.guards_json, nullptr, false);
      if (conditions.is_discarded()) conditions = json::array();
      site["trigger"] = {{"sentence", s.trigger}, {"conditions", std::move(conditions)}};
    }
    if (!s.cause.empty()) site["cause"] = s.cause;
    if (!s.via.empty()) site["via"] = s.via;
    sites.push_back(std::move(site));
  }
  out["sites"] = std::move(sites);
  if (!e.sites.empty() && !e.sites.front().url.empty()) {
    out["repository"] = e.sites.front().url;
  }
  return out;
}

json GuardsToJson(const std::vector<Guard>& guards) {
  json out = json::array();
  for (const Guard& g : guards) {
    json j = {
        {"kind", g.kind}, {"code", ToValidUtf8(g.code)}, {"negated", g.negated}, {"line", g.line}};
    if (!g.subject.empty()) j["subject"] = ToValidUtf8(g.subject);
    if (!g.values.empty()) {
      json values = json::array();
      for (const std::string& v : g.values) values.push_back(ToValidUtf8(v));
      j["values"] = std::move(values);
    }
    out.push_back(std::move(j));
  }
  return out;
}

json StatsJson(const Stats& s) {
  json libraries = json::array();
  for (const LibraryStats& l : s.per_library) {
    libraries.push_back({{"name", l.name},
                         {"url", l.url},
                         {"snapshots", l.snapshots},
                         {"errors", l.errors},
                         {"sites", l.sites}});
  }
  json snapshots = json::array();
  for (const SnapshotStats& n : s.per_snapshot) {
    snapshots.push_back({{"library", n.library},
                         {"rev", n.rev},
                         {"commit", n.commit},
                         {"date", n.date},
                         {"kind", n.kind},
                         {"indexed_at", n.indexed_at},
                         {"files", n.files},
                         {"bytes", n.bytes},
                         {"sites", n.sites}});
  }
  return {{"libraries", s.libraries},
          {"snapshots", s.snapshots},
          {"errors", s.errors},
          {"dynamic_errors", s.dynamic_errors},
          {"sites", s.sites},
          {"files", s.files},
          {"errors_by_kind", s.errors_by_kind},
          {"skipped_files", s.skipped_by_reason},
          {"recovered_files", s.recovered_by_reason},
          {"non_sites", s.non_sites_by_reason},
          {"per_library", std::move(libraries)},
          {"per_snapshot", std::move(snapshots)}};
}

}  // namespace errdex::catalog
