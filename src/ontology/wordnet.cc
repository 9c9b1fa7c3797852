#include "ontology/wordnet.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <iterator>

namespace ontomem {
namespace {

// WordNet 3.0 lexicographer files, by number (lexnames(5WN)).
constexpr const char* kLexnames[] = {
    "adj.all",         "adj.pert",          "adv.all",           "noun.Tops",
    "noun.act",        "noun.animal",       "noun.artifact",     "noun.attribute",
    "noun.body",       "noun.cognition",    "noun.communication", "noun.event",
    "noun.feeling",    "noun.food",         "noun.group",        "noun.location",
    "noun.motive",     "noun.object",       "noun.person",       "noun.phenomenon",
    "noun.plant",      "noun.possession",   "noun.process",      "noun.quantity",
    "noun.relation",   "noun.shape",        "noun.state",        "noun.substance",
    "noun.time",       "verb.body",         "verb.change",       "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact",
    "verb.creation",   "verb.emotion",      "verb.motion",       "verb.perception",
    "verb.possession", "verb.social",       "verb.stative",      "verb.weather",
    "adj.ppl",
};
constexpr int kLexnameCount = sizeof(kLexnames) / sizeof(kLexnames[0]);

constexpr const char* kPosNames[4] = {"noun", "verb", "adj", "adv"};

struct Rule {
  const char* suffix;
  const char* ending;
};
constexpr Rule kNounRules[] = {{"s", ""},     {"ses", "s"},   {"xes", "x"}, {"zes", "z"},
                               {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}};
constexpr Rule kVerbRules[] = {{"s", ""},   {"ies", "y"}, {"es", "e"},  {"es", ""},
                               {"ed", "e"}, {"ed", ""},   {"ing", "e"}, {"ing", ""}};
constexpr Rule kAdjRules[] = {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}};

WordNetPos PosFromChar(char c) {
  switch (c) {
    case 'v': return WordNetPos::kVerb;
    case 'a': case 's': return WordNetPos::kAdj;
    case 'r': return WordNetPos::kAdv;
    default: return WordNetPos::kNoun;
  }
}

// Lower-case, trimmed, inner runs of spaces -> one '_'.
std::string NormalizeLemma(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending_sep = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '_' || c == '\n') {
      pending_sep = !out.empty();
      continue;
    }
    if (pending_sep) out.push_back('_');
    pending_sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Splits on single spaces, skipping empty fields.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line) {}
  bool Next(std::string_view* out) {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
    if (rest_.empty()) return false;
    size_t sp = rest_.find(' ');
    *out = rest_.substr(0, sp);
    rest_ = sp == std::string_view::npos ? std::string_view() : rest_.substr(sp);
    return true;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

bool ParseUint(std::string_view s, int base, uint32_t* out) {
  if (s.empty()) return false;
  char buf[24];
  if (s.size() >= sizeof(buf)) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = 0;
  char* end = nullptr;
  unsigned long v = std::strtoul(buf, &end, base);
  if (end != buf + s.size()) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

std::string SynsetId::ToString() const {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c:%08u", static_cast<char>(pos), offset);
  return buf;
}

std::string DefaultWordNetDir() {
  const char* env = std::getenv("ONTOMEM_WORDNET");
  if (env != nullptr && *env != 0) return env;
  return "/usr/share/wordnet";
}

struct WordNet::ParsedSynset {
  int lex_filenum = -1;
  std::vector<std::string_view> words;
  std::vector<std::pair<std::string_view, SynsetId>> pointers;  // symbol, target
  std::string_view gloss;
};

int WordNet::PosIndex(WordNetPos pos) {
  switch (pos) {
    case WordNetPos::kNoun: return 0;
    case WordNetPos::kVerb: return 1;
    case WordNetPos::kAdj: return 2;
    case WordNetPos::kAdv: return 3;
  }
  return 0;
}

StatusOr<std::shared_ptr<const WordNet>> WordNet::Open(const std::string& dir) {
  std::shared_ptr<WordNet> wn(new WordNet());
  wn->dir_ = dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::FailedPrecondition("WordNet directory " + dir + " not found: " +
                                      kWordNetFixHint);
  }
  auto map_file = [&](const std::string& name, bool required, Mapped* out) -> Status {
    std::string path = dir + "/" + name;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (!required) return Status::Ok();
      return Status::FailedPrecondition("WordNet file " + path + " missing or unreadable (" +
                                        std::strerror(errno) + "): " + kWordNetFixHint);
    }
    struct stat fst {};
    if (::fstat(fd, &fst) != 0) {
      ::close(fd);
      return Status::FailedPrecondition("WordNet file " + path + ": cannot stat: " +
                                        kWordNetFixHint);
    }
    size_t size = static_cast<size_t>(fst.st_size);
    if (size == 0) {
      ::close(fd);
      if (!required) return Status::Ok();
      return Status::FailedPrecondition("WordNet file " + path + " is empty: " + kWordNetFixHint);
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
      return Status::FailedPrecondition("WordNet file " + path + ": mmap failed: " +
                                        std::strerror(errno));
    }
    wn->mappings_.emplace_back(p, size);
    out->data = static_cast<const char*>(p);
    out->size = size;
    return Status::Ok();
  };
  for (int i = 0; i < 4; ++i) {
    RETURN_IF_ERROR(map_file(std::string("index.") + kPosNames[i], true, &wn->index_[i]));
    RETURN_IF_ERROR(map_file(std::string("data.") + kPosNames[i], true, &wn->data_[i]));
    // adv.exc is tiny and some installs lack exception files: treat them as optional.
    RETURN_IF_ERROR(map_file(std::string(kPosNames[i]) + ".exc", false, &wn->exc_[i]));
  }
  return std::shared_ptr<const WordNet>(std::move(wn));
}

