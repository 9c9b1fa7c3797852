// The HTTP API end to end: an in-process server on 127.0.0.1 (ephemeral port) over a real
// SQLite store, driven by httplib::Client.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "fake_embedder.h"
#include "ontomem/memory.h"
#include "server/bad_input.h"
#include "server/http_server.h"
#include "server/routes.h"
#include "server/sha256.h"
#include "test_util.h"

namespace ontomem::server {
namespace {

using json = nlohmann::json;

constexpr const char* kAcme = "om_test_acme_key";
constexpr const char* kGlobex = "om_test_globex_key";

std::string ReadSource(const std::string& rel) {
  std::ifstream in(std::string(ONTOMEM_SOURCE_DIR) + "/" + rel, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.data_dir = dir_;
    o.embedder = std::make_shared<testing::FakeEmbedder>();
    o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
    o.extract_facts = false;
    o.durability = Durability::kNormal;
    auto mem = Memory::Open(o);
    ASSERT_TRUE(mem.ok()) << mem.status().ToString();
    memory_ = std::move(*mem);
    StartServer(ServerOptions{});
  }
  void TearDown() override {
    StopServer();
    memory_.reset();
  }

  void StartServer(ServerOptions so) {
    StopServer();
    auto keys = KeyStore::Parse(std::string("acme\t") + Sha256Hex(kAcme) + "\nglobex\t" + Sha256Hex(kGlobex) + "\n",
                                "keys");
    ASSERT_TRUE(keys.ok());
    so.port = 0;
    server_ = std::make_unique<HttpServer>(memory_.get(), std::move(*keys), so);
    ASSERT_TRUE(server_->Start().ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(20, 0);
    client_->set_write_timeout(20, 0);
  }
  void StopServer() {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
  }

  static httplib::Headers Auth(const std::string& key) {
    if (key.empty()) return {};
    return {{"Authorization", "Bearer " + key}};
  }
  httplib::Result Post(const std::string& path, const std::string& body, const std::string& key = kAcme) {
    return client_->Post(path.c_str(), Auth(key), body, "application/json");
  }
  httplib::Result Get(const std::string& path, const std::string& key = kAcme) {
    return client_->Get(path.c_str(), Auth(key));
  }
  httplib::Result Delete(const std::string& path, const std::string& key = kAcme) {
    return client_->Delete(path.c_str(), Auth(key));
  }
  httplib::Result Send(const std::string& method, const std::string& path, const std::string& body,
                       const std::string& key) {
    if (method == "GET") return Get(path, key);
    if (method == "DELETE") return Delete(path, key);
    return Post(path, body, key);
  }
  // The error object of a non-2xx answer.
  static json Err(const httplib::Result& r) {
    auto j = json::parse(r->body, nullptr, false);
    return j.is_object() && j.contains("error") ? j["error"] : json();
  }

  // Sends `request` as raw bytes (what httplib::Client would not send) and returns everything the
  // server answers before it closes the connection or 5 s pass.
  std::string Raw(const std::string& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) answer.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return answer;
  }

  void Ingest(const std::string& user, const std::string& turns_json, const std::string& key = kAcme) {
    auto r = Post("/v1/users/" + user + "/turns", "{\"turns\":" + turns_json + "}", key);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }

  const testing::TempDir temp_{"ontomem-server"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::unique_ptr<Memory> memory_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

// Every route of the table: without a key 401, with an unknown key 401, with another tenant's
// key never the other tenant's data.
// A running server reads its key file again when it changes (LiveKeys): a key added with
// `ontomem keys add` works within about a second, a removed one stops working, and a file that
// no longer parses leaves the keys as they were.
TEST_F(ServerTest, KeysAddedOrRemovedWhileRunningTakeEffect) {
  StopServer();
  const std::string path = dir_ + "/keys";
  auto acme = AddKey(path, "acme");
  ASSERT_TRUE(acme.ok()) << acme.status().ToString();
  auto keys = KeyStore::Load(path);
  ASSERT_TRUE(keys.ok());
  ServerOptions so;
  so.port = 0;
  so.keys_path = path;
  server_ = std::make_unique<HttpServer>(memory_.get(), std::move(*keys), so);
  ASSERT_TRUE(server_->Start().ok());
  client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  // The status `key` gets once it is `want`, or the last one after 5 s.
  auto settles_to = [&](const std::string& key, int want) {
    int got = 0;
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5); std::chrono::steady_clock::now() < end;) {
      auto r = Get("/v1/users", key);
      got = r ? r->status : -1;
      if (got == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return got;
  };
  auto globex = AddKey(path, "globex");
  ASSERT_TRUE(globex.ok());
  EXPECT_EQ(settles_to(*globex, 200), 200);
  EXPECT_EQ(Get("/v1/users", *acme)->status, 200);
  {
    std::ofstream(path, std::ios::app) << "this line is not a key\n";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the bad file was looked at
  EXPECT_EQ(Get("/v1/users", *globex)->status, 200);
  {
    std::ofstream(path, std::ios::trunc) << "acme\t" << Sha256Hex(*acme) << "\n";
  }
  EXPECT_EQ(settles_to(*globex, 401), 401);
  EXPECT_EQ(Get("/v1/users", *acme)->status, 200);
}

TEST_F(ServerTest, EveryRouteChecksTheKeyAndTheTenant) {
  Ingest("ana", R"([{"id":"D1:1","speaker":"Ana","text":"secret acme memory about jazz"}])");
  for (const Route& route : RouteTable()) {
    std::string path = route.path;
    if (auto p = path.find("{user}"); p != std::string::npos) path.replace(p, 6, "ana");
    const std::string body = *route.request ? route.request : "";
    SCOPED_TRACE(std::string(route.method) + " " + path);
    if (!route.auth) {
      auto r = Send(route.method, path, body, "");
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 200);
      continue;
    }
    for (const std::string key : {"", "om_not_a_key"}) {
      auto r = Send(route.method, path, body, key);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 401) << r->body;
      EXPECT_EQ(Err(r)["code"], "unauthenticated");
      EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer");
    }
    // Routes that create the user would make globex its own "ana": tried below.
    const std::string rp = route.path;
    if (std::string(route.method) == "POST" && (rp == "/v1/users/{user}/turns" || rp == "/v1/users/{user}/facts"))
      continue;
    auto r = Send(route.method, path, body, kGlobex);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body.find("jazz"), std::string::npos) << r->body;
    if (path == "/v1/users") {
      EXPECT_EQ(r->status, 200);
      EXPECT_EQ(json::parse(r->body)["users"], json::array());
    } else {
      EXPECT_EQ(r->status, 404) << r->body;
      EXPECT_EQ(Err(r)["message"], "unknown user \"ana\"");
    }
  }
  // globex's writes create globex's own "ana", a different user; its DELETE removes only that.
  ASSERT_EQ(Post("/v1/users/ana/turns", R"({"turns":[{"speaker":"G","text":"globex text"}]})", kGlobex)->status, 200);
  ASSERT_EQ(Post("/v1/users/ana/facts", R"({"relation":"LIKES","tail":"tea"})", kGlobex)->status, 200);
  auto r = Get("/v1/users/ana/turns", kGlobex);
  EXPECT_EQ(r->body.find("jazz"), std::string::npos);
  EXPECT_EQ(json::parse(r->body)["total"], 1);
  ASSERT_EQ(Delete("/v1/users/ana", kGlobex)->status, 200);
  r = Get("/v1/users/ana/turns");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  auto page = json::parse(r->body);
  ASSERT_EQ(page["total"], 1);
  EXPECT_EQ(page["turns"][0]["text"], "secret acme memory about jazz");
  EXPECT_EQ(json::parse(Get("/v1/users", kGlobex)->body)["users"], json::array());
  EXPECT_EQ(json::parse(Get("/v1/users")->body)["users"], json::parse(R"(["ana"])"));
}

TEST_F(ServerTest, IngestSearchExportDeleteRoundTrip) {
  auto r = Post("/v1/users/ana/turns",
                R"({"turns":[{"id":"D1:1","speaker":"Ana","text":"I adopted a greyhound named Pixel","time":"2024-01-02T03:04:05Z","session":"s1"},
                             {"speaker":"Ben","text":"Pizza at the new place was great","time":1704164700000}]})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body),
            json::parse(R"({"stored":2,"duplicates":0,"turns":[{"id":"D1:1","seq":1},{"id":"T2","seq":2}]})"));
  // A retry of the same batch stores nothing new.
  r = Post("/v1/users/ana/turns", R"({"turns":[{"id":"D1:1","speaker":"Ana","text":"I adopted a greyhound named Pixel","time":"2024-01-02T03:04:05Z","session":"s1"},
                                             {"id":"D1:3","speaker":"Ana","text":"Pixel loves the beach"}]})");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body),
            json::parse(R"({"stored":1,"duplicates":1,"turns":[{"id":"D1:1","seq":1},{"id":"D1:3","seq":3}]})"));
  // Same id, other text: 409, and nothing of the batch is stored.
  r = Post("/v1/users/ana/turns", R"({"turns":[{"id":"D9:9","speaker":"Ana","text":"new"},{"id":"D1:1","speaker":"Ana","text":"changed"}]})");
  EXPECT_EQ(r->status, 409) << r->body;
  EXPECT_EQ(Err(r)["code"], "already_exists");

  r = Post("/v1/users/ana/search", R"({"query":"greyhound Pixel","k":2,"method":"bm25"})");
  ASSERT_EQ(r->status, 200) << r->body;
  auto s = json::parse(r->body);
  EXPECT_EQ(s["method"], "bm25");
  ASSERT_FALSE(s["hits"].empty());
  EXPECT_EQ(s["hits"][0]["id"], "D1:1");
  EXPECT_EQ(s["hits"][0]["time"], 1704164645000);
  EXPECT_EQ(s["hits"][0]["session"], "s1");
  for (const char* field : {"query_id", "route", "latency_us", "context_tokens", "candidates", "graph_candidates",
                            "query_domains"})
    EXPECT_TRUE(s.contains(field)) << field;
  for (const char* field : {"id", "seq", "speaker", "text", "time", "session", "score", "dense_score", "bm25_score",
                            "graph_score", "dense_rank", "bm25_rank", "path"})
    EXPECT_TRUE(s["hits"][0].contains(field)) << field;
  EXPECT_FALSE(s["query_id"].get<std::string>().empty());

  r = Post("/v1/users/ana/feedback",
           json{{"query_id", s["query_id"]}, {"query", "greyhound Pixel"}, {"used", {"D1:1"}}}.dump());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = Post("/v1/users/ana/feedback", R"({"query_id":"q","used":["no-such-turn"]})");
  EXPECT_EQ(r->status, 400) << r->body;

  r = Post("/v1/users/ana/facts", R"({"relation":"ALLERGIC_TO","tail":"peanuts"})");
  ASSERT_EQ(r->status, 200) << r->body;
  r = Get("/v1/users/ana/graph");
  ASSERT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("peanuts"), std::string::npos);
  EXPECT_TRUE(json::parse(r->body).contains("edges"));

  r = Get("/v1/users/ana/export");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["turns"].size(), 3u);
  r = Get("/v1/users");
  EXPECT_EQ(json::parse(r->body)["users"], json::parse(R"(["ana"])"));

  r = Delete("/v1/users/ana");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body), json::parse(R"({"deleted":true})"));
  for (const char* path : {"/v1/users/ana/turns", "/v1/users/ana/graph", "/v1/users/ana/export"})
    EXPECT_EQ(Get(path)->status, 404) << path;
  EXPECT_EQ(Post("/v1/users/ana/search", R"({"query":"Pixel"})")->status, 404);
  EXPECT_EQ(Delete("/v1/users/ana")->status, 404);
  EXPECT_EQ(json::parse(Get("/v1/users")->body)["users"], json::array());
}

