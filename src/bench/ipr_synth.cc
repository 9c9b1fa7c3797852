#include "bench/ipr_synth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "bench/ipr_data/ipr_data.h"
#include "common/random.h"
#include "text/text.h"

namespace ontomem {
namespace {

namespace d = ipr_data;
using ojson = nlohmann::ordered_json;

// ------------------------------------------------------------------ randomness
// std::mt19937_64 is fully specified by the standard; the uniform helper below (instead of
// std::uniform_int_distribution) keeps the output identical across standard libraries.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t Below(uint64_t n) { return UniformBelow(g_, n); }  // uniform in [0, n), n > 0
  int Range(int lo, int hi) { return lo + static_cast<int>(Below(static_cast<uint64_t>(hi - lo + 1))); }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[Below(v.size())]; }
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[Below(i)]);
  }

 private:
  std::mt19937_64 g_;
};

// index % 5 in {0,1,2} -> train (0), 3 -> dev (1), 4 -> test (2)
int SplitOfIndex(size_t i) {
  size_t r = i % 5;
  return r < 3 ? 0 : (r == 3 ? 1 : 2);
}

int SplitId(const std::string& s) {
  if (s == "train") return 0;
  if (s == "dev") return 1;
  if (s == "test") return 2;
  return -1;
}

std::vector<std::string> Part(const d::StrList& l, int split) {
  std::vector<std::string> out;
  for (size_t i = 0; i < l.size; ++i)
    if (SplitOfIndex(i) == split) out.emplace_back(l.items[i]);
  return out;
}
// Phrasing only (statement and query cores, openers, closers): the split's items at even
// (fold 0) or odd (fold 1) positions, all of them for fold -1 or when the fold would be empty.
std::vector<std::string> Part(const d::StrList& l, int split, int fold) {
  std::vector<std::string> all = Part(l, split), out;
  if (fold < 0) return all;
  for (size_t j = 0; j < all.size(); ++j)
    if (static_cast<int>(j % 2) == fold) out.push_back(all[j]);
  return out.empty() ? all : out;
}
std::vector<std::string> All(const d::StrList& l) { return std::vector<std::string>(l.items, l.items + l.size); }

// ------------------------------------------------------------------ pools
struct Movie { std::string title, genre, alias; };
struct Dish { std::string name, cuisine; int diet; uint32_t allergens; };
struct Tool { std::string name, category; };

// An entity's concept for the recurring-preference mode: the IPR surface ("sci-fi"), the
// ontology concept ("genre/science_fiction", "" when the ontology has none) and the domain.
struct EntityConcept {
  std::string surface, concept_key;
  int domain = 0;
};

struct Pools {
  std::map<std::string, EntityConcept> concept_of;  // movie, dish and tool names
  std::vector<Movie> movies;
  std::vector<Dish> dishes;
  std::vector<Tool> tools;
  std::vector<std::string> habits, services, nicknames, names;
  // templates
  std::vector<std::string> stmt_open, stmt_close, query_open, query_close;
  std::vector<std::string> like, aversion, allergy, diet, habit, schedule, company, platform;
  std::vector<std::string> upd_like, upd_diet, alias_intro;
  std::vector<std::string> friend_like, disliked, used_to, hypo, question;
  std::vector<std::string> acks, chit_user, chit_partner, reactions, explicit_q, ellipsis;
  std::vector<std::string> query_cores[9], cues[9];
  std::vector<std::string> recur_cues;
};

// The ontology concept ("inventory/id", data/ontology/ontology.json) of an IPR genre, cuisine or
// tool category; "" when the ontology has no such concept (then nothing can be promoted right).
std::string OntologyConcept(const std::string& inventory, const std::string& surface) {
  static const std::map<std::string, std::string> kRenamed = {
      {"genre:sci-fi", "science_fiction"}, {"genre:animated", "animation"},
      {"cuisine:indonesian", "southeast_asian"}, {"cuisine:malaysian", "southeast_asian"},
      {"cuisine:levantine", "middle_eastern"},
      {"tool_category:kanban board", "project_management"}, {"tool_category:to-do list app", "task_manager"},
      {"tool_category:note-taking app", "note_taking"}, {"tool_category:calendar app", "calendar"},
      {"tool_category:time tracker", ""}, {"tool_category:habit tracker", ""},
      {"tool_category:mind-mapping tool", ""}};
  std::string key = surface;
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string id = key;
  if (auto it = kRenamed.find(inventory + ":" + key); it != kRenamed.end()) id = it->second;
  for (char& c : id) if (c == ' ' || c == '-') c = '_';
  return id.empty() ? "" : inventory + "/" + id;
}

// The concept relation a liked entity of `concept` ("genre/romance") is promoted under.
std::string ConceptRelationOf(const std::string& concept_key) {
  if (concept_key.rfind("genre/", 0) == 0) return "PREFERS_GENRE";
  if (concept_key.rfind("cuisine/", 0) == 0) return "PREFERS_CUISINE";
  return "USES_TOOL_CATEGORY";
}

std::string Capitalise(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// The entity lists movies, dishes and tools are built from: the split's part of the frozen
// lists, or those of an --entities file.
struct EntityLists {
  std::vector<std::string> title_adj, title_noun, plot_role, plot_place, tool_stem, tool_suffix;
  std::vector<std::string> habits, services, nicknames, names;
  struct Base { std::string name; int diet; uint32_t allergens; };
  struct Style { std::string name, cuisine; uint32_t allergens; };
  std::vector<Base> dish_bases;
  std::vector<Style> dish_styles;
};

EntityLists SplitEntities(int split) {
  EntityLists e;
  e.title_adj = Part(d::kTitleAdj, split);
  e.title_noun = Part(d::kTitleNoun, split);
  e.plot_role = Part(d::kPlotRole, split);
  e.plot_place = Part(d::kPlotPlace, split);
  e.tool_stem = Part(d::kToolStem, split);
  e.tool_suffix = Part(d::kToolSuffix, split);
  e.habits = Part(d::kHabits, split);
  e.services = Part(d::kServices, split);
  e.nicknames = Part(d::kNicknames, split);
  e.names = Part(d::kNames, split);
  for (size_t i = 0; i < d::kNumDishBases; ++i)
    if (SplitOfIndex(i) == split) e.dish_bases.push_back({d::kDishBases[i].name, d::kDishBases[i].diet, d::kDishBases[i].allergens});
  for (size_t i = 0; i < d::kNumDishStyles; ++i)
    if (SplitOfIndex(i) == split)
      e.dish_styles.push_back({d::kDishStyles[i].name, d::kDishStyles[i].cuisine, d::kDishStyles[i].allergens});
  return e;
}

// Movies, dishes and tools (with their concepts) from the entity lists.
void BuildEntities(const EntityLists& e, Pools* out) {
  Pools& p = *out;
  p.movies.clear(); p.dishes.clear(); p.tools.clear(); p.concept_of.clear();
  // Movies: "The {Adj} {Noun}" (word-level disjoint across splits); genre and plot description
  // fixed per title.
  {
    const auto& adj = e.title_adj; const auto& noun = e.title_noun;
    const auto& role = e.plot_role; const auto& place = e.plot_place;
    auto genres = All(d::kGenres);
    for (size_t a = 0; a < adj.size(); ++a)
      for (size_t n = 0; n < noun.size(); ++n) {
        Movie m;
        m.title = "The " + adj[a] + " " + noun[n];
        m.genre = genres[(a * 7 + n * 3) % genres.size()];
        m.alias = "the one about the " + role[(a + 2 * n) % role.size()] + " " +
                  place[(3 * a + n) % place.size()];
        p.movies.push_back(std::move(m));
      }
  }
  for (const auto& B : e.dish_bases)
    for (const auto& S : e.dish_styles)
      p.dishes.push_back({B.name + " " + S.name, S.cuisine, B.diet, B.allergens | S.allergens});
  {
    auto cats = All(d::kToolCategories);
    for (size_t a = 0; a < e.tool_stem.size(); ++a)
      for (size_t b = 0; b < e.tool_suffix.size(); ++b)
        p.tools.push_back({e.tool_stem[a] + e.tool_suffix[b], cats[(a * 5 + b) % cats.size()]});
  }
  for (const auto& m : p.movies) p.concept_of[m.title] = {m.genre, OntologyConcept("genre", m.genre), 0};
  for (const auto& x : p.dishes) p.concept_of[x.name] = {x.cuisine, OntologyConcept("cuisine", x.cuisine), 1};
  for (const auto& x : p.tools) p.concept_of[x.name] = {x.category, OntologyConcept("tool_category", x.category), 2};
  p.habits = e.habits;
  p.services = e.services;
  p.nicknames = e.nicknames;
  p.names = e.names;
}

Pools BuildPools(int split, int fold = -1) {
  Pools p;
  BuildEntities(SplitEntities(split), &p);
  p.recur_cues = Part(d::kRecurCueForms, split);
  p.stmt_open = Part(d::kStmtOpen, split, fold);
  p.stmt_close = Part(d::kStmtClose, split, fold);
  p.query_open = Part(d::kQueryOpen, split, fold);
  p.query_close = Part(d::kQueryClose, split, fold);
  p.like = Part(d::kLikeCores, split, fold);
  p.aversion = Part(d::kAversionCores, split, fold);
  p.allergy = Part(d::kAllergyCores, split, fold);
  p.diet = Part(d::kDietCores, split, fold);
  p.habit = Part(d::kHabitCores, split, fold);
  p.schedule = Part(d::kScheduleCores, split, fold);
  p.company = Part(d::kCompanyCores, split, fold);
  p.platform = Part(d::kPlatformCores, split, fold);
  p.upd_like = Part(d::kUpdateLikeCores, split, fold);
  p.upd_diet = Part(d::kUpdateDietCores, split, fold);
  p.alias_intro = Part(d::kAliasIntroCores, split, fold);
  p.friend_like = Part(d::kFriendLikeCores, split, fold);
  p.disliked = Part(d::kDislikedOnceCores, split, fold);
  p.used_to = Part(d::kUsedToCores, split, fold);
  p.hypo = Part(d::kHypotheticalCores, split, fold);
  p.question = Part(d::kQuestionCores, split, fold);
  p.acks = Part(d::kAcks, split, fold);
  p.chit_user = Part(d::kChitChatUser, split);
  p.chit_partner = Part(d::kChitChatPartner, split);
  p.reactions = Part(d::kReactions, split, fold);
  p.explicit_q = Part(d::kExplicitCores, split, fold);
  p.ellipsis = Part(d::kEllipsisCores, split, fold);
  for (int q = 0; q < 9; ++q) {
    p.query_cores[q] = Part(d::kQueryCores[q], split, fold);
    p.cues[q] = Part(d::kCueLines[q], split, fold);
  }
  return p;
}

// The placeholders ("{v}", "{old}") of a template.
std::set<std::string> Placeholders(const std::string& t) {
  std::set<std::string> out;
  for (size_t b = t.find('{'); b != std::string::npos; b = t.find('{', b + 1))
    if (size_t e = t.find('}', b); e != std::string::npos) out.insert(t.substr(b, e - b + 1));
  return out;
}

// The JSON object of a --phrasing or --entities file.
StatusOr<ojson> ReadJsonObject(const std::string& path, const std::string& option) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::IOError("gen-ipr: cannot open " + option + " file " + path);
  ojson j = ojson::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("gen-ipr: " + path + " is not a JSON object");
  return j;
}

