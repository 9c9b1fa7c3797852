// LlmVerifier against a fake OpenAI-compatible server on 127.0.0.1 (httplib::Server).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/harness.h"
#include "extract/verifier.h"
#include "fake_embedder.h"
#include "ontomem/memory.h"
#include "test_util.h"

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include "loopback_http.h"

#include <nlohmann/json.hpp>
#endif

namespace ontomem::extract {
namespace {

Turn AnaSays(std::string text) {
  Turn t;
  t.speaker = "Ana";
  t.text = std::move(text);
  return t;
}

// An asserted fact of Ana's whose tail is the first `tail` in the turn's text.
Assertion AnasFact(const Turn& turn, std::string relation, std::string tail) {
  Assertion a;
  a.head = "Ana";
  a.relation = std::move(relation);
  a.tail_begin = static_cast<int32_t>(turn.text.find(tail));
  a.tail_end = a.tail_begin + static_cast<int32_t>(tail.size());
  a.tail = std::move(tail);
  a.modality = Modality::kAsserted;
  return a;
}

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT

Turn TheTurn() { return AnaSays("I can't stand jazz."); }
Assertion TheCandidate() { return AnasFact(TheTurn(), "LIKES", "jazz"); }

// mode: 0 valid JSON answer (rejects, names DISLIKES), 1 malformed content, 2 slow (sleeps),
// 3 HTTP 500, 4 unknown relation, 5 confirms without naming a relation, 6 confirms after 200 ms
class FakeChatServer {
 public:
  FakeChatServer() {
    http_.server().Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      requests_++;
      const int now = ++inflight_;
      for (int m = max_inflight_.load(); now > m && !max_inflight_.compare_exchange_weak(m, now);) {
      }
      last_body_ = req.body;
      const int mode = mode_.load();
      if (mode == 2) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      if (mode == 6) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      --inflight_;
      if (mode == 3) {
        res.status = 500;
        res.set_content("{\"error\":\"boom\"}", "application/json");
        return;
      }
      std::string content = mode == 1   ? "sure! the answer is yes"
                            : mode == 4 ? "{\"valid\": true, \"relation\": \"ENJOYS\"}"
                            : mode == 5 || mode == 6 ? "{\"valid\": true}"
                                        : "```json\n{\"valid\": false, \"relation\": \"DISLIKES\"}\n```";
      nlohmann::json body = {{"id", "x"},
                             {"object", "chat.completion"},
                             {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}}}}};
      res.set_content(body.dump(), "application/json");
    });
    http_.Start();
  }
  ~FakeChatServer() { http_.Stop(); }  // before the members its handler reads
  int port() const { return http_.port(); }
  void set_mode(int m) { mode_ = m; }
  int requests() const { return requests_.load(); }
  int max_inflight() const { return max_inflight_.load(); }
  std::string last_body() const { return last_body_; }

 private:
  testing::LoopbackHttpServer http_;
  std::atomic<int> mode_{0}, requests_{0}, inflight_{0}, max_inflight_{0};
  std::string last_body_;
};

TEST(ExtractLlmVerifier, ValidAnswerIsUsed) {
  FakeChatServer server;
  ASSERT_GT(server.port(), 0);
  LlmVerifierOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  o.timeout_ms = 1000;
  LlmVerifier v(o);
  const Verdict r = v.Verify(TheCandidate(), TheTurn());
  EXPECT_FALSE(r.fallback);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.relation, "DISLIKES");
  EXPECT_EQ(v.calls(), 1);
  EXPECT_EQ(v.failures(), 0);
  EXPECT_EQ(server.requests(), 1);
  const auto req = nlohmann::json::parse(server.last_body());
  EXPECT_EQ(req["messages"].size(), 2u);
  EXPECT_NE(req["messages"][1]["content"].get<std::string>().find("I can't stand jazz."), std::string::npos);
}