TEST_F(ServerTest, TurnPagination) {
  std::string turns = "[";
  for (int i = 0; i < 25; ++i) {
    if (i) turns += ",";
    turns += json{{"speaker", "A"}, {"text", fmt::format("turn {}", i)}}.dump();
  }
  Ingest("ana", turns + "]");
  std::vector<std::string> seen;
  json next = 0;
  std::vector<json> offsets;
  while (!next.is_null()) {
    auto r = Get("/v1/users/ana/turns?limit=10&offset=" + std::to_string(next.get<int>()));
    ASSERT_EQ(r->status, 200) << r->body;
    auto page = json::parse(r->body);
    EXPECT_EQ(page["total"], 25);
    for (const auto& t : page["turns"]) seen.push_back(t["text"]);
    next = page["next_offset"];
    offsets.push_back(next);
  }
  EXPECT_EQ(offsets, (std::vector<json>{10, 20, nullptr}));
  ASSERT_EQ(seen.size(), 25u);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], fmt::format("turn {}", i));
  auto page = json::parse(Get("/v1/users/ana/turns")->body);  // default limit 100
  EXPECT_EQ(page["turns"].size(), 25u);
  EXPECT_TRUE(page["next_offset"].is_null());
  page = json::parse(Get("/v1/users/ana/turns?offset=99")->body);
  EXPECT_TRUE(page["turns"].empty());
  EXPECT_EQ(Err(Get("/v1/users/ana/turns?limit=1001"))["message"], "limit: expected an integer in 1..1000");
  EXPECT_EQ(Get("/v1/users/ana/turns?offset=x")->status, 400);
}

