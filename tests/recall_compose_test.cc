// `ontomem bench compose-recall`: recall questions over a conversation, each naming words of
// its one evidence turn and asked by the other speaker ("you") or the speaker ("I").
#include "bench/recall_compose.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/dataset.h"
#include "test_util.h"
#include "text/text.h"

namespace ontomem {
namespace {

TEST(RecallCompose, QuestionsNameWordsOfTheirTurnAndKeepTheConversation) {
  const testing::TempDir temp("ontomem-recall");
  const std::string& dir = temp.path();
  const std::string path = dir + "/d.json";
  std::ofstream(path) << R"([{"sample_id":"c1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
    "session_1_date_time":"1:56 pm on 8 May, 2023",
    "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"My pottery class starts Monday at the community centre"},
                 {"speaker":"Ben","dia_id":"D1:2","text":"You should try the glazing workshop downtown afterwards"},
                 {"speaker":"Ana","dia_id":"D1:3","text":"ok"}]},
    "qa":[{"question":"dropped","evidence":["D1:1"]}]}])";
  RecallComposeConfig c;
  c.dialogues_path = path;
  c.per_sample = 5;
  std::string doc;
  ASSERT_TRUE(ComposeRecall(c, &doc).ok());
  auto ds = ParseLocomo(doc, "recall");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ(ds->samples.size(), 1u);
  const Sample& s = ds->samples[0];
  ASSERT_EQ(s.turns.size(), 3u);
  EXPECT_EQ(s.turns[1].id, "D1:2");
  EXPECT_GT(s.turns[0].time_ms, 0);
  ASSERT_EQ(s.qa.size(), 2u);  // "ok" has too few words to ask about; the old QA is gone
  for (const QaItem& q : s.qa) {
    ASSERT_EQ(q.evidence.size(), 1u);
    const Turn& gold = q.evidence[0] == "D1:1" ? s.turns[0] : s.turns[1];
    const bool you = q.category == "recall-you";
    EXPECT_EQ(q.speaker == gold.speaker, !you) << q.question;
    size_t shared = 0;
    for (const auto& w : text::Tokenize(q.question))
      for (const auto& g : text::Tokenize(gold.text)) shared += w == g && !text::IsStopWord(w);
    EXPECT_GE(shared, 2u) << q.question;
  }
  c.per_sample = 0;
  EXPECT_EQ(ComposeRecall(c, &doc).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ontomem
