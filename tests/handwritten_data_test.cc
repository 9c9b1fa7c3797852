// data/handwritten/requests.json, requests2.json, requests3.json, planning.json and recall*.json,
// the hand-written outside checks of retrieval, the natural-chat sets chats_dev*.json (dev) and
// chats_test*.json, and the training chats chats_train*.json and chats_projection.json:
// they must stay valid LoCoMo-format files whose every question names evidence in its history
// (a request's evidence is what its asker said).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/dataset.h"
#include "bench/harness.h"

namespace ontomem {
namespace {

// The path of a file of data/handwritten/.
std::string Handwritten(const std::string& file) {
  return std::string(ONTOMEM_SOURCE_DIR) + "/data/handwritten/" + file;
}

// Every question of the file names evidence in its history, and a request's (implicit) evidence
// is what its asker said; {questions, requests, evidence turns of the other questions said by
// someone other than the asker}.
struct EvidenceCounts {
  size_t questions = 0, requests = 0, about_the_companion = 0;
  bool operator==(const EvidenceCounts&) const = default;
};
void PrintTo(const EvidenceCounts& c, std::ostream* os) {
  *os << "{" << c.questions << ", " << c.requests << ", " << c.about_the_companion << "}";
}
EvidenceCounts CheckEvidence(const std::string& file) {
  EvidenceCounts c;
  auto ds = LoadLocomo(Handwritten(file));
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return c;
  EXPECT_FALSE(ds->samples.empty());
  for (const Sample& s : ds->samples) {
    std::map<std::string, const Turn*> by_id;
    for (const Turn& t : s.turns) by_id[t.id] = &t;
    for (const QaItem& q : s.qa) {
      ++c.questions;
      EXPECT_FALSE(q.speaker.empty()) << q.question;
      EXPECT_FALSE(q.evidence.empty()) << q.question;
      for (const auto& id : q.evidence) {
        auto it = by_id.find(id);
        if (it == by_id.end()) {
          ADD_FAILURE() << s.sample_id << ": no turn " << id;
          continue;
        }
        if (q.implicit.value_or(false)) EXPECT_EQ(it->second->speaker, q.speaker) << q.question;
        else c.about_the_companion += it->second->speaker != q.speaker;
      }
      c.requests += q.implicit.value_or(false);
    }
  }
  return c;
}

// A request set: every question's evidence is what its asker said; {requests, implicit ones}.
std::pair<size_t, size_t> CheckRequests(const std::string& file) {
  const EvidenceCounts c = CheckEvidence(file);
  EXPECT_EQ(c.about_the_companion, 0u) << file << ": evidence said by someone other than the asker";
  return {c.questions, c.requests};
}

TEST(HandwrittenRequests, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("requests.json"), std::make_pair(size_t{14}, size_t{11}));
}

// Requests to plan a day or a week, governed by what the asker said about their routine
// (written in session 14 before the routine features were measured on it).
TEST(HandwrittenPlanning, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("planning.json"), std::make_pair(size_t{9}, size_t{9}));
}

// Requests in five more voices (texting, formal, non-native), most governed by a constraint
// (a bad knee, lactose intolerance, migraines from bright screens; written in session 15
// before any number was measured on it).
TEST(HandwrittenRequests2, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("requests2.json"), std::make_pair(size_t{30}, size_t{30}));
}

// 48 requests from eight more users (a teenager texting, a retired teacher, a non-native
// engineer, a night-shift nurse, a wheelchair user, a sheep farmer...), about 70 turns each, so
// the asker says some 35 turns and ranking them matters at k=10 (written in session 16 by a
// helper that never ran the engine).
TEST(HandwrittenRequests3, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("requests3.json"), std::make_pair(size_t{48}, size_t{48}));
}

// A natural-chat dev set (session 17, written by a helper that never ran the engine, for
// choosing between variants: unlike the files above it is looked at when choosing): 48
// requests from eight users whose facts are said in passing inside long chat turns.
TEST(HandwrittenChatsDev, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev.json"), std::make_pair(size_t{48}, size_t{48}));
}

// The same chats with the asker's other turns lengthened by chit-chat (no new facts) until
// their lengths match the evidence turns', so ranking by length finds nothing (R@10 0.29).
TEST(HandwrittenChatsDevMatched, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev_matched.json"), std::make_pair(size_t{48}, size_t{48}));
}

// Sixteen more users written the same way and length-matched as they were written (session 18,
// four helpers that never ran the engine, each checked that ranking by length or by shared words
// does no better than random): chats_dev2 is for choosing, chats_test is read once per change.
TEST(HandwrittenChatsDev2, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev2.json"), std::make_pair(size_t{48}, size_t{48}));
}

