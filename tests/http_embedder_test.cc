// ConnectHttpEmbedder against a fake OpenAI-compatible embedding server on 127.0.0.1
// (httplib::Server), alone and as the dense view of a real Memory (SQLite store).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <thread>

#include "ontomem/embedder.h"
#include "ontomem/memory.h"
#include "test_util.h"

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include "loopback_http.h"

#include <nlohmann/json.hpp>
#endif

namespace ontomem {
namespace {

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT

constexpr int kDim = 32;

// Bag of lower-cased words hashed into kDim buckets (unnormalised, so the client must normalise).
// mode: 0 vectors, 1 HTTP 500, 2 not JSON, 3 a vector of another length, 4 a string in the vector,
// 5 the vectors in reverse order (each with its index)
class FakeEmbeddingServer {
 public:
  explicit FakeEmbeddingServer(const std::string& path = "/v1/embeddings") {
    http_.server().Post(path, [this](const httplib::Request& req, httplib::Response& res) {
      requests_++;
      {
        std::lock_guard<std::mutex> l(mu_);
        last_auth_ = req.get_header_value("Authorization");
      }
      const auto in = nlohmann::json::parse(req.body, nullptr, false);
      const int mode = mode_.load();
      if (mode == 1 || in.is_discarded() || !in.contains("input") || in.value("model", "") != "tiny") {
        res.status = 500;
        res.set_content("{\"error\":\"boom\"}", "application/json");
        return;
      }
      if (mode == 2) return res.set_content("<html>gateway</html>", "text/html");
      std::vector<std::string> inputs;
      if (in["input"].is_string()) inputs.push_back(in["input"].get<std::string>());
      else for (const auto& x : in["input"]) inputs.push_back(x.get<std::string>());
      {
        std::lock_guard<std::mutex> l(mu_);
        sizes_.push_back(inputs.size());
      }
      nlohmann::json data = nlohmann::json::array();
      for (size_t k = 0; k < inputs.size(); ++k)
        data.push_back({{"object", "embedding"}, {"index", k}, {"embedding", Vector(inputs[k], mode)}});
      if (mode == 5) std::reverse(data.begin(), data.end());  // the index field says which is which
      nlohmann::json body = {{"object", "list"}, {"data", data}, {"model", "tiny"}};
      res.set_content(body.dump(), "application/json");
    });
    http_.Start();
  }
  ~FakeEmbeddingServer() { Stop(); }
  void Stop() { http_.Stop(); }
  std::string url() const { return http_.url(); }
  void set_mode(int m) { mode_ = m; }
  int requests() const { return requests_.load(); }
  std::string last_auth() {
    std::lock_guard<std::mutex> l(mu_);
    return last_auth_;
  }
  std::vector<size_t> sizes() {  // texts per answered request
    std::lock_guard<std::mutex> l(mu_);
    return sizes_;
  }

  // Bag of lower-cased words hashed into kDim buckets, weight 3 each.
  static nlohmann::json Vector(const std::string& text, int mode) {
    std::vector<nlohmann::json> v(mode == 3 ? kDim + 1 : kDim, 0.0);
    std::string word;
    auto flush = [&] {
      if (word.empty()) return;
      uint64_t h = 1469598103934665603ULL;
      for (unsigned char c : word) h = (h ^ c) * 1099511628211ULL;
      v[h % kDim] = v[h % kDim].get<double>() + 3.0;
      word.clear();
    };
    for (char c : text) {
      if (std::isalpha(static_cast<unsigned char>(c))) word.push_back(static_cast<char>(std::tolower(c)));
      else flush();
    }
    flush();
    if (mode == 4) v[0] = "x";
    return v;
  }