WordNet::~WordNet() {
  for (auto& [p, size] : mappings_) ::munmap(p, size);
}

std::string_view WordNet::FindLine(const Mapped& file, std::string_view key) {
  if (file.data == nullptr || key.empty()) return {};
  const char* d = file.data;
  size_t lo = 0, hi = file.size;  // both always at line starts (or the end)
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    size_t ls = mid;
    while (ls > lo && d[ls - 1] != '\n') --ls;
    const void* nl = std::memchr(d + ls, '\n', file.size - ls);
    size_t le = nl ? static_cast<size_t>(static_cast<const char*>(nl) - d) : file.size;
    std::string_view line(d + ls, le - ls);
    if (!line.empty() && line.front() == ' ') {  // license header: sorts before every key
      lo = le + 1;
      continue;
    }
    std::string_view line_key = line.substr(0, line.find(' '));
    int cmp = line_key.compare(key);
    if (cmp == 0) return line;
    if (cmp < 0) {
      lo = le + 1;
    } else {
      hi = ls;
    }
  }
  return {};
}

std::vector<SynsetId> WordNet::Synsets(std::string_view lemma, WordNetPos pos) const {
  std::string key = NormalizeLemma(lemma);
  std::string_view line = FindLine(index_[PosIndex(pos)], key);
  std::vector<SynsetId> out;
  if (line.empty()) return out;
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  Fields f(line);
  std::string_view tok;
  uint32_t synset_cnt = 0, p_cnt = 0;
  if (!f.Next(&tok) || !f.Next(&tok) || !f.Next(&tok) || !ParseUint(tok, 10, &synset_cnt)) return out;
  if (!f.Next(&tok) || !ParseUint(tok, 10, &p_cnt)) return out;
  for (uint32_t i = 0; i < p_cnt; ++i) {
    if (!f.Next(&tok)) return out;
  }
  if (!f.Next(&tok) || !f.Next(&tok)) return out;  // sense_cnt, tagsense_cnt
  out.reserve(synset_cnt);
  for (uint32_t i = 0; i < synset_cnt && f.Next(&tok); ++i) {
    uint32_t off = 0;
    if (ParseUint(tok, 10, &off)) out.push_back(SynsetId{pos, off});
  }
  return out;
}