TEST(HandwrittenChatsTest, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_test.json"), std::make_pair(size_t{48}, size_t{48}));
}

// Training rows for the graph-first combiner (scripts/train_combiner.sh): 32 more users, eight
// requests each, written and length-matched the same way (session 18).
TEST(HandwrittenChatsTrain, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_train.json"), std::make_pair(size_t{256}, size_t{256}));
}

// Natural-chat test set by another recipe (session 19): users getting tasks done with an
// assistant, facts said inside task talk; written by two helpers that never ran the engine.
TEST(HandwrittenChatsTest2, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_test2.json"), std::make_pair(size_t{48}, size_t{48}));
}

// Two more natural-chat test sets (session 34), each by a recipe no other set uses and written the
// same way: chats_test3 users getting help writing emails, texts and posts, chats_test4 users
// learning a skill with a tutor over months. Read once per change, like chats_test.
TEST(HandwrittenChatsTest3, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_test3.json"), std::make_pair(size_t{48}, size_t{48}));
}
TEST(HandwrittenChatsTest4, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_test4.json"), std::make_pair(size_t{48}, size_t{48}));
}

// Its dev and training counterparts, same recipe, other users (session 19).
TEST(HandwrittenChatsDev3, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev3.json"), std::make_pair(size_t{48}, size_t{48}));
}
TEST(HandwrittenChatsTrain2, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_train2.json"), std::make_pair(size_t{128}, size_t{128}));
}

// Two more dev sets (session 32), so that a rule can see a one-point cost on natural chats:
// chats_dev4 by the chat recipe, chats_dev5 by the task-log one, eight users each, written by
// four helpers that read no file of this repository but one user's format.
TEST(HandwrittenChatsDev4, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev4.json"), std::make_pair(size_t{48}, size_t{48}));
}
TEST(HandwrittenChatsDev5, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev5.json"), std::make_pair(size_t{48}, size_t{48}));
}
// Two more (session 33) by two new recipes: chats_dev6 end-of-day check-ins (venting, stories),
// chats_dev7 planning over months (trips, parties, moves), written the same way.
TEST(HandwrittenChatsDev6, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev6.json"), std::make_pair(size_t{48}, size_t{48}));
}
TEST(HandwrittenChatsDev7, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_dev7.json"), std::make_pair(size_t{48}, size_t{48}));
}

TEST(HandwrittenRecall, EveryQuestionHasEvidenceInItsHistory) {
  EXPECT_EQ(CheckEvidence("recall.json"), (EvidenceCounts{21, 6, 9}));  // the rest ask what the user said
}

// Four users in four voices, 32 recall questions most of which say no verb of saying or
// remembering; written by a helper blind to the engine (session 24).
TEST(HandwrittenRecallDev2, EveryQuestionHasEvidenceInItsHistory) {
  EXPECT_EQ(CheckEvidence("recall_dev2.json"), (EvidenceCounts{45, 13, 15}));
}

// Its test counterpart: five more users and voices, written by another blind helper; read once
// per change, never to choose.
TEST(HandwrittenRecallTest, EveryQuestionHasEvidenceInItsHistory) {
  EXPECT_EQ(CheckEvidence("recall_test.json"), (EvidenceCounts{57, 18, 17}));
}

// Training rows of both combiners: ten more users, written by a third blind helper.
TEST(HandwrittenRecallTrain, EveryQuestionHasEvidenceInItsHistory) {
  EXPECT_EQ(CheckEvidence("recall_train.json"), (EvidenceCounts{114, 34, 45}));
}

// Training rows of the dense-query projection (session 27): 24 more users in four themes (food
// and care, leisure, work and money, home and family), eight requests each, none sharing a
// content word with its evidence; written by four helpers that read no file of this repository.
TEST(HandwrittenChatsProjection, EveryRequestHasEvidenceSaidByItsAsker) {
  EXPECT_EQ(CheckRequests("chats_projection.json"), std::make_pair(size_t{192}, size_t{192}));
}

