// The real `ontomem` binary end to end: exit codes, messages on stderr, nothing lost on error.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "lexicon_fixture.h"
#include "test_util.h"

namespace ontomem {
namespace {

struct CliRun {
  int code;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lexicon_ = testing::WriteTinyLexicon(dir_);
    data_ = dir_ + "/data";
  }

  CliRun Cli(const std::string& args) {
    std::string cmd = "ONTOMEM_LEXICON='" + lexicon_ + "' '" ONTOMEM_CLI "' " + args + " 2>'" + dir_ +
                      "/err' </dev/null";
    CliRun r;
    FILE* p = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream e(dir_ + "/err");
    r.err.assign(std::istreambuf_iterator<char>(e), {});
    return r;
  }

  std::string Write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  std::string D() const { return "--data '" + data_ + "' --tenant acme "; }

  // A small `train extractor` writing dir_/<out>/extractor; no fallback perceptrons unless asked
  // (they double the training time).
  std::string TrainSmallExtractor(const std::string& out, int fallback_idiom_drills = 0) const {
    return "train extractor --filler '' --ipr-dialogues 10 --fallback-idiom-drills " +
           std::to_string(fallback_idiom_drills) + " --lexicon '" + lexicon_ + "' --out '" + dir_ + "/" + out + "'";
  }

