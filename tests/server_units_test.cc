// The server's building blocks without a socket: request parsing, RFC 3339, SHA-256, keys,
// rate limit, quota, route matching.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "server/api_json.h"
#include "server/keys.h"
#include "server/rate_limit.h"
#include "server/routes.h"
#include "server/sha256.h"
#include "test_util.h"

namespace ontomem::server {
namespace {

const Limits kLimits;

// The message of a failed parse ("" when it succeeded).
template <typename T>
std::string Error(const StatusOr<T>& r) {
  return r.ok() ? "" : r.status().message();
}

TEST(ServerSha256, Fips180Vectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                      "klmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Padding edge cases: 55, 56 and 64 bytes.
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(ServerKeys, AddLoadLookup) {
  const testing::TempDir temp("ontomem-keys");
  const std::string& dir = temp.path();
  const std::string path = dir + "/keys";
  auto a = AddKey(path, "acme");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = AddKey(path, "globex");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->rfind("om_", 0), 0u);
  EXPECT_EQ(a->size(), 3u + 64u);
  EXPECT_NE(*a, *b);
  // Only hashes are stored.
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.find(*a), std::string::npos);
  EXPECT_NE(text.find("acme\t" + Sha256Hex(*a)), std::string::npos);
  auto ks = KeyStore::Load(path);
  ASSERT_TRUE(ks.ok()) << ks.status().ToString();
  EXPECT_EQ(ks->size(), 2u);
  EXPECT_EQ(ks->Lookup(*a).value_or(""), "acme");
  EXPECT_EQ(ks->Lookup(*b).value_or(""), "globex");
  EXPECT_FALSE(ks->Lookup("om_nope"));
  EXPECT_FALSE(ks->Lookup(""));
  EXPECT_FALSE(ks->Lookup(a->substr(0, a->size() - 1)));
  EXPECT_EQ(AddKey(path, "").status().code(), StatusCode::kInvalidArgument);
}

// Ten processes' worth of `keys add` at once: every key printed must work afterwards.
TEST(ServerKeys, ConcurrentAddsLoseNoKey) {
  const testing::TempDir temp("ontomem-keys");
  const std::string& dir = temp.path();
  const std::string path = dir + "/keys";
  std::vector<std::string> keys(10);
  std::vector<std::thread> threads;
  for (int i = 0; i < 10; ++i)
    threads.emplace_back([&, i] {
      auto k = AddKey(path, "tenant" + std::to_string(i));
      if (k.ok()) keys[static_cast<size_t>(i)] = *k;
    });
  for (auto& t : threads) t.join();
  auto ks = KeyStore::Load(path);
  ASSERT_TRUE(ks.ok()) << ks.status().ToString();
  EXPECT_EQ(ks->size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ks->Lookup(keys[static_cast<size_t>(i)]).value_or(""), "tenant" + std::to_string(i));
  for (const auto& e : std::filesystem::directory_iterator(dir))  // no temporary file left behind
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(ServerKeys, AKeyThatCouldNeverWorkIsRefused) {
  const testing::TempDir temp("ontomem-keys");
  const std::string& dir = temp.path();
  // A tenant starting with '#' would be written as a comment line.
  Status st = AddKey(dir + "/keys", "#ops").status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("comment"), std::string::npos) << st.ToString();
  // A directory is no keys file: not an empty key list, and no temporary file next to it.
  std::filesystem::create_directory(dir + "/adir");
  EXPECT_EQ(KeyStore::Load(dir + "/adir").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AddKey(dir + "/adir", "acme").status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir + "/adir.tmp"));
}

TEST(ServerKeys, ParseErrorsNameTheLine) {
  EXPECT_TRUE(KeyStore::Parse("# comment\n\nacme\t" + Sha256Hex("k") + "\r\n", "f").ok());
  EXPECT_EQ(Error(KeyStore::Parse("# c\nacme " + Sha256Hex("k") + "\n", "f")),
            "f:2: expected \"tenant<TAB>sha256-hex\"");
  EXPECT_EQ(Error(KeyStore::Parse("acme\tabc\n", "f")), "f:1: the hash is not 64 hex digits");
  EXPECT_EQ(Error(KeyStore::Parse(fmt::format("\t{}", Sha256Hex("k")), "f")), "f:1: tenant is empty");
}

