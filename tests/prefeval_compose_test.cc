#include "bench/prefeval_compose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/dataset.h"
#include "test_util.h"
#include "text/text.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void WriteFile(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << s;
}

struct FakeItem {
  std::string preference, question, query, options, selection, ack;
};

// Topic names deliberately not among PrefEval's 20.
const std::map<std::string, std::vector<FakeItem>>& FakeTopics() {
  static const auto* topics = new std::map<std::string, std::vector<FakeItem>>{
      {"hobby_pet_rocks",
       {{"I only collect smooth river rocks, never jagged quarry stones.",
         "Where should I go on a weekend trip?",
         "What is a nice present for a friend?", "1. A polished river stone 2. A quarry chunk",
         "The polished river stone, I love smooth rocks.", "Got it, smooth rocks it is."},
        {"I dislike painted rocks and keep mine natural.", "Any craft ideas for my rocks?",
         "What should I do this afternoon?", "1. Paint rocks 2. Hike",
         "Hike, I never paint anything.", "Enjoy the hike."},
        {"I keep my pet rock collection strictly indoors.", "How do I plan a garden?",
         "Where to put a shelf?", "1. Living room 2. Patio", "Living room please.", "Sure."}}},
      {"drink_tea",
       {{"I only drink green tea and never coffee.", "What should I drink in the morning?",
         "Pick a cafe order for me", "1. Sencha 2. Espresso", "Sencha, no coffee for me.",
         "Sencha noted."},
        {"I am allergic to peanuts.", "Suggest a snack for my hike.",
         "Which cookie should I bake?", "1. Oat 2. Peanut butter", "Oat, peanuts make me sick.",
         "Oat cookies then."}}},
      {"garden_zz",
       {{"I grow only native wildflowers.", "Which seeds should I buy this spring?",
         "Plan my balcony", "1. Orchids 2. Native wildflowers", "Native wildflowers.",
         "Great choice."}}},
  };
  return *topics;
}

// Writes a fake PrefEval directory (both kinds) with an extra unknown field per item.
std::string MakeFakePrefEval(const std::string& root) {
  for (const auto& [topic, items] : FakeTopics()) {
    json ex = json::array(), ch = json::array();
    for (const auto& it : items) {
      ex.push_back({{"preference", it.preference}, {"question", it.question},
                    {"explanation", "x"}, {"unknown_extra", 7}});
      ch.push_back({{"preference", it.preference},
                    {"question", it.question},
                    {"implicit_query", it.query},
                    {"options", json::array({"a", "b", "c", "d"})},
                    {"conversation",
                     {{"query", it.query},
                      {"assistant_options", it.options},
                      {"user_selection", it.selection},
                      {"assistant_acknowledgment", it.ack}}},
                    {"aligned_op", "a"},
                    {"unknown_extra", json::object()}});
    }
    WriteFile(fs::path(root) / "explicit_preference" / (topic + ".json"), ex.dump(2));
    WriteFile(fs::path(root) / "implicit_preference" / "choice-based" / (topic + ".json"), ch.dump(2));
  }
  WriteFile(fs::path(root) / "explicit_preference" / "README.txt", "not a topic");
  return root;
}

constexpr int kSessions = 5;
constexpr int kTurnsPerSession = 6;

// Two filler conversations with 5 sessions of 6 turns, QA and observations (to be dropped).
std::string MakeFiller(const std::string& path) {
  json doc = json::array();
  const std::pair<const char*, const char*> speakers[] = {{"Ana", "Ben"}, {"Caro", "Dev"}};
  for (int c = 0; c < 2; ++c) {
    json conv = {{"speaker_a", speakers[c].first}, {"speaker_b", speakers[c].second}};
    for (int s = 1; s <= kSessions; ++s) {
      conv[fmt::format("session_{}_date_time", s)] = fmt::format("1:56 pm on {} May, 2023", s);
      json turns = json::array();
      for (int i = 1; i <= kTurnsPerSession; ++i) {
        json t = {{"speaker", i % 2 ? speakers[c].first : speakers[c].second},
                  {"dia_id", fmt::format("D{}:{}", s, i)},
                  {"text", fmt::format("filler c{} s{} t{} about the weather", c, s, i)}};
        if (i == 3) t["blip_caption"] = "a photo of a cloud";
        turns.push_back(t);
      }
      conv[fmt::format("session_{}", s)] = turns;
    }
    doc.push_back({{"sample_id", fmt::format("f-{}", c)},
                   {"conversation", conv},
                   {"qa", json::array({{{"question", "Old?"}, {"answer", "x"}, {"evidence", {"D1:1"}}, {"category", 4}}})},
                   {"observation", json::object()}});
  }
  WriteFile(path, doc.dump(2));
  return path;
}

