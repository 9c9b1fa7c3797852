// The MCP server: JSON-RPC handling over McpServer::HandleMessage and Serve, and the real
// `ontomem mcp` binary driven over pipes the way an agent host drives it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "lexicon_fixture.h"
#include "mcp/mcp_server.h"
#include "store/store.h"
#include "test_util.h"

namespace ontomem {
namespace {

using json = nlohmann::json;

std::string Call(int id, const std::string& tool, const json& args) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
              {"params", {{"name", tool}, {"arguments", args}}}}
      .dump();
}

std::string Request(const json& id, const std::string& method, const json& params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.data_dir = "unused";
    auto emb = std::make_shared<testing::FakeEmbedder>();
    mem_ = std::make_unique<MemoryImpl>(o, NewInMemoryStore(), emb);
    server_ = Make("ana");
  }
  std::unique_ptr<mcp::McpServer> Make(const std::string& default_user, size_t max_bytes = 1 << 20) {
    mcp::McpOptions mo;
    mo.tenant = "acme";
    mo.default_user = default_user;
    mo.max_message_bytes = max_bytes;
    return std::make_unique<mcp::McpServer>(mem_.get(), mo);
  }
  json Send(const std::string& line) {
    std::string out = server_->HandleMessage(line);
    EXPECT_FALSE(out.empty()) << line;
    EXPECT_EQ(out.find('\n'), std::string::npos);  // one message per line
    return out.empty() ? json() : json::parse(out);
  }
  // A tools/call that must succeed: returns its structured result.
  json Tool(const std::string& tool, const json& args) {
    json r = Send(Call(7, tool, args));
    EXPECT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["isError"], false) << r.dump();
    // The text block carries the same JSON for hosts that ignore structuredContent.
    EXPECT_EQ(json::parse(r["result"]["content"][0]["text"].get<std::string>()), r["result"]["structuredContent"]);
    return r["result"]["structuredContent"];
  }
  static int Code(const json& r) { return r.contains("error") ? r["error"]["code"].get<int>() : 0; }

  std::unique_ptr<MemoryImpl> mem_;
  std::unique_ptr<mcp::McpServer> server_;
};