// An offset far past the user's turns is an empty last page; one over the maximum (or not
// a size_t at all) is a 400 naming the parameter and its range.
TEST_F(ServerTest, TurnsOffsetPastTheEndOrOverTheMaximum) {
  Ingest("ana", R"([{"speaker":"A","text":"one"},{"speaker":"A","text":"two"}])");
  for (const char* offset : {"2", "1000000", "1099511627776"}) {
    auto r = Get(std::string("/v1/users/ana/turns?offset=") + offset);
    ASSERT_EQ(r->status, 200) << offset << ": " << r->body;
    auto page = json::parse(r->body);
    EXPECT_EQ(page["turns"], json::array()) << offset;
    EXPECT_EQ(page["total"], 2) << offset;
    EXPECT_TRUE(page["next_offset"].is_null()) << offset;
  }
  for (const char* offset : {"1099511627777", "18446744073709551615", "18446744073709551616", "-1", "1e3"}) {
    auto r = Get(std::string("/v1/users/ana/turns?offset=") + offset);
    ASSERT_EQ(r->status, 400) << offset << ": " << r->body;
    EXPECT_EQ(Err(r)["code"], "invalid_argument") << offset;
    EXPECT_EQ(Err(r)["message"], "offset: expected an integer in 0..1099511627776") << offset;
  }
}

