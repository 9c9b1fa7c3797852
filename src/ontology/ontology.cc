#include "ontology/ontology.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "text/text.h"

namespace ontomem {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kSupportedVersion = 1;

std::string Quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('\'');
  out.append(s);
  out.push_back('\'');
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string StripThe(const std::string& key) {
  if (key.rfind("the ", 0) == 0 && key.size() > 4) return key.substr(4);
  return key;
}

bool ValidPrivacy(const std::string& p) {
  if (p.empty()) return true;
  const auto& cats = PrivacyCategories();
  return std::find(cats.begin(), cats.end(), p) != cats.end();
}

}  // namespace

const std::vector<std::string>& RequiredAssertionRelations() {
  static const std::vector<std::string> kIds = {
      rel::kLikes,   rel::kDislikes,    rel::kAllergicTo, rel::kFollowsDiet,
      rel::kAvoids,  rel::kHasHabit,    rel::kUses,       rel::kOwns,
      rel::kHasPet,  rel::kHasRelative, rel::kHasFriend,  rel::kLivesIn,
      rel::kWorksAs, rel::kWants,       rel::kHasCondition, rel::kBelieves};
  return kIds;
}

const std::vector<std::string>& PrivacyCategories() {
  static const std::vector<std::string> kCats = {"health",   "religion", "sexuality",
                                                 "politics", "finances", "government_id"};
  return kCats;
}

std::string NormalizeSurface(std::string_view s) {
  std::string out;
  for (const std::string& t : text::Tokenize(s)) {
    if (!out.empty()) out.push_back(' ');
    out += t;
  }
  return out;
}

std::string SourceTreePath(const std::string& path) {
  std::error_code ec;
  if (fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
  return (fs::path(DefaultOntologyPath()).parent_path().parent_path().parent_path() / path).string();
}

std::string DefaultOntologyPath() {
  const char* env = std::getenv("ONTOMEM_ONTOLOGY");
  if (env != nullptr && *env != 0) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path p = exe.parent_path() / ".." / ".." / "data" / "ontology" / "ontology.json";
    if (fs::exists(p, ec)) return p.lexically_normal().string();
  }
  return "data/ontology/ontology.json";
}

// Parses files into an Ontology under construction, then validates references.
class OntologyLoader {
 public:
  explicit OntologyLoader(Ontology* o) : o_(o) {}

  Status LoadFile(const std::string& path, bool is_base) {
    json doc;
    RETURN_IF_ERROR(ReadJson(path, is_base, &doc));
    file_ = path;
    o_->files_.push_back(path);
    if (!doc.is_object()) return Err("$", "the top level must be an object");
    RETURN_IF_ERROR(CheckKeys(doc, "$",
                              {"version", "description", "gazetteer_files", "domains", "relations",
                               "entity_types", "inventories", "concept_relations", "gazetteer",
                               "privacy_overrides"}));
    RETURN_IF_ERROR(CheckVersion(doc));
    if (is_base) o_->version_ = kSupportedVersion;
    RETURN_IF_ERROR(ForEach(doc, "domains", [&](const json& j, const std::string& p) { return ParseDomain(j, p); }));
    RETURN_IF_ERROR(ForEach(doc, "entity_types", [&](const json& j, const std::string& p) { return ParseType(j, p); }));
    RETURN_IF_ERROR(ForEach(doc, "relations", [&](const json& j, const std::string& p) { return ParseRelation(j, p); }));
    RETURN_IF_ERROR(ForEach(doc, "inventories", [&](const json& j, const std::string& p) { return ParseInventory(j, p); }));
    RETURN_IF_ERROR(ForEach(doc, "concept_relations", [&](const json& j, const std::string& p) { return ParseConceptRelation(j, p); }));
    RETURN_IF_ERROR(ForEach(doc, "gazetteer", [&](const json& j, const std::string& p) { return ParseGazetteerEntry(j, p); }));
    if (doc.contains("privacy_overrides")) {
      const json& ov = doc["privacy_overrides"];
      if (!ov.is_object()) return Err("$.privacy_overrides", "must be an object {relation id: category}");
      for (auto it = ov.begin(); it != ov.end(); ++it) {
        std::string p = "$.privacy_overrides." + it.key();
        if (!it.value().is_string()) return Err(p, "must be a string (\"\" or a privacy category)");
        std::string cat = it.value().get<std::string>();
        if (!ValidPrivacy(cat)) return Err(p, "unknown privacy category " + Quote(cat));
        overrides_.push_back({file_, p, it.key(), cat});
      }
    }
    if (doc.contains("gazetteer_files")) {
      std::vector<std::string> files;
      RETURN_IF_ERROR(GetStrings(doc, "gazetteer_files", "$", &files));
      std::string saved = file_;
      for (size_t i = 0; i < files.size(); ++i) {
        fs::path gp = fs::path(files[i]);
        if (gp.is_relative()) gp = fs::path(saved).parent_path() / gp;
        RETURN_IF_ERROR(LoadGazetteerFile(gp.string()));
        file_ = saved;
      }
    }
    return Status::Ok();
  }

