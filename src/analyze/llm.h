// Optional enrichment by a language model: the facts errdex derived about an
// error (type, template, sites, excerpt, trigger, valid values, family) sent
// to any OpenAI-compatible chat-completions endpoint (llama.cpp's server,
// vLLM, Ollama), and the prose it answers with, validated, as an Enrichment.
// The static analysis is never replaced: the catalog stores this beside it.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "core/analysis.h"
#include "core/status.h"

namespace errdex::analyze {

struct LlmOptions {
  // The API's base (http://127.0.0.1:8080/v1) or the full
  // .../chat/completions URL.
  std::string endpoint;
  std::string model;
  std::string api_key;  // sent as a bearer token when not empty
  int timeout_seconds = 120;
  int max_tokens = 1024;
};

// The request body for `e` (exposed for tests and for --dry-run users).
std::string EnrichmentRequest(const LlmOptions& options, const catalog::ErrorRecord& e);

// Parses and validates a chat-completions response body into prose.
// kCorrupt when the reply is not the JSON asked for; kInvalidArgument when
// the model refused.
Result<Enrichment> ParseEnrichmentReply(const std::string& body);

// What every rejection's message starts with.
inline constexpr std::string_view kRejected = "the model's answer is rejected: ";

// Rejects an answer that names a function, parameter or value the catalog
// does not know of `e` (in code spans and the example fix), or whose fix
// calls a function of known signature with arguments that do not fit it.
Result<void> CheckEnrichment(const catalog::ErrorRecord& e, const Enrichment& n);

// One request for `e`, checked with CheckEnrichment; `created_at`, `model`
// and `endpoint` filled in.
Result<Enrichment> Enrich(const LlmOptions& options, const catalog::ErrorRecord& e);

}  // namespace errdex::analyze
