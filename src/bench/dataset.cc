#include "bench/dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/file_util.h"
#include "common/civil_time.h"
#include "text/text.h"

namespace ontomem {
namespace {

using nlohmann::json;

int MonthIndex(std::string m) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                  "jul", "aug", "sep", "oct", "nov", "dec"};
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  for (int i = 0; i < 12; ++i)
    if (m.rfind(kMonths[i], 0) == 0) return i + 1;
  return 0;
}

std::string CategoryString(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return "";
}

StatusOr<std::string> GetString(const json& obj, const char* field, const std::string& where,
                                bool required) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(fmt::format("{}: missing \"{}\"", where, field));
    return std::string();
  }
  if (!it->is_string())
    return Status::InvalidArgument(fmt::format("{}.{}: not a string", where, field));
  return it->get<std::string>();
}

StatusOr<Sample> ParseSample(const json& s, size_t index, const std::string& origin) {
  Sample out;
  std::string where = fmt::format("{}: [{}]", origin, index);
  if (!s.is_object()) return Status::InvalidArgument(where + ": sample is not an object");
  ASSIGN_OR_RETURN(out.sample_id, GetString(s, "sample_id", where, false));
  if (out.sample_id.empty()) out.sample_id = fmt::format("sample-{}", index);
  where = fmt::format("{}: {}", origin, out.sample_id);
  auto conv_it = s.find("conversation");
  if (conv_it == s.end() || !conv_it->is_object())
    return Status::InvalidArgument(where + ": missing \"conversation\" object");
  const json& conv = *conv_it;
  std::string not_a_list;
  const auto sessions = LocomoSessionKeys(conv, &not_a_list);
  if (!not_a_list.empty())
    return Status::InvalidArgument(fmt::format("{}: conversation.{}: not a list of turns", where, not_a_list));
  for (const auto& [num, key] : sessions) {
    int64_t session_ms = 0;
    if (auto dt = conv.find(key + "_date_time"); dt != conv.end() && dt->is_string())
      session_ms = ParseLocomoDateTime(dt->get<std::string>()).value_or(0);
    const json& turns = conv[key];
    for (size_t i = 0; i < turns.size(); ++i) {
      const json& t = turns[i];
      const std::string tw = fmt::format("{}: conversation.{}[{}]", where, key, i);
      if (!t.is_object()) return Status::InvalidArgument(tw + ": turn is not an object");
      Turn turn;
      ASSIGN_OR_RETURN(turn.text, GetString(t, "text", tw, true));
      ASSIGN_OR_RETURN(turn.speaker, GetString(t, "speaker", tw, false));
      ASSIGN_OR_RETURN(turn.id, GetString(t, "dia_id", tw, false));
      ASSIGN_OR_RETURN(std::string caption, GetString(t, "blip_caption", tw, false));
      if (!caption.empty()) turn.text += " [image: " + caption + "]";
      if (turn.id.empty()) turn.id = fmt::format("D{}:{}", num, i + 1);
      turn.session = key;
      turn.time_ms = session_ms > 0 ? session_ms + static_cast<int64_t>(i) * 1000 : 0;
      out.turns.push_back(std::move(turn));
    }
  }
  if (auto qa = s.find("qa"); qa != s.end()) {
    if (!qa->is_array()) return Status::InvalidArgument(where + ": \"qa\" is not a list");
    for (size_t i = 0; i < qa->size(); ++i) {
      const json& q = (*qa)[i];
      const std::string qw = fmt::format("{}: qa[{}]", where, i);
      if (!q.is_object()) return Status::InvalidArgument(qw + ": not an object");
      QaItem item;
      ASSIGN_OR_RETURN(item.question, GetString(q, "question", qw, true));
      if (auto ev = q.find("evidence"); ev != q.end() && ev->is_array()) {
        for (const auto& e : *ev)
          if (e.is_string())
            for (auto& id : NormaliseEvidence(e.get<std::string>())) item.evidence.push_back(id);
      }
      if (auto c = q.find("category"); c != q.end()) item.category = CategoryString(*c);
      if (auto im = q.find("implicit"); im != q.end() && im->is_boolean()) item.implicit = im->get<bool>();
      if (auto p = q.find("pathology"); p != q.end()) {
        if (p->is_string() && !p->get<std::string>().empty()) item.pathology.push_back(p->get<std::string>());
        if (p->is_array())
          for (const auto& x : *p)
            if (x.is_string()) item.pathology.push_back(x.get<std::string>());
      }
      ASSIGN_OR_RETURN(item.speaker, GetString(q, "speaker", qw, false));
      ASSIGN_OR_RETURN(item.domain, GetString(q, "domain", qw, false));
      if (auto c = q.find("context"); c != q.end() && c->is_array()) {
        for (const auto& x : *c) {
          if (x.is_string()) item.context.push_back(x.get<std::string>());
          else if (x.is_object() && x.contains("text") && x["text"].is_string())
            item.context.push_back(x["text"].get<std::string>());
        }
      }
      out.qa.push_back(std::move(item));
    }
  }
  return out;
}

}  // namespace

