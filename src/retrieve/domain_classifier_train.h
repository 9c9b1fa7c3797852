// Training data, training and evaluation of the query domain/intent classifier
// (`ontomem train domain`, `ontomem eval domain`; docs/domain.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/dataset.h"
#include "ontology/ontology.h"
#include "retrieve/domain_classifier.h"

namespace ontomem {

// IPR-synth domain names -> ontology domain ids ("MovieRec" -> "movies_tv"); "" if unknown.
std::string IprDomainToOntology(const std::string& ipr_domain);

// PrefEval topic -> the ontology domains counted as correct, the first being the primary one
// ("travel_restaurant" -> {"restaurants", "food_diet"}); empty if unknown. The table is
// documented in docs/domain.md.
std::vector<std::string> PrefEvalTopicDomains(const std::string& topic);

// Examples from an IPR-synth dataset: each question with its context, the mapped domain, and
// the intent (implicit requests = recommend, explicit controls = recall).
std::vector<DomainExample> IprExamples(const Dataset& dataset);

// Examples generated from the ontology for every domain: the domain's cue words, its
// inventories' concept labels and synonyms and gazetteer names of its entity types, put into
// request templates (recommend) and recall templates, with empty, neutral (`chit_chat`) or
// misleading (another domain's statement) context, plus domain-neutral requests whose context
// names the domain. split "train" or "dev": disjoint halves of the words and templates.
std::vector<DomainExample> OntologyExamples(const Ontology& ontology, const std::vector<std::string>& chit_chat,
                                            int per_domain, const std::string& split, uint64_t seed);

// A hand-written labelled request (data/handwritten/domain_requests_*.jsonl; format in
// docs/domain.md): one JSON object per line, {"question", "context": [0-2 turns], "domains":
// [1-3 ontology ids, primary first], "intent": "recommend" | "recall"}.
struct DomainRequest {
  std::string question;
  std::vector<std::string> context;
  std::vector<std::string> domains;
  int intent = 0;  // QueryIntent
};
// Errors name the file, the line and the field; nothing is returned from a file with a bad line.
StatusOr<std::vector<DomainRequest>> LoadDomainRequests(const std::string& path, const Ontology& ontology);
// One training example per listed domain, with weight `weight / domains` (a soft target).
std::vector<DomainExample> DomainRequestExamples(const std::vector<DomainRequest>& requests, float weight);

struct TrainDomainArgs {
  std::string out_path;  // "" = <repo>/models/domain/classifier.bin
  int ipr_dialogues = 1500;
  uint64_t seed = 20261202;
  std::string filler_path = "../shared/data/locomo/locomo_dev5.json";
  std::string lexicon_path;  // "" = DefaultLexiconPath()
  int per_domain = 400;  // 200 until session 15 (docs/domain.md)
  std::vector<std::string> request_files;  // LoadDomainRequests files
  float request_weight = 1.0f;             // weight of one hand-written request
  DomainTrainOptions train;
};
int RunTrainDomain(const TrainDomainArgs& args);

struct EvalDomainArgs {
  std::string model_path;  // "" = DefaultDomainModelPath()
  std::vector<std::string> splits = {"dev"};  // IPR-synth splits: dev and/or test
  int ipr_dialogues = 500;
  uint64_t seed = 20261202;
  std::string filler_path = "../shared/data/locomo/locomo_dev5.json";
  std::string prefeval_dir = "../shared/data/prefeval";  // "" = skip PrefEval
  std::string lexicon_path;
  bool ontology_dev = true;  // also the held-out half of the ontology-generated examples
  std::vector<std::string> request_files;  // LoadDomainRequests files, each its own row
};
int RunEvalDomain(const EvalDomainArgs& args);

}  // namespace ontomem