TEST(ServerRfc3339, ParsesAndRejects) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseRfc3339("2024-01-02T03:04:05Z"), 1704164645000);
  EXPECT_EQ(ParseRfc3339("2024-01-02t03:04:05.25z"), 1704164645250);
  EXPECT_EQ(ParseRfc3339("2024-01-02T04:04:05.123456+01:00"), 1704164645123);
  EXPECT_EQ(ParseRfc3339("2024-01-01T22:04:05-05:00"), 1704164645000);
  EXPECT_EQ(ParseRfc3339("2024-02-29T00:00:00Z"), 1709164800000);
  for (const char* bad : {"", "2024-01-02", "2024-01-02T03:04:05", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
                          "2024-01-02T24:00:00Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+0100",
                          "1969-12-31T23:59:59Z", "2024-01-02T03:04:05Zjunk", "yesterday"})
    EXPECT_FALSE(ParseRfc3339(bad)) << bad;
}

TEST(ServerApiJson, TurnsRequest) {
  auto r = ParseTurnsRequest(
      R"({"turns":[{"id":"D1:1","speaker":"Ana","text":"hi","time":"2024-01-02T03:04:05Z","session":"s1","x":1},
                   {"speaker":"","text":"yo","time":5}]})",
      kLimits);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].id, "D1:1");
  EXPECT_EQ((*r)[0].time_ms, 1704164645000);
  EXPECT_EQ((*r)[0].session, "s1");
  EXPECT_EQ((*r)[1].time_ms, 5);
  EXPECT_EQ((*r)[1].speaker, "");
}

