// The baselines beside `full` (rewrite, ppr) and full's uncertainty handling, on a real
// SQLite-backed Memory with a fake extractor and embedder.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/memory_impl.h"
#include "retrieve/profile.h"
#include "fake_embedder.h"
#include "fake_memory.h"
#include "fake_extractor.h"
#include "test_util.h"

namespace ontomem {
namespace {

// "<Name>: I love X" style turns: "I love X" -> speaker LIKES X; with `relatives`, also
// "I live with my X" -> HAS_RELATIVE X.
std::shared_ptr<FactExtractor> LoveExtractor(bool relatives = false) {
  testing::FakeExtractorOptions o;
  o.tail_type = "movie";
  o.domain = "movies_tv";
  o.confidence = 0.95f;
  o.relatives = relatives;
  return std::make_shared<testing::FakeExtractor>(o);
}

using testing::TimedTurn;

class RetrievalMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_ = testing::OpenFakeMemory(dir_);
    ASSERT_NE(mem_, nullptr);
    SetPipeline();
    std::vector<Turn> turns = {TimedTurn("D1:1", "Ana", "I love titanic", 1000),
                               TimedTurn("D1:2", "Bo", "I love jaws", 2000),
                               TimedTurn("D1:3", "Ana", "the film festival downtown was great", 3000)};
    for (int i = 0; i < 40; ++i)
      turns.push_back(TimedTurn(fmt::format("D1:{}", i + 4), "Ana", fmt::format("groceries and laundry errand {}", i), 4000 + i));
    ASSERT_TRUE(mem_->IngestBatch(ana_, turns).ok());
  }
  void SetPipeline(bool relatives = false) {
    GraphContext ctx;
    ctx.detect_domains = [](std::string_view query, const std::vector<std::string>& context) {
      std::string text(query);
      for (const auto& c : context) text.append(" ").append(c);
      std::vector<std::pair<std::string, float>> out;
      if (text.find("watch") != std::string::npos) out.emplace_back("movies_tv", 1.0f);
      return out;
    };
    ctx.domain_cues = [](const std::string& domain) {
      return domain == "movies_tv" ? std::vector<std::string>{"film", "cinema"} : std::vector<std::string>{};
    };
    mem_->set_fact_pipeline(LoveExtractor(relatives), GraphPolicy{}, ctx);
  }
  void TearDown() override {
    mem_.reset();
  }
  SearchResult Search(const std::string& query, SearchOptions so) {
    auto r = mem_->Search(ana_, query, so);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : SearchResult{};
  }