TEST_F(McpTest, InitializeNegotiatesTheProtocolVersion) {
  for (const char* v : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    json r = Send(Request(1, "initialize", {{"protocolVersion", v}, {"capabilities", json::object()},
                                            {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
    EXPECT_EQ(r["id"], 1);
    EXPECT_EQ(r["result"]["protocolVersion"], v);
    EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(r["result"]["serverInfo"]["name"], "ontomem");
    EXPECT_NE(r["result"]["instructions"].get<std::string>().find("recall"), std::string::npos);
  }
  json r = Send(Request("init", "initialize", {{"protocolVersion", "2099-01-01"}}));
  EXPECT_EQ(r["id"], "init");
  EXPECT_EQ(r["result"]["protocolVersion"], mcp::kProtocolVersions[0]);
  EXPECT_EQ(Code(Send(Request(2, "initialize", {{"capabilities", json::object()}}))), -32602);
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), "");
  EXPECT_EQ(Send(Request(3, "ping"))["result"], json::object());
}

TEST_F(McpTest, ToolsListDescribesEveryToolWithASchema) {
  json r = Send(Request(1, "tools/list"));
  std::map<std::string, json> tools;
  for (const json& t : r["result"]["tools"]) tools[t["name"]] = t;
  ASSERT_EQ(tools.size(), 4u);
  for (const char* name : {"remember", "recall", "feedback", "forget"}) {
    ASSERT_TRUE(tools.count(name)) << name;
    const json& s = tools[name]["inputSchema"];
    EXPECT_EQ(s["type"], "object") << name;
    EXPECT_FALSE(tools[name]["description"].get<std::string>().empty());
    for (const auto& [prop, schema] : s["properties"].items()) EXPECT_TRUE(schema.contains("type")) << prop;
  }
  EXPECT_EQ(tools["remember"]["inputSchema"]["required"], json::array({"speaker", "text"}));
  EXPECT_EQ(tools["recall"]["inputSchema"]["required"], json::array({"query"}));
  EXPECT_EQ(tools["feedback"]["inputSchema"]["required"], json::array({"query_id"}));
  EXPECT_EQ(tools["forget"]["inputSchema"]["required"], json::array({"user"}));
  EXPECT_EQ(tools["forget"]["annotations"]["destructiveHint"], true);
  EXPECT_EQ(tools["recall"]["annotations"]["readOnlyHint"], true);
}

TEST_F(McpTest, RememberRecallFeedbackForget) {
  json a = Tool("remember", {{"speaker", "Ana"}, {"text", "I adopted a greyhound named Pixel"}, {"id", "m1"},
                             {"time", "2024-05-01T10:00:00Z"}});
  EXPECT_EQ(a["id"], "m1");
  EXPECT_EQ(a["user"], "ana");
  json b = Tool("remember", {{"speaker", "Ana"}, {"text", "Tomorrow I start pottery classes"}, {"time", 1714600000000}});
  EXPECT_EQ(b["id"], "T2");  // assigned by the engine
  Tool("remember", {{"speaker", "Ben"}, {"text", "Greyhounds are gentle dogs"}, {"id", "m3"}});
  // Another user of the same tenant, named explicitly.
  Tool("remember", {{"user", "ben"}, {"speaker", "Ben"}, {"text", "I collect pottery too"}, {"id", "b1"}});

  json r = Tool("recall", {{"query", "pottery classes"}, {"k", 2}, {"method", "bm25"}});
  ASSERT_FALSE(r["hits"].empty());
  EXPECT_EQ(r["hits"][0]["id"], "T2");
  EXPECT_LE(r["hits"].size(), 2u);
  EXPECT_TRUE(r["hits"][0].contains("score"));
  EXPECT_TRUE(r["hits"][0].contains("path"));
  const std::string qid = r["query_id"];
  EXPECT_EQ(qid.size(), 16u);
  for (const json& h : r["hits"]) EXPECT_NE(h["id"], "b1");  // ben's turn is not ana's
  // A line said twice comes back once unless every copy is asked for.
  Tool("remember", {{"speaker", "Ana"}, {"text", "Tomorrow I start pottery classes"}, {"id", "m4"}});
  auto copies = [&](const json& args) {
    const json r = Tool("recall", args);
    size_t n = 0;
    for (const json& h : r["hits"]) n += h["text"] == "Tomorrow I start pottery classes";
    return n;
  };
  EXPECT_EQ(copies({{"query", "pottery classes"}, {"method", "bm25"}}), 1u);
  EXPECT_EQ(copies({{"query", "pottery classes"}, {"method", "bm25"}, {"collapse_duplicates", false}}), 2u);

  Tool("feedback", {{"query_id", qid}, {"query", "pottery classes"}, {"used", {"T2"}}, {"missed", {"m1"}}});
  auto log = mem_->FeedbackLog({"acme", "ana"});
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].query_id, qid);
  EXPECT_EQ((*log)[0].missed, std::vector<std::string>{"m1"});

  // A tool that runs and fails answers isError with the reason, not a protocol error.
  json bad = Send(Call(9, "feedback", {{"query_id", qid}, {"used", {"nope"}}}));
  EXPECT_EQ(bad["result"]["isError"], true);
  EXPECT_NE(bad["result"]["content"][0]["text"].get<std::string>().find("nope"), std::string::npos);
  EXPECT_FALSE(bad["result"].contains("structuredContent"));

  json f = Tool("forget", {{"user", "ana"}});
  EXPECT_EQ(f["deleted"], true);
  json gone = Send(Call(10, "recall", {{"query", "pottery"}}));
  EXPECT_EQ(gone["result"]["isError"], true);
  EXPECT_NE(gone["result"]["content"][0]["text"].get<std::string>().find("NotFound"), std::string::npos);
  EXPECT_EQ(Send(Call(11, "forget", {{"user", "ana"}}))["result"]["isError"], true);
  EXPECT_FALSE(Tool("recall", {{"user", "ben"}, {"query", "pottery"}})["hits"].empty());
}