TEST_F(ServerTest, UserNamesAreUrlDecoded) {
  Ingest("an%2Fna%20b", R"([{"speaker":"A","text":"slash user"}])");
  auto users = json::parse(Get("/v1/users")->body)["users"];
  EXPECT_EQ(users, json::parse(R"(["an/na b"])"));
  EXPECT_EQ(Get("/v1/users/an%2Fna%20b/turns")->status, 200);
  EXPECT_EQ(Err(Get("/v1/users/a%ZZ/turns"))["message"], "user: malformed percent-encoding in the path");
  EXPECT_EQ(Err(Get("/v1/users/a%0Ab/turns"))["message"], "user: user contains a control character");
}

TEST_F(ServerTest, BadRequestsGet400NamingTheField) {
  struct Case {
    std::string path, body, message;
  };
  const std::vector<Case> cases = {
      {"/v1/users/ana/turns", R"({"turns":[{"speaker":"A","text":"x"})",
       "turns[1]: malformed JSON at byte 37: syntax error while parsing array - unexpected end of input; expected ']'"},
      {"/v1/users/ana/turns", R"({"turns":[{"speaker":"A","text":"x"},{"speaker":"A","text":"y","time":[]}]})",
       "turns[1].time: expected an integer or an RFC 3339 string"},
      {"/v1/users/ana/turns", R"({"turns":[{"speaker":"A","text":true}]})", "turns[0].text: expected a string"},
      {"/v1/users/ana/turns", "{\"turns\":[{\"speaker\":\"A\",\"text\":\"\xed\xa0\x80\"}]}",
       "turns[0].text: invalid UTF-8 at byte 33"},
      {"/v1/users/ana/turns", "{\"turns\":[{\"speaker\":\"\xc0\xaf\",\"text\":\"x\"}]}",
       "turns[0].speaker: invalid UTF-8 at byte 22"},
      {"/v1/users/ana/search", R"({"query":"x","k":"3"})", "k: expected an integer in 1..100"},
      {"/v1/users/ana/search", R"({"query":"x","asker":5})", "asker: expected a string"},
      {"/v1/users/ana/feedback", R"({"query_id":"q","used":"D1:1"})", "used: expected an array of strings"},
      {"/v1/users/ana/facts", R"({"relation":"LIKES","tail":{}})", "tail: expected a string"},
  };
  for (const Case& c : cases) {
    auto r = Post(c.path, c.body);
    ASSERT_TRUE(r) << c.body;
    EXPECT_EQ(r->status, 400) << c.body;
    EXPECT_EQ(Err(r)["code"], "invalid_argument");
    EXPECT_EQ(Err(r)["message"], c.message) << c.body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  }
  auto r = Get("/v1/nothing");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Err(r)["code"], "not_found");
  r = client_->Put("/v1/users/ana/turns", Auth(kAcme), "{}", "application/json");
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST, GET");
  // Garbage that is not even HTTP gets an answer too, and the server keeps serving.
  httplib::Client raw("127.0.0.1", server_->port());
  auto g = raw.Get("/v1/users/%%%%/turns", Auth(kAcme));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->status, 400);
  EXPECT_EQ(Get("/healthz")->status, 200);
}