  const testing::TempDir temp_{"ontomem-methods"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::unique_ptr<MemoryImpl> mem_;
  const UserKey ana_{"acme", "ana"};
};

TEST_F(RetrievalMethodsTest, RewriteAddsTheDomainsCueWordsToTheDenseQuery) {
  SearchOptions so;
  so.k = 3;
  so.method = Method::kDense;
  // "watch" shares no word with any turn: plain dense cannot tell the film turn apart.
  auto dense = Search("what should we watch", so);
  so.method = Method::kRewrite;
  auto rewrite = Search("what should we watch", so);
  EXPECT_EQ(rewrite.method, "rewrite");
  EXPECT_EQ(rewrite.query_domains, std::vector<std::string>{"movies_tv"});
  ASSERT_FALSE(rewrite.hits.empty());
  EXPECT_EQ(rewrite.hits[0].turn.turn.id, "D1:3");
  EXPECT_GT(rewrite.hits[0].dense_score, dense.hits.empty() ? 0.0 : dense.hits[0].dense_score);
  EXPECT_EQ(rewrite.hits[0].bm25_rank, 0);  // no lexical view
}

TEST_F(RetrievalMethodsTest, AnEdgeOfARunnerUpQueryDomainKeepsItsDomainCredit) {
  // The classifier puts the request's true domain third ("what's a weeknight winner?").
  GraphContext ctx;
  ctx.detect_domains = [](std::string_view, const std::vector<std::string>&) {
    return std::vector<std::pair<std::string, float>>{{"food_diet", 0.5f}, {"productivity", 0.3f}, {"movies_tv", 0.2f}};
  };
  mem_->set_fact_pipeline(LoveExtractor(), GraphPolicy{}, ctx);
  SearchOptions so;
  so.k = 3;
  so.method = Method::kFull;
  so.asker = "Ana";
  auto graph_score = [&](size_t domains) {
    RetrieverConfig rc;
    rc.use_combiner = false;
    rc.max_query_domains = domains;
    mem_->set_retriever_config(rc);
    auto r = Search("what is a good winner for tonight", so);
    EXPECT_EQ(r.query_domains.size(), std::min<size_t>(domains, 3));
    for (const Hit& h : r.hits)
      if (h.turn.turn.id == "D1:1") return h.graph_score;
    return -1.0;
  };
  const double two = graph_score(2), three = graph_score(3);
  EXPECT_GE(two, 0.0);  // found through its edge's dense side either way
  EXPECT_GT(three, two);
}

TEST_F(RetrievalMethodsTest, PprRanksTheTurnsOfTheEntityTheQueryNames) {
  SearchOptions so;
  so.k = 3;
  so.method = Method::kPpr;
  auto r = Search("anything like jaws", so);
  EXPECT_EQ(r.method, "ppr");
  EXPECT_GT(r.graph_candidates, 0);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].turn.turn.id, "D1:2");
  // The asker's own preferences are reached through her node when she says "I".
  so.asker = "Ana";
  auto mine = Search("what do I enjoy", so);
  ASSERT_FALSE(mine.hits.empty());
  EXPECT_EQ(mine.hits[0].turn.turn.id, "D1:1");
  // Nothing in the graph is named and nobody asks: dense order, like method dense.
  so.asker.clear();
  auto none = Search("laundry errand", so);
  so.method = Method::kDense;
  auto dense = Search("laundry errand", so);
  ASSERT_FALSE(none.hits.empty());
  EXPECT_EQ(none.graph_candidates, 0);
  EXPECT_EQ(none.hits[0].turn.turn.id, dense.hits[0].turn.turn.id);
}

TEST_F(RetrievalMethodsTest, UncertaintyExpandsOnceWithinTheLatencyBudgetAndSaysSo) {
  RetrieverConfig always;
  always.uncertainty_margin = 1.0f;  // every ranking counts as a near tie
  always.graph_min_weight = 0.0f;
  mem_->set_retriever_config(always);
  SearchOptions so;
  so.k = 5;
  so.method = Method::kFull;
  so.asker = "Ana";
  so.latency_budget_us = 1000000;
  auto hop = Search("what should I watch", so);
  EXPECT_EQ(hop.route, "graph-first");
  EXPECT_EQ(hop.uncertainty, "graph-hop");
  EXPECT_GE(hop.view_overlap, 0.0);
  EXPECT_LE(hop.view_overlap, 1.0);
  // Without an asker the graph proposes nothing: the expansion is a dense probe.
  so.asker.clear();
  auto probe = Search("groceries", so);
  EXPECT_EQ(probe.route, "dense-first");
  EXPECT_EQ(probe.uncertainty, "dense-probe");
  EXPECT_EQ(probe.view_overlap, -1);
  // A budget too small for a second pass: no expansion, and the response says why.
  so.asker = "Ana";
  so.latency_budget_us = 1;
  auto skipped = Search("what should I watch", so);
  EXPECT_EQ(skipped.uncertainty, "skipped-latency");
  // Budget 0 turns expansion off.
  so.latency_budget_us = 0;
  EXPECT_EQ(Search("what should I watch", so).uncertainty, "none");
  // Thresholds that never fire: the ranking is trusted as it is.
  RetrieverConfig never;
  never.uncertainty_margin = 0.0f;
  never.uncertainty_min_overlap = 0.0f;
  mem_->set_retriever_config(never);
  so.latency_budget_us = 1000000;
  EXPECT_EQ(Search("what should I watch", so).uncertainty, "none");
}