// Replaces the templates named in a --phrasing file (statements, and requests: q0..q8 per query
// type, their ellipsis cue lines c0..c8, explicit_q, ellipsis, query_open, query_close). Each
// replacement must use only placeholders its frozen list uses, and every one all of them use.
Status ApplyPhrasing(const std::string& path, Pools* p) {
  std::map<std::string, std::pair<std::vector<std::string>*, const d::StrList*>> lists = {
      {"stmt_open", {&p->stmt_open, &d::kStmtOpen}},       {"stmt_close", {&p->stmt_close, &d::kStmtClose}},
      {"like", {&p->like, &d::kLikeCores}},                {"aversion", {&p->aversion, &d::kAversionCores}},
      {"allergy", {&p->allergy, &d::kAllergyCores}},       {"diet", {&p->diet, &d::kDietCores}},
      {"habit", {&p->habit, &d::kHabitCores}},             {"schedule", {&p->schedule, &d::kScheduleCores}},
      {"company", {&p->company, &d::kCompanyCores}},       {"platform", {&p->platform, &d::kPlatformCores}},
      {"upd_like", {&p->upd_like, &d::kUpdateLikeCores}},  {"upd_diet", {&p->upd_diet, &d::kUpdateDietCores}},
      {"alias_intro", {&p->alias_intro, &d::kAliasIntroCores}}, {"friend_like", {&p->friend_like, &d::kFriendLikeCores}},
      {"disliked", {&p->disliked, &d::kDislikedOnceCores}}, {"used_to", {&p->used_to, &d::kUsedToCores}},
      {"hypo", {&p->hypo, &d::kHypotheticalCores}},        {"question", {&p->question, &d::kQuestionCores}},
      {"query_open", {&p->query_open, &d::kQueryOpen}},    {"query_close", {&p->query_close, &d::kQueryClose}},
      {"explicit_q", {&p->explicit_q, &d::kExplicitCores}}, {"ellipsis", {&p->ellipsis, &d::kEllipsisCores}}};
  for (int q = 0; q < 9; ++q) {
    lists.emplace(fmt::format("q{}", q), std::pair{&p->query_cores[q], &d::kQueryCores[q]});
    lists.emplace(fmt::format("c{}", q), std::pair{&p->cues[q], &d::kCueLines[q]});
  }
  ASSIGN_OR_RETURN(const ojson j, ReadJsonObject(path, "--phrasing"));
  for (const auto& [key, items] : j.items()) {
    auto it = lists.find(key);
    if (it == lists.end()) return Status::InvalidArgument(fmt::format("gen-ipr: {}: unknown template list \"{}\"", path, key));
    if (!items.is_array() || items.empty())
      return Status::InvalidArgument(fmt::format("gen-ipr: {}: \"{}\" must be a non-empty list of strings", path, key));
    std::set<std::string> allowed, required;
    const std::vector<std::string> frozen = All(*it->second.second);
    for (size_t i = 0; i < frozen.size(); ++i) {
      const auto ph = Placeholders(frozen[i]);
      allowed.insert(ph.begin(), ph.end());
      if (i == 0) required = ph;
      else std::erase_if(required, [&](const std::string& x) { return !ph.count(x); });
    }
    std::vector<std::string> out;
    for (const auto& item : items) {
      if (!item.is_string() || !text::IsValidUtf8(item.get<std::string>()))
        return Status::InvalidArgument(fmt::format("gen-ipr: {}: \"{}\" must be a list of UTF-8 strings", path, key));
      const std::string t = item.get<std::string>();
      const auto ph = Placeholders(t);
      for (const auto& x : ph)
        if (!allowed.count(x)) return Status::InvalidArgument(fmt::format("gen-ipr: {}: \"{}\": {} in \"{}\" is not one of its placeholders", path, key, x, t));
      for (const auto& x : required)
        if (!ph.count(x)) return Status::InvalidArgument(fmt::format("gen-ipr: {}: \"{}\": \"{}\" lacks {}", path, key, t, x));
      out.push_back(t);
    }
    *it->second.first = std::move(out);
  }
  return Status::Ok();
}