TEST_F(ServerTest, SizeLimitsAnswer413) {
  ServerOptions so;
  so.limits.max_body_bytes = 4096;
  so.limits.max_turn_bytes = 100;
  so.limits.max_batch_turns = 3;
  StartServer(so);
  auto turn = [](size_t n) { return json{{"speaker", "A"}, {"text", std::string(n, 'a')}}.dump(); };
  auto r = Post("/v1/users/ana/turns", "{\"turns\":[" + turn(101) + "]}");
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(Err(r)["code"], "payload_too_large");
  EXPECT_EQ(Err(r)["message"], "turns[0].text: 101 bytes, the limit is 100");
  r = Post("/v1/users/ana/turns", "{\"turns\":[" + turn(1) + "," + turn(1) + "," + turn(1) + "," + turn(1) + "]}");
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(Err(r)["message"], "turns: 4 turns, the limit is 3");
  // Over the server-wide body limit: httplib stops reading, the answer is still our JSON.
  r = Post("/v1/users/ana/turns", std::string(5000, ' '));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(Err(r)["code"], "payload_too_large");
  // Over a route's own limit (facts: 64 KiB > 4096 server-wide, so use search with defaults).
  StartServer(ServerOptions{});
  r = Post("/v1/users/ana/search", std::string((512 << 10) + 1, ' '));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(Err(r)["message"], "body: more than 524288 bytes, the limit of POST /v1/users/{user}/search");
  // The server is fine afterwards; nothing was stored.
  EXPECT_EQ(Get("/v1/users/ana/turns")->status, 404);
  // Chunked bodies (no Content-Length) are bounded while they are read.
  std::string big((512 << 10) + 100, ' ');
  size_t sent = 0;
  r = client_->Post("/v1/users/ana/search", Auth(kAcme),
                    [&](size_t, httplib::DataSink& sink) {
                      const size_t n = std::min<size_t>(big.size() - sent, 8192);
                      sink.write(big.data() + sent, n);
                      sent += n;
                      if (sent == big.size()) sink.done();
                      return true;
                    },
                    "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(Err(r)["message"], "body: more than 524288 bytes, the limit of POST /v1/users/{user}/search");
}

// Bodies httplib cannot read are named for what they are, at once, not as "too large" after the
// read timeout (nor a 500 for a form upload, whose reader httplib would call unset).
TEST_F(ServerTest, UnreadableBodiesAreNamed) {
  ServerOptions so;
  so.read_timeout_sec = 1;  // for the body that never arrives
  StartServer(so);
  const std::string head = std::string("POST /v1/users/ana/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ") +
                           kAcme + "\r\nConnection: close\r\n";
  auto form = client_->Post("/v1/users/ana/search", Auth(kAcme), httplib::MultipartFormDataItems{{"query", "films", "", ""}});
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  EXPECT_EQ(Err(form)["code"], "unsupported_media_type");
  EXPECT_NE(Err(form)["message"].get<std::string>().find("multipart/form-data"), std::string::npos);
  form = client_->Post("/v1/nothing", Auth(kAcme), httplib::MultipartFormDataItems{{"query", "films", "", ""}});
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 404);  // not a 500 either

  std::string a = Raw(head + "Content-Type: application/json\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\nabcd");
  EXPECT_NE(a.find("HTTP/1.1 415"), std::string::npos) << a;
  EXPECT_NE(a.find("Content-Encoding br is not supported"), std::string::npos) << a;
  for (const char* bad : {"-1", "99999999999999999999", "12abc"}) {
    const auto t0 = std::chrono::steady_clock::now();
    a = Raw(head + "Content-Type: application/json\r\nContent-Length: " + bad + "\r\n\r\n{}");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(4)) << bad;  // no read timeout
    EXPECT_TRUE(a.find("HTTP/1.1 400") != std::string::npos) << bad << ": " << a;
  }
  // A body shorter than its Content-Length: named once the read gives up, not as "too large".
  a = Raw(head + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}");
  EXPECT_NE(a.find("HTTP/1.1 400"), std::string::npos) << a;
  // Broken chunked framing: a 400 naming the framing.
  a = Raw(head + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
  EXPECT_NE(a.find("HTTP/1.1 400"), std::string::npos) << a;
  EXPECT_NE(a.find("could not be read"), std::string::npos) << a;
  EXPECT_EQ(Get("/healthz")->status, 200);
}

