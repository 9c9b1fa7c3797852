#include "extract/extractor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ontomem::extract {

std::string DefaultModelsDir() {
  if (const char* env = std::getenv("ONTOMEM_MODELS"); env && *env) return env;
  namespace fs = std::filesystem;
  std::vector<fs::path> cands;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) {
    buf[n] = 0;
    cands.push_back(fs::path(buf).parent_path() / ".." / ".." / "models");
  }
  cands.push_back(fs::path("models"));
  for (const auto& c : cands) {
    std::error_code ec;
    if (fs::exists(c / "extractor" / "tagger.bin", ec)) return fs::weakly_canonical(c, ec).string();
  }
  return "models";
}

StatusOr<std::unique_ptr<Extractor>> Extractor::Open(const ExtractorOptions& options, FeatureResources resources,
                                                     std::shared_ptr<const Verifier> verifier) {
  const std::string dir = (options.models_dir.empty() ? DefaultModelsDir() : options.models_dir) + "/extractor";
  ASSIGN_OR_RETURN(std::unique_ptr<ExtractorModels> m, ExtractorModels::Load(dir));
  return FromModels(std::shared_ptr<const ExtractorModels>(std::move(m)), options, std::move(resources),
                    std::move(verifier));
}

std::unique_ptr<Extractor> Extractor::FromModels(std::shared_ptr<const ExtractorModels> models,
                                                 const ExtractorOptions& options, FeatureResources resources,
                                                 std::shared_ptr<const Verifier> verifier) {
  std::unique_ptr<Extractor> e(new Extractor());
  e->options_ = options;
  e->res_ = std::move(resources);
  e->models_ = std::move(models);
  e->verifier_ = verifier ? std::move(verifier) : std::make_shared<RuleVerifier>(e->res_);
  return e;
}

std::vector<Assertion> Extractor::Extract(const Turn& turn, int64_t seq) const {
  std::vector<Assertion> out;
  const Prepared p = Prepare(turn.text, turn.speaker, models_->clusters, res_);
  if (p.tokens.empty()) return out;
  const std::vector<Candidate> cands =
      GenerateCandidates(models_->tagger, models_->relation, p, res_, options_.max_relations_per_span);
  for (const auto& c : cands) {
    const Eigen::Map<const Eigen::VectorXf> x(c.x.data(), kScorerInputs);
    const float prob = models_->scorer.Forward(x)(0);
    if (prob < options_.min_confidence) continue;
    Assertion a;
    const Token& tb = p.tokens[static_cast<size_t>(c.span.begin)];
    const Token& te = p.tokens[static_cast<size_t>(c.span.end - 1)];
    a.relation = kRelationIds[static_cast<size_t>(c.relation)];
    a.modality = static_cast<Modality>(c.modality);
    a.tail_begin = tb.begin;
    a.tail_end = te.end;
    a.tail = NormaliseTail(p, c.span.begin, c.span.end);
    if (c.span.hbegin >= 0) {
      a.head_is_speaker = false;
      const Token& hb = p.tokens[static_cast<size_t>(c.span.hbegin)];
      const Token& he = p.tokens[static_cast<size_t>(c.span.hend - 1)];
      a.head = turn.text.substr(static_cast<size_t>(hb.begin), static_cast<size_t>(he.end - hb.begin));
    } else {
      a.head = turn.speaker;
    }
    if (res_.gazetteer) {
      const std::string t = res_.gazetteer(a.tail);
      if (!t.empty()) a.tail_type = t;
    }
    a.time_ms = turn.time_ms;
    a.source_seq = seq;
    a.source_turn = turn.id;
    a.confidence = prob;
    if (prob >= options_.threshold) {
      const Verdict v = verifier_->Verify(a, turn);
      if (!v.valid) a.confidence = prob * options_.rejected_factor;
      else {
        if (!v.relation.empty()) a.relation = v.relation;
        if (v.modality) a.modality = *v.modality;
      }
    }
    out.push_back(std::move(a));
  }
  // One accepted relation per (tail span, relation): keep the most confident duplicate.
  std::sort(out.begin(), out.end(), [](const Assertion& a, const Assertion& b) { return a.confidence > b.confidence; });
  std::vector<Assertion> dedup;
  for (auto& a : out) {
    bool dup = false;
    for (const auto& d : dedup)
      dup |= d.tail_begin == a.tail_begin && d.tail_end == a.tail_end && d.relation == a.relation;
    if (!dup) dedup.push_back(std::move(a));
  }
  return dedup;
}

}  // namespace ontomem::extract