std::vector<std::string> WordNet::Morphy(std::string_view word, WordNetPos pos) const {
  std::vector<std::string> out;
  std::string w = NormalizeLemma(word);
  if (w.empty()) return out;
  const int pi = PosIndex(pos);
  auto add = [&](const std::string& form) {
    if (std::find(out.begin(), out.end(), form) != out.end()) return;
    if (!FindLine(index_[pi], form).empty()) out.push_back(form);
  };
  // Exceptions: "mice mouse", "better good well".
  std::string_view exc = FindLine(exc_[pi], w);
  if (!exc.empty()) {
    Fields f(exc);
    std::string_view tok;
    f.Next(&tok);
    while (f.Next(&tok)) add(std::string(tok));
  }
  add(w);
  auto apply_rules = [&](const std::string& base_prefix, const std::string& last) {
    const Rule* rules = nullptr;
    size_t n = 0;
    switch (pos) {
      case WordNetPos::kNoun: rules = kNounRules; n = std::size(kNounRules); break;
      case WordNetPos::kVerb: rules = kVerbRules; n = std::size(kVerbRules); break;
      case WordNetPos::kAdj: rules = kAdjRules; n = std::size(kAdjRules); break;
      case WordNetPos::kAdv: return;
    }
    if (pos == WordNetPos::kNoun && EndsWith(last, "ss")) return;  // "glass" is not "glas"+s
    for (size_t i = 0; i < n; ++i) {
      if (!EndsWith(last, rules[i].suffix) || last.size() <= std::strlen(rules[i].suffix)) continue;
      std::string base = last.substr(0, last.size() - std::strlen(rules[i].suffix)) + rules[i].ending;
      add(base_prefix + base);
    }
  };
  size_t us = w.rfind('_');
  if (us == std::string::npos) {
    apply_rules("", w);
  } else {
    std::string prefix = w.substr(0, us + 1);
    std::string last = w.substr(us + 1);
    std::string_view last_exc = FindLine(exc_[pi], last);
    if (!last_exc.empty()) {
      Fields f(last_exc);
      std::string_view tok;
      f.Next(&tok);
      while (f.Next(&tok)) add(prefix + std::string(tok));
    }
    apply_rules(prefix, last);
  }
  return out;
}