// Replaces the split's entity lists with those of an --entities file: string lists (title_adj,
// title_noun, plot_role, plot_place, services, tool_stem, tool_suffix, habits, nicknames, names)
// and dish_bases / dish_styles objects. Each list needs at least as many items as the dev split's
// (a fifth of the frozen list), so the pools are no smaller than those of the dev and test splits.
Status ApplyEntities(const std::string& path, int split, Pools* p) {
  EntityLists e = SplitEntities(split), dev = SplitEntities(1);
  auto string_lists = [](EntityLists& x) {
    return std::map<std::string, std::vector<std::string>*>{
        {"title_adj", &x.title_adj},   {"title_noun", &x.title_noun}, {"plot_role", &x.plot_role},
        {"plot_place", &x.plot_place}, {"services", &x.services},     {"tool_stem", &x.tool_stem},
        {"tool_suffix", &x.tool_suffix}, {"habits", &x.habits},       {"nicknames", &x.nicknames},
        {"names", &x.names}};
  };
  const auto strings = string_lists(e), dev_strings = string_lists(dev);
  static const std::vector<std::string> kDietNames = {"vegan", "vegetarian", "pescatarian", "meat"};
  std::set<std::string> cuisines;
  for (size_t i = 0; i < d::kNumDishStyles; ++i) cuisines.insert(d::kDishStyles[i].cuisine);
  ASSIGN_OR_RETURN(const ojson j, ReadJsonObject(path, "--entities"));
  auto bad = [&](const std::string& key, const std::string& why) {
    return Status::InvalidArgument(fmt::format("gen-ipr: {}: \"{}\": {}", path, key, why));
  };
  auto text_of = [](const ojson& v, std::string* out) {
    if (!v.is_string() || !text::IsValidUtf8(v.get<std::string>()) || v.get<std::string>().empty()) return false;
    *out = v.get<std::string>();
    return true;
  };
  auto allergens_of = [&](const std::string& key, const ojson& item, uint32_t* bits) -> Status {
    *bits = 0;
    const auto it = item.find("allergens");
    if (it == item.end() || !it->is_array()) return bad(key, "each item needs an \"allergens\" list");
    for (const auto& a : *it) {
      size_t i = 0;
      while (i < d::kAllergenNames.size && (!a.is_string() || a.get<std::string>() != d::kAllergenNames.items[i])) ++i;
      if (i == d::kAllergenNames.size) return bad(key, fmt::format("unknown allergen {} (one of peanuts, tree nuts, gluten, dairy, eggs, shellfish, sesame, soy, fish)", a.dump()));
      *bits |= 1u << i;
    }
    return Status::Ok();
  };
  for (const auto& [key, items] : j.items()) {
    const bool dish = key == "dish_bases" || key == "dish_styles";
    if (!dish && !strings.count(key)) return Status::InvalidArgument(fmt::format("gen-ipr: {}: unknown entity list \"{}\"", path, key));
    const size_t need = key == "dish_bases"    ? dev.dish_bases.size()
                        : key == "dish_styles" ? dev.dish_styles.size()
                                               : dev_strings.at(key)->size();
    if (!items.is_array() || items.size() < need)
      return bad(key, fmt::format("must be a list of at least {} items (the dev split's size)", need));
    if (key == "dish_bases") {
      e.dish_bases.clear();
      for (const auto& item : items) {
        EntityLists::Base b;
        std::string diet;
        if (!item.is_object() || !text_of(item.value("name", ojson()), &b.name) || !text_of(item.value("diet", ojson()), &diet))
          return bad(key, "each item needs a \"name\" and a \"diet\" string");
        const auto it = std::find(kDietNames.begin(), kDietNames.end(), diet);
        if (it == kDietNames.end()) return bad(key, "\"diet\" must be vegan, vegetarian, pescatarian or meat, got \"" + diet + "\"");
        b.diet = static_cast<int>(it - kDietNames.begin());
        RETURN_IF_ERROR(allergens_of(key, item, &b.allergens));
        for (const auto& other : e.dish_bases)
          if (other.name == b.name) return bad(key, "has a repeated item");
        e.dish_bases.push_back(std::move(b));
      }
    } else if (key == "dish_styles") {
      e.dish_styles.clear();
      for (const auto& item : items) {
        EntityLists::Style st;
        if (!item.is_object() || !text_of(item.value("name", ojson()), &st.name) || !text_of(item.value("cuisine", ojson()), &st.cuisine))
          return bad(key, "each item needs a \"name\" and a \"cuisine\" string");
        if (!cuisines.count(st.cuisine)) return bad(key, "\"" + st.cuisine + "\" is not a cuisine of the frozen dish styles");
        RETURN_IF_ERROR(allergens_of(key, item, &st.allergens));
        for (const auto& other : e.dish_styles)
          if (other.name == st.name) return bad(key, "has a repeated item");
        e.dish_styles.push_back(std::move(st));
      }
    } else {
      std::vector<std::string> out;
      for (const auto& item : items) {
        std::string t;
        if (!text_of(item, &t)) return bad(key, "must be a list of non-empty UTF-8 strings");
        out.push_back(std::move(t));
      }
      std::set<std::string> seen(out.begin(), out.end());
      if (seen.size() != out.size()) return bad(key, "has a repeated item");
      *strings.at(key) = std::move(out);
    }
  }
  BuildEntities(e, p);
  return Status::Ok();
}

// ------------------------------------------------------------------ domains, slots, queries
enum class Kind { kLike, kAversion, kAllergy, kDiet, kHabit, kSchedule, kCompany, kPlatform };

struct SlotDef {
  Kind kind;
  const char* name;   // profile key
  const char* label;  // for the answer string
};

const char* kDomainNames[3] = {"MovieRec", "FoodPref", "ProductivityAssist"};
const SlotDef kSlots[3][4] = {
    {{Kind::kLike, "favourite_title", "favourite"},
     {Kind::kAversion, "avoids", "avoids"},
     {Kind::kCompany, "watches_with", "household"},
     {Kind::kPlatform, "service", "only has"}},
    {{Kind::kDiet, "diet", "diet"},
     {Kind::kAllergy, "allergy", "allergic to"},
     {Kind::kLike, "favourite_dish", "favourite"},
     {Kind::kAversion, "dislikes", "dislikes"}},
    {{Kind::kLike, "tool", "uses"},
     {Kind::kHabit, "habit", "works by"},
     {Kind::kSchedule, "schedule", "schedule"},
     {Kind::kAversion, "avoids", "avoids"}},
};

struct QueryType {
  const char* name;
  int domain;
  std::vector<int> slots;  // slot indexes (within the domain) a good answer must respect
};
const QueryType kQueryTypes[9] = {
    {"watch_pick", 0, {0, 1, 3}}, {"watch_similar", 0, {0}},   {"watch_household", 0, {2, 1}},
    {"cook_tonight", 1, {0, 1, 3}}, {"eat_out", 1, {2, 0, 1}}, {"bring_food", 1, {0, 1}},
    {"plan_day", 2, {1, 2}},        {"organise_project", 2, {0, 3}}, {"focus_now", 2, {1, 3}},
};

std::string Fill(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [k, v] : vars) {
    const std::string key = "{" + k + "}";
    for (size_t pos = s.find(key); pos != std::string::npos; pos = s.find(key, pos + v.size()))
      s.replace(pos, key.size(), v);
  }
  return s;
}

// opener + core + closer; capitalises the start when the opener is empty.
std::string Compose(Rng& rng, const std::vector<std::string>& open, const std::string& core,
                    const std::vector<std::string>& close) {
  std::string o = rng.Pick(open);
  std::string c = rng.Pick(close);
  if (o.empty()) return Capitalise(core) + c;
  return o + core + c;
}

bool Intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  for (const auto& x : a) if (b.count(x)) return true;
  return false;
}

// ------------------------------------------------------------------ filler
struct Filler {
  std::vector<std::string> turns;  // LoCoMo turns of this split, off-topic
};

StatusOr<Filler> LoadFiller(const std::string& path, int split) {
  Filler f;
  if (path.empty()) return f;
  ASSIGN_OR_RETURN(Dataset ds, LoadLocomo(path));
  std::unordered_set<std::string> vocab;
  for (size_t i = 0; i < d::kDomainVocabulary.size; ++i)
    for (auto& t : text::ContentTerms(d::kDomainVocabulary.items[i])) vocab.insert(t);
  size_t index = 0;
  for (const auto& s : ds.samples)
    for (const auto& t : s.turns) {
      const size_t i = index++;
      if (SplitOfIndex(i) != split) continue;
      std::string txt = t.text;
      if (auto pos = txt.find(" [image: "); pos != std::string::npos) txt.erase(pos);
      if (txt.size() < 12 || txt.size() > 320) continue;
      bool on_topic = false;
      for (const auto& term : text::ContentTerms(txt)) if (vocab.count(term)) { on_topic = true; break; }
      if (!on_topic) f.turns.push_back(std::move(txt));
    }
  return f;
}

// ------------------------------------------------------------------ one dialogue
// Turn-level gold for extractor training (written as the turn's "facts" field): which value
// the turn states, with which relation and modality. Offsets are resolved on the final text.
struct FactSpec {
  std::string relation;
  std::string value;     // the tail as it appears in the text (case-insensitive first letter)
  std::string modality;  // asserted | negated | hypothetical | reported | past
  std::string holder;    // for "reported": the holder mention as it appears; empty = speaker
};

struct Item {
  bool user = true;
  bool annotated = false;       // true: `facts` is the complete gold for this turn
  std::vector<FactSpec> facts;
  std::string text;      // empty for filler, filled after speakers are known
  bool filler = false;
  std::vector<int> gold_for;  // slot indexes this turn is gold for
};

struct SlotState {
  std::string value;     // current value as said in text
  std::string old_value; // before an update
  std::string alias;
  std::string detail;    // genre, cuisine, category ...
  bool updated = false, aliased = false;
  bool stated = false;
};

struct Query {
  int type = -1;         // query type, or -1 for an explicit control
  int explicit_slot = -1;
  bool ellipsis = false;
};

struct Session {
  std::vector<std::vector<Item>> blocks;
};