struct Fixture {
  testing::TempDir temp{"prefeval-compose"};
  std::string dir = temp.path();
  std::string prefeval = MakeFakePrefEval(dir + "/pe");
  std::string filler = MakeFiller(dir + "/filler.json");
};

bool Disjoint(const std::string& a, const std::string& b) {
  auto ta = text::ContentTerms(a);
  std::set<std::string> sa(ta.begin(), ta.end());
  for (const auto& t : text::ContentTerms(b))
    if (sa.count(t)) return false;
  return true;
}

int SessionNumber(const std::string& session_key) { return std::stoi(session_key.substr(8)); }

void CheckComposed(const std::string& kind, const std::string& out) {
  const bool choice = kind == "choice";
  auto ds = ParseLocomo(out, "composed");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ(ds->samples.size(), 3u);  // max items per topic
  const int first = PrefEvalInsertSessions(kSessions);
  EXPECT_EQ(first, 2);

  std::map<std::pair<std::string, std::string>, int> asked;  // (domain, question) -> count
  for (size_t g = 0; g < ds->samples.size(); ++g) {
    const Sample& s = ds->samples[g];
    const std::string user = g % 2 == 0 ? "Ana" : "Caro";
    EXPECT_EQ(s.sample_id, fmt::format("prefeval-{}-{:03d}-f-{}", kind, g, g % 2));
    // Ids unique and renumbered D<session>:<position>.
    std::set<std::string> ids;
    std::map<std::string, int> pos_in_session;
    std::vector<std::string> filler_texts;
    size_t inserted = 0;
    for (const Turn& t : s.turns) {
      EXPECT_TRUE(ids.insert(t.id).second) << t.id;
      int pos = ++pos_in_session[t.session];
      EXPECT_EQ(t.id, fmt::format("D{}:{}", SessionNumber(t.session), pos));
      if (t.text.rfind("filler ", 0) == 0) filler_texts.push_back(t.text);
      else ++inserted;
    }
    // The filler survives intact and in order.
    ASSERT_EQ(filler_texts.size(), static_cast<size_t>(kSessions * kTurnsPerSession));
    for (int k = 0; k < kSessions * kTurnsPerSession; ++k) {
      int si = k / kTurnsPerSession + 1, ti = k % kTurnsPerSession + 1;
      std::string want = fmt::format("filler c{} s{} t{} about the weather", g % 2, si, ti);
      if (ti == 3) want += " [image: a photo of a cloud]";
      EXPECT_EQ(filler_texts[k], want);
    }
    std::set<std::string> domains;
    EXPECT_EQ(inserted, s.qa.size() * (choice ? 4u : 1u));
    for (const QaItem& q : s.qa) {
      EXPECT_TRUE(domains.insert(q.domain).second) << "two items of one topic for one user";
      ++asked[{q.domain, q.question}];
      EXPECT_EQ(q.category, "prefeval-" + kind);
      EXPECT_EQ(q.speaker, user);
      EXPECT_EQ(q.pathology, std::vector<std::string>{"temporal_gap"});
      const FakeItem& item = FakeTopics().at(q.domain).at(g);
      EXPECT_EQ(q.question, item.question);
      ASSERT_EQ(q.evidence.size(), 1u);
      auto it = std::find_if(s.turns.begin(), s.turns.end(),
                             [&](const Turn& t) { return t.id == q.evidence[0]; });
      ASSERT_NE(it, s.turns.end()) << q.evidence[0];
      const std::string gold_text = choice ? item.selection : item.preference;
      EXPECT_EQ(it->text, gold_text);
      EXPECT_EQ(it->speaker, user);
      EXPECT_LE(SessionNumber(it->session), first) << "inserted after the first sessions";
      if (choice) {
        ASSERT_GE(it - s.turns.begin(), 2);
        ASSERT_NE(it + 1, s.turns.end());
        EXPECT_EQ((it - 2)->text, item.query);
        EXPECT_EQ((it - 2)->speaker, user);
        EXPECT_EQ((it - 1)->text, item.options);
        EXPECT_EQ((it - 1)->speaker, "Assistant");
        EXPECT_EQ((it + 1)->text, item.ack);
        EXPECT_EQ((it + 1)->speaker, "Assistant");
        EXPECT_EQ((it - 2)->session, it->session);
        EXPECT_EQ((it + 1)->session, it->session);
      }
      ASSERT_TRUE(q.implicit.has_value());
      EXPECT_EQ(*q.implicit, Disjoint(q.question, gold_text)) << q.question;
    }
  }
  // Every item asked exactly once.
  size_t total = 0;
  for (const auto& [topic, items] : FakeTopics()) {
    for (const auto& it : items) {
      EXPECT_EQ((asked[{topic, it.question}]), 1) << topic << ": " << it.question;
      ++total;
    }
  }
  EXPECT_EQ(asked.size(), total);
}