TEST_F(ServerTest, RateLimitAnswers429WithRetryAfter) {
  ServerOptions so;
  so.rate_per_sec = 0.5;
  so.burst = 3;
  StartServer(so);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Get("/v1/users")->status, 200);
  auto r = Get("/v1/users");
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(Err(r)["code"], "rate_limited");
  EXPECT_EQ(r->get_header_value("Retry-After"), "2");
  EXPECT_EQ(Get("/v1/users", kGlobex)->status, 200);  // per tenant
  EXPECT_EQ(Get("/healthz")->status, 200);            // not rate limited
}

TEST_F(ServerTest, StorageQuotaAnswers429) {
  if (memory_->GetTenantStats("acme").status().code() == StatusCode::kFailedPrecondition)
    GTEST_SKIP() << "Memory::GetTenantStats is not implemented yet";
  Ingest("ana", R"([{"speaker":"A","text":"one"},{"speaker":"A","text":"two"}])");
  ServerOptions so;
  so.quota_turns = 3;
  StartServer(so);  // reads the stored usage (2 turns) from the engine
  auto r = Post("/v1/users/ben/turns", R"({"turns":[{"speaker":"B","text":"three"},{"speaker":"B","text":"four"}]})");
  EXPECT_EQ(r->status, 429) << r->body;
  EXPECT_EQ(Err(r)["code"], "quota_exceeded");
  EXPECT_FALSE(r->get_header_value("Retry-After").empty());
  Ingest("ben", R"([{"speaker":"B","text":"three"}])");
  r = Post("/v1/users/ben/turns", R"({"turns":[{"speaker":"B","text":"five"}]})");
  EXPECT_EQ(r->status, 429) << r->body;
  // Re-sending a stored turn adds nothing, but the quota counts the request before it knows.
  EXPECT_EQ(Post("/v1/users/x/turns", R"({"turns":[{"speaker":"X","text":"x"}]})", kGlobex)->status, 200);
  // Forgetting a user frees room.
  ASSERT_EQ(Delete("/v1/users/ana")->status, 200);
  Ingest("ben", R"([{"speaker":"B","text":"five"}])");
  ServerOptions bytes;
  bytes.quota_bytes = 10;
  StartServer(bytes);
  r = Post("/v1/users/cy/turns", R"({"turns":[{"speaker":"C","text":"more than ten bytes"}]})", kGlobex);
  EXPECT_EQ(r->status, 429) << r->body;
}

