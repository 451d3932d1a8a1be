#include "analyze/llm.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <set>
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
      json one = {{"subject", ToValidUtf8(v.subject)}, {"values", v.values}};
      if (!v.doc.empty()) one["doc"] = ToValidUtf8(v.doc);
      valid.push_back(std::move(one));
    }
    if (!valid.empty()) facts["valid_values"] = std::move(valid);
    if (!e.analysis->labels.empty()) facts["labels"] = e.analysis->labels;
    // A family the broad type alone placed is not a fact about the error
    // (doc/analysis.md, "Failure families"): the model is not told it.
    if (!e.analysis->family.weak) {
      facts["family"] = e.family ? e.family->name : e.analysis->family.slug;
    }
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


// ---------------------------------------------------------------- checking
// A model's answer may only name what the catalog knows of the error: the
// functions, parameters and values of its sites, entry points and analysis,
// and the names in the source excerpt it was shown. A call to a function
// whose signature is known must also fit it.

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// The identifiers of `code` outside its string literals, each with whether
// it follows a dot and whether a call's parenthesis follows it.
struct Ident {
  std::string name;
  bool after_dot = false;
  bool called = false;
};

std::vector<Ident> Identifiers(std::string_view code) {
  std::vector<Ident> out;
  char quote = 0;
  for (size_t i = 0; i < code.size();) {
    char c = code[i];
    if (quote != 0) {
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == quote) quote = 0;
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      ++i;
      continue;
    }
    if (!IdentStart(c) || (i > 0 && IsIdentChar(code[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < code.size() && IsIdentChar(code[end])) ++end;
    Ident id{std::string(code.substr(i, end - i)), i > 0 && code[i - 1] == '.', false};
    size_t next = end;
    while (next < code.size() && code[next] == ' ') ++next;
    id.called = next < code.size() && code[next] == '(';
    out.push_back(std::move(id));
    i = end;
  }
  return out;
}

void AddIdentifiers(std::string_view text, std::set<std::string, std::less<>>& known) {
  for (size_t i = 0; i < text.size();) {
    if (!IdentStart(text[i]) || (i > 0 && IsIdentChar(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsIdentChar(text[end])) ++end;
    known.emplace(text.substr(i, end - i));
    i = end;
  }
}

constexpr std::string_view kPythonNames[] = {
    "None", "True", "False", "and", "or", "not", "in", "is", "if", "else", "for", "lambda",
    "return", "raise", "import", "from", "as", "with", "def", "class", "pass", "try", "except",
    "int", "float", "str", "bytes", "bool", "list", "dict", "tuple", "set", "frozenset", "len",
    "range", "isinstance", "type", "print", "repr", "min", "max", "sum", "any", "all", "obj",
    "self", "cls", "x", "value", "e"};

std::set<std::string, std::less<>> KnownNames(const catalog::ErrorRecord& e) {
  std::set<std::string, std::less<>> known(std::begin(kPythonNames), std::end(kPythonNames));
  AddIdentifiers(e.exception, known);
  AddIdentifiers(e.template_text, known);
  AddIdentifiers(e.library, known);
  for (const catalog::SiteRecord& s : e.sites) {
    for (std::string_view t : {std::string_view(s.function), std::string_view(s.path),
                               std::string_view(s.statement), std::string_view(s.excerpt),
                               std::string_view(s.trigger)}) {
      AddIdentifiers(t, known);
    }
    // The parameters' names, not the words of their docstring lines.
    for (const catalog::Parameter& p : catalog::SiteParameters(s)) known.insert(p.name);
    for (const catalog::EntryPoint& p : catalog::EntryPoints(s)) {
      AddIdentifiers(p.name, known);
      for (const std::string& v : p.via) AddIdentifiers(v, known);
    }
    AddIdentifiers(s.entries, known);  // the entries' parameters
  }
  if (e.analysis) {
    for (const ValidValues& v : e.analysis->valid) {
      AddIdentifiers(v.subject, known);
      for (const std::string& x : v.values) AddIdentifiers(x, known);
      AddIdentifiers(v.doc, known);  // the model is shown it
    }
  }
  return known;
}

// The code a prose field shows: its `backticked` spans.
std::vector<std::string_view> CodeSpans(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t open = text.find('`'); open != std::string_view::npos;) {
    size_t close = text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    out.push_back(text.substr(open + 1, close - open - 1));
    open = text.find('`', close + 1);
  }
  return out;
}

// The top-level arguments of the call whose '(' is at `open`.
std::vector<std::string> Arguments(std::string_view code, size_t open) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (size_t i = open + 1; i < code.size(); ++i) {
    char c = code[i];
    if (quote) {
      if (c == '\\' && i + 1 < code.size()) current += code[i++];
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ')') {
      break;
    } else if (c == ',' && depth == 0) {
      out.push_back(std::string(Trim(current)));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!Trim(current).empty()) out.push_back(std::string(Trim(current)));
  return out;
}

struct KnownCall {
  std::vector<catalog::Parameter> params;
  size_t skip = 0;
};

// Signatures by the short name a fix would call: the sites' functions (a
// method as its name, __init__ as its class) and the entry points.
std::map<std::string, KnownCall, std::less<>> Signatures(const catalog::ErrorRecord& e) {
  std::map<std::string, KnownCall, std::less<>> out;
  for (const catalog::SiteRecord& s : e.sites) {
    std::vector<catalog::Parameter> params = catalog::SiteParameters(s);
    if (!params.empty()) {
      std::string name = s.function.substr(s.function.rfind('.') + 1);
      if (name == "__init__" && s.function.find('.') != std::string::npos) {
        std::string owner = s.function.substr(0, s.function.rfind('.'));
        name = owner.substr(owner.rfind('.') + 1);
      }
      size_t skip = params.front().name == "self" || params.front().name == "cls" ? 1 : 0;
      out.try_emplace(name, KnownCall{std::move(params), skip});
    }
    for (const catalog::EntryPoint& p : catalog::EntryPoints(s)) {
      out.try_emplace(p.name.substr(p.name.rfind('.') + 1),
                      KnownCall{p.parameters, p.kind == "function" ? size_t{0} : size_t{1}});
    }
  }
  return out;
}

// Why `code` does not fit a signature it calls, or "".
std::string MisfitCall(std::string_view code,
                       const std::map<std::string, KnownCall, std::less<>>& signatures) {
  for (const auto& [name, sig] : signatures) {
    for (size_t at = code.find(name); at != std::string_view::npos;
         at = code.find(name, at + 1)) {
      size_t open = at + name.size();
      if ((at > 0 && IsIdentChar(code[at - 1])) || open >= code.size() || code[open] != '(')
        continue;
      std::set<std::string> given;
      size_t positional = 0;
      for (const std::string& arg : Arguments(code, open)) {
        if (arg == "..." || arg.empty() || arg[0] == '*') continue;
        size_t eq = arg.find('=');
        bool keyword = eq != std::string::npos && eq > 0 && IsIdentChar(arg[eq - 1]) &&
                       (eq + 1 >= arg.size() || arg[eq + 1] != '=');
        if (!keyword) {
          if (sig.skip + positional >= sig.params.size() ||
              (sig.params[sig.skip + positional].kind != "pos" &&
               sig.params[sig.skip + positional].kind != "any")) {
            bool star = std::any_of(sig.params.begin(), sig.params.end(),
                                    [](const auto& p) { return p.kind == "*"; });
            if (!star) return "passes more positional arguments than `" + name + "` takes";
          } else {
            given.insert(sig.params[sig.skip + positional].name);
          }
          ++positional;
          continue;
        }
        std::string key(Trim(arg.substr(0, eq)));
        auto param = std::find_if(sig.params.begin(), sig.params.end(),
                                  [&](const auto& p) { return p.name == key; });
        bool double_star = std::any_of(sig.params.begin(), sig.params.end(),
                                       [](const auto& p) { return p.kind == "**"; });
        if (param == sig.params.end()) {
          if (!double_star) return "`" + name + "` has no parameter `" + key + "`";
        } else if (param->kind == "pos") {
          return "`" + key + "` of `" + name + "` is positional only";
        } else if (!given.insert(key).second) {
          return "`" + key + "` of `" + name + "` is given twice (the argument order is wrong)";
        }
      }
    }
  }
  return "";
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

Result<void> CheckEnrichment(const catalog::ErrorRecord& e, const Enrichment& n) {
  std::set<std::string, std::less<>> known = KnownNames(e);
  std::map<std::string, KnownCall, std::less<>> signatures = Signatures(e);
  std::vector<std::string_view> code;
  for (const std::string* field : {&n.meaning, &n.fix_before, &n.fix_after}) {
    if (field == &n.meaning) {
      for (std::string_view c : CodeSpans(*field)) code.push_back(c);
    } else if (!field->empty()) {
      code.push_back(*field);
    }
  }
  for (const std::vector<std::string>* list : {&n.situations, &n.solutions}) {
    for (const std::string& item : *list) {
      for (std::string_view c : CodeSpans(item)) code.push_back(c);
    }
  }
  for (const std::string* fix : {&n.fix_before, &n.fix_after}) {
    std::string misfit = MisfitCall(*fix, signatures);
    if (!misfit.empty()) {
      return Fail(ErrorCode::kCorrupt, std::string(kRejected) + "its example fix " + misfit);
    }
  }
  for (std::string_view c : code) {
    for (const Ident& id : Identifiers(c)) {
      // An attribute of a known object may be any; a called one must be known.
      if (id.after_dot && !id.called) continue;
      if (!known.count(id.name)) {
        return Fail(ErrorCode::kCorrupt, std::string(kRejected) + "it names `" + id.name +
                                             "`, which the catalog does not know of this error");
      }
    }
  }
  return {};
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
  ERRDEX_TRY(CheckEnrichment(e, *out));
  out->model = options.model;
  out->endpoint = options.endpoint;
  out->created_at = NowUtc();
  return out;
}

}  // namespace errdex::analyze