// The projection and the combiners learn from disjoint chats, and neither from a dev or test
// one: no turn or question of chats_projection.json repeats one of another hand-written file
// (short lines such as "Thanks!" may).
TEST(HandwrittenChatsProjection, RepeatsNoLineOfAnotherFile) {
  auto lines = [](const std::string& file) {
    std::set<std::string> out;
    auto ds = LoadLocomo(Handwritten(file));
    EXPECT_TRUE(ds.ok()) << file << ": " << ds.status().ToString();
    if (!ds.ok()) return out;
    for (const Sample& s : ds->samples) {
      for (const Turn& t : s.turns) {
        if (t.text.size() >= 40) out.insert(t.text);
      }
      for (const QaItem& q : s.qa) out.insert(q.question);
    }
    return out;
  };
  const std::set<std::string> mine = lines("chats_projection.json");
  ASSERT_GT(mine.size(), 1000u);
  for (const char* other :
       {"requests.json", "requests2.json", "requests3.json", "planning.json", "recall.json", "recall_dev2.json",
        "recall_test.json", "recall_train.json", "chats_dev.json", "chats_dev_matched.json", "chats_dev2.json",
        "chats_dev3.json", "chats_dev4.json", "chats_dev5.json", "chats_dev6.json", "chats_dev7.json",
        "chats_test.json", "chats_test2.json", "chats_test3.json", "chats_test4.json", "chats_train.json",
        "chats_train2.json"}) {
    for (const std::string& line : lines(other)) EXPECT_EQ(mine.count(line), 0u) << other << ": " << line;
  }
}

// data/annotations/chats_dev_kinds.jsonl labels every (request, evidence turn) of the seven
// natural-chat dev sets (data/handwritten/chats_dev_sets.txt) exactly once, with a known kind
// (read by scripts/evidence_kinds.py).
TEST(HandwrittenChatsDevKinds, LabelEveryEvidenceTurnOnce) {
  const std::set<std::string> kinds = {"taste", "diet_health", "mobility_access", "household_need", "pet",
                                       "schedule", "equipment", "money", "place", "skill", "fear_experience",
                                       "value_belief", "goal", "other"};
  std::map<std::string, int> labelled;
  std::ifstream in(std::string(ONTOMEM_SOURCE_DIR) + "/data/annotations/chats_dev_kinds.jsonl");
  ASSERT_TRUE(in) << "data/annotations/chats_dev_kinds.jsonl";
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(kinds.count(j.at("kind").get<std::string>()), 1u) << line;
    EXPECT_TRUE(j.at("stance") == "fact" || j.at("stance") == "preference") << line;
    EXPECT_TRUE(j.at("holder") == "user" || j.at("holder") == "other_person" || j.at("holder") == "thing") << line;
    ++labelled[j.at("file").get<std::string>() + "|" + j.at("sample_id").get<std::string>() + "|" +
               j.at("question").get<std::string>() + "|" + j.at("dia_id").get<std::string>()];
  }
  std::map<std::string, int> evidence;
  std::ifstream sets(Handwritten("chats_dev_sets.txt"));
  ASSERT_TRUE(sets) << "data/handwritten/chats_dev_sets.txt";
  for (std::string file; std::getline(sets, file);) {
    if (file.empty()) continue;
    auto ds = LoadLocomo(Handwritten(file));
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    for (const Sample& s : ds->samples)
      for (const QaItem& q : s.qa)
        for (const auto& id : q.evidence) ++evidence[std::string(file) + "|" + s.sample_id + "|" + q.question + "|" + id];
  }
  EXPECT_EQ(evidence.size(), 516u);
  EXPECT_EQ(labelled, evidence);
}

// Length must not give the evidence away in a set written to be length-matched: ranking the
// asker's turns by length (`bench --methods length`) finds no more evidence in the top 10 than
// a random order would (+0.05). chats_dev.json and requests3.json fail this by design (their
// evidence turns are about twice as long; docs/RESULTS.md, sessions 16-17), and
// chats_projection.json failed it until it was length-matched (session 27: length R@10 0.633
// against 0.412 at random).
TEST(HandwrittenChats, LengthDoesNotFindTheEvidence) {
  for (const char* file : {"chats_dev_matched.json", "chats_dev2.json", "chats_dev3.json", "chats_dev4.json",
                           "chats_dev5.json", "chats_dev6.json", "chats_dev7.json", "chats_test.json",
                           "chats_test2.json", "chats_test3.json", "chats_test4.json", "chats_train.json",
                           "chats_train2.json", "chats_projection.json"}) {
    auto ds = LoadLocomo(Handwritten(file));
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    double by_length = 0, at_random = 0;
    size_t gold = 0;
    for (const Sample& s : ds->samples) {
      for (const QaItem& q : s.qa) {
        const std::vector<std::string> ranked = RankAskerTurnsByLength(s, q.speaker, 10);
        const std::set<std::string> top(ranked.begin(), ranked.end());
        const auto asker_turns = std::count_if(s.turns.begin(), s.turns.end(), [&](const Turn& t) { return t.speaker == q.speaker; });
        for (const auto& id : q.evidence) {
          ++gold;
          by_length += top.count(id);
          at_random += std::min(1.0, 10.0 / static_cast<double>(asker_turns));
        }
      }
    }
    ASSERT_GT(gold, 0u) << file;
    EXPECT_LE(by_length / gold, at_random / gold + 0.05) << file;
  }
}

}  // namespace
}  // namespace ontomem