std::string DateTimeString(int64_t days, int hour, int minute) {
  // civil_from_days (Howard Hinnant)
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned dd = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  static const char* kMonths[] = {"January", "February", "March", "April", "May", "June", "July",
                                  "August", "September", "October", "November", "December"};
  int h12 = hour % 12 == 0 ? 12 : hour % 12;
  return fmt::format("{}:{:02d} {} on {} {}, {}", h12, minute, hour < 12 ? "am" : "pm", dd,
                     kMonths[m - 1], y);
}

// ------------------------------------------------------------------ turn-level gold facts
bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80); }

// Byte offset of `needle` in `hay` at word boundaries, ASCII case-insensitive; npos if absent.
size_t FindWordCi(const std::string& hay, const std::string& needle, size_t from = 0) {
  if (needle.empty()) return std::string::npos;
  for (size_t i = from; i + needle.size() <= hay.size(); ++i) {
    bool eq = true;
    for (size_t j = 0; j < needle.size() && eq; ++j)
      eq = std::tolower(static_cast<unsigned char>(hay[i + j])) == std::tolower(static_cast<unsigned char>(needle[j]));
    if (!eq) continue;
    if (i > 0 && IsWordChar(hay[i - 1]) && IsWordChar(needle[0])) continue;
    const size_t e = i + needle.size();
    if (e < hay.size() && IsWordChar(hay[e]) && IsWordChar(needle.back())) continue;
    return i;
  }
  return std::string::npos;
}
bool ContainsWord(const std::string& hay, const std::string& w) { return FindWordCi(hay, w) != std::string::npos; }

// The longest relation word (kRelations: "sister", "best mate", ...) in the text, or "".
std::string RelationWordIn(const std::string& text) {
  std::string best;
  for (size_t i = 0; i < d::kRelations.size; ++i) {
    const std::string r = d::kRelations.items[i];
    if (r.size() > best.size() && ContainsWord(text, r)) best = r;
  }
  return best;
}

ojson FactsJson(const std::string& text, const std::vector<FactSpec>& facts) {
  ojson out = ojson::array();
  for (const auto& f : facts) {
    const size_t b = FindWordCi(text, f.value);
    if (b == std::string::npos) continue;  // cannot happen for generated text; skip defensively
    ojson j;
    j["relation"] = f.relation;
    j["tail_begin"] = b;
    j["tail_end"] = b + f.value.size();
    j["modality"] = f.modality;
    const size_t h = f.holder.empty() ? std::string::npos : FindWordCi(text, f.holder);
    if (h == std::string::npos) {
      j["head"] = "speaker";
    } else {
      j["head_begin"] = h;
      j["head_end"] = h + f.holder.size();
    }
    out.push_back(std::move(j));
  }
  return out;
}

class DialogueGen {
 public:
  DialogueGen(const Pools& p, const Filler& f, int split, int scale, int index, uint64_t seed, int recur,
              int chat_wrap)
      : p_(p), f_(f), split_(split), scale_(scale), index_(index), recur_(recur), chat_wrap_(chat_wrap),
        wrng_(SplitMix64(seed ^ SplitMix64(0xc4a7 + static_cast<uint64_t>(split) * 92821ULL +
                                           static_cast<uint64_t>(index)))),
        rrng_(SplitMix64(seed ^ SplitMix64(0x7ec0 + static_cast<uint64_t>(split) * 65537ULL +
                                           static_cast<uint64_t>(index)))),
        rng_(SplitMix64(seed ^ SplitMix64(0x1b0 + static_cast<uint64_t>(split) * 1000003ULL +
                                          static_cast<uint64_t>(index)))),
        frng_(SplitMix64(seed ^ SplitMix64(0x5ca1e + static_cast<uint64_t>(split) * 7919ULL +
                                           static_cast<uint64_t>(scale) * 104729ULL +
                                           static_cast<uint64_t>(index) * 15485863ULL))) {}

  // Returns false when the keyword-free rejection loop gave up (caller retries).
  bool Generate(ojson* out, int attempt);

 private:
  // A statement said in passing: one or two chit-chat sentences of the filler around it.
  std::string Wrap(const std::string& stmt) {
    auto piece = [&]() {
      std::string t = f_.turns.empty() ? wrng_.Pick(p_.chit_user) : f_.turns[wrng_.Below(f_.turns.size())];
      while (!t.empty() && t.back() == ' ') t.pop_back();
      if (!t.empty() && std::string_view(".!?").find(t.back()) == std::string_view::npos) t += '.';
      return t;
    };
    std::vector<std::string> parts = {piece()};
    if (wrng_.Chance(50)) parts.push_back(piece());
    parts.insert(parts.begin() + static_cast<long>(wrng_.Below(parts.size() + 1)), stmt);
    std::string out;
    for (const auto& x : parts) out += (out.empty() ? "" : " ") + x;
    return out;
  }
  std::string Stmt(const std::vector<std::string>& cores, const std::map<std::string, std::string>& vars) {
    return Compose(rng_, p_.stmt_open, Fill(rng_.Pick(cores), vars), p_.stmt_close);
  }
  const std::vector<std::string>& CoresFor(Kind k) const {
    switch (k) {
      case Kind::kLike: return p_.like;
      case Kind::kAversion: return p_.aversion;
      case Kind::kAllergy: return p_.allergy;
      case Kind::kDiet: return p_.diet;
      case Kind::kHabit: return p_.habit;
      case Kind::kSchedule: return p_.schedule;
      case Kind::kCompany: return p_.company;
      case Kind::kPlatform: return p_.platform;
    }
    return p_.like;
  }
  // Recurring-preference mode: adds the recurring positive(s) and negatives to the sessions.
  void AddRecurrence(int num_sessions, const std::string& user);
  // "gold_concepts": concepts the user currently likes, evidenced in >= 2 sessions.
  ojson GoldConcepts(const std::string& user) const;
  // Records the session a like statement just added by AddBlock went to.
  void RecordLike(const std::string& value, const std::vector<size_t>& sizes_before) {
    for (size_t s = 0; s < sessions_.size(); ++s)
      if (sessions_[s].blocks.size() != sizes_before[s]) user_likes_.push_back({value, static_cast<int>(s) + 1});
  }
  std::vector<size_t> BlockCounts() const {
    std::vector<size_t> n;
    for (const auto& s : sessions_) n.push_back(s.blocks.size());
    return n;
  }
  // A value for slot `s` of `domain`, different from `avoid`; fills detail.
  std::string DrawValue(int domain, int s, const std::string& avoid, std::string* detail);
  std::string OtherEntity(int domain, const std::string& avoid);
  void AddBlock(int session, std::vector<Item> block) { sessions_[session - 1].blocks.push_back(std::move(block)); }
  std::vector<Item> WithAck(Item stmt, bool ack) {
    std::vector<Item> b{std::move(stmt)};
    if (ack) { Item a; a.user = false; a.text = rng_.Pick(p_.acks); a.annotated = true; b.push_back(a); }
    return b;
  }

  // Gold facts of a profile-style statement of kind `k` about `value` (schedule and household
  // statements are clauses, not mentions: left unannotated).
  void Annotate(Item* it, Kind k, const std::string& value) {
    if (k == Kind::kSchedule) return;
    it->annotated = true;
    if (k == Kind::kCompany) {  // "my nan lives with us ..." -> HAS_RELATIVE "nan"
      static const char* kKin[] = {"seven-year-old", "nan", "partner", "twins", "nephew", "husband",
                                   "daughter", "mum", "in-laws", "boyfriend"};
      for (const char* kin : kKin)
        if (FindWordCi(it->text, std::string("my ") + kin) != std::string::npos ||
            FindWordCi(it->text, std::string("-old ") + kin) != std::string::npos)
          it->facts.push_back({"HAS_RELATIVE", kin, "asserted", ""});
      return;
    }
    it->facts.push_back({RelationOf(k), value, "asserted", ""});
  }
  // Hard distractors: 0 friend's taste (reported), 1 tried once and disliked, 2 used to (past),
  // 3 hypothetical, 4 a question (no fact).
  void AnnotateDistractor(Item* it, int kind, const std::string& v, const std::string& friend_name) {
    it->annotated = true;
    std::string holder;
    if (kind == 0) {
      holder = ContainsWord(it->text, friend_name) ? friend_name : RelationWordIn(it->text);
      it->facts.push_back({"LIKES", v, "reported", holder});
    } else if (kind == 1) {
      it->facts.push_back({"DISLIKES", v, "asserted", ""});
    } else if (kind == 2) {
      it->facts.push_back({"LIKES", v, "past", ""});
    } else if (kind == 3) {
      it->facts.push_back({"LIKES", v, "hypothetical", ""});
    }
    AddPeople(it, holder);
  }
  // "my sister" -> HAS_RELATIVE sister; "my best mate" -> HAS_FRIEND.
  static void AddPeople(Item* it, const std::string& holder) {
    const std::string rel = RelationWordIn(it->text);
    if (rel.empty() || it->text.find("my " + rel) == std::string::npos) return;
    static const std::set<std::string> kFamily = {"sister", "brother", "cousin", "uncle", "aunt"};
    if (kFamily.count(rel)) it->facts.push_back({"HAS_RELATIVE", rel, "asserted", ""});
    else if (rel == "best mate") it->facts.push_back({"HAS_FRIEND", rel, "asserted", ""});
  }
  static const char* RelationOf(Kind k) {
    switch (k) {
      case Kind::kLike: return "LIKES";
      case Kind::kAversion: return "DISLIKES";
      case Kind::kAllergy: return "ALLERGIC_TO";
      case Kind::kDiet: return "FOLLOWS_DIET";
      case Kind::kHabit: return "HAS_HABIT";
      case Kind::kPlatform: return "USES";
      default: return "";
    }
  }