TEST_F(RetrievalMethodsTest, FeedbackFeedsTheProfileViewAndSurvivesReopen) {
  SearchOptions so;
  so.k = 43;
  so.method = Method::kFull;
  so.asker = "Ana";
  // The 40 errands tie on every view and share one calibrated rank above the festival turn;
  // a profile weight that can outweigh such a block shows the mechanism (the default 0.1 moves
  // a turn past neighbours, not past a block that scores 0.25 higher).
  RetrieverConfig rc;
  rc.w_profile = 0.5f;
  mem_->set_retriever_config(rc);
  auto before = Search("what should I watch", so);
  auto rank_of = [](const SearchResult& r, const std::string& id) {
    for (size_t i = 0; i < r.hits.size(); ++i)
      if (r.hits[i].turn.turn.id == id) return static_cast<int>(i);
    return -1;
  };
  const int festival_before = rank_of(before, "D1:3");
  ASSERT_GT(festival_before, 0);
  for (const auto& h : before.hits) EXPECT_EQ(h.profile_score, 0);  // no feedback yet
  Feedback f;
  f.query_id = before.query_id;
  f.missed = {"D1:3"};
  f.wrong = {"D1:1"};
  ASSERT_TRUE(mem_->AddFeedback(ana_, f).ok());
  auto after = Search("what should I watch", so);
  EXPECT_LT(rank_of(after, "D1:3"), festival_before);
  EXPECT_GT(after.hits[rank_of(after, "D1:3")].profile_score, 0);
  EXPECT_LT(after.hits[rank_of(after, "D1:1")].profile_score, 0);
  // The profile is rebuilt from the stored feedback on open.
  Options o;
  o.data_dir = dir_;
  auto emb = std::make_shared<testing::FakeEmbedder>(1024, "fake-1024");
  o.embedder = emb;
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  mem_.reset();
  auto store = OpenSqliteStore(dir_, false, Durability::kNormal);
  ASSERT_TRUE(store.ok());
  mem_ = std::make_unique<MemoryImpl>(o, std::move(*store), emb);
  SetPipeline();
  mem_->set_retriever_config(rc);
  auto reopened = Search("what should I watch", so);
  ASSERT_EQ(reopened.hits.size(), after.hits.size());
  for (size_t i = 0; i < after.hits.size(); ++i) {
    EXPECT_EQ(reopened.hits[i].turn.turn.id, after.hits[i].turn.turn.id);
    EXPECT_FLOAT_EQ(reopened.hits[i].profile_score, after.hits[i].profile_score);
  }
}

// Ingest embeds the tails of new edges, so a user's first graph-first search embeds only its
// own text: the graph view's tail similarity finds the label vectors cached.
TEST_F(RetrievalMethodsTest, IngestEmbedsEdgeTailsSoSearchesDoNot) {
  const testing::TempDir temp("ontomem-labels");
  const std::string& dir = temp.path();
  Options o;
  o.data_dir = dir;
  auto emb = std::make_shared<testing::FakeEmbedder>(1024, "fake-1024");
  emb->record = true;
  o.embedder = emb;
  o.knowledge_lexicon = false;  // hermetic: not the machine's lexicon
  auto store = OpenSqliteStore(dir, true, Durability::kNormal);
  ASSERT_TRUE(store.ok());
  mem_ = std::make_unique<MemoryImpl>(o, std::move(*store), emb);
  SetPipeline();
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D1:1", "Ana", "I love titanic", 1000),
                                       TimedTurn("D1:2", "Ana", "groceries and laundry", 2000)})
                  .ok());
  EXPECT_TRUE(emb->Saw("titanic"));  // the edge's tail, embedded at ingest
  emb->ClearSeen();
  SearchOptions so;
  so.k = 2;
  so.asker = "Ana";
  const auto r = Search("what should I watch", so);
  EXPECT_EQ(r.route.rfind("graph-first", 0), 0u) << r.route;
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].turn.turn.id, "D1:1");
  EXPECT_TRUE(emb->Saw("what should I watch"));
  EXPECT_FALSE(emb->Saw("titanic"));
  mem_.reset();
}

