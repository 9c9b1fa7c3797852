// Ranks one user's turns for a query with the dense view, the lexical view, or their fusion.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/user_memory.h"
#include "ontomem/embedder.h"
#include "ontomem/status.h"
#include "ontomem/types.h"

namespace ontomem {
namespace learn {
class Mlp;
}
struct CombinerRow;

enum class FusionKind {
  kWeighted,  // z-normalised scores, weighted sum (measured better on LoCoMo dev5)
  kRrf,       // reciprocal-rank fusion, 1/(rrf_k + rank)
};

// Knobs of the baseline retrieval methods; defaults are the values measured best on LoCoMo
// dev5 (docs/RESULTS.md) and are documented in docs/tuning.md.
struct RetrieverConfig {
  float context_weight = 0.3f;       // weight of recent-conversation terms/vector in the query
  float asker_weight = 0.5f;         // weight of the asker's name when the query says I/my/me
  float neighbour_weight = 0.2f;     // adds this share of the adjacent turns' scores
  FusionKind fusion = FusionKind::kWeighted;
  float fusion_dense_weight = 0.35f; // share of the dense view in weighted fusion
  float rrf_k = 60.0f;
  // Method full (unified score w_g*s_graph + w_d*s_dense + w_p*s_profile, the paper's defaults).
  float w_graph = 0.55f, w_dense = 0.35f, w_profile = 0.10f;
  bool use_promoted = true;  // false: the "no promotion" ablation
  // Query domains the graph view credits, each by its probability relative to the first: the
  // classifier puts an elliptic or idiomatic request's true domain third or fourth often
  // ("what's a weeknight winner for me?"), and an edge of a domain left out scores as none
  // (2 -> 5: IPR dev-B 8x 0.8417 -> 0.8473 before retraining; docs/RESULTS.md, session 14).
  size_t max_query_domains = 5;
  // Graph view: share of the query-domain match in an edge's score; the rest is the dense
  // similarity of the cue to the edge's source turn, scaled over the asker's edges.
  // 0.75 with the trained domain classifier (IPR dev implicit 0.642 -> 0.652, docs/domain.md).
  float graph_domain_share = 0.75f;
  // Domain match credited to an edge whose tail has no domain (most edges: unlifted titles and
  // tools); 0 treats it as a wrong domain.
  float graph_unknown_domain = 0.0f;
  // Calibrate the graph and fused views by rank before the weighted sum (true) or use the
  // graph score and the sigmoid of the fused z-score (false).
  bool rank_unify = true;
  // Rank constants of the calibration (k / (k + rank)) for the graph and the fused view, and
  // the share of max over sum when combining them (1: the top k interleaves both views' best
  // candidates; 0: the weighted sum rewards turns both views rank well). With RRF's 60 and a
  // pure sum, a user's ~160 edges at 8x history all count about the same, and a filler edge
  // that dense also ranks middling beat the graph's best candidate; 10 and 0.5 keep each
  // view's top few (IPR dev 8x 0.438 -> 0.512, 1x 0.750 -> 0.753; docs/RESULTS.md session 4).
  float graph_rank_k = 10.0f, dense_rank_k = 10.0f;
  float unify_max = 0.5f;
  // Share of the cue's similarity to the edge's tail label in the graph relevance (the rest is
  // the similarity to the edge's source turn).
  float tail_similarity_share = 0.5f;
  // Edges below this weight (confidence, reinforced by recurrence) are not followed. 0.5, the
  // extraction threshold, since session 16: with the combiner retrained on rows that see the
  // weaker edges (feature graph_weight), IPR dev-B 8x 0.8630 -> 0.8740, and 0.8252 -> 0.8364
  // with an extractor that never saw half the train phrasing (docs/RESULTS.md). 0.9 was chosen
  // for the hand-set score (IPR dev implicit 0.57 -> 0.61).
  float graph_min_weight = 0.5f;
  // Graph candidates that keep their graph score (best first); 0 = all.
  size_t graph_top_n = 0;
  // Assertion relations the graph view follows (empty = all): preferences and constraints. A
  // health condition constrains what to eat or do ("I have a bad knee"; added in session 15:
  // IPR dev-B 1x 0.9393 -> 0.9410, 8x 0.8564 -> 0.8566, where the extractor also reads
  // "I really struggle with capers" as one). WANTS, OWNS and HAS_PET measured lower.
  std::set<std::string> graph_relations = {"LIKES", "DISLIKES", "ALLERGIC_TO", "FOLLOWS_DIET",
                                           "AVOIDS", "HAS_HABIT", "USES", "HAS_CONDITION"};
  // Followed as well when the request, or with group_from_context a line of its context,
  // involves others ("we", "everyone", "the kids"): then the people the asker lives with govern
  // it ("my partner is hard of hearing"). IPR dev-B implicit 0.8621 -> 0.8706 (1x), 0.7087 ->
  // 0.7172 (8x); following them for every request cost the hand-written requests (a sister's
  // turn ranked second for "how do I get to Vienna"; docs/RESULTS.md, session 9).
  std::set<std::string> graph_group_relations = {"HAS_RELATIVE"};
  bool group_from_context = true;
  // A query whose best lexical z-score reaches this is routed dense-first (0 = never).
  float lexical_route_z = 0.0f;
  // A question about what was said before ("what did you recommend to me?", "I mentioned a
  // course, do you remember which day?") is routed dense-first: it asks to recall a
  // conversation, not for a choice the user's preferences govern (docs/combiner.md).
  bool recall_cues = true;