  const Pools& p_;
  const Filler& f_;
  int split_, scale_, index_, recur_, chat_wrap_;
  Rng wrng_;  // chat-wrap mode only (independent of scale: every scale wraps the same turns)
  Rng rrng_;  // recurring-preference mode only, so the default output never changes
  Rng rng_;   // structure: independent of scale, so every scale asks the same queries
  Rng frng_;  // filler: depends on scale
  std::vector<std::pair<std::string, int>> user_likes_;  // (entity, session) the user likes now
  ojson recur_negatives_ = ojson::array();
  std::vector<Session> sessions_;
  int domain_ = 0;
  SlotState slots_[4];
};

std::string DialogueGen::OtherEntity(int domain, const std::string& avoid) {
  for (;;) {
    std::string v;
    if (domain == 0) v = rng_.Pick(p_.movies).title;
    else if (domain == 1) v = rng_.Pick(p_.dishes).name;
    else v = rng_.Chance(60) ? rng_.Pick(p_.tools).name : rng_.Pick(p_.habits);
    if (v != avoid) return v;
  }
}

std::string DialogueGen::DrawValue(int domain, int s, const std::string& avoid, std::string* detail) {
  const Kind k = kSlots[domain][s].kind;
  for (int tries = 0;; ++tries) {
    std::string v;
    detail->clear();
    if (domain == 0 && k == Kind::kLike) {
      const Movie& m = rng_.Pick(p_.movies);
      v = m.title;
      *detail = m.genre;
    } else if (domain == 1 && k == Kind::kLike) {
      // a dish compatible with the current diet class and allergy
      const int diet_idx = static_cast<int>(std::find(d::kDiets.items, d::kDiets.items + d::kDiets.size,
                                                      slots_[0].value) - d::kDiets.items);
      const int cls = diet_idx < static_cast<int>(d::kDiets.size) ? d::kDietClass[diet_idx] : -1;
      const int al_idx = static_cast<int>(std::find(d::kAllergies.items, d::kAllergies.items + d::kAllergies.size,
                                                    slots_[1].value) - d::kAllergies.items);
      const uint32_t bits = al_idx < static_cast<int>(d::kAllergies.size) ? d::kAllergyBits[al_idx] : 0;
      const Dish& dish = rng_.Pick(p_.dishes);
      if (tries < 200 && ((cls >= 0 && dish.diet > cls) || (dish.allergens & bits))) continue;
      v = dish.name;
      *detail = dish.cuisine;
    } else if (domain == 2 && k == Kind::kLike) {
      const Tool& t = rng_.Pick(p_.tools);
      v = t.name;
      *detail = t.category;
    } else {
      switch (k) {
        case Kind::kAversion:
          v = rng_.Pick(All(domain == 0 ? d::kMovieAvoid : domain == 1 ? d::kFoodDislikes : d::kWorkAvoid));
          break;
        case Kind::kAllergy: v = rng_.Pick(All(d::kAllergies)); break;
        case Kind::kDiet: v = rng_.Pick(All(d::kDiets)); break;
        case Kind::kHabit: v = rng_.Pick(p_.habits); break;
        case Kind::kSchedule: v = rng_.Pick(All(d::kSchedules)); break;
        case Kind::kCompany: v = rng_.Pick(All(d::kMovieCompany)); break;
        case Kind::kPlatform: v = rng_.Pick(p_.services); break;
        default: break;
      }
    }
    if (v != avoid) return v;
  }
}

void DialogueGen::AddRecurrence(int num_sessions, const std::string& user) {
  const int n = std::min(recur_, num_sessions);
  std::set<std::string> taken, profile_values;
  for (const auto& st : slots_) profile_values.insert(st.value), profile_values.insert(st.old_value);
  for (const auto& [v, s] : user_likes_)
    if (auto it = p_.concept_of.find(v); it != p_.concept_of.end()) taken.insert(it->second.concept_key);
  std::map<std::string, std::vector<std::string>> by_concept;  // this domain's concepts -> entities
  for (const auto& [v, c] : p_.concept_of)
    if (c.domain == domain_ && !c.concept_key.empty() && !profile_values.count(v)) by_concept[c.concept_key].push_back(v);
  std::vector<std::string> concepts;
  for (const auto& [c, ents] : by_concept)
    if (!taken.count(c) && static_cast<int>(ents.size()) >= n) concepts.push_back(c);
  rrng_.Shuffle(concepts);
  size_t next = 0;
  auto sessions = [&](int k) {
    std::vector<int> s(static_cast<size_t>(num_sessions));
    for (int i = 0; i < num_sessions; ++i) s[static_cast<size_t>(i)] = i + 1;
    rrng_.Shuffle(s);
    s.resize(static_cast<size_t>(k));
    std::sort(s.begin(), s.end());
    return s;
  };
  auto entity = [&](const std::string& c) {
    std::vector<std::string>& ents = by_concept[c];
    const size_t i = rrng_.Below(ents.size());
    std::string v = ents[i];
    ents.erase(ents.begin() + static_cast<long>(i));  // distinct entities per concept
    return v;
  };
  // The entity with its concept named beside it ("the romance film The Velvet Harbor"): the
  // lifter needs words of the concept in the turn, as people give them.
  auto cued = [&](const std::string& v) {
    const EntityConcept& c = p_.concept_of.at(v);
    std::string surface = c.surface;
    if (c.domain == 0 && surface != "period drama" && surface != "documentary") surface += " film";
    if (c.domain == 1) surface += " dish";
    std::string form = p_.recur_cues[rrng_.Below(p_.recur_cues.size())];
    if (std::string("aeiouAEIOU").find(surface[0]) != std::string::npos)
      if (auto pos = form.find("a {c}"); pos != std::string::npos && (pos == 0 || form[pos - 1] == ' ' || form[pos - 1] == '('))
        form.replace(pos, 1, "an");
    return Fill(form, {{"c", surface}, {"v", v}});
  };
  auto place = [&](int session, Item it) {
    std::vector<Item> block{std::move(it)};
    if (rrng_.Chance(50)) { Item a; a.user = false; a.text = rrng_.Pick(p_.acks); a.annotated = true; block.push_back(a); }
    auto& blocks = sessions_[static_cast<size_t>(session - 1)].blocks;
    blocks.insert(blocks.begin() + static_cast<long>(rrng_.Below(blocks.size() + 1)), std::move(block));
  };
  auto stmt = [&](const std::vector<std::string>& cores, const std::map<std::string, std::string>& vars) {
    return Compose(rrng_, p_.stmt_open, Fill(rrng_.Pick(cores), vars), p_.stmt_close);
  };
  // kind: positive | one_off | mixed (the user's current likes); friend | hypothetical | past.
  auto add = [&](const std::string& kind) {
    const bool single = kind == "one_off";
    const int count = single ? 1 : n;
    std::vector<std::string> cs;
    for (int i = 0; i < (kind == "mixed" ? count : 1); ++i)
      if (next < concepts.size()) cs.push_back(concepts[next++]);
    if (cs.empty() || (kind == "mixed" && static_cast<int>(cs.size()) < count)) return;
    std::string friend_name;
    do friend_name = rrng_.Pick(p_.names); while (friend_name == user);
    const std::string rel = rrng_.Pick(All(d::kRelations));
    const std::vector<int> ss = sessions(count);
    for (int i = 0; i < count; ++i) {
      const std::string v = entity(cs[kind == "mixed" ? static_cast<size_t>(i) : 0]);
      const std::string said = cued(v);
      Item it;
      if (kind == "positive" || single || kind == "mixed") {
        it.text = stmt(p_.like, {{"v", said}});
        Annotate(&it, Kind::kLike, v);
        user_likes_.push_back({v, ss[static_cast<size_t>(i)]});
      } else {
        const int dk = kind == "friend" ? 0 : kind == "past" ? 2 : 3;
        const std::vector<std::string>& cores = dk == 0 ? p_.friend_like : dk == 2 ? p_.used_to : p_.hypo;
        it.text = stmt(cores, {{"v", said}, {"friend", friend_name}, {"rel", rel}});
        AnnotateDistractor(&it, dk, v, friend_name);
      }
      place(ss[static_cast<size_t>(i)], std::move(it));
    }
    if (kind == "positive") return;  // in gold_concepts
    for (size_t i = 0; i < cs.size(); ++i)
      recur_negatives_.push_back({{"kind", kind}, {"relation", ConceptRelationOf(cs[i])}, {"concept", cs[i]},
                                  {"sessions", kind == "mixed" ? std::vector<int>{ss[i]} : ss}});
  };
  add("positive");
  if (rrng_.Chance(40)) add("positive");
  for (const char* kind : {"friend", "hypothetical", "past", "one_off", "mixed"})
    if (rrng_.Chance(70)) add(kind);
}