TEST(ServerApiJson, ErrorsNameTheField) {
  struct Case {
    std::string body, message;
    StatusCode code = StatusCode::kInvalidArgument;
  };
  const std::string t = R"({"speaker":"A","text":"ok"})";
  const std::vector<Case> cases = {
      {"", "body: malformed JSON at byte 1: syntax error while parsing value - unexpected end of input; expected "
           "'[', '{', or a literal"},
      {"[]", "body: expected a JSON object"},
      {"{}", "turns: missing (expected an array of turns)"},
      {R"({"turns":{}})", "turns: expected an array of turns"},
      {R"({"turns":[]})", "turns: is empty (send at least one turn)"},
      {"{\"turns\":[" + t + "," + t + ",3]}", "turns[2]: expected an object"},
      {R"({"turns":[{"speaker":"A"}]})", "turns[0].text: missing (expected a string)"},
      {R"({"turns":[{"text":"x"}]})", "turns[0].speaker: missing (expected a string)"},
      {R"({"turns":[{"speaker":"A","text":[]}]})", "turns[0].text: expected a string"},
      {R"({"turns":[{"speaker":"A","text":" "}]})", "turns[0].text: is empty"},
      {"{\"turns\":[" + t + "," + t + R"(,{"speaker":"A","text":"x","time":1.5}]})",
       "turns[2].time: expected an integer or an RFC 3339 string"},
      {R"({"turns":[{"speaker":"A","text":"x","time":-1}]})",
       "turns[0].time: expected a non-negative integer (Unix milliseconds) or an RFC 3339 string"},
      {R"({"turns":[{"speaker":"A","text":"x","time":"2024"}]})",
       "turns[0].time: not an RFC 3339 date-time (like 2024-01-02T03:04:05Z) after 1970"},
      {R"({"turns":[{"speaker":"A","text":"x","id":7}]})", "turns[0].id: expected a string"},
      {R"({"turns":[{"speaker":"A","text":"x","id":"a\nb"}]})", "turns[0].id: id contains a control character"},
      {R"({"turns":[{"speaker":"A","text":"x","text":"y"}]})", "turns[0].text: duplicate key \"text\""},
      {"{\"turns\":[{\"speaker\":\"A\",\"text\":\"caf\xff\"}]}", "turns[0].text: invalid UTF-8 at byte 36"},
      {"{\"turns\":[{\"speaker\":\"A\",\"text\":\"x\"}], \"note\":\"\xc3\"}", "note: invalid UTF-8 at byte 47"},
      {R"({"turns":[{"speaker":"A","text":"x"}]} x)",
       "body: malformed JSON at byte 40: syntax error while parsing value - invalid literal; last read: "
       "'\"x\"}]} x'; expected end of input"},
      {"{\"turns\":[{\"speaker\":\"A\",\"text\":\"" + std::string(kLimits.max_turn_bytes + 1, 'a') + "\"}]}",
       "turns[0].text: 65537 bytes, the limit is 65536", StatusCode::kResourceExhausted},
  };
  for (const Case& c : cases) {
    auto r = ParseTurnsRequest(c.body, kLimits);
    ASSERT_FALSE(r.ok()) << c.body.substr(0, 100);
    EXPECT_EQ(r.status().message(), c.message) << c.body.substr(0, 100);
    EXPECT_EQ(r.status().code(), c.code) << c.body.substr(0, 100);
  }
  // Syntax errors inside a value name where the parser stopped.
  EXPECT_EQ(Error(ParseTurnsRequest(R"({"turns":[{"speaker":"A","text":"x","time":tru}]})", kLimits))
                .rfind("turns[0].time: malformed JSON", 0),
            0u);
  std::string deep = "{\"turns\":" + std::string(200, '[') + std::string(200, ']') + "}";
  EXPECT_NE(Error(ParseTurnsRequest(deep, kLimits)).find(": nested deeper than 64 levels"), std::string::npos);
  Limits small;
  small.max_batch_turns = 2;
  small.max_body_bytes = 64;
  EXPECT_EQ(Error(ParseTurnsRequest("{\"turns\":[" + t + "," + t + "," + t + "]}", small)),
            "body: 95 bytes, the limit is 64");
  small.max_body_bytes = 1000;
  auto many = ParseTurnsRequest("{\"turns\":[" + t + "," + t + "," + t + "]}", small);
  EXPECT_EQ(many.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(Error(many), "turns: 3 turns, the limit is 2");
}

TEST(ServerApiJson, SearchFeedbackFact) {
  auto s = ParseSearchRequest(
      R"({"query":"films?","k":5,"asker":"Ana","context":["a","b"],"method":"bm25","max_context_tokens":40})", kLimits);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->query, "films?");
  EXPECT_EQ(s->options.k, 5);
  EXPECT_EQ(s->options.asker, "Ana");
  EXPECT_EQ(s->options.context.size(), 2u);
  EXPECT_EQ(s->options.method, Method::kBm25);
  EXPECT_EQ(s->options.max_context_tokens, 40);
  EXPECT_TRUE(s->options.collapse_duplicates);
  auto copies = ParseSearchRequest(R"({"query":"x","collapse_duplicates":false})", kLimits);
  ASSERT_TRUE(copies.ok()) << copies.status().ToString();
  EXPECT_FALSE(copies->options.collapse_duplicates);
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","collapse_duplicates":0})", kLimits)),
            "collapse_duplicates: expected true or false");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"k":1})", kLimits)), "query: missing (expected a string)");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","k":0})", kLimits)), "k: expected an integer in 1..100");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","k":101})", kLimits)), "k: expected an integer in 1..100");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","k":18446744073709551615})", kLimits)),
            "k: expected an integer in 1..100");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","context":[1]})", kLimits)), "context[0]: expected a string");
  EXPECT_EQ(Error(ParseSearchRequest(R"({"query":"x","method":"nope"})", kLimits)).rfind("method: expected one of dense, bm25, fusion, full", 0), 0u);
  EXPECT_EQ(ParseSearchRequest("{\"query\":\"" + std::string(9000, 'q') + "\"}", kLimits).status().code(),
            StatusCode::kResourceExhausted);

  auto f = ParseFeedbackRequest(R"({"query_id":"q1","used":["D1:1"],"missed":["D2:2"]})", kLimits);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->used, std::vector<std::string>{"D1:1"});
  EXPECT_EQ(f->missed, std::vector<std::string>{"D2:2"});
  EXPECT_EQ(Error(ParseFeedbackRequest(R"({"used":["x"]})", kLimits)), "query_id: missing (expected a string)");
  EXPECT_EQ(Error(ParseFeedbackRequest(R"({"query_id":"q","wrong":[""]})", kLimits)), "wrong[0]: is empty");
  EXPECT_EQ(Error(ParseFeedbackRequest(R"({"query_id":"q"})", kLimits)),
            "used, wrong, missed: give at least one turn id");

  auto fact = ParseFactRequest(R"({"relation":"ALLERGIC_TO","tail":"peanuts","time":"2024-01-02T03:04:05Z"})", kLimits);
  ASSERT_TRUE(fact.ok()) << fact.status().ToString();
  EXPECT_EQ(fact->time_ms, 1704164645000);
  EXPECT_EQ(Error(ParseFactRequest(R"({"relation":"X"})", kLimits)), "tail: missing (expected a string)");
  EXPECT_EQ(Error(ParseFactRequest(R"({"relation":"","tail":"t"})", kLimits)), "relation: is empty");
}