  Status Finish() {
    // Privacy overrides first: concept relations inherit the final categories.
    for (const auto& ov : overrides_) {
      auto r = relation_pos_.find(ov.relation);
      auto c = concept_relation_pos_.find(ov.relation);
      if (r != relation_pos_.end()) {
        o_->relations_[r->second].privacy = ov.category;
      } else if (c != concept_relation_pos_.end()) {
        o_->concept_relations_[c->second].privacy = ov.category;
        cr_privacy_explicit_[c->second] = true;
      } else {
        return RefErr(ov.file, ov.path, "unknown relation " + Quote(ov.relation));
      }
    }
    for (const Ref& ref : refs_) RETURN_IF_ERROR(CheckRef(ref));
    for (const std::string& id : RequiredAssertionRelations()) {
      if (!relation_pos_.count(id)) {
        return Status::InvalidArgument(o_->files_.front() + ": $.relations: required relation " +
                                       Quote(id) + " is missing");
      }
    }
    for (size_t i = 0; i < o_->concept_relations_.size(); ++i) {
      ConceptRelation& cr = o_->concept_relations_[i];
      if (!cr_privacy_explicit_[i]) {
        for (const std::string& src : cr.source_relations) {
          const std::string& p = o_->relations_[relation_pos_.at(src)].privacy;
          if (!p.empty()) {
            cr.privacy = p;
            break;
          }
        }
      }
      if (!cr_polarity_explicit_[i] && !cr.source_relations.empty()) {
        cr.polarity = o_->relations_[relation_pos_.at(cr.source_relations.front())].polarity;
      }
    }
    o_->BuildIndexes();
    return Status::Ok();
  }

 private:
  enum class RefKind { kDomain, kType, kRelation, kInventory, kConcept };
  struct Ref {
    std::string file, path;
    RefKind kind;
    std::string value;
  };
  struct Override {
    std::string file, path, relation, category;
  };

  Status Err(const std::string& path, const std::string& msg) const {
    return Status::InvalidArgument(file_ + ": " + path + ": " + msg);
  }
  static Status RefErr(const std::string& file, const std::string& path, const std::string& msg) {
    return Status::InvalidArgument(file + ": " + path + ": " + msg);
  }