TEST(ExtractLlmVerifier, MalformedAnswerErrorsAndUnknownRelationFallBack) {
  FakeChatServer server;
  LlmVerifierOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  LlmVerifier v(o);
  for (int mode : {1, 3, 4}) {
    server.set_mode(mode);
    const Verdict r = v.Verify(TheCandidate(), TheTurn());
    EXPECT_TRUE(r.fallback) << "mode " << mode;
    // The fallback is the rule verdict: "can't stand" turns an asserted LIKES into DISLIKES.
    EXPECT_TRUE(r.valid) << "mode " << mode;
    EXPECT_EQ(r.relation, "DISLIKES") << "mode " << mode;
  }
  EXPECT_EQ(v.failures(), 3);
  EXPECT_EQ(v.calls(), 3);
}

TEST(ExtractLlmVerifier, TimeoutFallsBack) {
  FakeChatServer server;
  server.set_mode(2);
  LlmVerifierOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  o.timeout_ms = 200;
  LlmVerifier v(o);
  const auto t0 = std::chrono::steady_clock::now();
  const Verdict r = v.Verify(TheCandidate(), TheTurn());
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.fallback);
  EXPECT_EQ(v.failures(), 1);
  EXPECT_LT(ms, 1200) << "the 200 ms timeout was not honoured";
}

TEST(ExtractLlmVerifier, UnreachableServerFallsBack) {
  LlmVerifierOptions o;
  o.base_url = "http://127.0.0.1:1";  // nothing listens on port 1
  o.timeout_ms = 300;
  LlmVerifier v(o);
  EXPECT_TRUE(v.Verify(TheCandidate(), TheTurn()).fallback);
  EXPECT_EQ(v.failures(), 1);
}

// confirm_only (the engine's Options::fact_verifier): the rules decide first, the endpoint is
// asked about the fact as the rules read it and can only reject or rename it.
TEST(ExtractLlmVerifier, ConfirmOnlyAsksAboutWhatTheRulesPassed) {
  FakeChatServer server;
  LlmVerifierOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  o.confirm_only = true;
  LlmVerifier v(o);

  // The rules reject "I don't own a car" as an asserted OWNS: nothing is sent.
  const Turn neg = AnaSays("I don't own a car.");
  const Verdict rejected = v.Verify(AnasFact(neg, "OWNS", "car"), neg);
  EXPECT_FALSE(rejected.valid);
  EXPECT_FALSE(rejected.fallback);
  EXPECT_EQ(server.requests(), 0);
  EXPECT_EQ(v.calls(), 0);

  // The rules turn LIKES into DISLIKES ("can't stand"); the endpoint is asked about DISLIKES and
  // its plain confirmation keeps the rules' relation.
  server.set_mode(5);
  const Verdict confirmed = v.Verify(TheCandidate(), TheTurn());
  EXPECT_TRUE(confirmed.valid);
  EXPECT_FALSE(confirmed.fallback);
  EXPECT_EQ(confirmed.relation, "DISLIKES");
  EXPECT_EQ(server.requests(), 1);
  EXPECT_NE(server.last_body().find("relation=DISLIKES"), std::string::npos) << server.last_body();

  // ... and the rules' modality: "used to" makes the liking a past one.
  const Turn past = AnaSays("I used to love jazz.");
  const Verdict was = v.Verify(AnasFact(past, "LIKES", "jazz"), past);
  EXPECT_TRUE(was.valid);
  ASSERT_TRUE(was.modality.has_value());
  EXPECT_EQ(*was.modality, Modality::kPast);
  EXPECT_NE(server.last_body().find("modality=past"), std::string::npos) << server.last_body();

  // The endpoint's "no" wins over the rules' "yes".
  server.set_mode(0);
  const Verdict vetoed = v.Verify(TheCandidate(), TheTurn());
  EXPECT_FALSE(vetoed.valid);
  EXPECT_EQ(vetoed.reason, "llm rejected");

  // A failure keeps the rules' verdict and is counted.
  server.set_mode(3);
  const Verdict failed = v.Verify(TheCandidate(), TheTurn());
  EXPECT_TRUE(failed.fallback);
  EXPECT_TRUE(failed.valid);
  EXPECT_EQ(failed.relation, "DISLIKES");
  EXPECT_EQ(v.calls(), 4);
  EXPECT_EQ(v.failures(), 1);
}