TEST(PrefEvalCompose, TopicsKeepsOnlyTheNamedTopicsAndRejectsUnknownOnes) {
  Fixture fx;
  std::string out;
  ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, "explicit", 7, {"drink_tea"}}, &out).ok());
  auto ds = ParseLocomo(out, "composed");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  size_t asked = 0;
  for (const auto& s : ds->samples)
    for (const auto& q : s.qa) {
      EXPECT_EQ(q.domain, "drink_tea") << q.question;
      ++asked;
    }
  EXPECT_EQ(asked, FakeTopics().at("drink_tea").size());
  EXPECT_EQ(out.find("river rocks"), std::string::npos);  // no turn of the other topic
  Status st = ComposePrefEval({fx.prefeval, fx.filler, "explicit", 7, {"drink_tea", "nope"}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("\"nope\""), std::string::npos) << st.message();
}

TEST(PrefEvalCompose, ExplicitComposesEveryItemOnce) {
  Fixture fx;
  std::string out;
  ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, "explicit", 7, {}}, &out).ok());
  CheckComposed("explicit", out);
  // Hand-checked implicit flags: "drink" is shared; the peanut question shares nothing.
  auto ds = ParseLocomo(out, "composed");
  ASSERT_TRUE(ds.ok());
  for (const auto& s : ds->samples)
    for (const auto& q : s.qa) {
      if (q.question == "What should I drink in the morning?") {
        EXPECT_FALSE(*q.implicit);
      }
      if (q.question == "Suggest a snack for my hike.") {
        EXPECT_TRUE(*q.implicit);
      }
    }
  // The filler's QA is not carried over.
  EXPECT_EQ(out.find("Old?"), std::string::npos);
}

TEST(PrefEvalCompose, ChoiceComposesExchangeWithSelectionAsGold) {
  Fixture fx;
  std::string out;
  ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, "choice", 7, {}}, &out).ok());
  CheckComposed("choice", out);
}

TEST(PrefEvalCompose, DeterministicPerSeed) {
  Fixture fx;
  for (const char* kind : {"explicit", "choice"}) {
    std::string a, b, c;
    ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, kind, 1, {}}, &a).ok());
    ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, kind, 1, {}}, &b).ok());
    ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, kind, 2, {}}, &c).ok());
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // Same questions, different placement.
    auto da = ParseLocomo(a, "a"), dc = ParseLocomo(c, "c");
    ASSERT_TRUE(da.ok() && dc.ok());
    std::vector<std::string> ea, ec;
    for (size_t g = 0; g < da->samples.size(); ++g)
      for (size_t i = 0; i < da->samples[g].qa.size(); ++i) {
        EXPECT_EQ(da->samples[g].qa[i].question, dc->samples[g].qa[i].question);
        ea.push_back(da->samples[g].qa[i].evidence[0]);
        ec.push_back(dc->samples[g].qa[i].evidence[0]);
      }
    EXPECT_NE(ea, ec);
  }
}