  Status ReadJson(const std::string& path, bool is_base, json* out) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      return Status::InvalidArgument("ontology file " + path + " is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::string msg = "ontology file " + path + " not found or unreadable";
      if (is_base) {
        return Status::FailedPrecondition(
            msg + " (set ONTOMEM_ONTOLOGY to the path of data/ontology/ontology.json)");
      }
      return Status::InvalidArgument(msg);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      *out = json::parse(ss.str());
    } catch (const json::exception& e) {
      return Status::InvalidArgument(path + ": invalid JSON: " + e.what());
    }
    return Status::Ok();
  }

  Status CheckVersion(const json& doc) {
    if (!doc.contains("version")) return Err("$.version", "missing (this reader supports version 1)");
    const json& v = doc["version"];
    if (!v.is_number_integer() || v.get<int64_t>() != kSupportedVersion) {
      return Err("$.version", "unsupported version " + v.dump() + " (this reader supports version 1)");
    }
    return Status::Ok();
  }

  Status CheckKeys(const json& obj, const std::string& path,
                   std::initializer_list<const char*> allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& k = it.key();
      if (k.empty() || k[0] == '_' || k == "comment") continue;
      bool ok = false;
      for (const char* a : allowed) ok = ok || k == a;
      if (!ok) return Err(path + "." + k, "unknown key");
    }
    return Status::Ok();
  }

  Status ForEach(const json& doc, const char* key,
                 const std::function<Status(const json&, const std::string&)>& fn) {
    if (!doc.contains(key)) return Status::Ok();
    const json& arr = doc[key];
    std::string path = std::string("$.") + key;
    if (!arr.is_array()) return Err(path, "must be an array");
    for (size_t i = 0; i < arr.size(); ++i) {
      std::string p = path + "[" + std::to_string(i) + "]";
      if (!arr[i].is_object()) return Err(p, "must be an object");
      RETURN_IF_ERROR(fn(arr[i], p));
    }
    return Status::Ok();
  }

  Status GetString(const json& obj, const char* key, const std::string& path, bool required,
                   std::string* out) {
    if (!obj.contains(key)) {
      if (required) return Err(path + "." + key, "missing");
      return Status::Ok();
    }
    if (!obj[key].is_string()) return Err(path + "." + key, "must be a string");
    *out = obj[key].get<std::string>();
    if (required && out->empty()) return Err(path + "." + key, "must not be empty");
    return Status::Ok();
  }

  Status GetStrings(const json& obj, const char* key, const std::string& path,
                    std::vector<std::string>* out, bool lower = false) {
    if (!obj.contains(key)) return Status::Ok();
    const json& arr = obj[key];
    if (!arr.is_array()) return Err(path + "." + key, "must be an array of strings");
    for (size_t i = 0; i < arr.size(); ++i) {
      if (!arr[i].is_string()) {
        return Err(path + "." + key + "[" + std::to_string(i) + "]", "must be a string");
      }
      out->push_back(lower ? Lower(arr[i].get<std::string>()) : arr[i].get<std::string>());
    }
    return Status::Ok();
  }

  Status GetBool(const json& obj, const char* key, const std::string& path, bool* out) {
    if (!obj.contains(key)) return Status::Ok();
    if (!obj[key].is_boolean()) return Err(path + "." + key, "must be true or false");
    *out = obj[key].get<bool>();
    return Status::Ok();
  }

  Status GetPrivacy(const json& obj, const std::string& path, std::string* out) {
    RETURN_IF_ERROR(GetString(obj, "privacy", path, false, out));
    if (!ValidPrivacy(*out)) {
      return Err(path + ".privacy", "unknown privacy category " + Quote(*out) +
                                        " (use \"\", health, religion, sexuality, politics, "
                                        "finances or government_id)");
    }
    return Status::Ok();
  }

  Status GetPolarity(const json& obj, const std::string& path, int* out, bool* present) {
    *present = obj.contains("polarity");
    if (!*present) return Status::Ok();
    const json& p = obj["polarity"];
    if (!p.is_number_integer() || p.get<int64_t>() < -1 || p.get<int64_t>() > 1) {
      return Err(path + ".polarity", "must be -1, 0 or 1");
    }
    *out = static_cast<int>(p.get<int64_t>());
    return Status::Ok();
  }

  Status GetHooks(const json& obj, const std::string& path, WordNetHooks* out) {
    if (!obj.contains("wordnet")) return Status::Ok();
    const json& w = obj["wordnet"];
    std::string p = path + ".wordnet";
    if (!w.is_object()) return Err(p, "must be an object");
    RETURN_IF_ERROR(CheckKeys(w, p, {"lemmas", "hypernyms", "regions", "topics", "lexnames"}));
    RETURN_IF_ERROR(GetStrings(w, "lemmas", p, &out->lemmas, true));
    RETURN_IF_ERROR(GetStrings(w, "hypernyms", p, &out->hypernyms, true));
    RETURN_IF_ERROR(GetStrings(w, "regions", p, &out->regions, true));
    RETURN_IF_ERROR(GetStrings(w, "topics", p, &out->topics, true));
    RETURN_IF_ERROR(GetStrings(w, "lexnames", p, &out->lexnames));
    for (auto* v : {&out->lemmas, &out->hypernyms, &out->regions, &out->topics}) {
      for (std::string& s : *v) std::replace(s.begin(), s.end(), ' ', '_');
    }
    return Status::Ok();
  }

  void AddRefs(const std::vector<std::string>& values, const std::string& path, const char* key,
               RefKind kind) {
    for (size_t i = 0; i < values.size(); ++i) {
      refs_.push_back({file_, path + "." + key + "[" + std::to_string(i) + "]", kind, values[i]});
    }
  }

  Status CheckRef(const Ref& ref) {
    switch (ref.kind) {
      case RefKind::kDomain:
        if (!domain_pos_.count(ref.value)) return RefErr(ref.file, ref.path, "unknown domain " + Quote(ref.value));
        break;
      case RefKind::kType:
        if (!type_pos_.count(ref.value)) return RefErr(ref.file, ref.path, "unknown entity type " + Quote(ref.value));
        break;
      case RefKind::kRelation:
        if (!relation_pos_.count(ref.value)) return RefErr(ref.file, ref.path, "unknown assertion relation " + Quote(ref.value));
        break;
      case RefKind::kInventory:
        if (!inventory_pos_.count(ref.value)) return RefErr(ref.file, ref.path, "unknown inventory " + Quote(ref.value));
        break;
      case RefKind::kConcept:
        if (!concept_pos_.count(ref.value)) {
          return RefErr(ref.file, ref.path, "unknown concept " + Quote(ref.value) +
                                                " (concept ids are \"<inventory>:<name>\")");
        }
        break;
    }
    return Status::Ok();
  }

  Status CheckId(const std::string& id, const std::string& path) {
    if (id.find_first_of(" :\t\n") != std::string::npos) {
      return Err(path + ".id", "ids must not contain spaces or ':' (got " + Quote(id) + ")");
    }
    return Status::Ok();
  }

  Status ParseDomain(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"id", "label", "cues", "lexnames", "extend"}));
    Domain d;
    RETURN_IF_ERROR(GetString(j, "id", path, true, &d.id));
    RETURN_IF_ERROR(CheckId(d.id, path));
    RETURN_IF_ERROR(GetString(j, "label", path, false, &d.label));
    RETURN_IF_ERROR(GetStrings(j, "cues", path, &d.cues, true));
    RETURN_IF_ERROR(GetStrings(j, "lexnames", path, &d.lexnames));
    bool extend = false;
    RETURN_IF_ERROR(GetBool(j, "extend", path, &extend));
    auto it = domain_pos_.find(d.id);
    if (it != domain_pos_.end()) {
      if (!extend) return Err(path + ".id", "duplicate domain id " + Quote(d.id) + " (use \"extend\": true to add cues)");
      Domain& old = o_->domains_[it->second];
      old.cues.insert(old.cues.end(), d.cues.begin(), d.cues.end());
      old.lexnames.insert(old.lexnames.end(), d.lexnames.begin(), d.lexnames.end());
      return Status::Ok();
    }
    if (extend) return Err(path + ".id", "\"extend\" names unknown domain " + Quote(d.id));
    if (d.label.empty()) d.label = d.id;
    domain_pos_[d.id] = o_->domains_.size();
    o_->domains_.push_back(std::move(d));
    return Status::Ok();
  }

  Status ParseType(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"id", "label", "domains", "wordnet"}));
    EntityType t;
    RETURN_IF_ERROR(GetString(j, "id", path, true, &t.id));
    RETURN_IF_ERROR(CheckId(t.id, path));
    if (type_pos_.count(t.id)) return Err(path + ".id", "duplicate entity type id " + Quote(t.id));
    RETURN_IF_ERROR(GetString(j, "label", path, false, &t.label));
    RETURN_IF_ERROR(GetStrings(j, "domains", path, &t.domains));
    RETURN_IF_ERROR(GetHooks(j, path, &t.wordnet));
    AddRefs(t.domains, path, "domains", RefKind::kDomain);
    if (t.label.empty()) t.label = t.id;
    type_pos_[t.id] = o_->types_.size();
    o_->types_.push_back(std::move(t));
    return Status::Ok();
  }

  Status ParseRelation(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"id", "description", "polarity", "tail_types", "privacy", "cue_phrases"}));
    Relation r;
    RETURN_IF_ERROR(GetString(j, "id", path, true, &r.id));
    RETURN_IF_ERROR(CheckId(r.id, path));
    if (relation_pos_.count(r.id) || concept_relation_pos_.count(r.id)) {
      return Err(path + ".id", "duplicate relation id " + Quote(r.id));
    }
    RETURN_IF_ERROR(GetString(j, "description", path, false, &r.description));
    bool has_polarity = false;
    RETURN_IF_ERROR(GetPolarity(j, path, &r.polarity, &has_polarity));
    if (!has_polarity) return Err(path + ".polarity", "missing");
    RETURN_IF_ERROR(GetStrings(j, "tail_types", path, &r.tail_types));
    if (r.tail_types.empty()) return Err(path + ".tail_types", "must list at least one entity type");
    RETURN_IF_ERROR(GetPrivacy(j, path, &r.privacy));
    RETURN_IF_ERROR(GetStrings(j, "cue_phrases", path, &r.cue_phrases, true));
    AddRefs(r.tail_types, path, "tail_types", RefKind::kType);
    relation_pos_[r.id] = o_->relations_.size();
    o_->relations_.push_back(std::move(r));
    return Status::Ok();
  }

  Status ParseInventory(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"id", "label", "description", "domains", "concepts", "extend"}));
    std::string id;
    RETURN_IF_ERROR(GetString(j, "id", path, true, &id));
    RETURN_IF_ERROR(CheckId(id, path));
    bool extend = false;
    RETURN_IF_ERROR(GetBool(j, "extend", path, &extend));
    size_t inv_pos;
    auto it = inventory_pos_.find(id);
    if (it != inventory_pos_.end()) {
      if (!extend) return Err(path + ".id", "duplicate inventory id " + Quote(id) + " (use \"extend\": true to add concepts)");
      inv_pos = it->second;
    } else {
      if (extend) return Err(path + ".id", "\"extend\" names unknown inventory " + Quote(id));
      Inventory inv;
      inv.id = id;
      RETURN_IF_ERROR(GetString(j, "label", path, false, &inv.label));
      RETURN_IF_ERROR(GetString(j, "description", path, false, &inv.description));
      RETURN_IF_ERROR(GetStrings(j, "domains", path, &inv.domains));
      AddRefs(inv.domains, path, "domains", RefKind::kDomain);
      if (inv.label.empty()) inv.label = id;
      inv_pos = o_->inventories_.size();
      inventory_pos_[id] = inv_pos;
      o_->inventories_.push_back(std::move(inv));
    }
    if (!j.contains("concepts")) return Status::Ok();
    const json& arr = j["concepts"];
    if (!arr.is_array()) return Err(path + ".concepts", "must be an array");
    for (size_t i = 0; i < arr.size(); ++i) {
      std::string p = path + ".concepts[" + std::to_string(i) + "]";
      const json& cj = arr[i];
      if (!cj.is_object()) return Err(p, "must be an object");
      RETURN_IF_ERROR(CheckKeys(cj, p, {"id", "label", "synonyms", "anchors", "wordnet", "privacy"}));
      Concept c;
      std::string name;
      RETURN_IF_ERROR(GetString(cj, "id", p, true, &name));
      RETURN_IF_ERROR(CheckId(name, p));
      c.id = id + ":" + name;
      c.inventory = id;
      if (concept_pos_.count(c.id)) return Err(p + ".id", "duplicate concept id " + Quote(c.id));
      RETURN_IF_ERROR(GetString(cj, "label", p, false, &c.label));
      RETURN_IF_ERROR(GetStrings(cj, "synonyms", p, &c.synonyms, true));
      RETURN_IF_ERROR(GetStrings(cj, "anchors", p, &c.anchors, true));
      RETURN_IF_ERROR(GetHooks(cj, p, &c.wordnet));
      RETURN_IF_ERROR(GetPrivacy(cj, p, &c.privacy));
      if (c.label.empty()) c.label = name;
      concept_pos_[c.id] = o_->concepts_.size();
      o_->inventories_[inv_pos].concepts.push_back(o_->concepts_.size());
      o_->concepts_.push_back(std::move(c));
    }
    return Status::Ok();
  }

  Status ParseConceptRelation(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"id", "description", "source_relations", "inventory", "polarity", "privacy"}));
    ConceptRelation cr;
    RETURN_IF_ERROR(GetString(j, "id", path, true, &cr.id));
    RETURN_IF_ERROR(CheckId(cr.id, path));
    if (relation_pos_.count(cr.id) || concept_relation_pos_.count(cr.id)) {
      return Err(path + ".id", "duplicate relation id " + Quote(cr.id));
    }
    RETURN_IF_ERROR(GetString(j, "description", path, false, &cr.description));
    RETURN_IF_ERROR(GetStrings(j, "source_relations", path, &cr.source_relations));
    if (cr.source_relations.empty()) return Err(path + ".source_relations", "must list at least one assertion relation");
    RETURN_IF_ERROR(GetString(j, "inventory", path, true, &cr.inventory));
    bool has_polarity = false;
    RETURN_IF_ERROR(GetPolarity(j, path, &cr.polarity, &has_polarity));
    RETURN_IF_ERROR(GetPrivacy(j, path, &cr.privacy));
    AddRefs(cr.source_relations, path, "source_relations", RefKind::kRelation);
    refs_.push_back({file_, path + ".inventory", RefKind::kInventory, cr.inventory});
    concept_relation_pos_[cr.id] = o_->concept_relations_.size();
    cr_privacy_explicit_.push_back(j.contains("privacy"));
    cr_polarity_explicit_.push_back(has_polarity);
    o_->concept_relations_.push_back(std::move(cr));
    return Status::Ok();
  }

  Status ParseGazetteerEntry(const json& j, const std::string& path) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"name", "type", "concepts", "aliases"}));
    GazetteerEntry e;
    RETURN_IF_ERROR(GetString(j, "name", path, true, &e.name));
    RETURN_IF_ERROR(GetString(j, "type", path, true, &e.type));
    RETURN_IF_ERROR(GetStrings(j, "concepts", path, &e.concepts));
    RETURN_IF_ERROR(GetStrings(j, "aliases", path, &e.aliases));
    std::string key = NormalizeSurface(e.name) + "\t" + e.type;
    if (!gazetteer_keys_.insert(key).second) {
      return Err(path + ".name", "duplicate gazetteer entry " + Quote(e.name) + " of type " + Quote(e.type));
    }
    refs_.push_back({file_, path + ".type", RefKind::kType, e.type});
    AddRefs(e.concepts, path, "concepts", RefKind::kConcept);
    e.source_file = file_;
    o_->gazetteer_.push_back(std::move(e));
    return Status::Ok();
  }

  Status LoadGazetteerFile(const std::string& path) {
    json doc;
    RETURN_IF_ERROR(ReadJson(path, false, &doc));
    file_ = path;
    o_->files_.push_back(path);
    if (!doc.is_object()) return Err("$", "the top level must be an object");
    RETURN_IF_ERROR(CheckKeys(doc, "$", {"version", "description", "entries"}));
    RETURN_IF_ERROR(CheckVersion(doc));
    return ForEach(doc, "entries", [&](const json& j, const std::string& p) { return ParseGazetteerEntry(j, p); });
  }

  Ontology* o_;
  std::string file_;
  std::unordered_map<std::string, size_t> domain_pos_, type_pos_, relation_pos_, inventory_pos_,
      concept_pos_, concept_relation_pos_;
  std::set<std::string> gazetteer_keys_;
  std::vector<bool> cr_privacy_explicit_, cr_polarity_explicit_;
  std::vector<Ref> refs_;
  std::vector<Override> overrides_;
};

