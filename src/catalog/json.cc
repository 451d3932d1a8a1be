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

json VersionsJson(const ErrorRecord& e) {
  json each = json::array();
  for (const VersionPresence& v : e.versions) {
    json one = {{"rev", v.rev}, {"commit", v.commit}, {"date", v.date}, {"sites", v.sites}};
    if (!v.aliases.empty()) one["aliases"] = v.aliases;  // said only where there are some
    each.push_back(std::move(one));
  }
  json ranges = json::array();
  for (const VersionRange& r : RaisedIn(e.versions)) {
    ranges.push_back({{"first", r.first}, {"last", r.last}});
  }
  return {{"shown", e.version}, {"raised_in", std::move(ranges)}, {"each", std::move(each)}};
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
    // Stored as JSON the catalog wrote; a damaged value is left out.
    if (!s.signature.empty()) {
      json parameters = json::parse(s.signature, nullptr, false);
      if (parameters.is_array()) site["parameters"] = std::move(parameters);
    }
    if (!s.entries.empty()) {
      json entries = json::parse(s.entries, nullptr, false);
      if (entries.is_array()) site["entry_points"] = std::move(entries);
    }
    sites.push_back(std::move(site));
  }
  out["sites"] = std::move(sites);
  out["versions"] = VersionsJson(e);
  if (!e.sites.empty() && !e.sites.front().url.empty()) {
    out["repository"] = e.sites.front().url;
  }
  if (e.analysis) {
    json analysis = AnalysisToJson(*e.analysis);
    if (e.family) analysis["family"].update(FamilyJson(*e.family));
    out["analysis"] = std::move(analysis);
    json related = json::array();
    for (const RelatedError& r : e.analysis->related) related.push_back(r.id);
    out["related"] = std::move(related);
    out["family"] = e.analysis->family.slug;
  }
  if (e.enrichment) out["enrichment"] = EnrichmentToJson(*e.enrichment);
  return out;
}

