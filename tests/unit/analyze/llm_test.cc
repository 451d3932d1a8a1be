// Enrichment against a small OpenAI-compatible server run inside the test:
// good answers, fenced JSON, malformed JSON, refusals, HTTP errors, timeouts
// and a closed port; then `errdex enrich` end to end on a catalog.
#include "analyze/llm.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace errdex::analyze {
namespace {

using nlohmann::json;

std::string Completion(const std::string& content, const std::string& finish = "stop") {
  return json({{"id", "x"},
               {"object", "chat.completion"},
               {"choices",
                json::array({{{"index", 0},
                              {"finish_reason", finish},
                              {"message", {{"role", "assistant"}, {"content", content}}}}})}})
      .dump();
}

const std::string kGoodProse =
    json({{"meaning", "The stage number is not one the pipeline knows."},
          {"situations", {"Registering a transform with stage 2."}},
          {"solutions", {"Pass stage 0 or 1."}},
          {"example_fix",
           {{"before", "register_xla_transform(stage=2)"},
            {"after", "register_xla_transform(stage=0)"}}}})
        .dump();

// A chat-completions endpoint whose answer the test picks.
class FakeModel {
 public:
  enum class Mode { kGood, kFenced, kMalformed, kRefusal, kFiltered, kServerError, kSlow };

  FakeModel() {
    server_.Post(
        "/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            requests_.push_back(req.body);
          }
          switch (mode_.load()) {
            case Mode::kGood:
              res.set_content(Completion(kGoodProse), "application/json");
              break;
            case Mode::kFenced:
              res.set_content(Completion("```json\n" + kGoodProse + "\n```"), "application/json");
              break;
            case Mode::kMalformed:
              res.set_content(Completion("{\"meaning\": \"cut off"), "application/json");
              break;
            case Mode::kRefusal: {
              json body = json::parse(Completion(""));
              body["choices"][0]["message"]["content"] = nullptr;
              body["choices"][0]["message"]["refusal"] = "I cannot help with that.";
              res.set_content(body.dump(), "application/json");
              break;
            }
            case Mode::kFiltered:
              res.set_content(Completion("", "content_filter"), "application/json");
              break;
            case Mode::kServerError:
              res.status = 500;
              res.set_content("{\"error\": \"model not loaded\"}", "application/json");
              break;
            case Mode::kSlow:
              std::this_thread::sleep_for(std::chrono::seconds(3));
              res.set_content(Completion(kGoodProse), "application/json");
              break;
          }
        });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket listens from bind_to_any_port on; wait for the accept loop
    // so that stop() in the destructor cannot race its start.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeModel() {
    server_.stop();
    thread_.join();
  }

  void set_mode(Mode m) { mode_ = m; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<Mode> mode_{Mode::kGood};
  std::mutex mu_;
  std::vector<std::string> requests_;
};

catalog::ErrorRecord Stage() {
  catalog::ErrorRecord e;
  e.id = "dbff7c0c5ea8753e";
  e.library = "jax-ml/jax";
  e.exception = "RuntimeError";
  e.kind = "raise";
  e.template_text = "Invalid pipeline stage";
  catalog::SiteRecord s;
  s.path = "jaxlib/xla.cc";
  s.line = 3;
  s.function = "register_xla_transform";
  s.excerpt_line = 1;
  s.excerpt =
      "switch (stage) {\n  default:\n    throw std::runtime_error(\"Invalid pipeline stage\");\n}";
  s.trigger = "raised when `stage` matches no case (valid: `0`, `1`)";
  e.sites.push_back(s);
  Analysis a;
  a.family.slug = "invalid-choice";
  a.valid.push_back({"stage", {"0", "1"}, "cases", 1, {"kPreScheduler", "kPostScheduler"}, ""});
  e.analysis = a;
  return e;
}

LlmOptions Options(const FakeModel& server) {
  LlmOptions o;
  o.endpoint = server.endpoint();
  o.model = "tiny-test-model";
  o.timeout_seconds = 1;
  return o;
}

TEST(Llm, AGoodAnswerIsStoredWithItsProvenance) {
  FakeModel server;
  Result<Enrichment> e = Enrich(Options(server), Stage());
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->meaning, "The stage number is not one the pipeline knows.");
  EXPECT_EQ(e->situations, std::vector<std::string>{"Registering a transform with stage 2."});
  EXPECT_EQ(e->solutions, std::vector<std::string>{"Pass stage 0 or 1."});
  EXPECT_EQ(e->fix_after, "register_xla_transform(stage=0)");
  EXPECT_EQ(e->model, "tiny-test-model");
  EXPECT_EQ(e->endpoint, server.endpoint());
  EXPECT_EQ(e->created_at.size(), 20u);  // 2026-11-30T08:00:00Z
  // What was asked: the model, JSON output, and the facts with the source.
  ASSERT_EQ(server.requests().size(), 1u);
  json request = json::parse(server.requests()[0]);
  EXPECT_EQ(request["model"], "tiny-test-model");
  EXPECT_EQ(request["response_format"]["type"], "json_object");
  std::string facts = request["messages"][1]["content"];
  EXPECT_NE(facts.find("Invalid pipeline stage"), std::string::npos);
  EXPECT_NE(facts.find("3:     throw std::runtime_error"), std::string::npos);
  EXPECT_NE(facts.find("matches no case"), std::string::npos);
  EXPECT_NE(facts.find("\"stage\""), std::string::npos);
}