TEST_F(RetrievalMethodsTest, TimeExpressionsFavourTurnsSaidThen) {
  constexpr int64_t kDay = 86400000, kNow = 1692100800000;  // 2023-08-15 12:00 UTC
  const UserKey bo{"acme", "bo"};
  std::vector<Turn> turns;
  for (int i = 0; i < 30; ++i)  // one turn a day for 30 days, the same words each time (but the day)
    turns.push_back(TimedTurn(fmt::format("D{}", i), "Bo", fmt::format("we talked about the garden plan, day {}", i),
                              kNow - (30 - i) * kDay));
  ASSERT_TRUE(mem_->IngestBatch(bo, turns).ok());
  SearchOptions so;
  so.k = 3;
  so.method = Method::kFull;
  so.now_ms = kNow;
  auto r = mem_->Search(bo, "what was the garden plan two weeks ago", so);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->time_phrase, "two weeks ago");
  ASSERT_EQ(r->hits.size(), 3u);
  for (const auto& h : r->hits) {
    EXPECT_GE(h.turn.turn.time_ms, r->time_from_ms);
    EXPECT_LT(h.turn.turn.time_ms, r->time_to_ms);
  }
  auto none = mem_->Search(bo, "what was the garden plan", so);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->time_phrase, "");
}

TEST_F(RetrievalMethodsTest, VerbatimRepeatsAreReturnedOnceAtTheirBestTurn) {
  // Three copies of one line (case and surrounding space differ) outrank everything else.
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "Our street is dug up again", 5000),
                                       TimedTurn("D2:2", "Ana", "  our street is dug up AGAIN ", 6000),
                                       TimedTurn("D2:3", "Ana", "Our street is dug up again", 7000)})
                  .ok());
  for (Method m : {Method::kBm25, Method::kDense, Method::kFusion, Method::kFull}) {
    SearchOptions so;
    so.k = 4;
    so.method = m;
    RetrieverConfig rc;
    mem_->set_retriever_config(rc);
    auto once = Search("street dug up again", so);
    rc.collapse_duplicates = false;
    mem_->set_retriever_config(rc);
    auto all = Search("street dug up again", so);
    size_t copies = 0;
    for (const Hit& h : once.hits) copies += h.turn.turn.id.rfind("D2:", 0) == 0;
    EXPECT_EQ(copies, 1u) << MethodName(m);
    // The freed slots go to other turns (bm25 returns only turns sharing a word).
    if (m != Method::kBm25) {
      ASSERT_EQ(once.hits.size(), 4u) << MethodName(m);
    }
    ASSERT_FALSE(all.hits.empty());
    EXPECT_EQ(once.hits[0].turn.turn.id, all.hits[0].turn.turn.id) << MethodName(m);  // at its best turn
    size_t all_copies = 0;
    for (const Hit& h : all.hits) all_copies += h.turn.turn.id.rfind("D2:", 0) == 0;
    EXPECT_EQ(all_copies, 3u) << MethodName(m);
    EXPECT_GE(once.hits.size(), all.hits.size() - 2) << MethodName(m);
    // The same per request, with the engine's default left on.
    mem_->set_retriever_config(RetrieverConfig{});
    so.collapse_duplicates = false;
    auto asked = Search("street dug up again", so);
    size_t asked_copies = 0;
    for (const Hit& h : asked.hits) asked_copies += h.turn.turn.id.rfind("D2:", 0) == 0;
    EXPECT_EQ(asked_copies, 3u) << MethodName(m);
  }
}

TEST_F(RetrievalMethodsTest, WhatTheCallerJustSaidIsNotReturnedButOlderCopiesAre) {
  // A host that stores every turn as it is said: its last two turns are the search's context
  // and its question is stored too; all three match the search best, and it holds them already.
  // The same line said long before is a memory.
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D3:0", "Ana", "We should plan the film night", 7000),
                                       TimedTurn("D3:f1", "Bo", "groceries are done", 7100),
                                       TimedTurn("D3:f2", "Ana", "laundry is done", 7200),
                                       TimedTurn("D3:1", "Ana", "We should plan the film night", 8000),
                                       TimedTurn("D3:2", "Bo", " we should plan the FILM night", 8100),
                                       TimedTurn("D3:3", "Ana", "Which film night plan?", 8200)})
                  .ok());
  auto count = [](const SearchResult& r, std::initializer_list<const char*> ids) {
    size_t n = 0;
    for (const Hit& h : r.hits)
      for (const char* id : ids) n += h.turn.turn.id == id;
    return n;
  };
  for (Method m : {Method::kBm25, Method::kDense, Method::kFusion, Method::kFull}) {
    SearchOptions so;
    so.k = 5;
    so.method = m;
    so.context = {"Any idea for Friday?", "We should plan the film night"};
    RetrieverConfig rc;
    mem_->set_retriever_config(rc);
    auto skipped = Search("which film night plan?", so);
    EXPECT_EQ(count(skipped, {"D3:1", "D3:2", "D3:3"}), 0u) << MethodName(m);
    EXPECT_EQ(count(skipped, {"D3:0"}), 1u) << MethodName(m);
    rc.skip_context_echoes = false;
    mem_->set_retriever_config(rc);
    // The question and one copy of the context line (the copies collapse).
    EXPECT_EQ(count(Search("which film night plan?", so), {"D3:0", "D3:1", "D3:2", "D3:3"}), 2u) << MethodName(m);
  }
}

