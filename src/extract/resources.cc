#include "extract/resources.h"

#include <algorithm>

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
    r.type_check = [ontology](std::string_view relation, std::string_view tail) -> int {
      const Relation* rel = ontology->FindRelation(relation);
      if (!rel || rel->tail_types.empty()) return 0;
      const auto hits = ontology->LookupGazetteer(tail);
      if (hits.empty()) return 0;
      for (const auto* h : hits)
        if (std::find(rel->tail_types.begin(), rel->tail_types.end(), h->type) != rel->tail_types.end()) return 1;
      return -1;
    };
    what += what.empty() ? "gazetteer" : ",gazetteer";
  }
  if (described) *described = what;
  return r;
}

FeatureResources DefaultResources(std::string* described) {
  std::shared_ptr<const WordNet> wn;
  if (auto w = WordNet::Open(); w.ok()) wn = *w;
  std::shared_ptr<const Ontology> onto;
  if (auto o = Ontology::LoadDefault(); o.ok()) onto = *o;
  return MakeResources(wn, onto, described);
}

}  // namespace ontomem::extract
