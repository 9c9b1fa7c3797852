// Wires the ontology and the concept lifter into the graph's policy (Step II), so MemoryGraph
// stays free of ontology types and testable with fakes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/fact_extractor.h"
#include "extract/verifier.h"
#include "graph/memory_graph.h"
#include "retrieve/domain_classifier.h"
#include "retrieve/retriever.h"
#include "ontomem/options.h"
#include "ontology/concept_lifter.h"
#include "ontology/ontology.h"

namespace ontomem {

// Opposites, concept relations, privacy categories and lifting from `ontology` and `lifter`
// (lifter may be null: then nothing is lifted and nothing promoted). `promote_private` lists
// privacy categories this deployment allows to promote.
GraphPolicy MakeGraphPolicy(std::shared_ptr<const Ontology> ontology,
                            std::shared_ptr<const ConceptLifter> lifter,
                            const std::vector<std::string>& promote_private);

// Everything Step I and II need, opened from Options: the ontology, WordNet (optional), the
// concept lifter and the trained extractor.
struct FactPipeline {
  std::shared_ptr<const FactExtractor> extractor;
  GraphPolicy policy;
  std::shared_ptr<const Ontology> ontology;
  std::shared_ptr<const ConceptLifter> lifter;
  GraphContext graph_context;  // query-domain detection for the graph view
  // The trained query domain/intent classifier; null when its model is absent (the lifter's
  // detector is used then). $ONTOMEM_DOMAIN_MODEL overrides the path ("none": not used).
  std::shared_ptr<const DomainClassifier> domain_classifier;
  // The extractor's endpoint verifier (Options::fact_verifier); null: the rules alone.
  std::shared_ptr<const extract::LlmVerifier> fact_verifier;
};

// Errors name the fix: a missing ontology (ONTOMEM_ONTOLOGY), missing extractor models
// (`ontomem train extractor`). WordNet is optional (lifting then uses the gazetteer and GloVe).
StatusOr<FactPipeline> OpenFactPipeline(const Options& options, std::shared_ptr<Embedder> embedder);

}  // namespace ontomem
