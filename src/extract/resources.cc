#include "extract/resources.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "embed/lexicon.h"
#include "ontomem/options.h"
#include "ontology/ontology.h"
#include "ontology/wordnet.h"

namespace ontomem::extract {

std::string WordNetLexname(const WordNet& wn, std::string_view w) {
  for (WordNetPos pos : {WordNetPos::kNoun, WordNetPos::kVerb, WordNetPos::kAdj, WordNetPos::kAdv}) {
    const auto syn = wn.LookupSynsets(w, pos);
    if (!syn.empty()) return wn.Lexname(syn.front());
  }
  return "";
}

namespace {

bool PersonOrGroup(std::string_view lexname) { return lexname == "noun.person" || lexname == "noun.group"; }

// The head word of a tail ("underserved community" -> "community").
std::string_view LastWord(std::string_view phrase) {
  const size_t sp = phrase.find_last_of(' ');
  return sp == std::string_view::npos ? phrase : phrase.substr(sp + 1);
}

// Whether WordNet knows the phrase's last word as a noun and none of its senses is a person or
// a group ("animal", "writing", "mountain"; not "twins", "household"): such a tail is nobody's
// relative or friend. Words WordNet does not know (names, "seven-year-old") are not judged.
bool NeverAPerson(const WordNet& wn, std::string_view phrase) {
  const auto senses = wn.LookupSynsets(LastWord(phrase), WordNetPos::kNoun);
  if (senses.empty()) return false;
  return std::none_of(senses.begin(), senses.end(), [&](const SynsetId& s) { return PersonOrGroup(wn.Lexname(s)); });
}

// Whether some word of the phrase has a noun sense whose lexname is in `allowed`, or is unknown
// to WordNet (invented names are not judged); false when WordNet knows every word and none has
// such a sense.
bool SomeWordMayBe(const WordNet& wn, std::string_view phrase, std::initializer_list<std::string_view> allowed) {
  size_t start = 0;
  while (start < phrase.size()) {
    size_t end = phrase.find(' ', start);
    if (end == std::string_view::npos) end = phrase.size();
    const std::string_view w = phrase.substr(start, end - start);
    start = end + 1;
    if (w.empty()) continue;
    if (WordNetLexname(wn, w).empty()) return true;  // no sense of any part of speech
    for (const SynsetId& syn : wn.LookupSynsets(w, WordNetPos::kNoun)) {
      const std::string lex = wn.Lexname(syn);
      for (std::string_view a : allowed)
        if (lex == a) return true;
    }
  }
  return false;
}

}  // namespace

FeatureResources MakeResources(std::shared_ptr<const WordNet> wordnet, std::shared_ptr<const Ontology> ontology,
                               std::string* described) {
  FeatureResources r;
  std::string what;
  if (wordnet) {
    r.lexname = [wordnet](std::string_view w) { return WordNetLexname(*wordnet, w); };
    what = "wordnet";
  }
  if (ontology) {
    r.gazetteer = [ontology](std::string_view phrase) -> std::string {
      const auto hits = ontology->LookupGazetteer(phrase);
      return hits.empty() ? std::string() : hits.front()->type;
    };
    // First words of every gazetteer key (LookupGazetteer also drops a leading "the", so a
    // phrase starting with "the" is always tried).
    auto firsts = std::make_shared<std::unordered_set<std::string>>();
    for (const GazetteerEntry& e : ontology->gazetteer()) {
      std::vector<std::string> surfaces = e.aliases;
      surfaces.push_back(e.name);
      for (const std::string& s : surfaces) {
        const std::string k = NormalizeSurface(s);
        if (k.empty()) continue;
        firsts->insert(k.substr(0, k.find(' ')));
        if (const size_t sp = k.find(' '); k.rfind("the ", 0) == 0 && sp != std::string::npos)
          firsts->insert(k.substr(sp + 1, k.find(' ', sp + 1) - sp - 1));
      }
    }
    r.gazetteer_may_start = [firsts](std::string_view word) {
      const std::string k = NormalizeSurface(word);
      if (k.empty()) return true;  // the phrase's first word comes from the next token
      const std::string first = k.substr(0, k.find(' '));
      return first == "the" || firsts->count(first) > 0;
    };
    r.type_check = [ontology, wordnet](std::string_view relation, std::string_view tail) -> int {
      const Relation* rel = ontology->FindRelation(relation);
      if (!rel || rel->tail_types.empty()) return 0;
      const auto hits = ontology->LookupGazetteer(tail);
      if (hits.empty()) {
        // A relation that only takes people (HAS_RELATIVE, HAS_FRIEND) and a tail no person is.
        const bool people_only = std::all_of(rel->tail_types.begin(), rel->tail_types.end(), [](const std::string& t) {
          return t == "person" || t == "relative";
        });
        if (people_only) return wordnet && NeverAPerson(*wordnet, tail) ? -1 : 0;
        // Nobody uses a person or a group ("help underserved communities").
        if (relation == "USES" && wordnet && PersonOrGroup(WordNetLexname(*wordnet, LastWord(tail)))) return -1;
        // An allergen is a food, plant, animal, substance or product: "dance", "auntie" and
        // "visit" are not, whatever the tagger read ("Gotta make time to dance").
        if (relation == "ALLERGIC_TO" && wordnet &&
            !SomeWordMayBe(*wordnet, tail, {"noun.food", "noun.plant", "noun.animal", "noun.substance", "noun.artifact", "noun.body"}))
          return -1;
        return 0;
      }
      for (const auto* h : hits)
        if (std::find(rel->tail_types.begin(), rel->tail_types.end(), h->type) != rel->tail_types.end()) return 1;
      return -1;
    };
    // The state relation lifting each inventory (condition_class <- HAS_CONDITION, diet_class
    // <- FOLLOWS_DIET, belief_kind <- BELIEVES); a tail names one of their concepts through the
    // ontology's synonym index.
    auto state_of = std::make_shared<std::unordered_map<std::string, std::string>>();
    for (const ConceptRelation& cr : ontology->concept_relations()) {
      if (cr.source_relations.size() != 1) continue;
      const std::string& rel = cr.source_relations.front();
      if (rel == "HAS_CONDITION" || rel == "FOLLOWS_DIET" || rel == "BELIEVES") state_of->emplace(cr.inventory, rel);
    }
    r.named_state = [ontology, state_of](std::string_view tail) -> std::string {
      for (const Concept* c : ontology->ConceptsBySynonym(tail))
        if (auto it = state_of->find(c->inventory); it != state_of->end()) return it->second;
      return std::string();
    };
    what += what.empty() ? "gazetteer" : ",gazetteer";
  }
  if (described) *described = what;
  return r;
}

std::function<bool(std::string_view, float*)> LexiconWordVectors(std::shared_ptr<const Lexicon> lexicon) {
  if (!lexicon || lexicon->dim() != kWordVectorDim) return nullptr;
  return [lexicon](std::string_view word, float* out) {
    const int64_t rank = lexicon->Find(word);
    if (rank < 0) return false;
    lexicon->Vector(rank, out);
    return true;
  };
}

StatusOr<std::function<bool(std::string_view, float*)>> OpenWordVectors(const std::string& path) {
  const std::string file = path.empty() ? DefaultLexiconPath() : path;
  auto lex = Lexicon::Open(file);
  if (!lex.ok()) return lex.status().WithContext("the frame reader reads word vectors");
  auto vectors = LexiconWordVectors(std::shared_ptr<const Lexicon>(std::move(lex).value()));
  if (!vectors)
    return Status::FailedPrecondition("the frame reader needs a " + std::to_string(kWordVectorDim) + "-d lexicon; " +
                                      file + " is not");
  return vectors;
}

FeatureResources DefaultResources(std::string* described) {
  std::shared_ptr<const WordNet> wn;
  if (auto w = WordNet::Open(); w.ok()) wn = *w;
  std::shared_ptr<const Ontology> onto;
  if (auto o = Ontology::LoadDefault(); o.ok()) onto = *o;
  return MakeResources(wn, onto, described);
}

}  // namespace ontomem::extract