TEST_F(ServerTest, ConcurrentIngestsOfOneUserGetDistinctSeqs) {
  constexpr int kThreads = 4, kBatches = 10;
  std::vector<std::vector<int64_t>> seqs(kThreads);
  std::vector<std::thread> threads;
  const int port = server_->port();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      for (int b = 0; b < kBatches; ++b) {
        json turns = json::array();
        turns.push_back({{"speaker", "A"}, {"text", fmt::format("t{} b{} a", t, b)}});
        turns.push_back({{"speaker", "A"}, {"text", fmt::format("t{} b{} b", t, b)}, {"id", fmt::format("id-{}-{}", t, b)}});
        json body = {{"turns", turns}};
        auto r = c.Post("/v1/users/ana/turns", Auth(kAcme), body.dump(), "application/json");
        if (!r || r->status != 200) {
          ADD_FAILURE() << (r ? r->body : httplib::to_string(r.error()));
          continue;
        }
        const json answer = json::parse(r->body);
        for (const auto& x : answer["turns"]) seqs[t].push_back(x["seq"]);
      }
    });
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : seqs) all.insert(v.begin(), v.end());
  ASSERT_EQ(all.size(), size_t{kThreads * kBatches * 2});
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), kThreads * kBatches * 2);
  // The seq each answer named holds the turn that was sent.
  auto page = json::parse(Get("/v1/users/ana/turns?limit=1000")->body);
  for (const auto& t : page["turns"]) {
    const std::string id = t["id"];
    if (id.rfind("id-", 0) == 0) EXPECT_EQ(t["text"].get<std::string>().back(), 'b');
    else EXPECT_EQ(id, fmt::format("T{}", t["seq"].get<int64_t>()));
  }
}