// The model is told the family only where a page states it.
TEST(Llm, AWeakFamilyIsNotSentAsAFact) {
  for (bool weak : {false, true}) {
    FakeModel server;
    catalog::ErrorRecord e = Stage();
    e.analysis->family.weak = weak;
    ASSERT_TRUE(Enrich(Options(server), e).has_value());
    ASSERT_EQ(server.requests().size(), 1u);
    std::string facts = json::parse(server.requests()[0])["messages"][1]["content"];
    EXPECT_EQ(facts.find("invalid-choice") != std::string::npos, !weak) << facts;
  }
}

TEST(Llm, FencedJsonIsAccepted) {
  FakeModel server;
  server.set_mode(FakeModel::Mode::kFenced);
  Result<Enrichment> e = Enrich(Options(server), Stage());
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->solutions.size(), 1u);
}

TEST(Llm, MalformedRefusedFailedAndSlowAnswersAreErrors) {
  FakeModel server;
  server.set_mode(FakeModel::Mode::kMalformed);
  Result<Enrichment> e = Enrich(Options(server), Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kCorrupt);

  server.set_mode(FakeModel::Mode::kRefusal);
  e = Enrich(Options(server), Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().message, "the model refused: I cannot help with that.");

  server.set_mode(FakeModel::Mode::kFiltered);
  e = Enrich(Options(server), Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().message.find("refused"), std::string::npos);

  server.set_mode(FakeModel::Mode::kServerError);
  e = Enrich(Options(server), Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kIo);
  EXPECT_NE(e.error().message.find("HTTP 500: {\"error\": \"model not loaded\"}"),
            std::string::npos);

  server.set_mode(FakeModel::Mode::kSlow);
  auto start = std::chrono::steady_clock::now();
  e = Enrich(Options(server), Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kIo);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2900))
      << "the 1 s timeout, not the server's 3 s";
}

TEST(Llm, BadEndpointsFailClearly) {
  LlmOptions o;
  o.model = "m";
  o.endpoint = "ftp://example/v1";
  EXPECT_EQ(Enrich(o, Stage()).error().code, ErrorCode::kInvalidArgument);
  o.endpoint = "http:///v1";
  EXPECT_EQ(Enrich(o, Stage()).error().code, ErrorCode::kInvalidArgument);
  // A port nothing listens on (the fake's, after it stopped).
  std::string closed;
  {
    FakeModel server;
    closed = server.endpoint();
  }
  o.endpoint = closed;
  o.timeout_seconds = 2;
  Result<Enrichment> e = Enrich(o, Stage());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kIo);
}