 private:
  testing::LoopbackHttpServer http_;
  std::atomic<int> mode_{0}, requests_{0};
  std::mutex mu_;
  std::string last_auth_;
  std::vector<size_t> sizes_;
};

HttpEmbedderOptions Opts(const std::string& url) {
  HttpEmbedderOptions o;
  o.base_url = url;
  o.model = "tiny";
  o.timeout_ms = 2000;
  return o;
}

TEST(HttpEmbedder, LearnsTheDimensionAndReturnsUnitVectors) {
  FakeEmbeddingServer server;
  auto o = Opts(server.url());
  o.api_key = "sk-test";
  auto e = ConnectHttpEmbedder(o);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->dim(), kDim);
  EXPECT_EQ((*e)->id(), "http:tiny:32");
  EXPECT_EQ(server.last_auth(), "Bearer sk-test");
  std::vector<float> a(kDim), b(kDim);
  ASSERT_TRUE((*e)->Embed("Sushi with friends", a.data()).ok());
  ASSERT_TRUE((*e)->Embed("sushi WITH friends!", b.data()).ok());
  double norm = 0;
  for (float x : a) norm += x * x;
  EXPECT_NEAR(norm, 1.0, 1e-5);
  EXPECT_EQ(a, b);
}

TEST(HttpEmbedder, BatchesAreOneRequestPer64TextsAndKeepTheirOrder) {
  FakeEmbeddingServer server;
  auto e = ConnectHttpEmbedder(Opts(server.url()));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  std::vector<std::string> texts;
  for (int i = 0; i < 70; ++i) texts.push_back("turn number " + std::string(1, static_cast<char>('a' + i % 26)) + " words");
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (int mode : {0, 5}) {
    server.set_mode(mode);
    std::vector<float> batch(texts.size() * kDim), one(kDim);
    const int before = server.requests();
    ASSERT_TRUE((*e)->EmbedBatch(views, batch.data()).ok());
    EXPECT_EQ(server.requests() - before, 2);  // 64 + 6
    server.set_mode(0);
    for (size_t i = 0; i < texts.size(); ++i) {
      ASSERT_TRUE((*e)->Embed(texts[i], one.data()).ok());
      const auto row = batch.begin() + static_cast<std::ptrdiff_t>(i * kDim);
      EXPECT_EQ(std::vector<float>(row, row + kDim), one) << "mode " << mode << " text " << i;
    }
  }
}

TEST(HttpEmbedder, AcceptsABaseUrlWithPrefixAndV1) {
  FakeEmbeddingServer server("/api/v1/embeddings");
  for (const std::string suffix : {"/api/v1", "/api/v1/", "/api"}) {
    auto e = ConnectHttpEmbedder(Opts(server.url() + suffix));
    EXPECT_TRUE(e.ok()) << suffix << ": " << e.status().ToString();
  }
}

TEST(HttpEmbedder, EveryFailureIsUnavailableAndNamesTheEndpoint) {
  FakeEmbeddingServer server;
  auto e = ConnectHttpEmbedder(Opts(server.url()));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  std::vector<float> v(kDim);
  const std::pair<int, const char*> cases[] = {{1, "HTTP 500"}, {2, "not JSON"}, {3, "33 numbers"}, {4, "not a number"}};
  for (const auto& [mode, what] : cases) {
    server.set_mode(mode);
    Status st = (*e)->Embed("hello", v.data());
    EXPECT_EQ(st.code(), StatusCode::kUnavailable) << what;
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(server.url() + "/v1/embeddings"), std::string::npos) << st.message();
  }
  // Invalid UTF-8 is the caller's error and never sent.
  server.set_mode(0);
  const int before = server.requests();
  EXPECT_EQ((*e)->Embed("caf\xC3", v.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.requests(), before);
  server.Stop();
  Status down = (*e)->Embed("hello", v.data());
  EXPECT_EQ(down.code(), StatusCode::kUnavailable);
  EXPECT_NE(down.message().find("no answer"), std::string::npos) << down.message();
  // Nothing listening: connecting fails at once with the same kind of error.
  auto none = ConnectHttpEmbedder(Opts(server.url()));
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(ConnectHttpEmbedder(Opts("")).status().code(), StatusCode::kInvalidArgument);
}

// The real engine on the real store with the endpoint as its dense view: search finds what the
// words say, and an ingest the endpoint cannot embed fails whole (nothing half-written).
TEST(HttpEmbedder, ServesAsTheDenseViewOfAMemoryAndLosesNothingWhenItFails) {
  namespace fs = std::filesystem;
  FakeEmbeddingServer server;
  auto e = ConnectHttpEmbedder(Opts(server.url()));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const testing::TempDir temp("ontomem-http-embedder");
  const std::string& dir = temp.path();
  Options o;
  o.data_dir = dir;
  o.embedder = *e;
  auto mem = Memory::Open(o);
  ASSERT_TRUE(mem.ok()) << mem.status().ToString();
  const UserKey ana{"acme", "ana"};
  ASSERT_TRUE((*mem)->IngestBatch(ana, {testing::MakeTurn("D1:1", "Ana", "We had sushi with friends on Friday"),
                                        testing::MakeTurn("D1:2", "Ana", "The car broke down on the motorway"),
                                        testing::MakeTurn("D1:3", "Bob", "My garden is full of tomatoes")})
                  .ok());
  // The probe, then the three turns in one request (edge tails the graph gained follow, one each).
  ASSERT_GE(server.sizes().size(), 2u);
  EXPECT_EQ(server.sizes()[1], 3u);
  SearchOptions so;
  so.method = Method::kDense;
  auto r = (*mem)->Search(ana, "the motorway car", so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].turn.turn.id, "D1:2");
  auto full = (*mem)->Search(ana, "sushi friends", {});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  ASSERT_FALSE(full->hits.empty());
  EXPECT_EQ(full->hits[0].turn.turn.id, "D1:1");

  server.set_mode(1);
  Status st = (*mem)->IngestBatch(ana, {testing::MakeTurn("D2:1", "Ana", "I started learning the cello"),
                                        testing::MakeTurn("D2:2", "Ana", "Cello lessons are on Tuesdays")});
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ((*mem)->Search(ana, "the motorway car", {}).status().code(), StatusCode::kUnavailable);
  server.set_mode(0);
  auto exported = (*mem)->Export(ana);
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(nlohmann::json::parse(*exported)["turns"].size(), 3u);
  // Once the endpoint answers again the same batch goes in.
  EXPECT_TRUE((*mem)->IngestBatch(ana, {testing::MakeTurn("D2:1", "Ana", "I started learning the cello")}).ok());
  mem->reset();
}

#else

TEST(HttpEmbedder, WithoutAnHttpClientConnectingSaysSo) {
  auto e = ConnectHttpEmbedder({});
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
}

#endif

}  // namespace
}  // namespace ontomem