TEST_F(McpTest, ProtocolErrorsUseJsonRpcCodes) {
  json r = Send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
  EXPECT_EQ(Code(r), -32700);
  EXPECT_TRUE(r["id"].is_null());
  EXPECT_EQ(Code(Send("not json at all")), -32700);
  EXPECT_EQ(Code(Send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}")), -32700);  // bad UTF-8

  EXPECT_EQ(Code(Send("42")), -32600);
  EXPECT_EQ(Code(Send(R"({"id":1,"method":"ping"})")), -32600);                  // no jsonrpc
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")), -32600);
  EXPECT_EQ(Code(Send(R"({"foo":"boo"})")), -32600);  // not a notification: answered with id null
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"2.0","id":1,"method":5})")), -32600);
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"2.0","id":1})")), -32600);
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")), -32600);
  EXPECT_EQ(Code(Send("[]")), -32600);

  // Absurd nesting is refused before it is parsed (copying it would overflow the stack).
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(Code(Send(deep)), -32600);
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":)" + deep + "}}")), -32600);
  // Brackets inside strings do not count.
  r = Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":")" + std::string(1000, '[') + R"(\"["}})");
  EXPECT_EQ(r["result"], json::object()) << r.dump();

  r = Send(Request(5, "resources/list"));
  EXPECT_EQ(Code(r), -32601);
  EXPECT_EQ(r["id"], 5);
  EXPECT_EQ(Code(Send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]})")), -32602);

  // Invalid params name what is wrong.
  auto expect_params = [&](const std::string& line, const std::string& needle) {
    json e = Send(line);
    EXPECT_EQ(Code(e), -32602) << e.dump();
    EXPECT_NE(e["error"]["message"].get<std::string>().find(needle), std::string::npos) << e.dump();
  };
  expect_params(Call(1, "teleport", json::object()), "unknown tool");
  expect_params(Request(1, "tools/call", {{"arguments", json::object()}}), "name");
  expect_params(Call(1, "recall", json::array()), "must be an object");
  expect_params(Call(1, "recall", {{"k", 3}}), "missing required argument query");
  expect_params(Call(1, "recall", {{"query", "x"}, {"k", "3"}}), "recall.k: expected an integer");
  expect_params(Call(1, "recall", {{"query", "x"}, {"k", 0}}), "recall.k");
  expect_params(Call(1, "recall", {{"query", "x"}, {"k", 1000}}), "recall.k");
  expect_params(Call(1, "recall", {{"query", "x"}, {"context", {"a", 2}}}), "recall.context[1]");
  expect_params(Call(1, "recall", {{"query", "x"}, {"colour", "red"}}), "unknown argument colour");
  expect_params(Call(1, "recall", {{"query", "x"}, {"collapse_duplicates", 1}}), "recall.collapse_duplicates: expected true or false");
  expect_params(Call(1, "remember", {{"speaker", "A"}, {"text", "x"}, {"time", -5}}), "remember.time");
  expect_params(Call(1, "feedback", {{"query_id", 12}}), "feedback.query_id: expected a string");
  expect_params(Call(1, "forget", json::object()), "missing required argument user");
  // An unsigned above INT64_MAX is named as sent, not as -1.
  expect_params(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x","k":18446744073709551615}}})",
                "recall.k: 18446744073709551615 is not in 1..100");
  expect_params(Call(1, "recall", {{"query", "x"}, {"context", {std::string(8193, 'c')}}}), "recall.context[0]: longer than 8192 bytes");
  expect_params(Call(1, "remember", {{"user", ""}, {"speaker", "A"}, {"text", "x"}}), "remember.user: empty");
  // A raw NUL ends no message early: what follows it is not ignored.
  EXPECT_EQ(Code(Send(std::string(R"({"jsonrpc":"2.0","id":6,"method":"ping"})") + '\0' + "garbage")), -32700);

  // Without --user every call must name its user.
  server_ = Make("");
  expect_params(Call(1, "recall", {{"query", "x"}}), "missing argument user");
}

