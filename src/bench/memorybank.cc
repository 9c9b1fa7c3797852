#include "bench/memorybank.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/dataset.h"
#include "common/file_util.h"

namespace ontomem {
namespace {

using ojson = nlohmann::ordered_json;

std::string Strip(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "2023-04-27" -> "12:00 pm on 27 April, 2023" (the LoCoMo session time format).
StatusOr<std::string> SessionTime(const std::string& date) {
  int y = 0, m = 0, d = 0;
  char dash1 = 0, dash2 = 0;
  std::istringstream in(date);
  if (!(in >> y >> dash1 >> m >> dash2 >> d) || dash1 != '-' || dash2 != '-' || m < 1 || m > 12 || d < 1 || d > 31)
    return Status::InvalidArgument(fmt::format("not a YYYY-MM-DD date: `{}`", date));
  return FormatLocomoNoon(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

}  // namespace

Status ConvertMemoryBank(const MemoryBankConfig& config, std::string* json_out) {
  const std::string bank_path = config.dir + "/memory_bank_en.json";
  const std::string questions_path = config.dir + "/probing_questions_en.jsonl";
  ASSIGN_OR_RETURN(std::string bank_text, ReadWholeFile(bank_path));
  ASSIGN_OR_RETURN(std::string questions_text, ReadWholeFile(questions_path));
  ojson bank, labels = ojson::object();
  try {
    bank = ojson::parse(bank_text);
  } catch (const ojson::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", bank_path, e.what()));
  }
  if (!config.labels_path.empty()) {
    ASSIGN_OR_RETURN(std::string labels_text, ReadWholeFile(config.labels_path));
    try {
      labels = ojson::parse(labels_text);
    } catch (const ojson::parse_error& e) {
      return Status::InvalidArgument(fmt::format("{}: {}", config.labels_path, e.what()));
    }
    if (!labels.is_object()) return Status::InvalidArgument(config.labels_path + ": not an object of users");
  }
  // Questions per user, in file order.
  std::map<std::string, std::vector<std::string>> questions;
  std::istringstream lines(questions_text);
  size_t line_no = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    if (Strip(line).empty()) continue;
    try {
      const ojson doc = ojson::parse(line);  // named: a temporary would not outlive items()
      for (const auto& [user, qs] : doc.items())
        for (const auto& q : qs) questions[Strip(user)].push_back(q.get<std::string>());
    } catch (const ojson::exception& e) {
      return Status::InvalidArgument(fmt::format("{}:{}: {}", questions_path, line_no, e.what()));
    }
  }
  if (!bank.is_object()) return Status::InvalidArgument(bank_path + ": not an object of users");
  ojson out = ojson::array();
  std::vector<std::string> users;
  for (const auto& [key, v] : bank.items()) users.push_back(key);
  std::sort(users.begin(), users.end(), [](const std::string& a, const std::string& b) { return Strip(a) < Strip(b); });
  for (const std::string& key : users) {
    const std::string name = Strip(key);
    const ojson& u = bank.at(key);
    if (!u.contains("history") || !u.at("history").is_object())
      return Status::InvalidArgument(fmt::format("{}: {}: no history object", bank_path, name));
    std::vector<std::string> dates;
    for (const auto& [date, v] : u.at("history").items()) dates.push_back(date);
    std::sort(dates.begin(), dates.end());
    ojson conv = ojson::object();
    conv["speaker_a"] = name;
    conv["speaker_b"] = "AI";
    std::set<std::string> ids;
    for (size_t s = 0; s < dates.size(); ++s) {
      const std::string session = fmt::format("session_{}", s + 1);
      auto when = SessionTime(dates[s]);
      if (!when.ok()) return when.status().WithContext(fmt::format("{}: {}", bank_path, name));
      conv[session + "_date_time"] = *when;
      ojson turns = ojson::array();
      size_t t = 0;
      for (const auto& pair : u.at("history").at(dates[s])) {
        for (const char* field : {"query", "response"}) {
          if (!pair.contains(field) || !pair.at(field).is_string())
            return Status::InvalidArgument(fmt::format("{}: {} {}: a pair without a `{}` string", bank_path, name, dates[s], field));
          const std::string id = fmt::format("D{}:{}", s + 1, ++t);
          ids.insert(id);
          turns.push_back({{"speaker", std::string(field) == "query" ? name : "AI"}, {"dia_id", id},
                           {"text", pair.at(field).get<std::string>()}});
        }
      }
      conv[session] = std::move(turns);
    }
    const auto& qs = questions[name];
    const ojson* user_labels = labels.contains(name) ? &labels.at(name) : nullptr;
    if (user_labels && (!user_labels->is_array() || user_labels->size() != qs.size()))
      return Status::InvalidArgument(fmt::format("{}: {} has {} questions, the labels list {}", config.labels_path, name,
                                                 qs.size(), user_labels->is_array() ? user_labels->size() : 0));
    ojson qa = ojson::array();
    for (size_t i = 0; i < qs.size(); ++i) {
      ojson evidence = ojson::array();
      if (user_labels) {
        for (const auto& id : user_labels->at(i)) {
          if (!id.is_string() || !ids.count(id.get<std::string>()))
            return Status::InvalidArgument(fmt::format("{}: {} question {}: `{}` is not a turn of that user",
                                                       config.labels_path, name, i + 1, id.dump()));
          evidence.push_back(id);
        }
      }
      qa.push_back({{"question", qs[i]}, {"evidence", std::move(evidence)}, {"category", "memorybank"}, {"speaker", name}});
    }
    out.push_back({{"sample_id", "mb-" + name}, {"conversation", std::move(conv)}, {"qa", std::move(qa)}});
  }
  *json_out = out.dump(1, ' ', /*ensure_ascii=*/true);
  return Status::Ok();
}

}  // namespace ontomem