std::vector<SynsetId> WordNet::LookupSynsets(std::string_view word, WordNetPos pos) const {
  std::vector<SynsetId> out;
  for (const std::string& base : Morphy(word, pos)) {
    for (SynsetId s : Synsets(base, pos)) {
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

std::string_view WordNet::DataLine(SynsetId synset) const {
  const Mapped& m = data_[PosIndex(synset.pos)];
  if (m.data == nullptr || synset.offset >= m.size) return {};
  // A valid offset starts a line whose first field is that offset.
  if (synset.offset > 0 && m.data[synset.offset - 1] != '\n') return {};
  const char* start = m.data + synset.offset;
  const void* nl = std::memchr(start, '\n', m.size - synset.offset);
  size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : m.size - synset.offset;
  std::string_view line(start, len);
  uint32_t off = 0;
  if (!ParseUint(line.substr(0, line.find(' ')), 10, &off) || off != synset.offset) return {};
  return line;
}

bool WordNet::Parse(SynsetId synset, ParsedSynset* out) const {
  std::string_view line = DataLine(synset);
  if (line.empty()) return false;
  size_t bar = line.find(" | ");
  out->gloss = bar == std::string_view::npos ? std::string_view() : line.substr(bar + 3);
  while (!out->gloss.empty() && out->gloss.back() == ' ') out->gloss.remove_suffix(1);
  Fields f(line.substr(0, bar));
  std::string_view tok;
  uint32_t v = 0;
  if (!f.Next(&tok) || !f.Next(&tok) || !ParseUint(tok, 10, &v)) return false;
  out->lex_filenum = static_cast<int>(v);
  if (!f.Next(&tok)) return false;  // ss_type
  uint32_t w_cnt = 0;
  if (!f.Next(&tok) || !ParseUint(tok, 16, &w_cnt)) return false;
  for (uint32_t i = 0; i < w_cnt; ++i) {
    if (!f.Next(&tok)) return false;
    // Adjective syntactic markers: "word(a)", "word(p)", "word(ip)".
    size_t paren = tok.find('(');
    out->words.push_back(paren == std::string_view::npos ? tok : tok.substr(0, paren));
    if (!f.Next(&tok)) return false;  // lex_id
  }
  uint32_t p_cnt = 0;
  if (!f.Next(&tok) || !ParseUint(tok, 10, &p_cnt)) return false;
  for (uint32_t i = 0; i < p_cnt; ++i) {
    std::string_view sym, off, pos, st;
    if (!f.Next(&sym) || !f.Next(&off) || !f.Next(&pos) || !f.Next(&st)) return false;
    uint32_t target = 0;
    if (!ParseUint(off, 10, &target) || pos.empty()) return false;
    out->pointers.emplace_back(sym, SynsetId{PosFromChar(pos[0]), target});
  }
  return true;
}

std::string WordNet::Lexname(SynsetId synset) const {
  ParsedSynset p;
  if (!Parse(synset, &p) || p.lex_filenum < 0 || p.lex_filenum >= kLexnameCount) return "";
  return kLexnames[p.lex_filenum];
}

std::vector<std::string> WordNet::Lemmas(SynsetId synset) const {
  ParsedSynset p;
  std::vector<std::string> out;
  if (!Parse(synset, &p)) return out;
  for (std::string_view w : p.words) out.push_back(Lower(w));
  return out;
}

std::string WordNet::Gloss(SynsetId synset) const {
  ParsedSynset p;
  if (!Parse(synset, &p)) return "";
  return std::string(p.gloss);
}

std::vector<SynsetId> WordNet::Hypernyms(SynsetId synset) const {
  ParsedSynset p;
  std::vector<SynsetId> out;
  if (!Parse(synset, &p)) return out;
  for (auto& [sym, target] : p.pointers) {
    if (sym == "@" || sym == "@i") out.push_back(target);
  }
  return out;
}

std::vector<WordNet::Pointer> WordNet::Pointers(SynsetId synset) const {
  ParsedSynset p;
  std::vector<Pointer> out;
  if (!Parse(synset, &p)) return out;
  out.reserve(p.pointers.size());
  for (auto& [sym, target] : p.pointers) out.push_back({std::string(sym), target});
  return out;
}

std::vector<SynsetId> WordNet::Domains(SynsetId synset, WordNetDomain kind) const {
  ParsedSynset p;
  std::vector<SynsetId> out;
  if (!Parse(synset, &p)) return out;
  std::string_view want = kind == WordNetDomain::kTopic ? ";c" : kind == WordNetDomain::kRegion ? ";r" : ";u";
  for (auto& [sym, target] : p.pointers) {
    if (sym == want) out.push_back(target);
  }
  return out;
}

std::vector<WordNet::ChainEntry> WordNet::HypernymClosure(SynsetId synset, int max_depth) const {
  std::vector<ChainEntry> out;
  std::set<SynsetId> seen;
  std::deque<ChainEntry> queue;
  queue.push_back({synset, 0});
  seen.insert(synset);
  while (!queue.empty()) {
    ChainEntry e = queue.front();
    queue.pop_front();
    out.push_back(e);
    if (e.depth >= max_depth) continue;
    for (SynsetId h : Hypernyms(e.synset)) {
      if (seen.insert(h).second) queue.push_back({h, e.depth + 1});
    }
  }
  return out;
}

bool WordNet::IsA(std::string_view lemma, std::string_view target_lemma, int max_depth,
                  int max_senses) const {
  std::string target = NormalizeLemma(target_lemma);
  std::vector<SynsetId> senses = LookupSynsets(lemma, WordNetPos::kNoun);
  if (max_senses >= 0 && senses.size() > static_cast<size_t>(max_senses)) senses.resize(max_senses);
  for (SynsetId s : senses) {
    for (const ChainEntry& e : HypernymClosure(s, max_depth)) {
      for (const std::string& l : Lemmas(e.synset)) {
        if (l == target) return true;
      }
    }
  }
  return false;
}

}  // namespace ontomem