TEST(PrefEvalCompose, UniformHelperIsInRangeAndStable) {
  std::mt19937_64 rng(42);
  std::vector<int> counts(3);
  for (int i = 0; i < 3000; ++i) {
    uint64_t v = PrefEvalUniform(rng, 3);
    ASSERT_LT(v, 3u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_GT(c, 900);
  std::mt19937_64 r1(5), r2(5);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(PrefEvalUniform(r1, 1000), PrefEvalUniform(r2, 1000));
  EXPECT_EQ(PrefEvalUniform(r1, 1), 0u);
  EXPECT_EQ(PrefEvalInsertSessions(0), 0);
  EXPECT_EQ(PrefEvalInsertSessions(1), 1);
  EXPECT_EQ(PrefEvalInsertSessions(19), 5);
  EXPECT_EQ(PrefEvalInsertSessions(32), 8);
}

TEST(PrefEvalCompose, ErrorsNameTheFile) {
  Fixture fx;
  std::string out;
  // Missing directory.
  Status st = ComposePrefEval({fx.dir + "/nope", fx.filler, "explicit", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find(fx.dir + "/nope"), std::string::npos) << st.message();
  // Bad kind.
  st = ComposePrefEval({fx.prefeval, fx.filler, "personas", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // Missing filler.
  st = ComposePrefEval({fx.prefeval, fx.dir + "/missing.json", "explicit", 1, {}}, &out);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("missing.json"), std::string::npos) << st.message();
  // Malformed filler.
  WriteFile(fx.dir + "/bad_filler.json", "[{\"sample_id\": ");
  st = ComposePrefEval({fx.prefeval, fx.dir + "/bad_filler.json", "explicit", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("bad_filler.json"), std::string::npos) << st.message();
  // Malformed topic file.
  const std::string bad = fx.prefeval + "/explicit_preference/broken_topic.json";
  WriteFile(bad, "[{\"preference\": \"x\",");
  st = ComposePrefEval({fx.prefeval, fx.filler, "explicit", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("broken_topic.json"), std::string::npos) << st.message();
  // Missing field: names file and index.
  WriteFile(bad, R"([{"preference": "a", "question": "b"}, {"preference": "c"}])");
  st = ComposePrefEval({fx.prefeval, fx.filler, "explicit", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("broken_topic.json: [1]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("\"question\""), std::string::npos) << st.message();
  fs::remove(bad);
  // Choice item without the selection.
  const std::string bad_choice = fx.prefeval + "/implicit_preference/choice-based/broken_choice.json";
  WriteFile(bad_choice, R"([{"question": "q", "conversation": {"query": "a", "assistant_options": "b",
                             "assistant_acknowledgment": "d"}}])");
  st = ComposePrefEval({fx.prefeval, fx.filler, "choice", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("broken_choice.json: [0].conversation"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("user_selection"), std::string::npos) << st.message();
  // Empty PrefEval directory.
  fs::create_directories(fx.dir + "/empty/explicit_preference");
  st = ComposePrefEval({fx.dir + "/empty", fx.filler, "explicit", 1, {}}, &out);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("explicit_preference"), std::string::npos) << st.message();
}

// A session_<n> that is not a list of turns would lose that session from the filler.
TEST(PrefEvalCompose, FillerSessionThatIsNotAListIsRefused) {
  Fixture fx;
  json doc = json::parse(std::ifstream(fx.filler));
  doc[1]["conversation"]["session_3"] = {{"text", "a session as an object"}};
  const std::string bad = fx.dir + "/session_not_list.json";
  WriteFile(bad, doc.dump());
  std::string out;
  Status st = ComposePrefEval({fx.prefeval, bad, "explicit", 1, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find(bad + ": [1].conversation.session_3: not a list of turns"), std::string::npos)
      << st.message();
  EXPECT_TRUE(out.empty());
}

// Persona conversations do not say which user turn states the preference: the composer labels
// the one sharing the most content terms (at least two, strictly most) and leaves the rest out.
TEST(PrefEvalCompose, PersonaLabelsTheStatingTurnAndLeavesOutAmbiguousItems) {
  Fixture fx;
  const fs::path file = fs::path(fx.prefeval) / "implicit_preference" / "persona-driven" / "drink_tea.json";
  json conv = json::object();
  for (int i = 0; i <= 10; ++i)  // keys "0".."10": "10" sorts before "2" as text
    conv[std::to_string(i)] = {{"user", fmt::format("Planning the garden, step {} of the trip.", i)},
                               {"assistant", fmt::format("Reply {}.", i)}};
  conv["10"]["user"] = "Oh and I never drink coffee, only green tea. Anyway, what about tulips?";
  json items = json::array();
  items.push_back({{"preference", "I only drink green tea and never coffee."}, {"question", "Morning plans?"},
                   {"conversation", conv}});
  items.push_back({{"preference", "I am allergic to peanuts and tree nuts."}, {"question", "A snack?"},
                   {"conversation", {{"0", {{"user", "Peanuts and nuts at the fair."}, {"assistant", "a"}}},
                                     {"1", {{"user", "The peanuts and the nuts again."}, {"assistant", "b"}}}}}});
  items.push_back({{"preference", "I dislike crowded beaches."}, {"question", "Holiday?"},
                   {"conversation", {{"0", {{"user", "Crowds at the museum."}, {"assistant", "c"}}}}}});
  WriteFile(file, items.dump(2));
  std::string out;
  ComposeStats stats;
  ASSERT_TRUE(ComposePrefEval({fx.prefeval, fx.filler, "persona", 3, {}}, &out, &stats).ok());
  EXPECT_EQ(stats.questions, 1u);
  EXPECT_EQ(stats.unlabelled, 2u);  // a tie at two shared terms; one shared term only
  EXPECT_EQ(out.find("tree nuts"), std::string::npos);
  EXPECT_EQ(out.find("Crowds at the museum"), std::string::npos);  // left-out items are not inserted
  auto ds = ParseLocomo(out, "composed");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ(ds->samples[0].qa.size(), 1u);
  const Sample& s = ds->samples[0];
  const QaItem& q = s.qa[0];
  EXPECT_EQ(q.category, "prefeval-persona");
  EXPECT_EQ(q.question, "Morning plans?");
  ASSERT_EQ(q.evidence.size(), 1u);
  auto gold = std::find_if(s.turns.begin(), s.turns.end(), [&](const Turn& t) { return t.id == q.evidence[0]; });
  ASSERT_NE(gold, s.turns.end());
  EXPECT_EQ(gold->text, conv["10"]["user"].get<std::string>());
  EXPECT_EQ(gold->speaker, "Ana");
  // The whole conversation is inserted in turn order, user and assistant alternating.
  ASSERT_GE(gold - s.turns.begin(), 20);
  for (int i = 0; i <= 10; ++i) {
    const Turn& u = *(gold - 20 + 2 * i);
    EXPECT_EQ(u.text, conv[std::to_string(i)]["user"].get<std::string>()) << i;
    EXPECT_EQ(u.speaker, "Ana");
    ASSERT_NE(gold - 19 + 2 * i, s.turns.end());
    EXPECT_EQ((gold - 19 + 2 * i)->speaker, "Assistant");
    EXPECT_EQ((gold - 19 + 2 * i)->text, fmt::format("Reply {}.", i));
  }
  // A turn key that is not a number is an error naming file and item.
  items[0]["conversation"]["x1"] = {{"user", "u"}, {"assistant", "a"}};
  WriteFile(file, items.dump(2));
  Status st = ComposePrefEval({fx.prefeval, fx.filler, "persona", 3, {}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("drink_tea.json: [0].conversation"), std::string::npos) << st.message();
}

TEST(PrefEvalCompose, RealPrefEvalAndLocomoDev) {
  const fs::path root = fs::path(ONTOMEM_SOURCE_DIR) / ".." / "shared" / "data";
  const fs::path pe = root / "prefeval", filler = root / "locomo" / "locomo_dev5.json";
  if (!fs::is_directory(pe / "explicit_preference") || !fs::exists(filler))
    GTEST_SKIP() << "no PrefEval or LoCoMo data under " << root;
  for (const char* kind : {"explicit", "choice", "persona"}) {
    const bool persona = std::string(kind) == "persona";
    std::string out;
    ComposeStats stats;
    Status st = ComposePrefEval({pe.string(), filler.string(), kind, 1, {}}, &out, &stats);
    ASSERT_TRUE(st.ok()) << st.ToString();
    auto ds = ParseLocomo(out, kind);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    // 12 topics of 31..62 items: 609 items, one user per item index (62).
    EXPECT_EQ(ds->samples.size(), 62u) << kind;
    size_t questions = 0, implicit = 0;
    std::set<std::string> domains;
    for (const auto& s : ds->samples) {
      std::set<std::string> ids;
      for (const auto& t : s.turns) EXPECT_TRUE(ids.insert(t.id).second) << s.sample_id << " " << t.id;
      for (const auto& q : s.qa) {
        ++questions;
        implicit += q.implicit.value_or(false);
        domains.insert(q.domain);
        ASSERT_EQ(q.evidence.size(), 1u);
        EXPECT_TRUE(ids.count(q.evidence[0])) << s.sample_id << " " << q.evidence[0];
      }
    }
    EXPECT_EQ(questions, stats.questions) << kind;
    EXPECT_EQ(stats.questions + stats.unlabelled, 609u) << kind;
    // Persona: 562 of 609 items have one user turn clearly stating the preference.
    EXPECT_EQ(questions, persona ? 562u : 609u) << kind;
    EXPECT_EQ(domains.size(), 12u) << kind;
    EXPECT_GT(implicit, 0u);
    EXPECT_LT(implicit, questions);
    std::printf("[%s] %zu users, %zu questions, %zu implicit (no shared content lemma)\n", kind,
                ds->samples.size(), questions, implicit);
  }
}

// The hand-written persona topics (data/handwritten/persona_dev and persona_train: written in
// session 21 by helpers, in PrefEval's persona-driven format, on topics PrefEval does not have):
// every item labels its stating turn and asks a question sharing no content word with it, and
// no topic or preference is in both sets.
TEST(PrefEvalCompose, HandWrittenPersonaTopicsAreCompleteAndImplicit) {
  const fs::path filler = fs::path(ONTOMEM_SOURCE_DIR) / ".." / "shared" / "data" / "locomo" / "locomo_dev5.json";
  if (!fs::exists(filler)) GTEST_SKIP() << "no LoCoMo data at " << filler;
  const fs::path prefeval = fs::path(ONTOMEM_SOURCE_DIR) / ".." / "shared" / "data" / "prefeval";
  std::set<std::string> prefeval_topics;
  if (fs::is_directory(prefeval / "implicit_preference" / "persona-driven"))
    for (const auto& e : fs::directory_iterator(prefeval / "implicit_preference" / "persona-driven"))
      prefeval_topics.insert(e.path().stem().string());
  std::set<std::string> topics, preferences;
  for (const char* set : {"persona_dev", "persona_train"}) {
    const fs::path dir = fs::path(ONTOMEM_SOURCE_DIR) / "data" / "handwritten" / set;
    std::string out;
    ComposeStats stats;
    Status st = ComposePrefEval({dir.string(), filler.string(), "persona", 1, {}}, &out, &stats);
    ASSERT_TRUE(st.ok()) << st.ToString();
    auto ds = ParseLocomo(out, set);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    EXPECT_EQ(stats.unlabelled, 0u) << set;
    size_t questions = 0;
    std::set<std::string> here;
    for (const auto& s : ds->samples)
      for (const auto& q : s.qa) {
        ++questions;
        here.insert(q.domain);
        EXPECT_TRUE(q.implicit.value_or(false)) << set << ": " << q.question;
      }
    EXPECT_EQ(questions, 20 * here.size()) << set;
    for (const auto& t : here) {
      EXPECT_FALSE(prefeval_topics.count(t)) << t << " is a PrefEval topic";
      EXPECT_TRUE(topics.insert(t).second) << t << " is in two sets";
    }
    for (const auto& t : here) {
      const json items = json::parse(std::ifstream(dir / "implicit_preference" / "persona-driven" / (t + ".json")));
      for (const auto& item : items)
        EXPECT_TRUE(preferences.insert(item["preference"].get<std::string>()).second) << item["preference"];
    }
  }
  EXPECT_GE(topics.size(), 12u);
}

}  // namespace
}  // namespace ontomem