TEST_F(ServerTest, OpenApiListsExactlyTheRouteTable) {
  auto r = Get("/v1/openapi.json", "");
  ASSERT_EQ(r->status, 200);
  auto doc = json::parse(r->body);
  EXPECT_EQ(doc["openapi"].get<std::string>().rfind("3.0", 0), 0u);
  std::set<std::pair<std::string, std::string>> in_doc, in_table;
  for (auto& [path, item] : doc["paths"].items())
    for (auto& [method, op] : item.items()) {
      std::string m = method;
      for (char& ch : m) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      in_doc.insert({m, path});
      EXPECT_TRUE(op.contains("responses")) << path;
      EXPECT_TRUE(op["responses"].contains("200")) << path;
    }
  for (const Route& route : RouteTable()) {
    in_table.insert({route.method, route.path});
    std::string m = route.method;
    for (char& ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const json& op = doc["paths"][route.path][m];
    EXPECT_EQ(op["security"].empty(), !route.auth) << route.path;
    EXPECT_EQ(op.contains("requestBody"), *route.request != 0) << route.path;
  }
  EXPECT_EQ(in_doc, in_table);
}

TEST_F(ServerTest, DocsAreGeneratedFromTheRouteTable) {
  EXPECT_EQ(ReadSource("docs/http_api.md"), HttpApiMarkdown(Limits{}))
      << "docs/http_api.md is stale: run `ontomem docs http-api > docs/http_api.md`";
  for (const Route& route : RouteTable())
    EXPECT_NE(ReadSource("docs/http_api.md").find(std::string("## ") + route.method + " " + route.path + "\n"),
              std::string::npos);
}

TEST(ServerDocs, BadInputTableIsCurrent) {
  auto md = BadInputMarkdown();
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(ReadSource("docs/bad_input.md"), *md)
      << "docs/bad_input.md is stale: run `ontomem docs bad-input > docs/bad_input.md`";
}

TEST_F(ServerTest, MetricsHealthAndInspector) {
  Ingest("ana", R"([{"speaker":"A","text":"jazz records"},{"speaker":"A","text":"more jazz"}])");
  ASSERT_EQ(Post("/v1/users/ana/search", R"({"query":"jazz"})")->status, 200);
  EXPECT_EQ(Get("/v1/users/ana/turns", "")->status, 401);
  auto r = Get("/metrics", "");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
  const std::string& m = r->body;
  for (const char* line :
       {"ontomem_http_requests_total{route=\"/v1/users/{user}/turns\",method=\"POST\",code=\"200\"} 1\n",
        "ontomem_http_requests_total{route=\"/v1/users/{user}/search\",method=\"POST\",code=\"200\"} 1\n",
        "ontomem_http_requests_total{route=\"/v1/users/{user}/turns\",method=\"GET\",code=\"401\"} 1\n",
        "ontomem_http_request_duration_seconds_count{route=\"/v1/users/{user}/search\",method=\"POST\"} 1\n",
        "ontomem_http_request_duration_seconds_bucket{route=\"/v1/users/{user}/search\",method=\"POST\",le=\"+Inf\"} 1\n",
        "ontomem_ingested_turns_total 2\n", "ontomem_searches_total 1\n", "ontomem_inflight_requests 1\n",
        "ontomem_loaded_users 1\n"})
    EXPECT_NE(m.find(line), std::string::npos) << line << "\n" << m;
  EXPECT_NE(m.find("ontomem_memory_bytes "), std::string::npos);
  EXPECT_NE(m.find("ontomem_queued_connections "), std::string::npos);
  EXPECT_NE(m.find("ontomem_user_cache_total{result=\"hit\"} "), std::string::npos) << m;
  EXPECT_NE(m.find("ontomem_user_cache_total{result=\"miss\"} 1\n"), std::string::npos) << m;  // ana's first use
  EXPECT_NE(m.find("ontomem_user_cache_evictions_total 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ontomem_user_private_copies_total 0\n"), std::string::npos) << m;
  // No --verify-url: the fact verifier was never asked.
  EXPECT_NE(m.find("ontomem_fact_verifier_requests_total{result=\"ok\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ontomem_fact_verifier_requests_total{result=\"failed\"} 0\n"), std::string::npos) << m;

  r = Get("/healthz", "");
  EXPECT_EQ(json::parse(r->body), json::parse(R"({"status":"ok"})"));
  r = Get("/", "");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(r->body, ReadSource("web/inspector.html")) << "the embedded page is stale: rebuild";
}

TEST_F(ServerTest, StopFinishesInFlightRequests) {
  // Requests racing with Stop either complete with 200 (and are stored) or fail to connect.
  std::atomic<bool> go{true};
  std::vector<std::thread> threads;
  std::vector<std::vector<std::string>> acked(3);
  const int port = server_->port();
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      for (int i = 0; go && i < 10000; ++i) {
        const std::string id = fmt::format("t{}-{}", t, i);
        json turns = json::array();
        turns.push_back({{"speaker", "A"}, {"text", "turn " + id}, {"id", id}});
        auto r = c.Post("/v1/users/ana/turns", Auth(kAcme), json{{"turns", turns}}.dump(), "application/json");
        if (!r) break;
        if (r->status == 200) acked[t].push_back(id);
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  server_->Stop();
  go = false;
  for (auto& th : threads) th.join();
  auto turns = memory_->Turns({"acme", "ana"});
  ASSERT_TRUE(turns.ok());
  std::set<std::string> stored;
  for (const auto& t : *turns) stored.insert(t.turn.id);
  size_t n = 0;
  for (const auto& ids : acked)
    for (const auto& id : ids) {
      EXPECT_TRUE(stored.count(id)) << id;
      ++n;
    }
  EXPECT_GT(n, 0u);
}


}  // namespace
}  // namespace ontomem::server
