// The query domain/intent classifier over the real ontology, WordNet (when installed) and the
// tiny fixture lexicon: it learns from a small set, lets the query beat a misleading context,
// round-trips through its file and fails clearly on a missing or damaged one.
#include "retrieve/domain_classifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/file_util.h"
#include "engine/pipeline.h"
#include "lexicon_fixture.h"
#include "retrieve/domain_classifier_train.h"
#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;

// Built by the first test that needs it; DomainClassifierTest::TearDownTestSuite deletes it.
struct Fixture {
  testing::TempDir temp{"domain_classifier_test"};  // first, so it goes last
  std::string dir = temp.path();
  std::shared_ptr<const Ontology> ontology;
  std::shared_ptr<const DomainFeaturizer> featurizer;
};
Fixture* fixture = nullptr;

const Fixture& Get() {
  if (fixture == nullptr) {
    auto* x = new Fixture();
    auto o = Ontology::Load(std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json");
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    x->ontology = *o;
    auto e = SifEmbedder::Open(testing::WriteTinyLexicon(x->dir));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    std::shared_ptr<const WordNet> wn;
    if (fs::exists(DefaultWordNetDir() + "/index.noun"))
      if (auto w = WordNet::Open(); w.ok()) wn = *w;
    auto lifter = std::make_shared<ConceptLifter>(x->ontology, wn, *e);
    x->featurizer = std::make_shared<DomainFeaturizer>(lifter, *e);
    fixture = x;
  }
  return *fixture;
}

class DomainClassifierTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    delete fixture;
    fixture = nullptr;
  }
};

// Words of the tiny lexicon's clusters, per ontology domain; the first half trains, the
// second half is held out.
const std::vector<std::pair<std::string, std::vector<std::string>>>& Words() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> w = {
      {"movies_tv", {"movie", "film", "actor", "documentary", "cinema", "director", "screenplay", "films"}},
      {"food_diet", {"pizza", "dinner", "pasta", "breakfast", "lasagna", "meal", "spaghetti", "lunch"}},
      {"music", {"song", "concert", "guitar", "album", "band", "piano", "singer", "violin"}},
      {"pets", {"dog", "kitten", "puppy", "vet", "cat", "pets", "animals", "bird"}},
  };
  return w;
}

std::vector<DomainExample> TinyTrainingSet() {
  // Template words the tiny lexicon knows (want, good, see, weekend; say, tell, yesterday).
  const std::vector<std::string> rec = {"what {w} should I see this weekend", "I want a good {w} idea",
                                        "help me find a nice {w}"};
  const std::vector<std::string> recall = {"what did I say about the {w}", "did I tell you about my {w} yesterday"};
  std::vector<DomainExample> out;
  const auto& words = Words();
  for (size_t d = 0; d < words.size(); ++d) {
    const auto& [domain, ws] = words[d];
    for (size_t i = 0; i < 4; ++i) {
      auto fill = [](std::string t, const std::string& w) { return t.replace(t.find("{w}"), 3, w); };
      for (const auto& t : rec) {
        out.push_back({fill(t, ws[i]), {}, domain, 0, 1.0f});
        // Another domain's talk just before: the query still decides.
        for (size_t o = 0; o < words.size(); ++o)
          if (o != d)
            out.push_back({fill(t, ws[i]), {"I keep thinking about the " + words[o].second[i], "oh really"}, domain, 0, 1.0f});
      }
      for (const auto& t : recall) {
        out.push_back({fill(t, ws[i]), {}, domain, 1, 1.0f});
        for (size_t o = 0; o < words.size(); ++o)
          if (o != d)
            out.push_back({fill(t, ws[i]), {"I keep thinking about the " + words[o].second[i], "oh really"}, domain, 1, 1.0f});
      }
      // An elliptic request: only the context names the domain.
      for (const std::string q : {"so what do you suggest", "any thoughts then"})
        out.push_back({q, {"I keep thinking about the " + ws[i], "oh really"}, domain, 0, 2.0f});
    }
  }
  return out;
}

