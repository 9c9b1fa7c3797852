#include "extract/annotations.h"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "extract/features.h"

namespace ontomem::extract {
namespace {

using json = nlohmann::json;

StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::NotFound("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Status ParseFacts(const json& arr, const std::string& text, const std::string& where, std::vector<GoldFact>* out) {
  if (!arr.is_array()) return Status::InvalidArgument(where + ": assertions/facts is not an array");
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& a = arr[i];
    const std::string w = fmt::format("{}[{}]", where, i);
    GoldFact f;
    if (!a.is_object() || !a.contains("relation") || !a["relation"].is_string())
      return Status::InvalidArgument(w + ": no relation");
    f.relation = a["relation"].get<std::string>();
    if (RelationIndex(f.relation) < 0) return Status::InvalidArgument(w + ": unknown relation " + f.relation);
    if (!a.contains("tail_begin") || !a.contains("tail_end") || !a["tail_begin"].is_number_integer() ||
        !a["tail_end"].is_number_integer())
      return Status::InvalidArgument(w + ": tail offsets missing");
    f.tail_begin = a["tail_begin"].get<int32_t>();
    f.tail_end = a["tail_end"].get<int32_t>();
    if (f.tail_begin < 0 || f.tail_end <= f.tail_begin || f.tail_end > static_cast<int32_t>(text.size()))
      return Status::InvalidArgument(fmt::format("{}: tail span [{}, {}) outside the text ({} bytes)", w, f.tail_begin,
                                                 f.tail_end, text.size()));
    const std::string mod = a.value("modality", "asserted");
    if (!ParseModality(mod, &f.modality)) return Status::InvalidArgument(w + ": unknown modality " + mod);
    if (a.contains("head_begin") && a.contains("head_end")) {
      f.head_is_speaker = false;
      f.head_begin = a["head_begin"].get<int32_t>();
      f.head_end = a["head_end"].get<int32_t>();
      if (f.head_begin < 0 || f.head_end <= f.head_begin || f.head_end > static_cast<int32_t>(text.size()))
        return Status::InvalidArgument(w + ": head span outside the text");
    }
    out->push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Calls `fn` for every non-blank line of a JSONL file; `where` is "path:line".
Status ForEachJsonLine(const std::string& path,
                       const std::function<Status(const json&, const std::string& where)>& fn) {
  std::ifstream f(path);
  if (!f) return Status::NotFound("cannot open " + path);
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, lineno);
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
    RETURN_IF_ERROR(fn(j, where));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<AnnotatedTurn>> ParseIprFacts(const std::string& json_text, const std::string& origin) {
  const json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) return Status::InvalidArgument(origin + ": not a LoCoMo-format array");
  std::vector<AnnotatedTurn> out;
  for (const auto& s : doc) {
    const std::string sid = s.value("sample_id", "");
    if (!s.contains("conversation")) continue;
    for (const auto& [key, val] : s["conversation"].items()) {
      if (!val.is_array()) continue;
      for (const auto& t : val) {
        if (!t.is_object() || !t.contains("facts")) continue;
        AnnotatedTurn a;
        a.id = sid + "/" + t.value("dia_id", "");
        a.speaker = t.value("speaker", "");
        a.text = t.value("text", "");
        RETURN_IF_ERROR(ParseFacts(t["facts"], a.text, origin + ": " + a.id, &a.facts));
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

StatusOr<std::vector<AnnotatedTurn>> LoadLocomoAnnotations(const std::string& annotations_path,
                                                           const std::string& locomo_path) {
  ASSIGN_OR_RETURN(std::string locomo_text, ReadAll(locomo_path));
  const json doc = json::parse(locomo_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) return Status::InvalidArgument(locomo_path + ": not a LoCoMo array");
  std::map<std::string, std::pair<std::string, std::string>> turns;  // "sid/dia" -> speaker, text
  for (const auto& s : doc) {
    const std::string sid = s.value("sample_id", "");
    if (!s.contains("conversation")) continue;
    for (const auto& [key, val] : s["conversation"].items()) {
      if (!val.is_array()) continue;
      for (const auto& t : val)
        if (t.is_object() && t.contains("dia_id") && t.contains("text") && t["text"].is_string())
          turns[sid + "/" + t["dia_id"].get<std::string>()] = {t.value("speaker", ""), t["text"].get<std::string>()};
    }
  }
  std::vector<AnnotatedTurn> out;
  RETURN_IF_ERROR(ForEachJsonLine(annotations_path, [&](const json& j, const std::string& where) -> Status {
    AnnotatedTurn a;
    a.id = j.value("sample_id", "") + "/" + j.value("dia_id", "");
    auto it = turns.find(a.id);
    if (it == turns.end()) return Status::InvalidArgument(where + ": turn " + a.id + " not in " + locomo_path);
    a.speaker = it->second.first;
    a.text = it->second.second;
    RETURN_IF_ERROR(ParseFacts(j.value("assertions", json::array()), a.text, where, &a.facts));
    out.push_back(std::move(a));
    return Status::Ok();
  }));
  return out;
}

StatusOr<std::vector<AnnotatedTurn>> LoadHandwritten(const std::string& path, int parity) {
  std::vector<AnnotatedTurn> out;
  RETURN_IF_ERROR(ForEachJsonLine(path, [&](const json& j, const std::string& where) -> Status {
    AnnotatedTurn a;
    a.id = j.value("id", "");
    a.speaker = j.value("speaker", "");
    a.text = j.value("text", "");
    int num = 0;
    for (char c : a.id)
      if (c >= '0' && c <= '9') num = num * 10 + (c - '0');
    if (parity >= 0 && num % 2 != parity) return Status::Ok();
    RETURN_IF_ERROR(ParseFacts(j.value("assertions", json::array()), a.text, where, &a.facts));
    out.push_back(std::move(a));
    return Status::Ok();
  }));
  return out;
}

}  // namespace ontomem::extract