std::optional<int64_t> ParseLocomoDateTime(const std::string& s) {
  // "1:56 pm on 8 May, 2023"
  static const std::regex re(R"(^\s*(\d{1,2}):(\d{2})\s*([aApP][mM])\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::nullopt;
  int hour = std::stoi(m[1]), minute = std::stoi(m[2]);
  const bool pm = std::tolower(static_cast<unsigned char>(m[3].str()[0])) == 'p';
  const int day = std::stoi(m[4]);
  const int month = MonthIndex(m[5]);
  const int year = std::stoi(m[6]);
  // A 12-hour clock: "13:00 am" and "31 February" are not times.
  if (month == 0 || hour < 1 || hour > 12 || minute > 59 || day < 1 ||
      static_cast<unsigned>(day) > DaysInMonth(year, static_cast<unsigned>(month)))
    return std::nullopt;
  if (hour == 12) hour = 0;
  if (pm) hour += 12;
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60 * 1000;
}

std::string FormatLocomoNoon(int64_t year, unsigned month, unsigned day) {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  return fmt::format("12:00 pm on {} {}, {}", day, kMonths[(month + 11) % 12], year);
}

std::vector<std::string> NormaliseEvidence(const std::string& raw) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    // "D:11:26" -> "D11:26"
    if (cur.size() > 2 && cur[0] == 'D' && cur[1] == ':') cur.erase(1, 1);
    out.push_back(cur);
    cur.clear();
  };
  for (char c : raw) {
    if (c == ';' || c == ',' || std::isspace(static_cast<unsigned char>(c))) flush();
    else cur.push_back(c);
  }
  flush();
  return out;
}

StatusOr<Dataset> ParseLocomo(const std::string& json_text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: malformed JSON at byte {}: {}", origin, e.byte, e.what()));
  } catch (const json::exception& e) {  // out_of_range: a number too large for a double
    return Status::InvalidArgument(fmt::format("{}: malformed JSON: {}", origin, e.what()));
  }
  Dataset ds;
  ds.path = origin;
  if (doc.is_object()) doc = json::array({doc});  // a single sample is accepted too
  if (!doc.is_array()) return Status::InvalidArgument(origin + ": top level is not a list of samples");
  try {
    for (size_t i = 0; i < doc.size(); ++i) {
      ASSIGN_OR_RETURN(Sample s, ParseSample(doc[i], i, origin));
      if (auto hs = doc[i].find("history_scale"); hs != doc[i].end() && hs->is_number_integer())
        ds.history_scale = hs->get<int>();
      ds.samples.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", origin, e.what()));
  }
  return ds;
}

StatusOr<Dataset> LoadLocomo(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseLocomo(text, path);
}