std::shared_ptr<DomainClassifier> TrainTinyFresh(uint64_t seed = 1) {
  DomainTrainOptions o;
  o.epochs = 60;
  o.l2 = 1e-4f;  // a tiny set needs little regularisation
  o.seed = seed;
  auto c = DomainClassifier::Train(Get().featurizer, TinyTrainingSet(), o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : nullptr;
}

// Trained once for the tests that only read it.
std::shared_ptr<DomainClassifier> TrainTiny() {
  static std::shared_ptr<DomainClassifier> c = TrainTinyFresh();
  return c;
}

TEST_F(DomainClassifierTest, LearnsFromATinySetAndGeneralisesToHeldOutWordsAndTemplates) {
  auto c = TrainTiny();
  ASSERT_TRUE(c);
  for (const auto& [domain, ws] : Words())
    for (size_t i = 4; i < ws.size(); ++i) {
      const auto p = c->Predict("I want a nice " + ws[i] + " this weekend", {});
      EXPECT_EQ(p.domains.front().first, domain) << ws[i];
      EXPECT_EQ(p.intent, QueryIntent::kRecommend) << ws[i];
      const auto r = c->Predict("did I say anything about my " + ws[i] + " yesterday", {});
      EXPECT_EQ(r.domains.front().first, domain) << ws[i];
      EXPECT_EQ(r.intent, QueryIntent::kRecall) << ws[i];
    }
  // Probabilities: one per ontology domain, summing to 1, best first.
  const auto p = c->Predict("any film tonight", {});
  ASSERT_EQ(p.domains.size(), Get().ontology->domains().size());
  float sum = 0;
  for (size_t i = 0; i < p.domains.size(); ++i) {
    sum += p.domains[i].second;
    if (i > 0) {
      EXPECT_GE(p.domains[i - 1].second, p.domains[i].second);
    }
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4f);
}

TEST_F(DomainClassifierTest, QueryBeatsMisleadingContextAndContextResolvesEllipsis) {
  auto c = TrainTiny();
  ASSERT_TRUE(c);
  // A film request after pet talk is about films; the same context with an elliptic request
  // is about pets.
  const std::vector<std::string> ctx = {"I keep thinking about the puppy", "oh really"};
  EXPECT_EQ(c->Predict("I want a good cinema idea", ctx).domains.front().first, "movies_tv");
  EXPECT_EQ(c->Predict("so what do you suggest", ctx).domains.front().first, "pets");
  const std::vector<std::string> food = {"I keep thinking about the spaghetti", "oh really"};
  EXPECT_EQ(c->Predict("help me find a nice song", food).domains.front().first, "music");
  EXPECT_EQ(c->Predict("so what do you suggest", food).domains.front().first, "food_diet");
}

TEST_F(DomainClassifierTest, SaveLoadRoundTripAndDeterministicTraining) {
  auto c = TrainTiny();
  ASSERT_TRUE(c);
  const std::string path = Get().dir + "/model/classifier.bin";
  ASSERT_TRUE(c->Save(path).ok());
  auto back = DomainClassifier::Load(path, Get().featurizer);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->Serialize(), c->Serialize());
  for (const std::string q : {"any film tonight", "so what do you suggest", "what did I say about the guitar"}) {
    const auto a = c->Predict(q, {"the kitten was sick"}), b = (*back)->Predict(q, {"the kitten was sick"});
    ASSERT_EQ(a.domains.size(), b.domains.size());
    for (size_t i = 0; i < a.domains.size(); ++i) {
      EXPECT_EQ(a.domains[i].first, b.domains[i].first);
      EXPECT_FLOAT_EQ(a.domains[i].second, b.domains[i].second);
    }
    EXPECT_FLOAT_EQ(a.recall_probability, b.recall_probability);
  }
  EXPECT_LT(fs::file_size(path), 2u << 20);
  // Same data and seed, same bytes.
  EXPECT_EQ(TrainTinyFresh()->Serialize(), c->Serialize());
}

TEST_F(DomainClassifierTest, MissingOrDamagedModelFileGivesAClearError) {
  auto missing = DomainClassifier::Load(Get().dir + "/no/such/classifier.bin", Get().featurizer);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().ToString().find("ontomem train domain"), std::string::npos) << missing.status().ToString();

  auto c = TrainTiny();
  ASSERT_TRUE(c);
  std::string bytes = c->Serialize();
  const std::string garbage = Get().dir + "/garbage.bin";
  ASSERT_TRUE(WriteFileAtomic(garbage, "definitely not a model").ok());
  auto g = DomainClassifier::Load(garbage, Get().featurizer);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kCorruption);
  EXPECT_NE(g.status().ToString().find(garbage), std::string::npos);

  bytes[bytes.size() / 2] ^= 0x5a;  // one flipped byte in the payload
  auto flipped = DomainClassifier::Deserialize(bytes, "flipped.bin", Get().featurizer);
  ASSERT_FALSE(flipped.ok());
  EXPECT_EQ(flipped.status().code(), StatusCode::kCorruption);
  auto truncated = DomainClassifier::Deserialize(c->Serialize().substr(0, 100), "short.bin", Get().featurizer);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), StatusCode::kCorruption);
}

TEST_F(DomainClassifierTest, TrainingRejectsUnknownDomainsAndMissingIntents) {
  std::vector<DomainExample> ex = {{"any film", {}, "movies_tv", 0, 1.0f}, {"any pizza", {}, "no_such_domain", 1, 1.0f}};
  auto bad = DomainClassifier::Train(Get().featurizer, ex, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("no_such_domain"), std::string::npos);
  ex[1].domain = "food_diet";
  ex[1].intent = 0;  // only one intent
  EXPECT_FALSE(DomainClassifier::Train(Get().featurizer, ex, {}).ok());
  EXPECT_FALSE(DomainClassifier::Train(Get().featurizer, {}, {}).ok());
}