  const testing::TempDir temp_{"ontomem-cli"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::string lexicon_, data_;
};

TEST_F(CliTest, IngestSearchExportForgetRoundTrip) {
  std::string f = Write("turns.jsonl",
                        "{\"id\":\"m1\",\"speaker\":\"Ana\",\"text\":\"I watched a movie with my sister\"}\n"
                        "{\"id\":\"m2\",\"speaker\":\"Ana\",\"text\":\"The pizza at the new restaurant was great\"}\n");
  CliRun r = Cli("ingest " + D() + "--user ana '" + f + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 2 turns"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;  // no progress bar when stderr is not a terminal

  r = Cli("search " + D() + "--user ana --k 1 --json 'film'");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["id"], "m1");  // "film" ~ "movie" in the dense view

  r = Cli("search " + D() + "--user ana --method bm25 'restaurant pizza'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("m2"), std::string::npos);

  r = Cli("export " + D() + "--user ana");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["turns"].size(), 2u);

  r = Cli("users " + D());
  EXPECT_EQ(r.out, "ana\n");

  r = Cli("forget " + D() + "--user ana");
  ASSERT_EQ(r.code, 0) << r.err;
  r = Cli("search " + D() + "--user ana 'movie'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
}

TEST_F(CliTest, LocomoFileMakesOneUserPerSample) {
  std::string f = Write("lc.json", R"([
    {"sample_id":"conv-a","conversation":{"speaker_a":"A","speaker_b":"B",
      "session_1_date_time":"9:05 am on 3 March, 2023",
      "session_1":[{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy"}]},"qa":[]},
    {"sample_id":"conv-b","conversation":{"speaker_a":"C","speaker_b":"D",
      "session_1":[{"speaker":"C","dia_id":"D1:1","text":"Off to Paris next week"}]},"qa":[]}])");
  CliRun r = Cli("ingest " + D() + "--user x '" + f + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("single-sample"), std::string::npos) << r.err;
  r = Cli("ingest " + D() + "'" + f + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 2 turns (2 new, 0 already stored)"), std::string::npos) << r.out;
  r = Cli("ingest " + D() + "'" + f + "'");  // a re-run with ids changes nothing and says so
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 2 turns (0 new, 2 already stored)"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  r = Cli("search " + D() + "--user conv-b --json 'travel trip'");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["id"], "D1:1");
  EXPECT_EQ(j["hits"][0]["speaker"], "C");
  // Without ids a re-run stores the turns again: the command warns.
  std::string noid = Write("noid.jsonl", "{\"speaker\":\"C\",\"text\":\"Packing for Paris\"}\n");
  ASSERT_EQ(Cli("ingest " + D() + "--user conv-b '" + noid + "'").code, 0);
  EXPECT_NE(Cli("ingest " + D() + "--user conv-b '" + noid + "'").err.find("stored again"), std::string::npos);
}

TEST_F(CliTest, BadInputFailsClearlyAndLosesNothing) {
  std::string good = Write("good.jsonl", "{\"id\":\"g1\",\"text\":\"keep me\"}\n");
  ASSERT_EQ(Cli("ingest " + D() + "--user ana '" + good + "'").code, 0);

  struct Case {
    std::string file, content, expect;
  };
  std::vector<Case> cases = {
      {"malformed.jsonl", "{\"text\":\"ok\"}\n{\"text\": oops}\n", "malformed.jsonl:2"},
      {"utf8.jsonl", "{\"text\":\"bad \xFF byte\"}\n", "utf8.jsonl:1"},
      {"empty.jsonl", "{\"text\":\"   \"}\n", "text is empty"},
      {"huge.jsonl", "{\"text\":\"" + std::string(70000, 'x') + "\"}\n", "limit"},
      {"dupe.jsonl", "{\"id\":\"g1\",\"text\":\"different\"}\n", "AlreadyExists"},
  };
  for (const auto& c : cases) {
    std::string f = Write(c.file, c.content);
    CliRun r = Cli("ingest " + D() + "--user ana '" + f + "'");
    EXPECT_EQ(r.code, 1) << c.file;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.file << ": " << r.err;
  }
  CliRun r = Cli("export " + D() + "--user ana");
  ASSERT_EQ(r.code, 0);
  auto turns = nlohmann::json::parse(r.out)["turns"];
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0]["text"], "keep me");

  r = Cli("ingest " + D() + "--user ana '" + dir_ + "/missing.jsonl'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.jsonl"), std::string::npos);

  r = Cli("search " + D() + "--user nobody 'hello'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("acme/nobody"), std::string::npos) << r.err;

  r = Cli("search " + D() + "--user ana --method magic 'hello'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("magic"), std::string::npos);

  EXPECT_EQ(Cli("search " + D()).code, 2);  // usage error: no --user, no query
}

TEST_F(CliTest, ABadTurnAnywhereStoresNothingAndNamesItsLine) {
  // 600 id-less turns: more than one 500-turn batch, so a late bad turn once left 500 stored.
  std::string lines;
  for (int i = 1; i <= 600; ++i)
    lines += "{\"speaker\":\"" + std::string(i == 551 ? "Ana\\u0001" : "Ana") + "\",\"text\":\"turn " +
             std::to_string(i) + "\"}\n";
  std::string f = Write("long.jsonl", lines);
  CliRun r = Cli("ingest " + D() + "--user ana '" + f + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("long.jsonl:551: speaker contains a control character"), std::string::npos) << r.err;
  r = Cli("users " + D());
  EXPECT_EQ(r.out, "");  // not even the user
  // Fixed, the file goes in once: nothing from the failed run is there to duplicate.
  const size_t bad = lines.find("Ana\\u0001");
  lines.replace(bad, 9, "Ana");
  Write("long.jsonl", lines);
  r = Cli("ingest " + D() + "--user ana '" + f + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  r = Cli("export " + D() + "--user ana");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["turns"].size(), 600u);

  // A turn id given twice in one file.
  f = Write("twice.jsonl", "{\"id\":\"m1\",\"text\":\"a\"}\n\n{\"id\":\"m2\",\"text\":\"b\"}\n{\"id\":\"m1\",\"text\":\"c\"}\n");
  r = Cli("ingest " + D() + "--user bo '" + f + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("twice.jsonl:4: turn id m1 is given twice (first at " + f + ":1)"), std::string::npos) << r.err;
  // A turn id stored before with other content, in the file's second batch (session).
  ASSERT_EQ(Cli("ingest " + D() + "--user bo '" + Write("m.jsonl", "{\"id\":\"m9\",\"text\":\"old\"}\n") + "'").code, 0);
  f = Write("clash.jsonl", "{\"id\":\"n1\",\"text\":\"new\",\"session\":\"s1\"}\n"
                           "{\"id\":\"m9\",\"text\":\"changed\",\"session\":\"s2\"}\n");
  r = Cli("ingest " + D() + "--user bo '" + f + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("AlreadyExists: " + f + ":2: turn id m9 is already stored"), std::string::npos) << r.err;
  r = Cli("export " + D() + "--user bo");
  EXPECT_EQ(nlohmann::json::parse(r.out)["turns"].size(), 1u) << r.out;
}

TEST_F(CliTest, BadLocomoFileStoresNothing) {
  const std::string conv = R"("conversation":{"session_1":[{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy"}]})";
  struct Case {
    std::string file, content, expect;
  };
  std::vector<Case> cases = {
      {"same_id.json", "[{\"sample_id\":\"conv-a\"," + conv + "},{\"sample_id\":\"conv-a\"," + conv + "}]",
       "same_id.json: sample_id conv-a is used by samples [0] and [1]"},
      {"bad_turn.json",
       "[{\"sample_id\":\"conv-a\"," + conv + "},{\"sample_id\":\"conv-b\",\"conversation\":{\"session_2\":["
       "{\"speaker\":\"B\",\"dia_id\":\"D2:1\",\"text\":\"fine\"},{\"speaker\":\"B\\u0007\",\"dia_id\":\"D2:2\",\"text\":\"x\"}]}}]",
       "bad_turn.json: conv-b: conversation.session_2[1] (id D2:2): speaker contains a control character"},
      {"dup_turn.json",
       "{\"sample_id\":\"conv-c\",\"conversation\":{\"session_1\":[{\"dia_id\":\"D1:1\",\"text\":\"a\"},"
       "{\"dia_id\":\"D1:1\",\"text\":\"b\"}]}}",
       "dup_turn.json: conv-c: conversation.session_1[1] (id D1:1): turn id D1:1 is given twice"},
      {"not_list.json", "[{\"sample_id\":\"conv-a\",\"conversation\":{\"session_1\":\"oops\"}}]",
       "not_list.json: conv-a: conversation.session_1: not a list of turns"},
      {"null.json", "[{\"sample_id\":\"conv-a\",\"conversation\":{\"session_1\":null}}]",
       "null.json: conv-a: conversation.session_1: not a list of turns"},
  };
  for (const auto& c : cases) {
    CliRun r = Cli("ingest " + D() + "'" + Write(c.file, c.content) + "'");
    EXPECT_EQ(r.code, 1) << c.file;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.file << ": " << r.err;
  }
  EXPECT_EQ(Cli("users " + D()).out, "");
}

TEST_F(CliTest, IngestOfWhatIsNoFileOfTurns) {
  // Each is named for what it is, with or without --user.
  for (const std::string user : {"", "--user ana "}) {
    CliRun r = Cli("ingest " + D() + user + "'" + dir_ + "/missing.jsonl'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("NotFound: cannot open " + dir_ + "/missing.jsonl"), std::string::npos) << r.err;
    r = Cli("ingest " + D() + user + "'" + dir_ + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("InvalidArgument: " + dir_ + " is a directory"), std::string::npos) << r.err;
    for (const char* content : {"", " \n\n"}) {
      r = Cli("ingest " + D() + user + "'" + Write("empty.jsonl", content) + "'");
      EXPECT_EQ(r.code, 1);
      EXPECT_NE(r.err.find("empty.jsonl is empty"), std::string::npos) << r.err;
    }
  }
  CliRun r = Cli("ingest " + D() + "'" + Write("none.json", "[]") + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("none.json holds no turns"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(data_));  // refused before the store is created
}

// An export that could not be written, or that lacks the graph it should hold, must not exit 0:
// `export > backup.json && forget` would lose the user.
TEST_F(CliTest, AnIncompleteExportFails) {
  std::string f = Write("t.jsonl", "{\"id\":\"a1\",\"speaker\":\"Ana\",\"text\":\"I am allergic to peanuts\"}\n");
  ASSERT_EQ(Cli("ingest " + D() + "--user ana '" + f + "'").code, 0);
  CliRun r = Cli("export " + D() + "--user ana >/dev/full");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("could not write the output"), std::string::npos) << r.err;
  r = Cli("graph " + D() + "--user ana --json >/dev/full");
  EXPECT_EQ(r.code, 1) << r.err;
  // A stored assertion the engine cannot read: the graph is an error, so is the export.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((data_ + "/ontomem.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE assertions SET modality='bogus'", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_GT(sqlite3_changes(db), 0);
  sqlite3_close(db);
  r = Cli("export " + D() + "--user ana");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("graph"), std::string::npos) << r.err;
}

// A FIFO where the database should be would block the first read forever.
TEST_F(CliTest, ADatabaseThatIsNoFileIsRefused) {
  std::filesystem::create_directories(data_);
  ASSERT_EQ(mkfifo((data_ + "/ontomem.db").c_str(), 0600), 0);
  CliRun r = Cli("users " + D());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

TEST_F(CliTest, RefusesDataDirectoryThatIsNotOurs) {
  std::filesystem::create_directories(data_);
  std::string garbage = "this is not a database, it is someone's notes\n";
  Write("data/ontomem.db", garbage);
  CliRun r = Cli("search " + D() + "--user ana 'x'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not an ontomem database"), std::string::npos) << r.err;
  std::string good = Write("g.jsonl", "{\"text\":\"hello\"}\n");
  EXPECT_EQ(Cli("ingest " + D() + "--user ana '" + good + "'").code, 1);
  std::ifstream in(data_ + "/ontomem.db", std::ios::binary);
  std::string after((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(after, garbage);  // untouched
}

TEST_F(CliTest, MissingLexiconNamesTheFix) {
  std::string cmd = "ONTOMEM_LEXICON='" + dir_ + "/nope.bin' '" ONTOMEM_CLI "' search " + D() +
                    "--user ana x 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(out.find("make lexicon"), std::string::npos) << out;
}

TEST_F(CliTest, UnreachableEmbeddingEndpointNamesIt) {
  // Port 9 (discard) on loopback: nothing answers HTTP there.
  CliRun r = Cli("search " + D() + "--user ana --embed-url http://127.0.0.1:9 --embed-model m x");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("Unavailable: embedding endpoint http://127.0.0.1:9/v1/embeddings (model m)"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, FactVerifierEndpointIsCheckedAndItsFailuresReported) {
  const std::string f = Write("jazz.jsonl", "{\"id\":\"j1\",\"speaker\":\"Ana\",\"text\":\"I love jazz.\"}\n");
  CliRun r = Cli("ingest " + D() + "--user ana --verify-url 127.0.0.1:9 '" + f + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("base_url must start with http:// or https://"), std::string::npos) << r.err;
  // Nothing answers HTTP on port 9: the rules' verdict stands, and ingest says the endpoint failed.
  r = Cli("ingest " + D() + "--user ana --verify-url http://127.0.0.1:9 '" + f + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("fact verifier http://127.0.0.1:9: 1 requests, 1 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: 1 of 1 requests to http://127.0.0.1:9 failed"), std::string::npos) << r.err;
  r = Cli("graph " + D() + "--user ana");
  EXPECT_NE(r.out.find("-LIKES-> entity:jazz"), std::string::npos) << r.out;
}

// Two `ontomem ingest` processes write one user at once, one batch (transaction) per turn: both
// finish (a write from a stale cache is re-planned under SQLite's write lock, so a busy second
// writer cannot starve it), nothing is lost, and the stored edge snapshot matches the graph
// replayed from the assertions. The deterministic case of a stale writer is
// HttpCrashTest.ServeAndIngestShareADataDirectory.
TEST_F(CliTest, TwoIngestProcessesOnOneUserKeepTheStoredEdgesTrue) {
  for (const std::string p : {"a", "b"}) {
    std::string lines;
    for (int i = 1; i <= 150; ++i)
      lines += "{\"id\":\"" + p + std::to_string(i) + "\",\"speaker\":\"Ana\",\"session\":\"" + p +
               std::to_string(i) + "\",\"text\":\"I really love jazz music and I play the " + p +
               "-guitar every day\"}\n";
    Write(p + ".jsonl", lines);
  }
  std::string both;
  for (const std::string p : {"a", "b"})
    both += "(ONTOMEM_LEXICON='" + lexicon_ + "' '" ONTOMEM_CLI "' ingest " + D() + "--user ana '" + dir_ + "/" + p +
            ".jsonl' >/dev/null 2>'" + dir_ + "/err_" + p + "'; echo $? >'" + dir_ + "/rc_" + p + "') & ";
  ASSERT_EQ(std::system((both + "wait").c_str()), 0);
  for (const std::string p : {"a", "b"}) {
    std::ifstream rc(dir_ + "/rc_" + p), err(dir_ + "/err_" + p);
    int code = -1;
    rc >> code;
    EXPECT_EQ(code, 0) << std::string(std::istreambuf_iterator<char>(err), {});
  }
  CliRun r = Cli("graph " + D() + "--user ana --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto graph = nlohmann::json::parse(r.out);
  bool shared = false;  // an edge both processes wrote: the test proves nothing without one
  for (const auto& e : graph["edges"]) {
    bool a = false, b = false;
    for (const auto& t : e["source_turns"]) (t.get<std::string>()[0] == 'a' ? a : b) = true;
    shared |= a && b;
  }
  ASSERT_TRUE(shared) << r.out;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((data_ + "/ontomem.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT source, relation, target, valid_from, source_turns FROM edges", -1, &st,
                               nullptr), SQLITE_OK);
  size_t rows = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ++rows;
    auto col = [&](int i) { return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i))); };
    SCOPED_TRACE(col(0) + " " + col(1) + " " + col(2));
    const nlohmann::json* live = nullptr;
    for (const auto& e : graph["edges"])
      if (e["source"] == col(0) && e["relation"] == col(1) && e["target"] == col(2) &&
          e["valid_from"] == sqlite3_column_int64(st, 3))
        live = &e;
    ASSERT_NE(live, nullptr);
    EXPECT_EQ((*live)["source_turns"], nlohmann::json::parse(col(4)));
  }
  int64_t turns = -1;
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM turns", -1, &st, nullptr), SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW) turns = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  EXPECT_EQ(rows, graph["edges"].size());
  EXPECT_EQ(turns, 300);
}

TEST_F(CliTest, HelpOnEveryCommand) {
  for (const char* c : {"", "ingest ", "search ", "forget ", "export ", "users ", "demo ", "bench ",
                        "graph ", "fact ", "bench gen-ipr ", "bench compose-prefeval ",
                        "lexicon ", "lexicon build ", "lexicon check "}) {
    CliRun r = Cli(std::string(c) + "--help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << c;
  }
}

TEST_F(CliTest, ExplicitFactsAndTheGraphCommand) {
  CliRun r = Cli("fact " + D() + "--user ana --relation ALLERGIC_TO --tail peanuts --type allergen");
  ASSERT_EQ(r.code, 0) << r.err;
  r = Cli("graph " + D() + "--user ana --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  int facts = 0;
  for (const auto& e : j["edges"]) {
    if (e["relation"] != "ALLERGIC_TO") continue;  // lifting may add INSTANCE_OF edges
    ++facts;
    EXPECT_EQ(e["target"], "entity:peanuts");
    EXPECT_TRUE(e["explicit"].get<bool>());
    EXPECT_TRUE(e["source_turns"].is_array());
  }
  EXPECT_EQ(facts, 1);
  EXPECT_TRUE(j["nodes"].is_array());
  r = Cli("graph " + D() + "--user ana");
  EXPECT_NE(r.out.find("ALLERGIC_TO"), std::string::npos);
  r = Cli("fact " + D() + "--user ana --relation 'not valid' --tail x");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("relation"), std::string::npos);
  // A fact with a time: given in milliseconds or RFC 3339, it starts there.
  ASSERT_EQ(Cli("fact " + D() + "--user ben --relation LIKES --tail tea --time 2024-01-02T00:00:00Z").code, 0);
  ASSERT_EQ(Cli("fact " + D() + "--user ben --relation LIKES --tail jazz --time 1700000000000").code, 0);
  r = Cli("graph " + D() + "--user ben --json");
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, int64_t> since;
  const auto ben = nlohmann::json::parse(r.out);
  for (const auto& e : ben["edges"])
    if (e["relation"] == "LIKES") since[e["target"].get<std::string>()] = e["valid_from"].get<int64_t>();
  EXPECT_EQ(since["entity:tea"], 1704153600000);
  EXPECT_EQ(since["entity:jazz"], 1700000000000);
  for (const char* bad : {"yesterday", "-5", "1760000000000000"}) {
    r = Cli("fact " + D() + "--user ben --relation LIKES --tail x --time " + bad);
    EXPECT_EQ(r.code, 1) << bad;
    EXPECT_NE(r.err.find("time"), std::string::npos) << bad << ": " << r.err;
  }
  EXPECT_EQ(Cli("graph " + D() + "--user nobody").code, 1);
}

TEST_F(CliTest, DemoRunsOnTheTinyLexicon) {
  CliRun r = Cli("demo --data '" + data_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("D1:3"), std::string::npos);
  EXPECT_EQ(Cli("demo --data '" + data_ + "'").code, 0);  // re-runnable
}

// train extractor --ipr-phrasing / --ipr-entities: extra IPR-synth train sets with hand-written
// templates and entities add turns; a bad file stops training with its name and the list.
TEST_F(CliTest, TrainExtractorTakesExtraPhrasingAndEntitySets) {
  const std::string root = ONTOMEM_SOURCE_DIR;
  auto turns = [](const std::string& out) {
    const size_t at = out.find(" IPR-synth train");
    return at == std::string::npos ? 0 : std::stoul(out.substr(out.rfind('(', at) + 1));
  };
  CliRun plain = Cli(TrainSmallExtractor("m0"));
  ASSERT_EQ(plain.code, 0) << plain.err;
  CliRun extra = Cli(TrainSmallExtractor("m1") + " --ipr-extra-dialogues 5 --ipr-phrasing '" + root +
                     "/data/handwritten/ipr_phrasing_train_a.json' --ipr-entities '" + root +
                     "/data/handwritten/ipr_entities_train_1.json'");
  ASSERT_EQ(extra.code, 0) << extra.err;
  EXPECT_NE(extra.out.find("and 1 extra sets of 5"), std::string::npos) << extra.out;
  EXPECT_GT(turns(extra.out), turns(plain.out)) << plain.out << extra.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/m1/extractor/tagger.bin"));
  CliRun bad = Cli(TrainSmallExtractor("m2") + " --ipr-entities '" + Write("bad.json", R"({"names": ["Ann"]})") + "'");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("\"names\""), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/m2/extractor/tagger.bin"));
}

// train extractor --frame-reader writes frame.bin next to the perceptrons, eval extractor reads
// it (with the lexicon); frame options without --frame-reader or with a missing file train nothing.
TEST_F(CliTest, TrainExtractorWithAFrameReader) {
  const std::string root = ONTOMEM_SOURCE_DIR;
  const std::string chats = root + "/data/handwritten/chats_train2.json";
  CliRun r = Cli(TrainSmallExtractor("f1") + " --frame-reader --frame-dialogues 5 --frame-phrasing '" + root +
                 "/data/handwritten/ipr_phrasing_train_a.json' --frame-negatives '" + chats + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("frame reader (0 hidden units)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/f1/extractor/frame.bin"));
  CliRun e = Cli("eval extractor --models '" + dir_ + "/f1' --lexicon '" + lexicon_ + "' --dataset '" + root +
                 "/data/handwritten/chats_dev2.json'");
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.out.find("frame reader at 0.50"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("evidence"), std::string::npos) << e.out;
  CliRun no_flag = Cli(TrainSmallExtractor("f2") + " --frame-negatives '" + chats + "'");
  EXPECT_EQ(no_flag.code, 2);
  EXPECT_NE(no_flag.err.find("--frame-reader"), std::string::npos) << no_flag.err;
  CliRun missing = Cli(TrainSmallExtractor("f3") + " --frame-reader --frame-negatives '" + dir_ + "/nope.json'");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/f2/extractor/tagger.bin"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/f3/extractor/tagger.bin"));
}

TEST_F(CliTest, TrainExtractorWithFallbackPerceptrons) {
  CliRun r = Cli(TrainSmallExtractor("fb", 200));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("fallback perceptrons: 200 idiom drills"), std::string::npos) << r.out;
  for (const char* f : {"clusters.bin", "tagger.bin", "relation.bin", "scorer.bin"})
    EXPECT_TRUE(std::filesystem::exists(dir_ + "/fb/extractor/fallback/" + f)) << f;
  CliRun e = Cli("eval extractor --models '" + dir_ + "/fb' --dataset '" + std::string(ONTOMEM_SOURCE_DIR) +
                 "/data/handwritten/chats_dev2.json'");
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.out.find("fallback perceptrons"), std::string::npos) << e.out;
  // A retrain without them leaves no stale fallback next to the new models.
  CliRun plain = Cli(TrainSmallExtractor("fb"));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/fb/extractor/fallback"));
  EXPECT_NE(Cli(TrainSmallExtractor("fb", -5)).code, 0);
}

// --orders and --order-seed: the same seed trains the same bytes, another seed other weights,
// and a number of orders out of range is refused before anything is written.
TEST_F(CliTest, TrainExtractorOrderSeedAndOrders) {
  auto tagger = [&](const std::string& out) {
    std::ifstream f(dir_ + "/" + out + "/extractor/tagger.bin", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  CliRun a = Cli(TrainSmallExtractor("o1") + " --orders 2 --order-seed 3");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("averaged over 2 training orders (order seed 3)"), std::string::npos) << a.out;
  ASSERT_EQ(Cli(TrainSmallExtractor("o2") + " --orders 2 --order-seed 3").code, 0);
  ASSERT_EQ(Cli(TrainSmallExtractor("o3") + " --orders 2 --order-seed 4").code, 0);
  ASSERT_FALSE(tagger("o1").empty());
  EXPECT_TRUE(tagger("o1") == tagger("o2"));
  EXPECT_FALSE(tagger("o1") == tagger("o3"));
  CliRun bad = Cli(TrainSmallExtractor("o4") + " --orders 0");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--orders"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/o4"));
}

}  // namespace
}  // namespace ontomem