StatusOr<std::shared_ptr<const Ontology>> Ontology::Load(
    const std::string& base_path, const std::vector<std::string>& extension_paths) {
  std::shared_ptr<Ontology> o(new Ontology());
  OntologyLoader loader(o.get());
  try {
    RETURN_IF_ERROR(loader.LoadFile(base_path, /*is_base=*/true));
    for (const std::string& ext : extension_paths) {
      RETURN_IF_ERROR(loader.LoadFile(ext, /*is_base=*/false));
    }
    RETURN_IF_ERROR(loader.Finish());
  } catch (const std::exception& e) {  // nlohmann type errors we did not anticipate
    return Status::InvalidArgument("ontology " + base_path + ": " + e.what());
  }
  return std::shared_ptr<const Ontology>(std::move(o));
}

StatusOr<std::shared_ptr<const Ontology>> Ontology::LoadDefault(
    const std::vector<std::string>& extension_paths) {
  return Load(DefaultOntologyPath(), extension_paths);
}

void Ontology::BuildIndexes() {
  for (size_t i = 0; i < domains_.size(); ++i) domain_index_[domains_[i].id] = i;
  for (size_t i = 0; i < relations_.size(); ++i) relation_index_[relations_[i].id] = i;
  for (size_t i = 0; i < types_.size(); ++i) type_index_[types_[i].id] = i;
  for (size_t i = 0; i < inventories_.size(); ++i) inventory_index_[inventories_[i].id] = i;
  for (size_t i = 0; i < concepts_.size(); ++i) {
    concept_index_[concepts_[i].id] = i;
    std::set<std::string> keys;
    keys.insert(NormalizeSurface(concepts_[i].label));
    for (const std::string& s : concepts_[i].synonyms) keys.insert(NormalizeSurface(s));
    for (const std::string& k : keys) {
      if (!k.empty()) synonym_index_[k].push_back(i);
    }
  }
  for (size_t i = 0; i < concept_relations_.size(); ++i) {
    concept_relation_index_[concept_relations_[i].id] = i;
  }
  for (size_t i = 0; i < gazetteer_.size(); ++i) {
    std::set<std::string> keys;
    auto add = [&](const std::string& s) {
      std::string k = NormalizeSurface(s);
      if (k.empty()) return;
      keys.insert(k);
      keys.insert(StripThe(k));
    };
    add(gazetteer_[i].name);
    for (const std::string& a : gazetteer_[i].aliases) add(a);
    for (const std::string& k : keys) gazetteer_index_[k].push_back(i);
  }
}