namespace {

// ISO-8601 date or date-time, UTC unless it carries an offset ("Z", "+02:00", "-0530", "+02").
// nullopt when `s` is not in that shape (it may be a LoCoMo date); an error when it is but names
// no real time, so "2024-13-45" is never stored as some other day.
StatusOr<std::optional<int64_t>> ParseIsoTime(const std::string& s, const std::string& where) {
  static const std::regex re(
      R"(^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::optional<int64_t>();
  auto num = [&](int i) { return m[i].matched ? std::stoi(m[i]) : 0; };
  const int y = num(1), mo = num(2), d = num(3), h = num(4), mi = num(5);
  int sec = num(6);
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(fmt::format("{}: {}: {}", where, s, what));
  };
  if (mo < 1 || mo > 12) return bad(fmt::format("month {} is not 1..12", mo));
  if (d < 1 || static_cast<unsigned>(d) > DaysInMonth(y, static_cast<unsigned>(mo)))
    return bad(fmt::format("day {} does not exist in {:04}-{:02}", d, y, mo));
  if (h > 23) return bad(fmt::format("hour {} is not 0..23", h));
  if (mi > 59) return bad(fmt::format("minute {} is not 0..59", mi));
  if (sec > 60) return bad(fmt::format("second {} is not 0..59", sec));
  if (sec == 60) sec = 59;  // a leap second reads as the second before it, as in the HTTP API
  int64_t ms = 0;
  if (m[7].matched) {
    const std::string frac = m[7].str().substr(0, 3);
    ms = std::stoi(frac + std::string(3 - frac.size(), '0'));
  }
  int offset_min = 0;
  if (m[8].matched && m[8].str() != "Z" && m[8].str() != "z") {
    const std::string off = m[8].str();
    const int oh = std::stoi(off.substr(1, 2)), om = off.size() > 3 ? std::stoi(off.substr(off.size() - 2)) : 0;
    if (oh > 23 || om > 59) return bad(fmt::format("UTC offset {} is not -23:59..+23:59", off));
    offset_min = (off[0] == '-' ? -1 : 1) * (oh * 60 + om);
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return std::optional<int64_t>((((days * 24 + h) * 60 + mi - offset_min) * 60 + sec) * 1000 + ms);
}

}  // namespace

StatusOr<std::vector<Turn>> LoadTurnsJsonl(const std::string& path, std::vector<size_t>* line_numbers) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("cannot open {}", path));
  std::vector<Turn> turns;
  if (line_numbers) line_numbers->clear();
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool blank = std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); });
    if (blank) continue;
    const std::string where = fmt::format("{}:{}", path, lineno);
    json obj;
    try {
      obj = json::parse(line);
    } catch (const json::parse_error& e) {
      return Status::InvalidArgument(fmt::format("{}: malformed JSON at column {}: {}", where, e.byte, e.what()));
    } catch (const json::exception& e) {  // out_of_range: a number too large for a double
      return Status::InvalidArgument(fmt::format("{}: malformed JSON: {}", where, e.what()));
    }
    if (!obj.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
    Turn t;
    ASSIGN_OR_RETURN(t.text, GetString(obj, "text", where, true));
    ASSIGN_OR_RETURN(t.speaker, GetString(obj, "speaker", where, false));
    ASSIGN_OR_RETURN(t.session, GetString(obj, "session", where, false));
    if (auto id = obj.find("id"); id != obj.end() && !id->is_null()) {
      if (id->is_string()) t.id = id->get<std::string>();
      else if (id->is_number_unsigned()) t.id = std::to_string(id->get<uint64_t>());
      else if (id->is_number_integer()) t.id = std::to_string(id->get<int64_t>());
      else return Status::InvalidArgument(where + ".id: not a string or integer");
    }
    if (auto tm = obj.find("time"); tm != obj.end() && !tm->is_null()) {
      if (tm->is_number_unsigned() && tm->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return Status::InvalidArgument(fmt::format("{}.time: {} is out of range (Unix ms, at most {})", where,
                                                   tm->get<uint64_t>(), INT64_MAX));
      } else if (tm->is_number_integer()) {
        t.time_ms = tm->get<int64_t>();
      } else if (tm->is_string()) {
        const std::string& s = tm->get_ref<const std::string&>();
        ASSIGN_OR_RETURN(std::optional<int64_t> v, ParseIsoTime(s, where + ".time"));
        if (!v) v = ParseLocomoDateTime(s);
        if (!v) return Status::InvalidArgument(where + ".time: not Unix ms, ISO-8601 or a LoCoMo date");
        t.time_ms = *v;
      } else {
        return Status::InvalidArgument(where + ".time: not an integer or a string");
      }
    }
    turns.push_back(std::move(t));
    if (line_numbers) line_numbers->push_back(lineno);
  }
  if (in.bad()) return Status::IOError(fmt::format("cannot read {}", path));
  return turns;
}

}  // namespace ontomem