TEST(ServerRateLimit, TokenBucket) {
  RateLimiter rl(2, 3);  // 2/s, bursts of 3
  const auto t0 = RateLimiter::Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(rl.Acquire("a", t0), 0);
  EXPECT_EQ(rl.Acquire("a", t0), 0);
  EXPECT_EQ(rl.Acquire("a", t0), 0);
  EXPECT_EQ(rl.Acquire("a", t0), 1);  // empty: half a second to the next token, rounded up
  EXPECT_EQ(rl.Acquire("b", t0), 0);  // tenants are independent
  EXPECT_EQ(rl.Acquire("a", t0 + std::chrono::milliseconds(600)), 0);
  EXPECT_EQ(rl.Acquire("a", t0 + std::chrono::milliseconds(600)), 1);
  RateLimiter slow(0.1, 1);
  EXPECT_EQ(slow.Acquire("a", t0), 0);
  EXPECT_EQ(slow.Acquire("a", t0), 10);
  RateLimiter off(0, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(off.Acquire("a", t0), 0);
}

TEST(ServerQuota, ReservesAndCounts) {
  QuotaTracker q(5, 0);
  int reads = 0;
  int64_t stored = 3;
  auto stats = [&]() -> StatusOr<TenantStats> {
    ++reads;
    return TenantStats{1, stored, 100};
  };
  EXPECT_TRUE(q.Reserve("t", 2, 10, stats).ok());  // 3 stored + 2
  EXPECT_EQ(q.Reserve("t", 1, 10, stats).code(), StatusCode::kResourceExhausted);  // 2 in flight
  q.Release("t", 2, 10, 1, 5);  // only one was new
  EXPECT_TRUE(q.Reserve("t", 1, 10, stats).ok());  // 4 + 1
  q.Release("t", 1, 10, 1, 10);
  EXPECT_EQ(q.Reserve("t", 1, 1, stats).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(reads, 1);  // cached after the first read
  stored = 1;  // a user was forgotten
  q.Invalidate("t");
  EXPECT_TRUE(q.Reserve("t", 4, 1, stats).ok());
  EXPECT_EQ(reads, 2);
  // Unknown usage (the engine cannot tell): not enforced.
  QuotaTracker u(1, 0);
  auto unknown = []() -> StatusOr<TenantStats> { return Status::FailedPrecondition("not implemented"); };
  EXPECT_TRUE(u.Reserve("t", 10, 10, unknown).ok());
}

TEST(ServerRoutes, MatchAndDecode) {
  auto m = MatchRoute("POST", "/v1/users/an%2Fa/turns");
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(std::string(m.route->path), "/v1/users/{user}/turns");
  EXPECT_EQ(m.user, "an%2Fa");
  std::string user;
  ASSERT_TRUE(DecodePathSegment(m.user, &user));
  EXPECT_EQ(user, "an/a");
  EXPECT_FALSE(DecodePathSegment("a%2", &user));
  EXPECT_FALSE(DecodePathSegment("a%zz", &user));
  EXPECT_TRUE(DecodePathSegment("caf%C3%A9", &user));
  EXPECT_EQ(user, "caf\xc3\xa9");
  EXPECT_NE(MatchRoute("HEAD", "/healthz").route, nullptr);
  EXPECT_EQ(MatchRoute("GET", "/v1/users/").route, nullptr);
  EXPECT_EQ(MatchRoute("GET", "/v1/users//turns").route, nullptr);
  auto wrong = MatchRoute("PUT", "/v1/users/ana/turns");
  EXPECT_EQ(wrong.route, nullptr);
  EXPECT_EQ(wrong.allowed, "POST, GET");
  EXPECT_EQ(MatchRoute("GET", "/nope").allowed, "");
}

}  // namespace
}  // namespace ontomem::server