// The real engine (shipped ontology and models, SQLite in `dir`) on a fake dense embedder.
Options EngineOptions(const std::string& dir) {
  Options o;
  o.data_dir = dir;
  o.ontology_path = std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json";
  o.models_dir = std::string(ONTOMEM_SOURCE_DIR) + "/models";
  o.embedder = std::make_shared<ontomem::testing::FakeEmbedder>();
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  return o;
}

// The real engine with the endpoint as its fact verifier: a fact the endpoint rejects adds no
// edge, one it confirms does, and an endpoint that is down costs the rules' edge nothing.
TEST(ExtractLlmVerifier, TheEngineAddsOnlyConfirmedFacts) {
  FakeChatServer server;
  const ontomem::testing::TempDir temp("ontomem-fact-verifier");
  const std::string& dir = temp.path();
  Options o = EngineOptions(dir);
  o.fact_verifier.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  o.fact_verifier.timeout_ms = 1000;
  auto likes_jazz = [](Memory& m, const UserKey& k) {
    auto g = m.GraphJson(k);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    if (!g.ok()) return false;
    const nlohmann::json doc = nlohmann::json::parse(*g);
    for (const auto& e : doc["edges"])
      if (e["relation"] == "LIKES" && e["target"].get<std::string>().find("jazz") != std::string::npos &&
          e["valid_to"].is_null())
        return true;
    return false;
  };
  const Turn jazz = ontomem::testing::MakeTurn("D1:1", "Ana", "I love jazz.");
  {
    auto mem = Memory::Open(o);
    ASSERT_TRUE(mem.ok()) << mem.status().ToString();
    server.set_mode(0);  // rejects
    const UserKey ana{"acme", "ana"};
    ASSERT_TRUE((*mem)->Ingest(ana, jazz).ok());
    EXPECT_GE(server.requests(), 1);
    EXPECT_FALSE(likes_jazz(**mem, ana));
    server.set_mode(5);  // confirms
    const UserKey bea{"acme", "bea"};
    ASSERT_TRUE((*mem)->Ingest(bea, jazz).ok());
    EXPECT_TRUE(likes_jazz(**mem, bea));
    const FactVerifierStats fv = (*mem)->GetFactVerifierStats();
    EXPECT_EQ(fv.requests, static_cast<uint64_t>(server.requests()));
    EXPECT_EQ(fv.failures, 0u);
  }
  // Nothing listens: the rules' verdict stands and ingest succeeds.
  o.fact_verifier.base_url = "http://127.0.0.1:1";
  o.fact_verifier.timeout_ms = 300;
  {
    auto mem = Memory::Open(o);
    ASSERT_TRUE(mem.ok()) << mem.status().ToString();
    const UserKey cy{"acme", "cy"};
    ASSERT_TRUE((*mem)->Ingest(cy, jazz).ok());
    EXPECT_TRUE(likes_jazz(**mem, cy));
    const FactVerifierStats fv = (*mem)->GetFactVerifierStats();
    EXPECT_GE(fv.requests, 1u);
    EXPECT_EQ(fv.failures, fv.requests);
  }
  // A base_url that is no URL is refused when the memory opens.
  o.fact_verifier.base_url = "127.0.0.1:8080";
  auto bad = Memory::Open(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("http://"), std::string::npos) << bad.status().ToString();
}

