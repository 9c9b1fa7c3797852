#include "bench/recall_compose.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/dataset.h"
#include "common/civil_time.h"
#include "text/text.h"

namespace ontomem {
namespace {

using ojson = nlohmann::ordered_json;

// {words} is two or three content words of the turn, in its order.
constexpr std::array<const char*, 6> kYou = {
    "What did you tell me about {words}?", "Remind me what you said about {words}.",
    "You mentioned {words} once, what was that about?", "What was it you said about {words} again?",
    "Didn't you say something about {words}?", "What did you recommend about {words}?"};
constexpr std::array<const char*, 5> kI = {
    "What did I tell you about {words}?", "Remind me what I said about {words}.",
    "I mentioned {words} once, what was that about?", "What was it I said about {words} again?",
    "Did I ever say something about {words}?"};

}  // namespace

Status ComposeRecall(const RecallComposeConfig& config, std::string* json_out) {
  if (config.per_sample < 1) return Status::InvalidArgument("compose-recall: --per-sample must be at least 1");
  ASSIGN_OR_RETURN(Dataset ds, LoadLocomo(config.dialogues_path));
  std::mt19937_64 rng(config.seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(std::uniform_int_distribution<uint64_t>(0, n - 1)(rng)); };
  ojson out = ojson::array();
  for (const Sample& s : ds.samples) {
    std::vector<std::string> speakers;
    for (const Turn& t : s.turns)
      if (std::find(speakers.begin(), speakers.end(), t.speaker) == speakers.end()) speakers.push_back(t.speaker);
    if (speakers.size() < 2) continue;
    // Turns worth asking about: at least four distinct content words.
    std::vector<size_t> eligible;
    std::vector<std::vector<std::string>> words(s.turns.size());
    for (size_t i = 0; i < s.turns.size(); ++i) {
      std::set<std::string> seen;
      for (auto& w : text::Tokenize(s.turns[i].text))
        if (w.size() > 2 && !text::IsStopWord(w) && seen.insert(w).second) words[i].push_back(w);
      if (words[i].size() >= 4) eligible.push_back(i);
    }
    ojson conv = ojson::object();
    conv["speaker_a"] = speakers[0];
    conv["speaker_b"] = speakers[1];
    std::string session;
    int session_no = 0;
    for (const Turn& t : s.turns) {
      if (t.session != session) {
        session = t.session;
        ++session_no;
      }
      const std::string key = fmt::format("session_{}", session_no);
      if (!conv.contains(key)) {
        conv[key] = ojson::array();
        // Noon of the turn's day keeps the session order and dates of the source.
        const int64_t day = t.time_ms >= 0 ? t.time_ms / 86400000 : 0;
        int64_t y;
        unsigned m;
        CivilFromDays(day, &y, &m);
        const auto d = static_cast<unsigned>(day - DaysFromCivil(y, m, 1) + 1);
        if (t.time_ms > 0) conv[key + "_date_time"] = FormatLocomoNoon(y, m, d);
      }
      conv[key].push_back({{"speaker", t.speaker}, {"dia_id", t.id}, {"text", t.text}});
    }
    ojson qa = ojson::array();
    std::set<size_t> used;
    for (int q = 0; q < config.per_sample && used.size() < eligible.size(); ++q) {
      size_t i;
      do i = eligible[pick(eligible.size())]; while (used.count(i));
      used.insert(i);
      const Turn& t = s.turns[i];
      // Two or three of its words, in order.
      std::vector<size_t> idx(words[i].size());
      for (size_t j = 0; j < idx.size(); ++j) idx[j] = j;
      std::shuffle(idx.begin(), idx.end(), rng);
      idx.resize(2 + pick(2));
      std::sort(idx.begin(), idx.end());
      std::string phrase;
      for (size_t j : idx) phrase += (phrase.empty() ? "" : " ") + words[i][j];
      // Asked by the other speaker ("you") three times in four, else by the speaker ("I").
      const bool you = pick(4) != 0;
      std::string asker = t.speaker;
      if (you)
        for (const auto& sp : speakers)
          if (sp != t.speaker) asker = sp;
      std::string question = you ? kYou[pick(kYou.size())] : kI[pick(kI.size())];
      question.replace(question.find("{words}"), 7, phrase);
      qa.push_back({{"question", question}, {"evidence", ojson::array({t.id})}, {"category", you ? "recall-you" : "recall-i"},
                    {"speaker", asker}});
    }
    out.push_back({{"sample_id", s.sample_id}, {"conversation", std::move(conv)}, {"qa", std::move(qa)}});
  }
  *json_out = out.dump(1, ' ', /*ensure_ascii=*/true);
  return Status::Ok();
}

}  // namespace ontomem