namespace {
template <typename T>
const T* FindIn(const std::unordered_map<std::string, size_t>& index, const std::vector<T>& v,
                std::string_view id) {
  auto it = index.find(std::string(id));
  return it == index.end() ? nullptr : &v[it->second];
}
}  // namespace

const Domain* Ontology::FindDomain(std::string_view id) const { return FindIn(domain_index_, domains_, id); }
const Relation* Ontology::FindRelation(std::string_view id) const { return FindIn(relation_index_, relations_, id); }
const EntityType* Ontology::FindType(std::string_view id) const { return FindIn(type_index_, types_, id); }
const Inventory* Ontology::FindInventory(std::string_view id) const { return FindIn(inventory_index_, inventories_, id); }
const Concept* Ontology::FindConcept(std::string_view id) const { return FindIn(concept_index_, concepts_, id); }
const ConceptRelation* Ontology::FindConceptRelation(std::string_view id) const {
  return FindIn(concept_relation_index_, concept_relations_, id);
}

std::vector<const Concept*> Ontology::ConceptsOf(std::string_view inventory) const {
  std::vector<const Concept*> out;
  const Inventory* inv = FindInventory(inventory);
  if (inv == nullptr) return out;
  for (size_t i : inv->concepts) out.push_back(&concepts_[i]);
  return out;
}