// A batch's turns are read by `concurrency` threads, so that many requests can be in flight; with
// 1 they go one by one. Every fact is confirmed either way.
TEST(ExtractLlmVerifier, ABatchAsksWithTheConfiguredConcurrency) {
  const ontomem::testing::TempDir temp("ontomem-fact-verifier-concurrency");
  const std::string& dir = temp.path();
  Options o = EngineOptions(dir);
  const std::vector<std::string> things = {"jazz", "chess", "hiking", "sushi", "opera", "tennis"};
  std::vector<Turn> batch;
  for (size_t i = 0; i < things.size(); ++i)
    batch.push_back(ontomem::testing::MakeTurn("D1:" + std::to_string(i + 1), "Ana", "I love " + things[i] + "."));
  // A fresh server per setting (answers after 200 ms); returns the most requests it had at once.
  auto max_inflight = [&](int concurrency) {
    FakeChatServer server;
    server.set_mode(6);
    o.fact_verifier.base_url = "http://127.0.0.1:" + std::to_string(server.port());
    o.fact_verifier.concurrency = concurrency;
    auto mem = Memory::Open(o);
    EXPECT_TRUE(mem.ok()) << mem.status().ToString();
    if (!mem.ok()) return 0;
    const UserKey key{"acme", "u" + std::to_string(concurrency)};
    EXPECT_TRUE((*mem)->IngestBatch(key, batch).ok());
    EXPECT_GE(server.requests(), static_cast<int>(things.size()));
    auto g = (*mem)->GraphJson(key);
    EXPECT_TRUE(g.ok());
    for (const auto& t : things)
      EXPECT_NE(g.ok() ? g->find("entity:" + t) : std::string::npos, std::string::npos) << t << " at " << concurrency;
    return server.max_inflight();
  };
  EXPECT_GE(max_inflight(4), 2);
  EXPECT_EQ(max_inflight(1), 1);
  o.fact_verifier.concurrency = 0;
  EXPECT_EQ(Memory::Open(o).status().code(), StatusCode::kInvalidArgument);
}

// `ontomem bench --verify-url`: the harness ingests through the endpoint and reports its counts.
TEST(ExtractLlmVerifier, TheBenchIngestsThroughTheEndpoint) {
  FakeChatServer server;
  const ontomem::testing::TempDir temp("ontomem-bench-verifier");
  const std::string& dir = temp.path();
  const std::string path = dir + "/data.json";
  std::ofstream(path) << R"([{"sample_id":"s1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
    "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I love jazz."},
                 {"speaker":"Ben","dia_id":"D1:2","text":"Nice."}]},
    "qa":[{"question":"What should I put on tonight?","evidence":["D1:1"],"implicit":true}]}])";
  BenchConfig c;
  c.datasets = {path};
  c.methods = {"full"};
  c.embedder = std::make_shared<ontomem::testing::FakeEmbedder>();
  c.fact_verifier.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  for (int mode : {0, 5}) {  // rejects, then confirms
    server.set_mode(mode);
    std::ostringstream table;
    nlohmann::json r;
    const Status st = RunBench(c, table, &r);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto& g = r["datasets"][0]["graph"];
    EXPECT_GE(g["fact_verifier"]["requests"].get<int>(), 1) << "mode " << mode;
    EXPECT_EQ(g["fact_verifier"]["failures"].get<int>(), 0) << "mode " << mode;
    EXPECT_DOUBLE_EQ(g["gold_turn_coverage"].get<double>(), mode == 5 ? 1.0 : 0.0) << "mode " << mode;
    EXPECT_NE(table.str().find("fact verifier " + c.fact_verifier.base_url + ": "), std::string::npos) << table.str();
  }
}

#else

TEST(ExtractLlmVerifier, BuiltWithoutHttpClientFallsBack) {
  EXPECT_FALSE(LlmVerifierAvailable());
  LlmVerifier v(LlmVerifierOptions{});
  const Turn t = AnaSays("I love jazz.");
  EXPECT_TRUE(v.Verify(AnasFact(t, "LIKES", "jazz"), t).fallback);
  EXPECT_EQ(v.failures(), 1);
  GTEST_SKIP() << "cpp-httplib is not linked into ontomem_lib (add PkgConfig::HTTPLIB); fake-server tests skipped";
}

#endif

}  // namespace
}  // namespace ontomem::extract
