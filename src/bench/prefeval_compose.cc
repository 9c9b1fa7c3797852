#include "bench/prefeval_compose.h"

#include "bench/dataset.h"
#include "common/file_util.h"
#include "common/random.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "text/text.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kAssistant = "Assistant";

struct Item {
  size_t index = 0;
  std::string question;
  std::string preference;  // may be empty for choice items that lack it
  std::string aligned_op;  // choice only, optional
  // The inserted turns in order: (is_user, text); the gold turn is block[gold].
  std::vector<std::pair<bool, std::string>> block;
  size_t gold = 0;
  bool unlabelled = false;  // persona: no user turn clearly states the preference; not used
};

enum class Kind { kExplicit, kChoice, kPersona };

struct Topic {
  std::string name;
  std::string file;
  std::vector<Item> items;
};

// Required non-empty string field of `obj`; `where` names file and index.
StatusOr<std::string> Field(const json& obj, const char* field, const std::string& where) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null())
    return Status::InvalidArgument(fmt::format("{}: missing \"{}\"", where, field));
  if (!it->is_string()) return Status::InvalidArgument(fmt::format("{}.{}: not a string", where, field));
  std::string v = it->get<std::string>();
  if (v.find_first_not_of(" \t\r\n") == std::string::npos)
    return Status::InvalidArgument(fmt::format("{}.{}: empty", where, field));
  return v;
}

std::string OptionalField(const json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Distinct content terms of `b` that are in `a`.
size_t SharedContentTerms(const std::set<std::string>& a, std::string_view b) {
  size_t n = 0;
  for (const auto& t : text::ContentTermSet(b)) n += a.count(t);
  return n;
}

bool SharesContentTerm(std::string_view a, std::string_view b) {
  return SharedContentTerms(text::ContentTermSet(a), b) > 0;
}

// The item's required "conversation" object.
StatusOr<const json*> ConversationOf(const json& o, const std::string& where) {
  auto conv = o.find("conversation");
  if (conv == o.end() || conv->is_null()) return Status::InvalidArgument(fmt::format("{}: missing \"conversation\"", where));
  if (!conv->is_object()) return Status::InvalidArgument(fmt::format("{}.conversation: not an object", where));
  return &*conv;
}

// Persona items do not say which user turn reveals the preference (README of the data). The
// label: the user turn sharing the most content terms with `preference`, if it shares at least
// two and strictly more than every other user turn; otherwise the item is unlabelled.
Status LoadPersona(const json& o, const std::string& where, Item* item) {
  ASSIGN_OR_RETURN(const json* conv, ConversationOf(o, where));
  std::vector<std::pair<long, const json*>> steps;
  for (auto it = conv->begin(); it != conv->end(); ++it) {
    const std::string& key = it.key();
    if (key.empty() || key.size() > 6 || key.find_first_not_of("0123456789") != std::string::npos)
      return Status::InvalidArgument(fmt::format("{}.conversation: key \"{}\" is not a turn number", where, key));
    steps.emplace_back(std::stol(key), &it.value());
  }
  if (steps.empty()) return Status::InvalidArgument(fmt::format("{}.conversation: no turns", where));
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::set<std::string> pref = text::ContentTermSet(item->preference);
  size_t best = 0, second = 0;
  for (const auto& [num, step] : steps) {
    const std::string sw = fmt::format("{}.conversation.{}", where, num);
    if (!step->is_object()) return Status::InvalidArgument(sw + ": not an object");
    ASSIGN_OR_RETURN(std::string user, Field(*step, "user", sw));
    ASSIGN_OR_RETURN(std::string assistant, Field(*step, "assistant", sw));
    const size_t shared = SharedContentTerms(pref, user);
    if (shared > best) {
      second = best;
      best = shared;
      item->gold = item->block.size();
    } else if (shared > second) {
      second = shared;
    }
    item->block.emplace_back(true, std::move(user));
    item->block.emplace_back(false, std::move(assistant));
  }
  item->unlabelled = best < 2 || best == second;
  return Status::Ok();
}

StatusOr<Topic> LoadTopic(const fs::path& file, Kind kind) {
  Topic topic;
  topic.name = file.stem().string();
  topic.file = file.string();
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(topic.file));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: malformed JSON at byte {}: {}", topic.file, e.byte, e.what()));
  }
  if (!doc.is_array()) return Status::InvalidArgument(topic.file + ": top level is not a list of items");
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& o = doc[i];
    const std::string where = fmt::format("{}: [{}]", topic.file, i);
    if (!o.is_object()) return Status::InvalidArgument(where + ": item is not an object");
    Item item;
    item.index = i;
    ASSIGN_OR_RETURN(item.question, Field(o, "question", where));
    if (kind == Kind::kPersona) {
      ASSIGN_OR_RETURN(item.preference, Field(o, "preference", where));
      RETURN_IF_ERROR(LoadPersona(o, where, &item));
    } else if (kind == Kind::kExplicit) {
      ASSIGN_OR_RETURN(item.preference, Field(o, "preference", where));
      item.block = {{true, item.preference}};
      item.gold = 0;
    } else {
      item.preference = OptionalField(o, "preference");
      item.aligned_op = OptionalField(o, "aligned_op");
      ASSIGN_OR_RETURN(const json* conv, ConversationOf(o, where));
      const std::string cw = where + ".conversation";
      ASSIGN_OR_RETURN(std::string query, Field(*conv, "query", cw));
      ASSIGN_OR_RETURN(std::string options, Field(*conv, "assistant_options", cw));
      ASSIGN_OR_RETURN(std::string selection, Field(*conv, "user_selection", cw));
      ASSIGN_OR_RETURN(std::string ack, Field(*conv, "assistant_acknowledgment", cw));
      item.block = {{true, query}, {false, options}, {true, selection}, {false, ack}};
      item.gold = 2;
    }
    topic.items.push_back(std::move(item));
  }
  return topic;
}