ojson DialogueGen::GoldConcepts(const std::string& user) const {
  std::map<std::string, std::set<int>> sessions;  // concept -> sessions of current likes
  for (const auto& [v, s] : user_likes_)
    if (auto it = p_.concept_of.find(v); it != p_.concept_of.end() && !it->second.concept_key.empty())
      sessions[it->second.concept_key].insert(s);
  ojson out = ojson::array();
  for (const auto& [c, ss] : sessions)
    if (ss.size() >= 2)
      out.push_back({{"head", user}, {"relation", ConceptRelationOf(c)}, {"concept", c},
                     {"sessions", std::vector<int>(ss.begin(), ss.end())}});
  return out;
}

bool DialogueGen::Generate(ojson* out, int attempt) {
  domain_ = index_ % 3;
  const bool cold = rng_.Chance(12);
  const int num_sessions = cold ? 1 : rng_.Range(4, 7);
  sessions_.assign(static_cast<size_t>(num_sessions), Session{});
  for (auto& s : slots_) s = SlotState{};

  // Speakers.
  const std::string user = rng_.Pick(p_.names);
  std::string partner = "Assistant";
  if (rng_.Chance(50))
    do partner = rng_.Pick(p_.names); while (partner == user);

  // Queries: implicit query types of this domain (2 mature, 1 cold) and one explicit control.
  std::vector<int> types = {domain_ * 3, domain_ * 3 + 1, domain_ * 3 + 2};
  rng_.Shuffle(types);
  std::vector<Query> queries;
  for (int i = 0; i < (cold ? 1 : 2); ++i) {
    Query q;
    q.type = types[static_cast<size_t>(i)];
    q.ellipsis = rng_.Chance(35);
    queries.push_back(q);
  }
  std::set<int> needed;
  for (const auto& q : queries)
    for (int s : kQueryTypes[q.type].slots) needed.insert(s);

  // Profile (slot order matters for FoodPref: diet and allergy before the favourite dish).
  std::vector<int> stated_slots;
  for (int s = 0; s < 4; ++s) {
    if (cold && !needed.count(s)) continue;
    stated_slots.push_back(s);
  }
  for (int s : stated_slots) {
    SlotState& st = slots_[s];
    st.stated = true;
    st.value = DrawValue(domain_, s, "", &st.detail);
    const Kind k = kSlots[domain_][s].kind;
    if (!cold && (k == Kind::kLike || k == Kind::kDiet || k == Kind::kHabit) && rng_.Chance(25)) {
      st.updated = true;
      std::string old_detail;
      st.old_value = DrawValue(domain_, s, st.value, &old_detail);
    } else if (!cold && k == Kind::kLike && rng_.Chance(45)) {
      st.aliased = true;
      if (domain_ == 0) {
        for (const auto& m : p_.movies) if (m.title == st.value) st.alias = m.alias;
      } else {
        st.alias = rng_.Pick(p_.nicknames);
      }
    }
  }

  const bool acks = !cold;
  // Statements of the profile.
  for (int s : stated_slots) {
    SlotState& st = slots_[s];
    const Kind k = kSlots[domain_][s].kind;
    const int last = num_sessions - 1 >= 1 ? num_sessions - 1 : 1;
    if (st.updated) {
      const int o = num_sessions >= 3 && rng_.Chance(30) ? 2 : 1;
      const int n = rng_.Range(o + 1, std::max(o + 1, last));
      Item old_stmt;
      old_stmt.text = Stmt(CoresFor(k), {{"v", st.old_value}});
      Annotate(&old_stmt, k, st.old_value);
      AddBlock(o, WithAck(old_stmt, acks && rng_.Chance(60)));
      Item upd;
      upd.text = Stmt(k == Kind::kDiet ? p_.upd_diet : p_.upd_like, {{"v", st.value}, {"old", st.old_value}});
      upd.gold_for = {s};
      upd.annotated = true;
      upd.facts = {{RelationOf(k), st.value, "asserted", ""}, {RelationOf(k), st.old_value, "past", ""}};
      AddBlock(n, WithAck(upd, acks && rng_.Chance(60)));
      if (k == Kind::kLike) user_likes_.push_back({st.value, n});
    } else if (st.aliased) {
      const int i = num_sessions >= 3 && rng_.Chance(25) ? 2 : 1;
      const int n = rng_.Range(i + 1, num_sessions);
      Item intro;
      intro.text = Stmt(p_.alias_intro, {{"v", st.value}, {"alias", st.alias},
                                         {"friend", rng_.Pick(p_.names)},
                                         {"rel", rng_.Pick(All(d::kRelations))}});
      intro.gold_for = {s};
      intro.annotated = true;
      AddPeople(&intro, "");
      AddBlock(i, WithAck(intro, acks && rng_.Chance(40)));
      Item like;
      like.text = Stmt(p_.like, {{"v", st.alias}});
      like.gold_for = {s};
      Annotate(&like, Kind::kLike, st.alias);
      AddBlock(n, WithAck(like, acks && rng_.Chance(60)));
      user_likes_.push_back({st.value, n});
    } else {
      const int sess = cold || rng_.Chance(60) ? 1 : rng_.Range(1, last);
      Item stmt;
      stmt.text = Stmt(CoresFor(k), {{"v", st.value}});
      stmt.gold_for = {s};
      Annotate(&stmt, k, st.value);
      AddBlock(sess, WithAck(stmt, acks && rng_.Chance(60)));
      if (k == Kind::kLike) user_likes_.push_back({st.value, sess});
    }
  }

  // Hard distractors: same-domain talk that is not the user's current preference.
  const int hard = cold ? (rng_.Chance(50) ? 1 : 0) : rng_.Range(4, 7);
  std::set<std::string> profile_values;
  for (const auto& s : slots_) { profile_values.insert(s.value); profile_values.insert(s.old_value); }
  for (int h = 0; h < hard; ++h) {
    std::string v;
    do v = OtherEntity(domain_, ""); while (profile_values.count(v));
    const int kind = static_cast<int>(rng_.Below(5));
    const std::vector<std::string>* cores[5] = {&p_.friend_like, &p_.disliked, &p_.used_to, &p_.hypo, &p_.question};
    Item it;
    std::string friend_name;
    do friend_name = rng_.Pick(p_.names); while (friend_name == user);
    it.text = Stmt(*cores[kind], {{"v", v}, {"friend", friend_name}, {"rel", rng_.Pick(All(d::kRelations))}});
    AnnotateDistractor(&it, kind, v, friend_name);
    AddBlock(rng_.Range(1, num_sessions), WithAck(it, acks && rng_.Chance(50)));
  }
  // Cross-domain preferences of the user (never gold here).
  if (!cold) {
    const int n = rng_.Range(1, 2);
    for (int c = 0; c < n; ++c) {
      const int od = (domain_ + 1 + static_cast<int>(rng_.Below(2))) % 3;
      int s = static_cast<int>(rng_.Below(4));
      const Kind k = kSlots[od][s].kind;
      std::string detail;
      // FoodPref dishes depend on the diet slot of that domain; use an entity directly.
      std::string v = k == Kind::kLike ? OtherEntity(od, "") : DrawValue(od, s, "", &detail);
      Item it;
      it.text = Stmt(CoresFor(k), {{"v", v}});
      Annotate(&it, k, v);
      const std::vector<size_t> before = BlockCounts();
      AddBlock(rng_.Range(1, num_sessions), WithAck(it, rng_.Chance(50)));
      if (k == Kind::kLike) RecordLike(v, before);
    }
  }

  // Non-gold turns so far (acks, distractors, superseded statements) and filler budget.
  int non_gold = 0, gold_turns = 0;
  for (const auto& s : sessions_)
    for (const auto& b : s.blocks)
      for (const auto& it : b) (it.gold_for.empty() ? non_gold : gold_turns)++;
  const int context_turns = 2 * (static_cast<int>(queries.size()) + 1);
  int filler = 0;
  if (cold) {
    filler = rng_.Range(0, 2);
  } else {
    const int target = rng_.Range(58, 98) * scale_;  // non-gold turns in the whole dialogue
    filler = std::max(20 * scale_, target - non_gold - context_turns);
  }
  // Filler placement uses the scale-dependent stream only.
  std::vector<int> per_session(static_cast<size_t>(num_sessions), 0);
  for (int i = 0; i < filler; ++i) per_session[frng_.Below(static_cast<uint64_t>(num_sessions))]++;
  for (int s = 0; s < num_sessions; ++s) {
    auto& blocks = sessions_[static_cast<size_t>(s)].blocks;
    rng_.Shuffle(blocks);
    // Insert filler singletons at random positions (scale stream).
    for (int i = 0; i < per_session[static_cast<size_t>(s)]; ++i) {
      Item f;
      f.filler = true;
      blocks.insert(blocks.begin() + static_cast<long>(frng_.Below(blocks.size() + 1)), std::vector<Item>{f});
    }
  }
  if (recur_ > 0 && !cold) AddRecurrence(num_sessions, user);

  // Flatten to turns, assign speakers to filler (alternate) and ids.
  struct Out {
    std::string speaker, text;
    bool user;
    int session;
    std::vector<int> gold_for;
    int uid;
    bool annotated;
    std::vector<FactSpec> facts;
  };
  std::vector<std::vector<Out>> conv(static_cast<size_t>(num_sessions));
  int next_uid = 0;
  auto filler_text = [&](bool is_user) -> std::string {
    if (!f_.turns.empty() && frng_.Chance(85)) return f_.turns[frng_.Below(f_.turns.size())];
    const auto& l = is_user ? p_.chit_user : p_.chit_partner;
    return l[frng_.Below(l.size())];
  };
  for (int s = 0; s < num_sessions; ++s) {
    bool prev_user = false;
    for (const auto& b : sessions_[static_cast<size_t>(s)].blocks)
      for (const auto& it : b) {
        Out o;
        o.user = it.filler ? !prev_user : it.user;
        o.text = it.filler ? filler_text(o.user) : it.text;
        if (!it.filler && it.user && chat_wrap_ > 0 && wrng_.Chance(chat_wrap_)) o.text = Wrap(o.text);
        o.speaker = o.user ? user : partner;
        o.session = s + 1;
        o.gold_for = it.gold_for;
        o.annotated = !it.filler && it.annotated;
        o.facts = it.facts;
        o.uid = next_uid++;
        prev_user = o.user;
        conv[static_cast<size_t>(s)].push_back(std::move(o));
      }
  }

  // Final queries: each adds a 2-turn context block at the end of the last session.
  auto& last = conv.back();
  // Explicit control: a stated slot whose current statement carries the value literally.
  {
    std::vector<int> cands;
    for (int s : stated_slots) {
      const Kind k = kSlots[domain_][s].kind;
      if (slots_[s].aliased || k == Kind::kSchedule || k == Kind::kCompany) continue;
      cands.push_back(s);
    }
    if (cands.empty()) return false;
    Query q;
    q.explicit_slot = rng_.Pick(cands);
    queries.push_back(q);
  }

  ojson qa = ojson::array();
  for (const auto& q : queries) {
    std::vector<int> slots = q.type >= 0 ? kQueryTypes[q.type].slots : std::vector<int>{q.explicit_slot};
    std::vector<Out> gold;  // copies: `last` grows below
    for (const auto& sess : conv)
      for (const auto& o : sess)
        for (int g : o.gold_for)
          if (std::find(slots.begin(), slots.end(), g) != slots.end()) { gold.push_back(o); break; }
    if (gold.empty()) return false;
    std::set<std::string> gold_terms;
    std::vector<std::set<std::string>> gold_each;
    for (const auto& g : gold) {
      auto t = text::ContentTermSet(g.text);
      gold_terms.insert(t.begin(), t.end());
      gold_each.push_back(std::move(t));
    }
    // Draw question + context until the keyword rule holds.
    std::string question, c1, c2;
    bool ok = false;
    for (int tries = 0; tries < 400 && !ok; ++tries) {
      if (q.type < 0) {
        c1 = rng_.Pick(p_.chit_user);
        c2 = rng_.Pick(p_.chit_partner);
        question = Compose(rng_, p_.query_open, Fill(rng_.Pick(p_.explicit_q), {{"v", slots_[q.explicit_slot].value}}),
                           p_.query_close);
        const auto qt = text::ContentTermSet(question);
        ok = std::all_of(gold_each.begin(), gold_each.end(), [&](const auto& g) { return Intersects(qt, g); });
      } else {
        if (q.ellipsis) {
          c1 = rng_.Pick(p_.cues[q.type]);
          c2 = rng_.Pick(p_.reactions);
          question = Compose(rng_, p_.query_open, rng_.Pick(p_.ellipsis), p_.query_close);
        } else {
          c1 = rng_.Pick(p_.chit_user);
          c2 = rng_.Pick(p_.chit_partner);
          question = Compose(rng_, p_.query_open, rng_.Pick(p_.query_cores[q.type]), p_.query_close);
        }
        ok = !Intersects(text::ContentTermSet(question), gold_terms) &&
             !Intersects(text::ContentTermSet(c1), gold_terms) && !Intersects(text::ContentTermSet(c2), gold_terms);
      }
    }
    if (!ok) return false;
    Out o1{user, c1, true, num_sessions, {}, next_uid++, false, {}};
    Out o2{partner, c2, false, num_sessions, {}, next_uid++, false, {}};
    last.push_back(o1);
    last.push_back(o2);
    size_t before = 0;
    for (const auto& sess : conv) before += sess.size();

    // Gold ids are assigned below, after all context blocks exist; remember pointers by text.
    ojson item;
    item["question"] = question;
    std::string answer;
    for (int s : slots) {
      const SlotState& st = slots_[s];
      if (!answer.empty()) answer += "; ";
      answer += std::string(kSlots[domain_][s].label) + ": " + st.value;
      if (!st.detail.empty()) answer += " (" + st.detail + ")";
    }
    item["answer"] = answer;
    // evidence filled in later (ids depend on final layout, which is fixed by now)
    item["evidence"] = ojson::array();
    item["implicit"] = q.type >= 0;
    item["query_type"] = q.type >= 0 ? kQueryTypes[q.type].name : "explicit_control";
    item["domain"] = kDomainNames[domain_];
    item["speaker"] = user;
    item["context"] = ojson::array({c1, c2});
    item["turns_before"] = before;
    // pathology tags
    ojson path = ojson::array();
    bool alias = false, update = false;
    for (int s : slots) { alias |= slots_[s].aliased; update |= slots_[s].updated; }
    if (q.type >= 0 && alias) path.push_back("alias");
    int min_session = num_sessions;
    for (const auto& g : gold) min_session = std::min(min_session, g.session);
    if (min_session == 1 && num_sessions - min_session >= 3) path.push_back("temporal_gap");
    if (q.ellipsis) path.push_back("ellipsis");
    if (update) path.push_back("update");
    if (before <= 10) path.push_back("cold_start");
    else if (before > 50) path.push_back("mature");
    item["pathology"] = path;
    // Gold: remember turn uids to resolve after ids are assigned.
    ojson gref = ojson::array();
    for (const auto& g : gold) gref.push_back(g.uid);
    item["_gold"] = gref;
    qa.push_back(std::move(item));
  }

  // Ids, turns JSON, gold resolution.
  ojson conversation;
  conversation["speaker_a"] = user;
  conversation["speaker_b"] = partner;
  int64_t day = 19358 /* 1 Jan 2023 */ - 365 + static_cast<int64_t>(rng_.Below(600));
  std::map<int, std::string> id_of;  // uid -> dia_id
  for (int s = 0; s < num_sessions; ++s) {
    if (s > 0) day += rng_.Range(1, 21);
    const std::string key = fmt::format("session_{}", s + 1);
    conversation[key + "_date_time"] = DateTimeString(day, rng_.Range(8, 22), static_cast<int>(rng_.Below(60)));
    ojson turns = ojson::array();
    int i = 0;
    for (const auto& o : conv[static_cast<size_t>(s)]) {
      ojson t;
      t["speaker"] = o.speaker;
      t["dia_id"] = fmt::format("D{}:{}", s + 1, ++i);
      t["text"] = o.text;
      if (o.annotated) t["facts"] = FactsJson(o.text, o.facts);
      id_of[o.uid] = t["dia_id"].get<std::string>();
      turns.push_back(std::move(t));
    }
    conversation[key] = std::move(turns);
  }
  for (auto& item : qa) {
    ojson ev = ojson::array();
    for (const auto& g : item["_gold"]) {
      auto it = id_of.find(g.get<int>());
      if (it == id_of.end()) return false;
      ev.push_back(it->second);
    }
    item["evidence"] = ev;
    item.erase("_gold");
  }

  ojson profile;
  profile["domain"] = kDomainNames[domain_];
  profile["cold_start"] = cold;
  for (int s : stated_slots) {
    ojson v;
    v["value"] = slots_[s].value;
    if (!slots_[s].detail.empty()) v["detail"] = slots_[s].detail;
    if (slots_[s].updated) v["previous"] = slots_[s].old_value;
    if (slots_[s].aliased) v["alias"] = slots_[s].alias;
    profile[kSlots[domain_][s].name] = v;
  }
  ojson sample;
  sample["sample_id"] = fmt::format("ipr-{}-{:04d}", split_ == 0 ? "train" : split_ == 1 ? "dev" : "test", index_);
  sample["conversation"] = std::move(conversation);
  sample["qa"] = std::move(qa);
  sample["ipr_profile"] = std::move(profile);
  sample["history_scale"] = scale_;  // lets `ontomem bench --plot` draw recall against scale
  if (attempt > 0) sample["ipr_profile"]["generation_attempt"] = attempt;
  if (recur_ > 0) {
    sample["gold_concepts"] = GoldConcepts(user);
    sample["promotion_negatives"] = recur_negatives_;
  }
  *out = std::move(sample);
  return true;
}

}  // namespace