json GuardsToJson(const std::vector<Guard>& guards, std::optional<int> relative_to) {
  json out = json::array();
  for (const Guard& g : guards) {
    json j = {{"kind", g.kind}, {"code", ToValidUtf8(g.code)}, {"negated", g.negated}};
    if (relative_to) {
      j["dline"] = static_cast<int64_t>(g.line) - *relative_to;
    } else {
      j["line"] = g.line;
    }
    // Most conditions hold as written: `when` is stored where it says more.
    if (!g.when.empty() && (g.when != g.code || g.negated)) j["when"] = ToValidUtf8(g.when);
    if (!g.subject.empty()) j["subject"] = ToValidUtf8(g.subject);
    if (!g.values.empty()) {
      json values = json::array();
      for (const std::string& v : g.values) values.push_back(ToValidUtf8(v));
      j["values"] = std::move(values);
      if (!g.meanings.empty()) {
        json meanings = json::array();
        for (const std::string& m : g.meanings) meanings.push_back(ToValidUtf8(m));
        j["meanings"] = std::move(meanings);
      }
    }
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

json StringsJson(const std::vector<std::string>& v) {
  json out = json::array();
  for (const std::string& s : v) out.push_back(ToValidUtf8(s));
  return out;
}

}  // namespace

std::vector<Guard> GuardsFromJson(const json& j) {
  std::vector<Guard> out;
  if (!j.is_array()) return out;
  for (const json& g : j) {
    if (!g.is_object()) continue;
    Guard guard;
    guard.kind = Str(g, "kind");
    guard.code = Str(g, "code");
    guard.negated = g.value("negated", false);
    guard.line = g.value("line", 0);
    guard.when = Str(g, "when");
    guard.subject = Str(g, "subject");
    guard.values = Strings(g, "values");
    guard.meanings = Strings(g, "meanings");
    if (guard.meanings.size() != guard.values.size()) guard.meanings.clear();
    out.push_back(std::move(guard));
  }
  return out;
}

json AnalysisToJson(const Analysis& a) {
  json valid = json::array();
  for (const ValidValues& v : a.valid) {
    json one = {{"subject", ToValidUtf8(v.subject)},
                {"values", StringsJson(v.values)},
                {"source", v.source},
                {"line", v.line}};
    if (!v.meanings.empty()) one["meanings"] = StringsJson(v.meanings);
    if (!v.doc.empty()) one["doc"] = ToValidUtf8(v.doc);
    valid.push_back(std::move(one));
  }
  json related = json::array();
  for (const RelatedError& r : a.related) {
    related.push_back({{"id", r.id},
                       {"exception", ToValidUtf8(r.exception)},
                       {"template", ToValidUtf8(r.template_text)},
                       {"reason", r.reason},
                       {"score", r.score}});
  }
  auto rewordings = [](const std::vector<Rewording>& list) {
    json out = json::array();
    for (const Rewording& r : list) {
      out.push_back({{"id", r.id},
                     {"exception", ToValidUtf8(r.exception)},
                     {"template", ToValidUtf8(r.template_text)},
                     {"last_before", ToValidUtf8(r.last_before)},
                     {"first_after", ToValidUtf8(r.first_after)}});
    }
    return out;
  };
  json prose = {{"meaning", ToValidUtf8(a.prose.meaning)},
                {"when", ToValidUtf8(a.prose.when)},
                {"solutions", StringsJson(a.prose.solutions)}};
  if (!a.prose.fix_after.empty()) {
    prose["example_fix"] = {{"before", ToValidUtf8(a.prose.fix_before)},
                            {"after", ToValidUtf8(a.prose.fix_after)}};
  }
  json family = {{"slug", a.family.slug}, {"reason", ToValidUtf8(a.family.reason)}};
  if (a.family.weak) family["weak"] = true;
  json out = {{"family", std::move(family)},
              {"labels", StringsJson(a.labels)},
              {"valid_values", std::move(valid)},
              {"related", std::move(related)},
              {"prose", std::move(prose)},
              {"provenance", "static"}};
  // Only libraries indexed at several versions have these.
  if (!a.reworded_from.empty()) out["reworded_from"] = rewordings(a.reworded_from);
  if (!a.reworded_to.empty()) out["reworded_to"] = rewordings(a.reworded_to);
  return out;
}

Analysis AnalysisFromJson(const json& j) {
  Analysis a;
  if (!j.is_object()) return a;
  if (auto f = j.find("family"); f != j.end() && f->is_object()) {
    a.family.slug = Str(*f, "slug");
    a.family.reason = Str(*f, "reason");
    auto weak = f->find("weak");
    a.family.weak = weak != f->end() && weak->is_boolean() && weak->get<bool>();
  }
  a.labels = Strings(j, "labels");
  if (auto v = j.find("valid_values"); v != j.end() && v->is_array()) {
    for (const json& x : *v) {
      if (!x.is_object()) continue;
      a.valid.push_back(
          {Str(x, "subject"), Strings(x, "values"), Str(x, "source"), x.value("line", 0),
           Strings(x, "meanings"), Str(x, "doc")});
      if (a.valid.back().meanings.size() != a.valid.back().values.size()) {
        a.valid.back().meanings.clear();
      }
    }
  }
  if (auto r = j.find("related"); r != j.end() && r->is_array()) {
    for (const json& x : *r) {
      if (!x.is_object()) continue;
      a.related.push_back({Str(x, "id"), Str(x, "exception"), Str(x, "template"), Str(x, "reason"),
                           x.value("score", 0.0)});
    }
  }
  for (auto [key, list] : {std::pair{"reworded_from", &a.reworded_from},
                           std::pair{"reworded_to", &a.reworded_to}}) {
    auto r = j.find(key);
    if (r == j.end() || !r->is_array()) continue;
    for (const json& x : *r) {
      if (!x.is_object()) continue;
      list->push_back({Str(x, "id"), Str(x, "exception"), Str(x, "template"),
                       Str(x, "last_before"), Str(x, "first_after")});
    }
  }
  if (auto p = j.find("prose"); p != j.end() && p->is_object()) {
    a.prose.meaning = Str(*p, "meaning");
    a.prose.when = Str(*p, "when");
    a.prose.solutions = Strings(*p, "solutions");
    if (auto fix = p->find("example_fix"); fix != p->end() && fix->is_object()) {
      a.prose.fix_before = Str(*fix, "before");
      a.prose.fix_after = Str(*fix, "after");
    }
  }
  return a;
}

json EnrichmentToJson(const Enrichment& e) {
  json out = {{"provenance", "llm:" + e.model},
              {"model", e.model},
              {"endpoint", e.endpoint},
              {"created_at", e.created_at},
              {"meaning", ToValidUtf8(e.meaning)},
              {"situations", StringsJson(e.situations)},
              {"solutions", StringsJson(e.solutions)}};
  if (!e.fix_after.empty()) {
    out["example_fix"] = {{"before", ToValidUtf8(e.fix_before)},
                          {"after", ToValidUtf8(e.fix_after)}};
  }
  return out;
}

Enrichment EnrichmentFromJson(const json& j) {
  Enrichment e;
  if (!j.is_object()) return e;
  e.model = Str(j, "model");
  e.endpoint = Str(j, "endpoint");
  e.created_at = Str(j, "created_at");
  e.meaning = Str(j, "meaning");
  e.situations = Strings(j, "situations");
  e.solutions = Strings(j, "solutions");
  if (auto fix = j.find("example_fix"); fix != j.end() && fix->is_object()) {
    e.fix_before = Str(*fix, "before");
    e.fix_after = Str(*fix, "after");
  }
  return e;
}

json FamilyJson(const FamilyInfo& f) {
  return {{"slug", f.slug},     {"name", f.name},           {"description", f.description},
          {"errors", f.errors}, {"libraries", f.libraries}, {"examples", StringsJson(f.examples)}};
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
    json one = {{"library", n.library}, {"rev", n.rev},
                {"commit", n.commit},   {"date", n.date},
                {"kind", n.kind},       {"indexed_at", n.indexed_at},
                {"files", n.files},     {"bytes", n.bytes},
                {"sites", n.sites}};
    if (!n.aliases.empty()) one["aliases"] = n.aliases;
    snapshots.push_back(std::move(one));
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
          {"per_snapshot", std::move(snapshots)},
          {"analysed_at", s.analysed_at}};
}