std::vector<const Concept*> Ontology::ConceptsBySynonym(std::string_view surface,
                                                        std::string_view inventory) const {
  std::vector<const Concept*> out;
  auto it = synonym_index_.find(NormalizeSurface(surface));
  if (it == synonym_index_.end()) return out;
  for (size_t i : it->second) {
    if (inventory.empty() || concepts_[i].inventory == inventory) out.push_back(&concepts_[i]);
  }
  return out;
}

std::vector<const GazetteerEntry*> Ontology::LookupGazetteer(std::string_view surface) const {
  std::vector<const GazetteerEntry*> out;
  std::string key = NormalizeSurface(surface);
  for (const std::string& k : {key, StripThe(key)}) {
    auto it = gazetteer_index_.find(k);
    if (it == gazetteer_index_.end()) continue;
    for (size_t i : it->second) {
      if (std::find(out.begin(), out.end(), &gazetteer_[i]) == out.end()) out.push_back(&gazetteer_[i]);
    }
  }
  return out;
}

std::vector<const ConceptRelation*> Ontology::ConceptRelationsFor(
    std::string_view assertion_relation) const {
  std::vector<const ConceptRelation*> out;
  for (const ConceptRelation& cr : concept_relations_) {
    for (const std::string& s : cr.source_relations) {
      if (s == assertion_relation) {
        out.push_back(&cr);
        break;
      }
    }
  }
  return out;
}