Status GenerateIpr(const IprConfig& config, std::string* json_out) {
  const int split = SplitId(config.split);
  if (split < 0) return Status::InvalidArgument("gen-ipr: --split must be train, dev or test, got '" + config.split + "'");
  if (config.scale != 1 && config.scale != 2 && config.scale != 4 && config.scale != 8)
    return Status::InvalidArgument(fmt::format("gen-ipr: --scale must be 1, 2, 4 or 8, got {}", config.scale));
  if (config.recur < 0 || config.recur > 7)
    return Status::InvalidArgument(fmt::format("gen-ipr: --recur must be in 0..7 (sessions), got {}", config.recur));
  if (config.dialogues < 1 || config.dialogues > 100000)
    return Status::InvalidArgument(fmt::format("gen-ipr: --dialogues must be in 1..100000, got {}", config.dialogues));
  if (config.chat_wrap < 0 || config.chat_wrap > 100)
    return Status::InvalidArgument(fmt::format("gen-ipr: --chat-wrap must be a percent in 0..100, got {}", config.chat_wrap));
  if (config.phrasing_fold < -1 || config.phrasing_fold > 1)
    return Status::InvalidArgument(fmt::format("gen-ipr: --phrasing-fold must be -1, 0 or 1, got {}", config.phrasing_fold));
  Pools pools = BuildPools(split, config.phrasing_fold);
  if (!config.phrasing_path.empty()) RETURN_IF_ERROR(ApplyPhrasing(config.phrasing_path, &pools));
  if (!config.entities_path.empty()) RETURN_IF_ERROR(ApplyEntities(config.entities_path, split, &pools));
  auto filler = LoadFiller(config.filler_path, split);
  if (!filler.ok()) return filler.status().WithContext("gen-ipr: filler");
  ojson doc = ojson::array();
  for (int i = 0; i < config.dialogues; ++i) {
    bool done = false;
    for (int attempt = 0; attempt < 50 && !done; ++attempt) {
      // Retry with a derived seed (still deterministic).
      DialogueGen gen(pools, *filler, split, config.scale, i,
                      config.seed + static_cast<uint64_t>(attempt) * 0x9e3779b97f4a7c15ULL, config.recur,
                      config.chat_wrap);
      ojson sample;
      if (gen.Generate(&sample, attempt)) {
        doc.push_back(std::move(sample));
        done = true;
      }
    }
    if (!done) return Status::Internal(fmt::format("gen-ipr: dialogue {} failed the keyword-free rule 50 times", i));
  }
  *json_out = doc.dump(2);
  json_out->push_back('\n');
  return Status::Ok();
}