  // Uncertainty (method full): one expansion when the top two unified scores are within this
  // relative margin, or when the graph and fused views share less than this share of their
  // top 10. A second-hop turn gets hop_decay times the score of the edge it came through.
  float uncertainty_margin = 0.005f;
  float uncertainty_min_overlap = 0.0f;
  float hop_decay = 0.8f;
  size_t hop_max_new = 1;     // turns a graph hop may add
  float probe_weight = 0.5f;  // dense probe: share of the top turn's vector added to the query

  // Method full: weight of "said within the query's time expression" in the unified score.
  float w_time = 0.1f;

  // Method full with a trained combiner (GraphContext::combiner, dense_combiner): it
  // reorders the union of each view's best `combiner_candidates` turns; the rest keep the
  // unified score's order below them. 150 holds 0.88 of the gold turns at 8x history on IPR
  // dev (30: 0.52) at about 0.2 ms (docs/combiner.md); the model is trained with the same value.
  bool use_combiner = true;
  size_t combiner_candidates = 150;
  // Whether the graph-first combiner reads a turn's length (feature turn_length; 0 when off).
  bool graph_combiner_turn_length = true;
  // Share of the top k reserved for the best lexical matches of the question alone (without
  // its context) when a combiner ranked (rounded; 0 = none): they replace the combiner's
  // lowest picks unless already in. 0.1 (one slot of 10) lifts the explicit slices of IPR dev
  // to fusion's level (docs/combiner.md, docs/RESULTS.md); recall-heavy workloads ("what did
  // you recommend to me?") want 0.3.
  float lexical_floor = 0.1f;
  // On the graph-first route a floor turn must say at least this many of the question's
  // distinct content words itself (1 = any match): a request for a recommendation shares one
  // everyday word with chit-chat by chance ("what's your advice there?"), and that slot cost
  // IPR dev-B's implicit requests a point at 8x history (docs/RESULTS.md, session 13).
  size_t lexical_floor_min_terms_graph_first = 2;
  // ... except that one question word rarer in general English than this frequency rank (or
  // absent from the lexicon) counts as the whole minimum: "what was my take on shellfish?" names
  // its turn with one word. 20000 chosen on dev draws (docs/RESULTS.md, session 14); 0 = off;
  // needs GraphContext::word_rank.
  int64_t lexical_floor_rare_rank = 20000;
  // ... and in a request for a recommendation (GraphContext::recall_probability below 0.5), a
  // question word among the `lexical_floor_common_rank` most frequent of general English
  // ("look", "want", "new") does not count towards the minimum at all: two of them are shared
  // by chance ("What traits should we look for?"). A recall question keeps them ("what did I
  // say about the weather?"). 1000 chosen on dev sets (docs/RESULTS.md, session 21); 0 = every
  // word counts; needs GraphContext::word_rank and recall_probability.
  int64_t lexical_floor_common_rank = 1000;
  // Named floor: a word of the question that general English hardly knows (absent from the
  // word-vector lexicon or rarer than rank `named_floor_rank`: "Framely", "timeboxing") and
  // that at most `named_floor_max_turns` of the user's turns say is a name for something in
  // the user's life; those turns take up to `named_floor` of the last slots as the lexical
  // floor's do, never more than half of the top k. 0 = off; needs GraphContext::word_rank.
  size_t named_floor = 2;
  int64_t named_floor_rank = 50000;
  size_t named_floor_max_turns = 3;
  // Method dense with the learned query projection (a measurement: `dense@project=1`).
  bool project_dense = false;
  // Every method: a text said verbatim more than once is returned once, at its best-ranked turn
  // (the copies tell the reader nothing new and cost context tokens).
  bool collapse_duplicates = true;
  // Every method: one of the latest turns (context lines + 2) whose text is the query or one of
  // its context lines (case and surrounding space ignored) is not returned: a host that stores
  // each turn as it is said would otherwise get back first what it just said and holds. Older
  // turns with the same text are memories and stay.
  bool skip_context_echoes = true;
  // When set, every method-full search replaces its contents with the candidates' features
  // (`ontomem train combiner` collects its training rows this way).
  std::shared_ptr<std::vector<CombinerRow>> candidate_log;
  // When set, graph-first searches are ranked by this model instead of the installed one
  // (`ontomem bench --combiner-variant`: several model files compared on one ingest).
  std::shared_ptr<const learn::Mlp> graph_combiner_override;