// Hand-written labelled requests: a request listing two domains is a soft target split over
// them; a bad line names the file, the line and what is wrong, and nothing is half-loaded.
TEST_F(DomainClassifierTest, HandWrittenRequestsLoadAsSoftTargetsAndBadLinesAreNamed) {
  const auto& o = *Get().ontology;
  const std::string path = Get().dir + "/requests.jsonl";
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  write("{\"question\": \"in-laws land friday, fridge is empty\", \"context\": [], "
        "\"domains\": [\"food_diet\", \"family_friends\"], \"intent\": \"recommend\"}\n\n"
        "{\"question\": \"what was that show I loved?\", \"domains\": [\"movies_tv\"], \"intent\": \"recall\"}\n");
  auto requests = LoadDomainRequests(path, o);
  ASSERT_TRUE(requests.ok()) << requests.status().ToString();
  ASSERT_EQ(requests->size(), 2u);
  const auto examples = DomainRequestExamples(*requests, 3.0f);
  ASSERT_EQ(examples.size(), 3u);
  EXPECT_EQ(examples[0].domain, "food_diet");
  EXPECT_EQ(examples[1].domain, "family_friends");
  EXPECT_FLOAT_EQ(examples[0].weight, 1.5f);
  EXPECT_FLOAT_EQ(examples[2].weight, 3.0f);
  EXPECT_EQ(examples[0].intent, 0);
  EXPECT_EQ(examples[2].intent, 1);
  EXPECT_TRUE(examples[2].context.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"question\": \"x\", \"domains\": [\"gardening_club\"], \"intent\": \"recall\"}\n", "unknown domain"},
      {"{\"question\": \"x\", \"domains\": [\"music\"], \"intent\": \"chat\"}\n", "intent"},
      {"{\"question\": \"x\", \"domains\": [\"music\"], \"intent\": 1}\n", "intent"},
      {"{\"question\": \"x\", \"domains\": []}\n", "domains"},
      {"{\"question\": \"x\", \"domains\": [\"music\"], \"intent\": \"recall\"}\n{oops\n", ":2: not a JSON object"},
      {"{\"question\": \"caf\xe9\", \"domains\": [\"music\"], \"intent\": \"recall\"}\n", "UTF-8"},
      {"\n", "no requests"}};
  for (const auto& [text, what] : bad) {
    write(text);
    auto b = LoadDomainRequests(path, o);
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_NE(b.status().ToString().find(what), std::string::npos) << b.status().ToString();
  }
  EXPECT_FALSE(LoadDomainRequests(Get().dir + "/missing.jsonl", o).ok());
}