Status GenerateIprToFile(const IprConfig& config, const std::string& path) {
  std::string out;
  RETURN_IF_ERROR(GenerateIpr(config, &out));
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::IOError("gen-ipr: cannot open " + path);
  f << out;
  f.close();
  if (!f) return Status::IOError("gen-ipr: cannot write " + path);
  return Status::Ok();
}

Status CheckKeywordFree(const Dataset& dataset) {
  for (const auto& s : dataset.samples) {
    std::unordered_map<std::string, const Turn*> by_id;
    for (const auto& t : s.turns) by_id[t.id] = &t;
    for (size_t i = 0; i < s.qa.size(); ++i) {
      const QaItem& q = s.qa[i];
      const std::string where = fmt::format("{}: qa[{}] \"{}\"", s.sample_id, i, q.question);
      if (q.evidence.empty()) return Status::InvalidArgument(where + ": no gold evidence");
      std::vector<std::set<std::string>> gold;
      for (const auto& id : q.evidence) {
        auto it = by_id.find(id);
        if (it == by_id.end()) return Status::InvalidArgument(where + ": gold id " + id + " does not resolve");
        if (!q.speaker.empty() && it->second->speaker != q.speaker)
          return Status::InvalidArgument(where + ": gold id " + id + " is said by " + it->second->speaker +
                                         ", not the asking speaker " + q.speaker);
        gold.push_back(text::ContentTermSet(it->second->text));
      }
      const auto qt = text::ContentTermSet(q.question);
      if (q.implicit.value_or(false)) {
        std::vector<std::pair<std::string, std::set<std::string>>> probes = {{"question", qt}};
        for (const auto& c : q.context) probes.push_back({"context \"" + c + "\"", text::ContentTermSet(c)});
        for (const auto& [what, terms] : probes)
          for (size_t g = 0; g < gold.size(); ++g)
            for (const auto& term : terms)
              if (gold[g].count(term))
                return Status::InvalidArgument(fmt::format("{}: {} shares the term '{}' with gold {}", where, what,
                                                           term, q.evidence[g]));
      } else if (q.implicit.has_value()) {
        for (size_t g = 0; g < gold.size(); ++g)
          if (!Intersects(qt, gold[g]))
            return Status::InvalidArgument(fmt::format("{}: explicit control shares no term with gold {}", where,
                                                       q.evidence[g]));
      }
    }
  }
  return Status::Ok();
}

IprInventory IprSplitInventory(const std::string& split_name) {
  IprInventory inv;
  const int split = SplitId(split_name);
  if (split < 0) return inv;
  const Pools p = BuildPools(split);
  for (const auto& m : p.movies) { inv.entities.push_back("movie:" + m.title); inv.entities.push_back("plot:" + m.alias); }
  for (const auto& x : p.dishes) inv.entities.push_back("dish:" + x.name);
  for (const auto& x : p.tools) inv.entities.push_back("tool:" + x.name);
  for (const auto& x : p.habits) inv.entities.push_back("habit:" + x);
  for (const auto& x : p.services) inv.entities.push_back("service:" + x);
  for (const auto& x : p.nicknames) inv.entities.push_back("nickname:" + x);
  for (const auto& x : p.names) inv.entities.push_back("name:" + x);
  const std::vector<const std::vector<std::string>*> lists = {
      &p.stmt_open, &p.stmt_close, &p.query_open, &p.query_close, &p.like, &p.aversion, &p.allergy,
      &p.diet, &p.habit, &p.schedule, &p.company, &p.platform, &p.upd_like, &p.upd_diet, &p.alias_intro,
      &p.friend_like, &p.disliked, &p.used_to, &p.hypo, &p.question, &p.acks, &p.chit_user,
      &p.chit_partner, &p.reactions, &p.explicit_q, &p.ellipsis, &p.recur_cues};
  for (const auto* l : lists) inv.templates.insert(inv.templates.end(), l->begin(), l->end());
  for (int q = 0; q < 9; ++q) {
    inv.templates.insert(inv.templates.end(), p.query_cores[q].begin(), p.query_cores[q].end());
    inv.templates.insert(inv.templates.end(), p.cues[q].begin(), p.cues[q].end());
  }
  return inv;
}

}  // namespace ontomem
