#include "engine/pipeline.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "embed/sif_embedder.h"
#include "extract/extractor.h"
#include "extract/resources.h"
#include "graph/promotion_gate.h"
#include "ontology/wordnet.h"
#include "retrieve/combiner.h"
#include "retrieve/domain_classifier.h"
#include "text/recall_cue.h"

namespace ontomem {

GraphPolicy MakeGraphPolicy(std::shared_ptr<const Ontology> ontology,
                            std::shared_ptr<const ConceptLifter> lifter,
                            const std::vector<std::string>& promote_private) {
  GraphPolicy p;
  p.allowed_private = std::set<std::string>(promote_private.begin(), promote_private.end());
  p.concept_relation = [ontology](const std::string& rel, const std::string& inventory) -> std::string {
    const ConceptRelation* cr = ontology->ConceptRelationFor(rel, inventory);
    return cr ? cr->id : std::string();
  };
  // A concept may be sensitive on its own (diet_class:halal is religion).
  p.privacy = [ontology](const std::string& rel, const std::string& concept_key) {
    if (const Concept* c = ontology->FindConcept(concept_key); c && !c->privacy.empty()) return c->privacy;
    return std::string(ontology->PrivacyCategory(rel));
  };
  if (lifter) {
    p.lift = [ontology, lifter](const Assertion& a, const std::string& text) {
      LiftOptions lo;
      for (const ConceptRelation* cr : ontology->ConceptRelationsFor(a.relation)) lo.inventories.push_back(cr->inventory);
      std::vector<LiftedConcept> out;
      if (lo.inventories.empty()) return out;  // nothing this relation could be lifted to
      // Conservative: per inventory only the best concept and near-ties (within 0.05), so a
      // GloVe neighbourhood ("romantic film" ~ horror, musical) does not become a preference.
      std::map<std::string, float> best;
      const auto hits = lifter->Lift(a.tail, text, lo).hits;
      for (const ConceptHit& h : hits) best[h.inventory] = std::max(best[h.inventory], h.score);
      for (const ConceptHit& h : hits) {
        if (h.score < best[h.inventory] - 0.05f) continue;
        // GloVe neighbourhoods alone are weak evidence ("curry" ~ coffee); ask for more.
        if (h.source == LiftSource::kGlove && h.score < 0.65f) continue;
        const Concept* c = ontology->FindConcept(h.concept_id);
        std::string name = h.concept_id.substr(h.concept_id.find(':') + 1);
        out.push_back({h.inventory, name, c ? c->label : name, h.score});
      }
      return out;
    };
  }
  p.inventory_domain = [ontology](const std::string& inventory) -> std::string {
    const Inventory* inv = ontology->FindInventory(inventory);
    return inv && !inv->domains.empty() ? inv->domains.front() : std::string();
  };
  // Two surface forms are one entity when the gazetteer maps both to the same entry.
  p.same_entity = [ontology](const std::string& a, const std::string& b) {
    auto ea = ontology->LookupGazetteer(a), eb = ontology->LookupGazetteer(b);
    for (const GazetteerEntry* x : ea)
      for (const GazetteerEntry* y : eb)
        if (x == y) return true;
    return false;
  };
  return p;
}

namespace {

class ExtractorAdapter : public FactExtractor {
 public:
  explicit ExtractorAdapter(std::unique_ptr<extract::Extractor> e) : e_(std::move(e)) {}
  // The extractor leaves `domain` open; the graph gives an edge its tail concept's domain.
  std::vector<Assertion> Extract(const Turn& turn, int64_t seq) const override { return e_->Extract(turn, seq); }