const ConceptRelation* Ontology::ConceptRelationFor(std::string_view assertion_relation,
                                                    std::string_view inventory) const {
  for (const ConceptRelation* cr : ConceptRelationsFor(assertion_relation)) {
    if (cr->inventory == inventory) return cr;
  }
  return nullptr;
}

std::string_view Ontology::PrivacyCategory(std::string_view relation_id) const {
  if (const Relation* r = FindRelation(relation_id)) return r->privacy;
  if (const ConceptRelation* cr = FindConceptRelation(relation_id)) return cr->privacy;
  return {};
}

namespace {
bool CategorySensitive(std::string_view category, const PrivacyPolicy& policy) {
  if (category.empty()) return false;
  auto it = policy.category_sensitive.find(category);
  return it == policy.category_sensitive.end() ? true : it->second;
}
}  // namespace

bool Ontology::IsPrivacySensitive(std::string_view relation_id, const PrivacyPolicy& policy) const {
  auto it = policy.relation_sensitive.find(relation_id);
  if (it != policy.relation_sensitive.end()) return it->second;
  return CategorySensitive(PrivacyCategory(relation_id), policy);
}

bool Ontology::IsPrivacySensitive(std::string_view relation_id, std::string_view concept_id,
                                  const PrivacyPolicy& policy) const {
  if (IsPrivacySensitive(relation_id, policy)) return true;
  const Concept* c = FindConcept(concept_id);
  return c != nullptr && CategorySensitive(c->privacy, policy);
}

}  // namespace ontomem