namespace {
std::vector<Parameter> ParametersJson(const json& j) {
  std::vector<Parameter> out;
  if (!j.is_array()) return out;
  for (const json& p : j) {
    if (!p.is_array() || p.size() < 2 || p.size() > 3 || !p[0].is_string() || !p[1].is_string() ||
        (p.size() == 3 && !p[2].is_string())) {
      return {};
    }
    out.push_back({p[0].get<std::string>(), p[1].get<std::string>(),
                   p.size() == 3 ? p[2].get<std::string>() : ""});
  }
  return out;
}
}  // namespace

std::vector<Parameter> SiteParameters(const SiteRecord& s) {
  if (s.signature.empty()) return {};
  return ParametersJson(json::parse(s.signature, nullptr, false));
}

std::string_view SiteHeading(const SiteRecord& s) {
  if (s.kind == "assert") return "Asserted at";
  if (s.kind == "warning") return "Warned at";
  if (s.kind == "fatal") return "Aborts the process at";
  if (s.kind == "status") return "Returned as an error status at";
  if (s.kind == "return") return "Built and returned at";
  return s.language == "cpp" ? "Thrown at" : "Raised at";
}

std::vector<EntryPoint> EntryPoints(const SiteRecord& s) {
  std::vector<EntryPoint> out;
  if (s.entries.empty()) return out;
  json j = json::parse(s.entries, nullptr, false);
  if (!j.is_array()) return out;
  for (const json& e : j) {
    if (!e.is_object() || !e.value("name", json()).is_string()) continue;
    EntryPoint p;
    p.name = e["name"].get<std::string>();
    if (e.value("kind", json()).is_string()) p.kind = e["kind"].get<std::string>();
    if (e.value("path", json()).is_string()) p.path = e["path"].get<std::string>();
    if (e.value("line", json()).is_number_integer()) p.line = e["line"].get<int>();
    p.here = e.value("here", json()).is_boolean() && e["here"].get<bool>();
    if (auto params = e.find("parameters"); params != e.end()) p.parameters = ParametersJson(*params);
    if (auto via = e.find("via"); via != e.end() && via->is_array()) {
      for (const json& v : *via) {
        if (v.is_string()) p.via.push_back(v.get<std::string>());
      }
    }
    if (auto args = e.find("args"); args != e.end() && args->is_object()) {
      for (auto it = args->begin(); it != args->end(); ++it) {
        if (it->is_string()) p.args.emplace_back(it.key(), it->get<std::string>());
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string EntryChain(const EntryPoint& e, const SiteRecord& s) {
  std::string out = "`" + e.name + "`";
  for (const std::string& v : e.via) out += " → `" + v + "`";
  if (!e.here && !s.function.empty()) out += " → `" + s.function + "`";
  return out;
}

}  // namespace errdex::catalog