TEST(Llm, RepliesAreValidated) {
  auto parse = [](const json& prose) { return ParseEnrichmentReply(Completion(prose.dump())); };
  EXPECT_EQ(parse({{"solutions", {"x"}}}).error().message, "the reply has no \"meaning\"");
  EXPECT_EQ(parse({{"meaning", "m"}}).error().message, "the reply lists no solutions");
  EXPECT_EQ(parse({{"meaning", 3}, {"solutions", {"x"}}}).error().message,
            "\"meaning\" in the reply is not a string");
  EXPECT_EQ(parse({{"meaning", "m"}, {"solutions", {1, 2}}}).error().message,
            "\"solutions\" in the reply holds something not a string");
  // One string is a list of one; half a fix is dropped.
  Result<Enrichment> e =
      parse({{"meaning", "m"}, {"solutions", "do x"}, {"example_fix", {{"after", "y"}}}});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->solutions, std::vector<std::string>{"do x"});
  EXPECT_TRUE(e->fix_after.empty());
  EXPECT_EQ(ParseEnrichmentReply("not json").error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(ParseEnrichmentReply("{\"choices\": []}").error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(ParseEnrichmentReply(Completion("[1, 2]")).error().code, ErrorCode::kCorrupt);
}

TEST(Llm, EnrichCommandStoresBesideTheStaticAnalysis) {
  testing::TempDir dir;
  dir.Write("lib/m.py",
            "def register_xla_transform(stage):\n"
            "    if stage not in (0, 1):\n"
            "        raise ValueError('Invalid pipeline stage')\n"
            "    raise KeyError('other')\n");
  std::string db = (dir.path() / "c.db").string();
  ASSERT_EQ(testing::RunErrdex(
                {"--db", db, "index", (dir.path() / "lib").string(), "--name", "test/lib", "-q"})
                .exit_code,
            0);
  testing::CommandResult list = testing::RunErrdex({"--db", db, "list", "--json"});
  std::string id = json::parse(list.out.substr(0, list.out.find('\n')))["id"];
  std::string before =
      json::parse(testing::RunErrdex({"--db", db, "show", id, "--json"}).out)["analysis"].dump();

  FakeModel server;
  server.set_mode(FakeModel::Mode::kRefusal);
  testing::CommandResult refused = testing::RunErrdex(
      {"--db", db, "enrich", "--endpoint", server.endpoint(), "--model", "m", "--timeout", "5"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("warning: "), std::string::npos);
  EXPECT_NE(refused.err.find("every request failed"), std::string::npos);

  server.set_mode(FakeModel::Mode::kGood);
  testing::CommandResult ok =
      testing::RunErrdex({"--db", db, "enrich", "--endpoint", server.endpoint(), "--model", "m",
                          "--limit", "1", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(json::parse(ok.out)["enriched"], 1);
  EXPECT_EQ(json::parse(ok.out)["rejected"], 0);
  json shown = json::parse(testing::RunErrdex({"--db", db, "show", id, "--json"}).out);
  ASSERT_TRUE(shown.contains("enrichment"));
  EXPECT_EQ(shown["enrichment"]["provenance"], "llm:m");
  EXPECT_EQ(shown["enrichment"]["solutions"][0], "Pass stage 0 or 1.");
  EXPECT_EQ(shown["analysis"].dump(), before) << "the static analysis is untouched";
  EXPECT_EQ(shown["analysis"]["provenance"], "static");
  // The text form labels the model's prose as such.
  std::string text = testing::RunErrdex({"--db", db, "show", id}).out;
  EXPECT_NE(text.find("AI-assisted (m, "), std::string::npos);

  // Re-indexing keeps it; the next run asks only about the other error.
  ASSERT_EQ(testing::RunErrdex(
                {"--db", db, "index", (dir.path() / "lib").string(), "--name", "test/lib", "-q"})
                .exit_code,
            0);
  testing::CommandResult again = testing::RunErrdex(
      {"--db", db, "enrich", "--endpoint", server.endpoint(), "--model", "m", "--json"});
  EXPECT_EQ(json::parse(again.out)["candidates"], 1);
  EXPECT_TRUE(json::parse(testing::RunErrdex({"--db", db, "show", id, "--json"}).out)
                  .contains("enrichment"));
}

// Names the catalog does not know, and fixes that do not fit the signature,
// are rejected; what the error's facts and excerpt name passes.
TEST(Llm, AnswersNamingWhatTheCatalogDoesNotKnowAreRejected) {
  catalog::ErrorRecord e = Stage();
  e.sites[0].language = "python";
  e.sites[0].function = "Pipeline.configure";
  // The words of a parameter's docstring line are prose, not names it knows.
  e.sites[0].signature =
      R"([["self","any"],["mode","any","Call set_pipeline_stage before."],["stage","kw"]])";
  auto check = [&](const std::string& meaning, const std::string& after) {
    Enrichment n;
    n.meaning = meaning;
    n.solutions = {"Pass `stage` as `0` or `1`."};
    n.fix_before = after.empty() ? "" : "obj.configure(mode, stage=2)";
    n.fix_after = after;
    Result<void> r = CheckEnrichment(e, n);
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(check("`configure` rejects a `stage` other than `0` or `1`.",
                  "obj.configure(mode, stage=0)"),
            "");
  EXPECT_EQ(check("`switch (stage)` has no case for it.", ""), "");
  EXPECT_EQ(check("Call `set_pipeline_stage(0)` first.", ""),
            std::string(kRejected) +
                "it names `set_pipeline_stage`, which the catalog does not know of this error");
  EXPECT_EQ(check("`stage` is wrong.", "obj.configure(mode, 0)"),
            std::string(kRejected) +
                "its example fix passes more positional arguments than `configure` takes");
  EXPECT_EQ(check("`stage` is wrong.", "obj.configure(mode, level=0)"),
            std::string(kRejected) + "its example fix `configure` has no parameter `level`");
  EXPECT_EQ(check("`stage` is wrong.", "obj.configure(0, mode=1)"),
            std::string(kRejected) +
                "its example fix `mode` of `configure` is given twice (the argument order is "
                "wrong)");
  // Words in strings are text, not names.
  EXPECT_EQ(check("`configure(mode, stage=\"later\")` is not it.", ""), "");
}

}  // namespace
}  // namespace errdex::analyze