 private:
  std::unique_ptr<extract::Extractor> e_;
};

// The classifier's answer for (query, context), computed once per search: the route, the
// rewritten view and the lexical floor each ask for it. One entry per thread (a search runs on
// one thread); the entry holds its model, so a model opened later at a freed one's address
// cannot be answered from it.
const DomainPrediction& PredictOnce(const std::shared_ptr<const DomainClassifier>& classifier, std::string_view query,
                                    const std::vector<std::string>& context) {
  thread_local std::shared_ptr<const DomainClassifier> last_model;
  thread_local std::string last_query;
  thread_local std::vector<std::string> last_context;
  thread_local DomainPrediction last;
  if (last_model != classifier || last_query != query || last_context != context) {
    last = classifier->Predict(query, context);
    last_model = classifier;
    last_query.assign(query);
    last_context = context;
  }
  return last;
}

// The rules confirmed by a chat endpoint; null (the extractor's rules alone) without one.
StatusOr<std::shared_ptr<const extract::LlmVerifier>> MakeFactVerifier(const Options::FactVerifierEndpoint& e,
                                                                      const extract::FeatureResources& res) {
  if (e.base_url.empty()) return std::shared_ptr<const extract::LlmVerifier>();
  const std::string what = "fact verifier endpoint " + e.base_url;
  if (!e.base_url.starts_with("http://") && !e.base_url.starts_with("https://"))
    return Status::InvalidArgument(what + ": base_url must start with http:// or https://");
  if (e.model.empty()) return Status::InvalidArgument(what + ": model is empty");
  if (e.timeout_ms <= 0) return Status::InvalidArgument(what + ": timeout_ms must be positive");
  if (e.concurrency < 1) return Status::InvalidArgument(what + ": concurrency must be at least 1");
  if (!extract::LlmVerifierAvailable())
    return Status::FailedPrecondition(what + ": this build has no HTTP client (cpp-httplib with OpenSSL)");
  extract::LlmVerifierOptions o;
  o.base_url = e.base_url;
  o.model = e.model;
  o.api_key = e.api_key;
  o.timeout_ms = e.timeout_ms;
  o.confirm_only = true;
  return std::shared_ptr<const extract::LlmVerifier>(
      std::make_shared<extract::LlmVerifier>(o, std::make_shared<extract::RuleVerifier>(res)));
}

}  // namespace

StatusOr<FactPipeline> OpenFactPipeline(const Options& options, std::shared_ptr<Embedder> embedder) {
  FactPipeline fp;
  const std::string onto_path = options.ontology_path.empty() ? DefaultOntologyPath() : options.ontology_path;
  auto onto = Ontology::Load(onto_path);
  if (!onto.ok())
    return onto.status().WithContext(
        "fact extraction needs the ontology (set Options::ontology_path or $ONTOMEM_ONTOLOGY, or "
        "Options::extract_facts = false)");
  fp.ontology = *onto;
  std::shared_ptr<const WordNet> wordnet;
  // Optional: lifting works without it. One named by $ONTOMEM_WORDNET is not: without it
  // extraction silently reads differently.
  if (auto wn = WordNet::Open(); wn.ok()) wordnet = *wn;
  else if (const char* env = std::getenv("ONTOMEM_WORDNET"); env && *env)
    return wn.status().WithContext("ONTOMEM_WORDNET");
  // The knowledge side (lifter, domain classifier, rare names) learned on GloVe-SIF: with another
  // dense embedder it reads the lexicon itself when there is one.
  auto sif = std::dynamic_pointer_cast<SifEmbedder>(embedder);
  const bool dense_is_sif = sif != nullptr;
  if (!sif && options.knowledge_lexicon) {
    const std::string path = options.lexicon_path.empty() ? DefaultLexiconPath() : options.lexicon_path;
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      ASSIGN_OR_RETURN(std::shared_ptr<Embedder> lex, LoadSifEmbedder(path));
      sif = std::dynamic_pointer_cast<SifEmbedder>(lex);
    }
  }
  fp.lifter = std::make_shared<ConceptLifter>(fp.ontology, wordnet, sif);
  extract::ExtractorOptions eo;
  eo.models_dir = options.models_dir;
  eo.threshold = options.fact_threshold;
  extract::FeatureResources res = extract::MakeResources(wordnet, fp.ontology);
  if (sif) res.word_vector = extract::LexiconWordVectors(sif->shared_lexicon());  // the frame reader's
  ASSIGN_OR_RETURN(fp.fact_verifier, MakeFactVerifier(options.fact_verifier, res));
  auto ex = extract::Extractor::Open(eo, std::move(res), fp.fact_verifier);
  if (!ex.ok())
    return ex.status().WithContext(
        "fact extraction needs the extractor models (set Options::models_dir or $ONTOMEM_MODELS, or "
        "Options::extract_facts = false)");
  fp.extractor = std::make_shared<ExtractorAdapter>(std::move(*ex));
  // Query domains: the trained classifier when its model exists (docs/domain.md), else the
  // lifter's detector over the query and its context as one text.
  std::shared_ptr<const DomainClassifier> classifier;
  if (sif) {
    const char* env = std::getenv("ONTOMEM_DOMAIN_MODEL");
    const bool from_env = env && *env;
    const std::string path = from_env ? env : DefaultDomainModelPath(options.models_dir);
    std::error_code ec;
    if (path != "none" && (from_env || std::filesystem::exists(path, ec))) {
      auto c = DomainClassifier::Load(path, std::make_shared<DomainFeaturizer>(fp.lifter, sif));
      // The default model of another ontology or lexicon size cannot speak for this one: keep
      // the lifter. One named on purpose must load.
      if (c.ok()) classifier = *c;
      else if (from_env || c.status().code() != StatusCode::kInvalidArgument)
        return c.status().WithContext("query domain model" + std::string(from_env ? " named by ONTOMEM_DOMAIN_MODEL" : "") +
                                      " (rebuild it with `ontomem train domain`, or set ONTOMEM_DOMAIN_MODEL=none)");
    }
  }
  if (classifier) {
    fp.graph_context.detect_domains = [classifier](std::string_view query, const std::vector<std::string>& context) {
      std::vector<std::pair<std::string, float>> out;
      // Unsure (no domain above 0.1 of 34) counts as no domain, as the lifter's empty answer;
      // after a sure first one, runners-up down to 0.03. How many of them count is the
      // retriever's choice (RetrieverConfig::max_query_domains).
      for (const auto& [d, p] : PredictOnce(classifier, query, context).domains) {
        if (p < (out.empty() ? 0.1f : 0.03f)) break;
        out.emplace_back(d, p);
      }
      return out;
    };
    // The classifier learned few recall shapes (docs/domain.md): a question whose own words ask
    // what was said ("did I ...", "you once ...", "what was ...") is recall whatever it says.
    fp.graph_context.recall_probability = [classifier](std::string_view query, const std::vector<std::string>& context) {
      return text::AsksWhatWasSaid(query) ? 1.0f : PredictOnce(classifier, query, context).recall_probability;
    };
  } else {
    fp.graph_context.detect_domains = [lifter = fp.lifter](std::string_view query, const std::vector<std::string>& context) {
      std::string text(query);
      for (const auto& c : context) text.append(" ").append(c);
      std::vector<std::pair<std::string, float>> out;
      for (const DomainHit& h : lifter->DetectDomains(text, 3)) out.emplace_back(h.domain, h.score);
      return out;
    };
  }
  fp.domain_classifier = classifier;
  if (sif) fp.graph_context.word_rank = [lex = sif->shared_lexicon()](std::string_view w) { return lex->Find(w); };
  fp.graph_context.domain_cues = [onto = fp.ontology](const std::string& domain) {
    for (const Domain& d : onto->domains())
      if (d.id == domain) return d.cues;
    return std::vector<std::string>{};
  };
  fp.policy = MakeGraphPolicy(fp.ontology, fp.lifter, options.promote_private_categories);
  // The trained promotion gate when there is one (docs/promotion.md), else the hand-set weights.
  if (auto gate = LoadDefaultPromotionGate(options.models_dir, &fp.policy); !gate.ok()) return gate.status();
  // The trained combiner of method full when there is one (docs/combiner.md).
  ASSIGN_OR_RETURN(fp.graph_context.combiner, LoadDefaultCombiner(options.models_dir));
  ASSIGN_OR_RETURN(fp.graph_context.dense_combiner, LoadDefaultDenseCombiner(options.models_dir));
  // The projection maps GloVe-SIF query vectors: another dense space goes without it.
  if (dense_is_sif) {
    ASSIGN_OR_RETURN(fp.graph_context.dense_projection, LoadDefaultProjection(options.models_dir, embedder->dim()));
  }
  return fp;
}

}  // namespace ontomem