TEST_F(McpTest, NotificationsAndResponsesGetNoAnswerAndBatchesWork) {
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), "");
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})"), "");
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","method":"no/such/notification"})"), "");
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","id":4,"result":{}})"), "");  // a client's response

  json batch = json::array({json::parse(Request(1, "ping")),
                            json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"),
                            json::parse(Request("two", "nope")), 17});
  json r = Send(batch.dump());
  ASSERT_TRUE(r.is_array());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["id"], 1);
  EXPECT_EQ(r[0]["result"], json::object());
  EXPECT_EQ(r[1]["id"], "two");
  EXPECT_EQ(Code(r[1]), -32601);
  EXPECT_EQ(Code(r[2]), -32600);
  EXPECT_EQ(server_->HandleMessage(
                R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])"), "");
}

TEST_F(McpTest, ServeAnswersLineByLineAndSurvivesBadInput) {
  server_ = Make("ana", /*max_bytes=*/256);
  std::string big = Call(3, "remember", {{"speaker", "Ana"}, {"text", std::string(1000, 'x')}});
  std::istringstream in(Request(1, "ping") + "\n" +
                        "\n" +                                  // blank: skipped
                        "{oops\n" +                             // parse error, keeps serving
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + "\n" +
                        big + "\n" +                            // too long: -32600, skipped
                        Request(4, "ping") + "\r\n" +           // CRLF tolerated
                        Request(5, "ping"));                    // last line without newline
  std::ostringstream out;
  ASSERT_TRUE(server_->Serve(in, out).ok());
  std::vector<json> lines;
  std::istringstream got(out.str());
  for (std::string l; std::getline(got, l);) lines.push_back(json::parse(l));
  ASSERT_EQ(lines.size(), 5u) << out.str();
  EXPECT_EQ(lines[0]["id"], 1);
  EXPECT_EQ(Code(lines[1]), -32700);
  EXPECT_EQ(Code(lines[2]), -32600);
  EXPECT_NE(lines[2]["error"]["message"].get<std::string>().find("longer than 256"), std::string::npos);
  EXPECT_EQ(lines[3]["id"], 4);
  EXPECT_EQ(lines[4]["id"], 5);
  EXPECT_EQ(mem_->Turns({"acme", "ana"}).status().code(), StatusCode::kNotFound);  // nothing stored
}

// ---------------------------------------------------------------------------------------------
// The real binary over pipes.