// The hand-written request files of data/handwritten/ load, cover every domain (train and dev),
// and chats_train_domains.jsonl labels chats_train.json's requests in order.
TEST_F(DomainClassifierTest, HandWrittenRequestFilesAreValid) {
  const auto& o = *Get().ontology;
  const std::string dir = std::string(ONTOMEM_SOURCE_DIR) + "/data/handwritten/";
  for (const auto& [file, requests] : std::vector<std::pair<std::string, size_t>>{
           {"domain_requests_train.jsonl", 612}, {"domain_requests_dev.jsonl", 204}}) {
    auto r = LoadDomainRequests(dir + file, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> domains, questions;
    float weight = 0;
    for (const auto& e : DomainRequestExamples(*r, 1.0f)) {
      domains.insert(e.domain);
      questions.insert(e.query);
      weight += e.weight;
    }
    EXPECT_EQ(domains.size(), o.domains().size()) << file;
    EXPECT_EQ(questions.size(), requests) << file;
    EXPECT_NEAR(weight, static_cast<float>(requests), 1e-2f) << file;
  }
  auto labels = LoadDomainRequests(dir + "chats_train_domains.jsonl", o);
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  auto chats = LoadLocomo(dir + "chats_train.json");
  ASSERT_TRUE(chats.ok()) << chats.status().ToString();
  std::vector<std::string> asked, labelled;
  for (const auto& s : chats->samples)
    for (const auto& q : s.qa) asked.push_back(q.question);
  for (const auto& q : *labels) labelled.push_back(q.question);
  EXPECT_EQ(labelled, asked);
}

TEST_F(DomainClassifierTest, TrainingDataCoversEveryDomainWithDisjointHalves) {
  const auto& o = *Get().ontology;
  const std::vector<std::string> chit = {"Traffic was bad.", "Ha, classic."};
  const auto train = OntologyExamples(o, chit, 40, "train", 3);
  const auto dev = OntologyExamples(o, chit, 40, "dev", 3);
  std::set<std::string> domains, train_q;
  size_t recall = 0, statement = 0;
  for (const auto& e : train) {
    domains.insert(e.domain);
    train_q.insert(e.query);
    recall += e.intent == 1;
    // Context that is not chit-chat: another domain's statement (misleading) or this one's (ellipsis).
    statement += !e.context.empty() && std::find(chit.begin(), chit.end(), e.context[0]) == chit.end();
  }
  EXPECT_EQ(domains.size(), o.domains().size());
  EXPECT_GT(recall, train.size() / 10);
  EXPECT_GT(statement, train.size() / 5);
  for (const auto& e : dev) EXPECT_EQ(train_q.count(e.query), 0u) << e.query;
  EXPECT_EQ(OntologyExamples(o, chit, 40, "train", 3).size(), train.size());
  EXPECT_EQ(OntologyExamples(o, chit, 40, "train", 3)[17].query, train[17].query);  // deterministic
}

TEST_F(DomainClassifierTest, BenchmarkDomainTablesPointAtOntologyDomains) {
  const auto& o = *Get().ontology;
  for (const std::string d : {"MovieRec", "FoodPref", "ProductivityAssist"})
    EXPECT_NE(o.FindDomain(IprDomainToOntology(d)), nullptr) << d;
  EXPECT_EQ(IprDomainToOntology("Gardening"), "");
  // Every PrefEval topic present in the shared data has a mapping to existing domains.
  const fs::path pe = fs::path(ONTOMEM_SOURCE_DIR) / ".." / "shared" / "data" / "prefeval" / "explicit_preference";
  std::vector<std::string> topics;
  std::error_code ec;
  if (fs::exists(pe, ec))
    for (const auto& f : fs::directory_iterator(pe)) topics.push_back(f.path().stem().string());
  else
    topics = {"entertain_shows", "travel_restaurant"};
  for (const auto& t : topics) {
    const auto ds = PrefEvalTopicDomains(t);
    ASSERT_FALSE(ds.empty()) << t;
    for (const auto& d : ds) EXPECT_NE(o.FindDomain(d), nullptr) << t << " -> " << d;
  }
}

// The engine uses the model named by $ONTOMEM_DOMAIN_MODEL (or <models>/domain/): a valid one
// answers detect_domains with the query dominating, "none" keeps the lifter, a damaged one or a
// missing one named on purpose is an error (as for ONTOMEM_COMBINER).
TEST_F(DomainClassifierTest, PipelineUsesTheModelWhenPresentAndFallsBackOtherwise) {
  auto c = TrainTiny();
  ASSERT_TRUE(c);
  const std::string good = Get().dir + "/pipeline/classifier.bin", bad = Get().dir + "/pipeline/bad.bin";
  ASSERT_TRUE(c->Save(good).ok());
  ASSERT_TRUE(WriteFileAtomic(bad, "not a model").ok());
  const char* old = std::getenv("ONTOMEM_DOMAIN_MODEL");
  const std::string saved = old ? old : "";
  Options o;
  o.ontology_path = std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json";
  o.models_dir = std::string(ONTOMEM_SOURCE_DIR) + "/models";
  auto emb = SifEmbedder::Open(testing::WriteTinyLexicon(Get().dir));
  ASSERT_TRUE(emb.ok());
  auto open = [&](const std::string& env) {
    setenv("ONTOMEM_DOMAIN_MODEL", env.c_str(), 1);
    return OpenFactPipeline(o, *emb);
  };
  auto with = open(good);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  ASSERT_TRUE(with->domain_classifier);
  const auto d = with->graph_context.detect_domains("I want a good cinema idea", {"I keep thinking about the puppy", "oh really"});
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().first, "movies_tv");
  // Its intent answers the recall probability, which a question's own recall words make 1.
  ASSERT_TRUE(with->graph_context.recall_probability);
  const float p = with->graph_context.recall_probability("I want a good cinema idea", {});
  EXPECT_GE(p, 0.0f);
  EXPECT_LT(p, 1.0f);
  EXPECT_EQ(with->graph_context.recall_probability("Did I tell you about the cinema?", {}), 1.0f);
  auto none = open("none");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->domain_classifier);
  EXPECT_TRUE(none->graph_context.detect_domains);
  EXPECT_FALSE(none->graph_context.recall_probability);
  auto missing = open(Get().dir + "/pipeline/absent.bin");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("ONTOMEM_DOMAIN_MODEL"), std::string::npos) << missing.status().ToString();
  auto damaged = open(bad);
  EXPECT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  if (old) setenv("ONTOMEM_DOMAIN_MODEL", saved.c_str(), 1);
  else unsetenv("ONTOMEM_DOMAIN_MODEL");
}

}  // namespace
}  // namespace ontomem