StatusOr<std::vector<Topic>> LoadTopics(const std::string& root, Kind kind) {
  const fs::path dir = kind == Kind::kChoice    ? fs::path(root) / "implicit_preference" / "choice-based"
                       : kind == Kind::kPersona ? fs::path(root) / "implicit_preference" / "persona-driven"
                                                : fs::path(root) / "explicit_preference";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::NotFound(fmt::format("{}: no such directory (expected a PrefEval benchmark_dataset)", dir.string()));
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code ec2;
    if (p.extension() == ".json" && fs::is_regular_file(p, ec2)) files.push_back(p);
  }
  if (ec) return Status::IOError(fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  if (files.empty()) return Status::NotFound(fmt::format("{}: no topic files (*.json)", dir.string()));
  std::sort(files.begin(), files.end());
  std::vector<Topic> topics;
  for (const auto& f : files) {
    ASSIGN_OR_RETURN(Topic t, LoadTopic(f, kind));
    topics.push_back(std::move(t));
  }
  return topics;
}

struct Filler {
  std::string sample_id;
  ojson conversation;
  std::string user;  // speaker_a
  std::vector<std::pair<int, std::string>> sessions;
};

StatusOr<std::vector<Filler>> LoadFiller(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  ojson doc;
  try {
    doc = ojson::parse(text);
  } catch (const ojson::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: malformed JSON at byte {}: {}", path, e.byte, e.what()));
  }
  if (doc.is_object()) doc = ojson::array({doc});
  if (!doc.is_array() || doc.empty())
    return Status::InvalidArgument(path + ": top level is not a non-empty list of samples");
  std::vector<Filler> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const ojson& s = doc[i];
    std::string where = fmt::format("{}: [{}]", path, i);
    if (!s.is_object()) return Status::InvalidArgument(where + ": sample is not an object");
    Filler f;
    auto id = s.find("sample_id");
    f.sample_id = id != s.end() && id->is_string() ? id->get<std::string>() : fmt::format("sample-{}", i);
    auto conv = s.find("conversation");
    if (conv == s.end() || !conv->is_object())
      return Status::InvalidArgument(where + ": missing \"conversation\" object");
    f.conversation = *conv;
    auto sa = conv->find("speaker_a");
    if (sa == conv->end() || !sa->is_string() || sa->get<std::string>().empty())
      return Status::InvalidArgument(where + ".conversation: missing \"speaker_a\"");
    f.user = sa->get<std::string>();
    std::string not_a_list;
    f.sessions = LocomoSessionKeys(f.conversation, &not_a_list);
    if (!not_a_list.empty())
      return Status::InvalidArgument(fmt::format("{}.conversation.{}: not a list of turns", where, not_a_list));
    if (f.sessions.empty()) return Status::InvalidArgument(where + ".conversation: no session_<n> lists");
    for (const auto& [num, key] : f.sessions) {
      const ojson& turns = f.conversation.at(key);
      for (size_t t = 0; t < turns.size(); ++t) {
        if (!turns[t].is_object() || !turns[t].contains("text") || !turns[t]["text"].is_string())
          return Status::InvalidArgument(
              fmt::format("{}.conversation.{}[{}]: turn is not an object with a \"text\" string", where, key, t));
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

struct Insertion {
  size_t session = 0;  // index into Filler::sessions
  uint64_t gap = 0;    // inserted before original turn `gap` (== size: at the end)
  size_t topic = 0;
  const Item* item = nullptr;
};

Status ComposeImpl(const ComposeConfig& config, std::string* json_out, ComposeStats* stats) {
  if (json_out == nullptr) return Status::InvalidArgument("ComposePrefEval: json_out is null");
  Kind kind;
  if (config.kind == "explicit") kind = Kind::kExplicit;
  else if (config.kind == "choice") kind = Kind::kChoice;
  else if (config.kind == "persona") kind = Kind::kPersona;
  else
    return Status::InvalidArgument(
        fmt::format("--kind must be \"explicit\", \"choice\" or \"persona\", not \"{}\"", config.kind));
  ASSIGN_OR_RETURN(std::vector<Topic> topics, LoadTopics(config.prefeval_dir, kind));
  if (!config.topics.empty()) {
    for (const auto& want : config.topics)
      if (std::none_of(topics.begin(), topics.end(), [&](const Topic& t) { return t.name == want; }))
        return Status::InvalidArgument(fmt::format("--topics: no topic \"{}\" in {}", want, config.prefeval_dir));
    std::erase_if(topics, [&](const Topic& t) {
      return std::find(config.topics.begin(), config.topics.end(), t.name) == config.topics.end();
    });
  }
  ASSIGN_OR_RETURN(std::vector<Filler> fillers, LoadFiller(config.filler_path));
  size_t max_items = 0;
  for (const auto& t : topics) max_items = std::max(max_items, t.items.size());
  if (max_items == 0) return Status::InvalidArgument(config.prefeval_dir + ": every topic file is empty");
  const std::string category = "prefeval-" + config.kind;
  ComposeStats counts;

  ojson out = ojson::array();
  for (size_t g = 0; g < max_items; ++g) {
    const Filler& f = fillers[g % fillers.size()];
    std::mt19937_64 rng(SplitMix64(config.seed ^ SplitMix64(g)));
    const int first = PrefEvalInsertSessions(static_cast<int>(f.sessions.size()));

    std::vector<Insertion> ins;
    for (size_t t = 0; t < topics.size(); ++t) {
      if (g >= topics[t].items.size()) continue;
      if (topics[t].items[g].unlabelled) {
        ++counts.unlabelled;
        continue;
      }
      Insertion x;
      x.topic = t;
      x.item = &topics[t].items[g];
      x.session = PrefEvalUniform(rng, static_cast<uint64_t>(first));
      x.gap = PrefEvalUniform(rng, f.conversation.at(f.sessions[x.session].second).size() + 1);
      ins.push_back(x);
    }
    std::stable_sort(ins.begin(), ins.end(), [](const Insertion& a, const Insertion& b) {
      return a.session != b.session ? a.session < b.session : a.gap < b.gap;
    });

    ojson conv = f.conversation;
    std::vector<std::string> gold(topics.size());
    std::vector<std::string> gold_text(topics.size());
    size_t next = 0;  // next insertion to place
    for (size_t si = 0; si < f.sessions.size(); ++si) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture those in a lambda.
      const int num = f.sessions[si].first;
      const std::string& key = f.sessions[si].second;
      const ojson& orig = f.conversation.at(key);
      ojson turns = ojson::array();
      auto emit = [&](ojson turn) {
        turn["dia_id"] = fmt::format("D{}:{}", num, turns.size() + 1);
        turns.push_back(std::move(turn));
      };
      for (size_t i = 0; i <= orig.size(); ++i) {
        while (next < ins.size() && ins[next].session == si && ins[next].gap == i) {
          const Insertion& x = ins[next++];
          for (size_t b = 0; b < x.item->block.size(); ++b) {
            const auto& [is_user, txt] = x.item->block[b];
            if (b == x.item->gold) {
              gold[x.topic] = fmt::format("D{}:{}", num, turns.size() + 1);
              gold_text[x.topic] = txt;
            }
            ojson turn;
            turn["speaker"] = is_user ? f.user : std::string(kAssistant);
            turn["dia_id"] = "";
            turn["text"] = txt;
            turn["prefeval"] = fmt::format("{}#{}", topics[x.topic].name, x.item->index);
            emit(std::move(turn));
          }
        }
        if (i < orig.size()) emit(orig[i]);
      }
      conv[key] = std::move(turns);
    }
    if (next != ins.size()) return Status::Internal("ComposePrefEval: an insertion was not placed");

    ojson qa = ojson::array();
    for (size_t t = 0; t < topics.size(); ++t) {
      if (g >= topics[t].items.size() || topics[t].items[g].unlabelled) continue;
      const Item& item = topics[t].items[g];
      ++counts.questions;
      ojson q;
      q["question"] = item.question;
      q["evidence"] = ojson::array({gold[t]});
      q["category"] = category;
      q["implicit"] = !SharesContentTerm(item.question, gold_text[t]);
      q["pathology"] = ojson::array({"temporal_gap"});
      q["speaker"] = f.user;
      q["domain"] = topics[t].name;
      if (!item.preference.empty()) q["preference"] = item.preference;
      if (!item.aligned_op.empty()) q["aligned_op"] = item.aligned_op;
      q["prefeval_index"] = item.index;
      qa.push_back(std::move(q));
    }

    ojson sample;
    sample["sample_id"] = fmt::format("prefeval-{}-{:03d}-{}", config.kind, g, f.sample_id);
    sample["conversation"] = std::move(conv);
    sample["qa"] = std::move(qa);
    out.push_back(std::move(sample));
  }
  *json_out = out.dump(1, ' ', /*ensure_ascii=*/true);
  if (stats != nullptr) *stats = counts;
  return Status::Ok();
}

}  // namespace

int PrefEvalInsertSessions(int num_sessions) {
  if (num_sessions <= 0) return 0;
  return std::max(1, (num_sessions + 3) / 4);
}

uint64_t PrefEvalUniform(std::mt19937_64& rng, uint64_t n) {
  if (n <= 1) return 0;  // no draw: placements stay as they were with this rule
  return UniformBelow(rng, n);
}

Status ComposePrefEval(const ComposeConfig& config, std::string* json_out, ComposeStats* stats) {
  try {
    return ComposeImpl(config, json_out, stats);
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(fmt::format("ComposePrefEval: {}", e.what()));
  } catch (const std::exception& e) {
    return Status::Internal(fmt::format("ComposePrefEval: {}", e.what()));
  }
}

}  // namespace ontomem