class McpProcess {
 public:
  McpProcess(const std::vector<std::string>& args, const std::string& lexicon, const std::string& err_path) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(err, 2);
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], err}) close(fd);
      setenv("ONTOMEM_LEXICON", lexicon.c_str(), 1);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(ONTOMEM_CLI));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(ONTOMEM_CLI, argv.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
  }
  ~McpProcess() {
    CloseInput();
    if (out_ >= 0) close(out_);
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0 && in_ >= 0; }
  void Send(const std::string& line) {
    std::string data = line + "\n";
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = write(in_, data.data() + off, data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  // The next line of output, or "" after `timeout` (or at end of output).
  std::string ReadLine(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char chunk[65536];
      ssize_t n = read(out_, chunk, sizeof(chunk));
      if (n <= 0) return "";
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }
  json Roundtrip(const std::string& line) {
    Send(line);
    std::string l = ReadLine();
    EXPECT_FALSE(l.empty()) << "no answer to " << line;
    return l.empty() ? json() : json::parse(l);
  }
  void CloseInput() {
    if (in_ >= 0) close(in_);
    in_ = -1;
  }
  // Exit code after end of input, -1 if it does not exit in time.
  int Wait() {
    CloseInput();
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      usleep(10000);
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  bool reaped_ = false;
  std::string buf_;
};

TEST(McpBinary, DrivenLikeAnAgentHost) {
  signal(SIGPIPE, SIG_IGN);  // a dead child must fail the test, not kill it
  const testing::TempDir temp("ontomem-mcp");
  const std::string& dir = temp.path();
  const std::string lexicon = testing::WriteTinyLexicon(dir);
  const std::string err_path = dir + "/stderr";
  {
    McpProcess p({"mcp", "--data", dir + "/data", "--tenant", "acme", "--user", "ana"}, lexicon, err_path);
    ASSERT_TRUE(p.started());

    json r = p.Roundtrip(Request(0, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                                                   {"clientInfo", {{"name", "mcp_test"}, {"version", "1"}}}}));
    ASSERT_EQ(r["result"]["protocolVersion"], "2025-06-18") << r.dump();
    p.Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    r = p.Roundtrip(Request(1, "tools/list"));
    ASSERT_EQ(r["id"], 1);  // the notification got no answer: the next line answers tools/list
    EXPECT_EQ(r["result"]["tools"].size(), 4u);

    const char* texts[] = {"I watched a movie with my sister", "The pizza at the new restaurant was great",
                           "My dog loves the park in the morning"};
    for (int i = 0; i < 3; ++i) {
      r = p.Roundtrip(Call(10 + i, "remember", {{"speaker", "Ana"}, {"text", texts[i]}, {"id", "m" + std::to_string(i + 1)}}));
      ASSERT_EQ(r["result"]["isError"], false) << r.dump();
      EXPECT_EQ(r["result"]["structuredContent"]["id"], "m" + std::to_string(i + 1));
    }
    r = p.Roundtrip(Call(20, "recall", {{"query", "which film did Ana see?"}, {"k", 2}}));
    ASSERT_EQ(r["result"]["isError"], false) << r.dump();
    json hits = r["result"]["structuredContent"]["hits"];
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0]["id"], "m1");  // "film" ~ "movie" in the tiny lexicon
    const std::string qid = r["result"]["structuredContent"]["query_id"];
    EXPECT_EQ(qid.size(), 16u);

    r = p.Roundtrip(Call(21, "feedback", {{"query_id", qid}, {"used", {"m1"}}, {"wrong", {"m2"}}}));
    EXPECT_EQ(r["result"]["isError"], false) << r.dump();

    // Malformed and wrong messages get their errors and the server keeps serving.
    r = p.Roundtrip("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/li");
    EXPECT_EQ(r["error"]["code"], -32700);
    r = p.Roundtrip(Request(22, "prompts/get"));
    EXPECT_EQ(r["error"]["code"], -32601);
    r = p.Roundtrip(Call(23, "recall", {{"query", 5}}));
    EXPECT_EQ(r["error"]["code"], -32602);
    r = p.Roundtrip(std::string(5 << 20, ' ') + "x");  // over the 4 MiB line limit
    EXPECT_EQ(r["error"]["code"], -32600);
    r = p.Roundtrip("[" + Request(24, "ping") + "," + Request(25, "ping") + "]");
    ASSERT_TRUE(r.is_array());
    EXPECT_EQ(r.size(), 2u);

    r = p.Roundtrip(Call(30, "forget", {{"user", "ana"}}));
    EXPECT_EQ(r["result"]["structuredContent"]["deleted"], true) << r.dump();
    r = p.Roundtrip(Call(31, "recall", {{"query", "film"}}));
    EXPECT_EQ(r["result"]["isError"], true) << r.dump();
    r = p.Roundtrip(Request(32, "ping"));
    EXPECT_EQ(r["id"], 32);

    EXPECT_EQ(p.Wait(), 0);  // end of input ends the server cleanly
    EXPECT_EQ(p.ReadLine(std::chrono::milliseconds(100)), "");  // and nothing else was written
  }
  std::ifstream err(err_path);
  std::string log((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(log.find("parse error"), std::string::npos) << log;  // diagnostics go to stderr
}

}  // namespace
}  // namespace ontomem
