#include "analyze/llm.h"

#include <httplib.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "catalog/json.h"
#include "core/text.h"

namespace errdex::analyze {
namespace {

using nlohmann::json;

constexpr size_t kMaxExcerptLines = 60;
constexpr size_t kMaxSitesSent = 3;
constexpr size_t kMaxField = 4000;  // characters of one prose field
constexpr size_t kMaxItems = 10;    // situations or solutions

constexpr std::string_view kSystemPrompt =
    "You explain an error that a software library raises to the developer whose program just "
    "failed with it. You are given facts a static analysis of the library's source derived: the "
    "exception type, the message template ({...} are values filled in at run time), where it is "
    "raised with the source around it, the conditions that lead to it, the values the code "
    "accepts, and its failure family. Use only these facts and general programming knowledge; "
    "do not invent APIs, versions or options the facts do not show. Reply with one JSON object "
    "and nothing else, with the keys: \"meaning\" (a short paragraph: what the error means), "
    "\"situations\" (an array of short strings: common situations in which a user hits it), "
    "\"solutions\" (an array of short strings: how to fix it), and \"example_fix\" (an object "
    "with \"before\" and \"after\", short code showing a fix; omit the key when no fix is "
    "clear from the facts).";

// The lines of `excerpt` (starting at `first`) within kMaxExcerptLines/2 of `line`.
std::string AroundLine(const std::string& excerpt, int first, int line) {
  std::string out;
  int at = first;
  size_t pos = 0;
  int half = static_cast<int>(kMaxExcerptLines / 2);
  while (pos <= excerpt.size()) {
    size_t nl = excerpt.find('\n', pos);
    std::string_view l(excerpt.data() + pos, (nl == std::string::npos ? excerpt.size() : nl) - pos);
    if (at >= line - half && at <= line + half) {
      out += std::to_string(at) + ": ";
      out += l;
      out += '\n';
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
    ++at;
  }
  return out;
}

json Facts(const catalog::ErrorRecord& e) {
  json sites = json::array();
  for (size_t i = 0; i < e.sites.size() && i < kMaxSitesSent; ++i) {
    const catalog::SiteRecord& s = e.sites[i];
    json site = {{"path", s.path}, {"line", s.line}, {"function", s.function}};
    if (!s.trigger.empty()) site["trigger"] = ToValidUtf8(s.trigger);
    if (!s.excerpt.empty()) {
      site["source"] = ToValidUtf8(AroundLine(s.excerpt, s.excerpt_line, s.line));
    }
    sites.push_back(std::move(site));
  }
  json facts = {{"library", e.library},
                {"exception", ToValidUtf8(e.exception)},
                {"kind", e.kind},
                {"message_template", ToValidUtf8(e.template_text)},
                {"sites", std::move(sites)}};
  if (e.sites.size() > kMaxSitesSent) facts["more_sites"] = e.sites.size() - kMaxSitesSent;
  if (e.analysis) {
    json valid = json::array();
    for (const ValidValues& v : e.analysis->valid) {
      valid.push_back({{"subject", ToValidUtf8(v.subject)}, {"values", v.values}});
    }
    if (!valid.empty()) facts["valid_values"] = std::move(valid);
    if (!e.analysis->labels.empty()) facts["labels"] = e.analysis->labels;
    facts["family"] = e.family ? e.family->name : e.analysis->family.slug;
  }
  return facts;
}

// "```json\n{...}\n```" -> "{...}": models fence JSON even when asked not to.
std::string_view Unfenced(std::string_view text) {
  text = Trim(text);
  if (!StartsWith(text, "```")) return text;
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return text;
  text.remove_prefix(nl + 1);
  size_t end = text.rfind("```");
  if (end != std::string_view::npos) text = text.substr(0, end);
  return Trim(text);
}

Result<std::string> Field(const json& j, const char* key, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return Fail(ErrorCode::kCorrupt, std::string("the reply has no \"") + key + "\"");
    return std::string();
  }
  if (!it->is_string()) {
    return Fail(ErrorCode::kCorrupt, std::string("\"") + key + "\" in the reply is not a string");
  }
  std::string s = std::string(Trim(it->get<std::string>()));
  if (required && s.empty()) {
    return Fail(ErrorCode::kCorrupt, std::string("\"") + key + "\" in the reply is empty");
  }
  if (s.size() > kMaxField) s = std::string(TruncateUtf8(s, kMaxField));
  return s;
}

Result<std::vector<std::string>> Items(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  // A single string is a list of one.
  if (it->is_string()) {
    out.push_back(std::string(TruncateUtf8(Trim(it->get<std::string>()), kMaxField)));
    return out;
  }
  if (!it->is_array()) {
    return Fail(ErrorCode::kCorrupt, std::string("\"") + key + "\" in the reply is not a list");
  }
  for (const json& v : *it) {
    if (!v.is_string()) {
      return Fail(ErrorCode::kCorrupt,
                  std::string("\"") + key + "\" in the reply holds something not a string");
    }
    std::string s(Trim(v.get<std::string>()));
    if (!s.empty() && out.size() < kMaxItems)
      out.push_back(std::string(TruncateUtf8(s, kMaxField)));
  }
  return out;
}

struct Url {
  std::string origin;  // scheme://host[:port]
  std::string path;
};

Result<Url> ParseEndpoint(const std::string& endpoint) {
  std::string_view rest = endpoint;
  std::string scheme;
  if (StartsWith(rest, "http://")) {
    scheme = "http://";
  } else if (StartsWith(rest, "https://")) {
    scheme = "https://";
  } else {
    return Fail(ErrorCode::kInvalidArgument,
                "--endpoint must be an http:// or https:// URL, got '" + endpoint + "'");
  }
  rest.remove_prefix(scheme.size());
  size_t slash = rest.find('/');
  Url url;
  url.origin = scheme + std::string(rest.substr(0, slash));
  if (rest.substr(0, slash).empty()) {
    return Fail(ErrorCode::kInvalidArgument, "--endpoint has no host: '" + endpoint + "'");
  }
  url.path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (!url.path.empty() && url.path.back() == '/') url.path.pop_back();
  if (!EndsWith(url.path, "/chat/completions")) url.path += "/chat/completions";
  return url;
}

}  // namespace

std::string EnrichmentRequest(const LlmOptions& options, const catalog::ErrorRecord& e) {
  json body = {
      {"model", options.model},
      {"temperature", 0},
      {"max_tokens", options.max_tokens},
      {"response_format", {{"type", "json_object"}}},
      {"messages",
       json::array({{{"role", "system"}, {"content", kSystemPrompt}},
                    {{"role", "user"},
                     {"content", "Facts about the error, as JSON:\n" + Facts(e).dump(2)}}})},
  };
  return body.dump();
}

Result<Enrichment> ParseEnrichmentReply(const std::string& body) {
  json reply = json::parse(body, nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) {
    return Fail(ErrorCode::kCorrupt, "the endpoint's response is not JSON");
  }
  auto choices = reply.find("choices");
  if (choices == reply.end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    return Fail(ErrorCode::kCorrupt, "the endpoint's response has no choices");
  }
  const json& choice = (*choices)[0];
  if (choice.value("finish_reason", "") == "content_filter") {
    return Fail(ErrorCode::kInvalidArgument, "the model refused (content filter)");
  }
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) {
    return Fail(ErrorCode::kCorrupt, "the endpoint's response has no message");
  }
  if (auto refusal = message->find("refusal");
      refusal != message->end() && refusal->is_string() && !refusal->get<std::string>().empty()) {
    return Fail(
        ErrorCode::kInvalidArgument,
        "the model refused: " + std::string(TruncateUtf8(refusal->get<std::string>(), 200)));
  }
  auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    return Fail(ErrorCode::kCorrupt, "the model's message has no text");
  }
  json prose = json::parse(Unfenced(content->get<std::string>()), nullptr, false);
  if (prose.is_discarded() || !prose.is_object()) {
    return Fail(ErrorCode::kCorrupt, "the model's reply is not a JSON object");
  }
  Enrichment e;
  Result<std::string> meaning = Field(prose, "meaning", true);
  if (!meaning) return tl::unexpected(meaning.error());
  e.meaning = std::move(*meaning);
  Result<std::vector<std::string>> situations = Items(prose, "situations");
  if (!situations) return tl::unexpected(situations.error());
  e.situations = std::move(*situations);
  Result<std::vector<std::string>> solutions = Items(prose, "solutions");
  if (!solutions) return tl::unexpected(solutions.error());
  if (solutions->empty()) return Fail(ErrorCode::kCorrupt, "the reply lists no solutions");
  e.solutions = std::move(*solutions);
  if (auto fix = prose.find("example_fix"); fix != prose.end() && fix->is_object()) {
    Result<std::string> before = Field(*fix, "before", false);
    Result<std::string> after = Field(*fix, "after", false);
    if (!before) return tl::unexpected(before.error());
    if (!after) return tl::unexpected(after.error());
    // Half a fix is no fix.
    if (!after->empty() && !before->empty()) {
      e.fix_before = std::move(*before);
      e.fix_after = std::move(*after);
    }
  }
  return e;
}

