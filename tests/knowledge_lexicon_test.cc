// With a custom dense embedder (an HTTP endpoint, a test fake) the graph side still reads the
// GloVe-SIF lexicon: concept lifting, the query-domain classifier and rare-name detection were
// learned on it. The dense projection, which maps GloVe-SIF query vectors, is left out.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/pipeline.h"
#include "fake_embedder.h"
#include "lexicon_fixture.h"
#include "test_util.h"

namespace ontomem {
namespace {

TEST(KnowledgeLexicon, ACustomEmbedderKeepsTheGraphSideOnTheLexicon) {
  const testing::TempDir temp("ontomem-knowledge-lexicon");
  const std::string& dir = temp.path();
  Options o;
  o.ontology_path = std::string(ONTOMEM_SOURCE_DIR) + "/data/ontology/ontology.json";
  o.models_dir = std::string(ONTOMEM_SOURCE_DIR) + "/models";
  o.lexicon_path = testing::WriteTinyLexicon(dir);
  // Same dimension as the lexicon, so only the embedder's kind can keep the projection away.
  auto fake = std::make_shared<testing::FakeEmbedder>(testing::kTinyLexiconDim, "fake-100");

  auto with = OpenFactPipeline(o, fake);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_TRUE(with->graph_context.word_rank);  // rare names: the lexicon's word ranks
  EXPECT_TRUE(with->domain_classifier);        // the classifier reads lexicon vectors
  EXPECT_EQ(with->graph_context.dense_projection, nullptr);
  const auto d = with->graph_context.detect_domains("I want a good cinema idea", {});
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().first, "movies_tv");

  o.knowledge_lexicon = false;
  auto without = OpenFactPipeline(o, fake);
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_FALSE(without->graph_context.word_rank);
  EXPECT_FALSE(without->domain_classifier);

  // No lexicon file is not an error for a custom embedder: the graph side goes without.
  o.knowledge_lexicon = true;
  o.lexicon_path = dir + "/absent.bin";
  auto absent = OpenFactPipeline(o, fake);
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_FALSE(absent->graph_context.word_rank);
}

}  // namespace
}  // namespace ontomem