TEST_F(RetrievalMethodsTest, TheAskersHouseholdGovernsRequestsThatInvolveOthers) {
  SetPipeline(/*relatives=*/true);
  ASSERT_TRUE(mem_->IngestBatch(ana_, {TimedTurn("D2:1", "Ana", "I live with my partner who hates subtitles", 9000)}).ok());
  SearchOptions so;
  so.k = 50;
  so.method = Method::kFull;
  so.asker = "Ana";
  auto path_of = [&](const SearchResult& r, const std::string& id) {
    for (const Hit& h : r.hits)
      if (h.turn.turn.id == id) return h.path;
    return std::string("(not returned)");
  };
  // Only the asker: her partner's turn is no graph candidate.
  EXPECT_EQ(path_of(Search("what should I watch tonight", so), "D2:1"), "");
  // With others, in the request or the conversation before it: it is.
  const std::string rel = "person:ana -HAS_RELATIVE-> entity:partner who hates subtitles";
  EXPECT_EQ(path_of(Search("what should we watch tonight", so), "D2:1"), rel);
  so.context = {"Everyone is coming over later."};
  EXPECT_EQ(path_of(Search("what should I watch tonight", so), "D2:1"), rel);
  RetrieverConfig rc;
  rc.group_from_context = false;
  mem_->set_retriever_config(rc);
  EXPECT_EQ(path_of(Search("what should I watch tonight", so), "D2:1"), "");
  rc.graph_group_relations.clear();
  mem_->set_retriever_config(rc);
  so.context.clear();
  EXPECT_EQ(path_of(Search("what should we watch tonight", so), "D2:1"), "");
}

TEST(RetrievalProfile, DecaysCapsAndStaysSmall) {
  ProfileConfig c;
  c.max_turns = 100;
  RetrievalProfile p(c);
  EXPECT_TRUE(p.empty());
  auto none = [](const std::string&) { return std::vector<std::string>{}; };
  Feedback first;
  first.used = {"old"};
  p.Record(first, none);
  const float fresh = p.Score("old", "");
  EXPECT_GT(fresh, 0);
  for (int i = 0; i < 500; ++i) {
    Feedback f;
    f.used = {fmt::format("t{}", i)};  // (a "t" + string chain draws GCC 12's false -Wrestrict)
    f.wrong = {fmt::format("w{}", i)};
    p.Record(f, [](const std::string& id) { return std::vector<std::string>{id[0] == 't' ? "LIKES" : "USES"}; });
  }
  EXPECT_EQ(p.records(), 501u);
  EXPECT_LT(p.Score("old", ""), fresh);              // decayed (or forgotten)
  EXPECT_GT(p.Score("t499", "LIKES"), p.Score("t499", ""));
  EXPECT_LT(p.Score("w499", "USES"), 0);
  EXPECT_LT(p.MemoryBytes(), size_t{50} << 10);      // capped near the 50 KB the design asks
}

TEST(MethodNames, RoundTrip) {
  for (Method m : {Method::kDense, Method::kBm25, Method::kFusion, Method::kFull, Method::kRewrite, Method::kPpr}) {
    Method back;
    ASSERT_TRUE(ParseMethod(MethodName(m), &back));
    EXPECT_EQ(back, m);
  }
  Method unused;
  EXPECT_FALSE(ParseMethod("hipporag", &unused));
}

}  // namespace
}  // namespace ontomem