Result<Enrichment> Enrich(const LlmOptions& options, const catalog::ErrorRecord& e) {
  Result<Url> url = ParseEndpoint(options.endpoint);
  if (!url) return tl::unexpected(url.error());
  if (options.model.empty()) return Fail(ErrorCode::kInvalidArgument, "--model is empty");
  httplib::Client client(url->origin);
  client.set_connection_timeout(std::min(options.timeout_seconds, 30), 0);
  client.set_read_timeout(options.timeout_seconds, 0);
  client.set_write_timeout(options.timeout_seconds, 0);
  client.set_follow_location(false);
  httplib::Headers headers;
  if (!options.api_key.empty()) headers.emplace("Authorization", "Bearer " + options.api_key);
  httplib::Result res =
      client.Post(url->path, headers, EnrichmentRequest(options, e), "application/json");
  if (!res) {
    return Fail(ErrorCode::kIo, options.endpoint + ": " + httplib::to_string(res.error()));
  }
  if (res->status != 200) {
    return Fail(ErrorCode::kIo, options.endpoint + ": HTTP " + std::to_string(res->status) + ": " +
                                    std::string(TruncateUtf8(CollapseWhitespace(res->body), 200)));
  }
  Result<Enrichment> out = ParseEnrichmentReply(res->body);
  if (!out) return out;
  out->model = options.model;
  out->endpoint = options.endpoint;
  out->created_at = NowUtc();
  return out;
}

}  // namespace errdex::analyze
