// data/handwritten/requests.json, the hand-written outside check of retrieval: it must stay a
// valid LoCoMo-format file whose every request names evidence its asker said.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "bench/dataset.h"

namespace ontomem {
namespace {

TEST(HandwrittenRequests, EveryRequestHasEvidenceSaidByItsAsker) {
  auto ds = LoadLocomo(std::string(ONTOMEM_SOURCE_DIR) + "/data/handwritten/requests.json");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_FALSE(ds->samples.empty());
  size_t requests = 0, implicit = 0;
  for (const Sample& s : ds->samples) {
    std::map<std::string, const Turn*> by_id;
    for (const Turn& t : s.turns) by_id[t.id] = &t;
    for (const QaItem& q : s.qa) {
      ++requests;
      implicit += q.implicit.value_or(false);
      ASSERT_FALSE(q.speaker.empty()) << q.question;
      ASSERT_FALSE(q.evidence.empty()) << q.question;
      for (const auto& id : q.evidence) {
        auto it = by_id.find(id);
        ASSERT_NE(it, by_id.end()) << s.sample_id << ": " << id;
        EXPECT_EQ(it->second->speaker, q.speaker) << s.sample_id << ": " << id;
      }
    }
  }
  EXPECT_EQ(requests, 14u);
  EXPECT_EQ(implicit, 11u);
}

}  // namespace
}  // namespace ontomem