  // Method rewrite: weight of the detected domain's cue words in the rewritten query.
  float rewrite_domain_weight = 0.3f;
  size_t rewrite_domain_cues = 8;

  // Method ppr (HippoRAG): restart probability 1 - damping, power iterations, and how many
  // graph nodes are linked to the query by embedding similarity besides name matches.
  float ppr_damping = 0.5f;
  int ppr_iterations = 20;
  size_t ppr_seed_nodes = 3;
  float ppr_seed_min_cos = 0.5f;
};

// What the graph view needs beyond the user: domain detection of the query.
struct GraphContext {
  // Domains of a request, best first with scores. The query and its recent context come
  // separately so that the query dominates and the context only disambiguates (docs/domain.md).
  std::function<std::vector<std::pair<std::string, float>>(std::string_view query,
                                                           const std::vector<std::string>& context)>
      detect_domains;
  // Probability that the request asks to recall what was said ("what did I tell you about
  // ...") rather than for a recommendation: the domain classifier's intent, 1 when the
  // question's own words ask it (text::AsksWhatWasSaid; docs/domain.md); null: unknown.
  std::function<float(std::string_view query, const std::vector<std::string>& context)> recall_probability;
  // Cue words of an ontology domain ("movies_tv" -> "film", "watch", ...): method rewrite.
  std::function<std::vector<std::string>(const std::string& domain)> domain_cues;
  // The trained combiners of method full (retrieve/combiner.h) for graph-first searches and
  // for the others; null: the hand-set unified score.
  std::shared_ptr<const learn::Mlp> combiner, dense_combiner;
  // The learned dense-query projection (retrieve/combiner.h); null: none.
  std::shared_ptr<const learn::Mlp> dense_projection;
  // Frequency rank of a lower-case word in general English (0 = most frequent, -1 = unknown):
  // the named floor. Null: no named floor.
  std::function<int64_t(std::string_view word)> word_rank;
};

StatusOr<SearchResult> Retrieve(const UserMemory& user, const Embedder& embedder,
                                std::string_view query, const SearchOptions& options,
                                const RetrieverConfig& config = {}, const GraphContext* graph = nullptr);

}  // namespace ontomem
