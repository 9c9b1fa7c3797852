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

namespace {

bool HasCurrentAboutSpeaker(const std::vector<Assertion>& found, float threshold) {
  for (const Assertion& a : found)
    if (a.confidence >= threshold && AboutSpeaker(a.modality, a.head_is_speaker)) return true;
  return false;
}

}  // namespace

std::vector<Assertion> Extractor::Extract(const Turn& turn, int64_t seq) const {
  const Prepared p = Prepare(turn.text, turn.speaker, models_->clusters, res_);
  if (p.tokens.empty()) return {};
  std::vector<Assertion> found = Perceive(*models_, turn, seq, p);
  if (models_->fallback && !HasCurrentAboutSpeaker(found, options_.threshold)) {
    const ExtractorModels& fb = *models_->fallback;
    const Prepared q = Prepare(turn.text, turn.speaker, fb.clusters, res_);
    bool added = false;
    // Stances only: the fallback's other relations were mostly misreads of chat turns
    // ("FOLLOWS_DIET pharmacist"; docs/RESULTS.md session 31, rule 22).
    for (Assertion& a : Perceive(fb, turn, seq, q))
      if (a.confidence >= options_.threshold && AboutSpeaker(a.modality, a.head_is_speaker) &&
          (a.relation == "LIKES" || a.relation == "DISLIKES")) {
        found.push_back(std::move(a));
        added = true;
      }
    if (added)
      std::stable_sort(found.begin(), found.end(),
                       [](const Assertion& x, const Assertion& y) { return x.confidence > y.confidence; });
  }
  if (models_->frame && res_.word_vector) ReadFrame(turn, seq, p, &found);
  return found;
}

std::vector<Assertion> Extractor::Perceive(const ExtractorModels& models, const Turn& turn, int64_t seq,
                                           const Prepared& p) const {
  std::vector<Assertion> out;
  const std::vector<Candidate> cands =
      GenerateCandidates(models.tagger, models.relation, p, res_, options_.max_relations_per_span);
  for (const auto& c : cands) {
    const Eigen::Map<const Eigen::VectorXf> x(c.x.data(), kScorerInputs);
    const float prob = models.scorer.Forward(x)(0);
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

void Extractor::ReadFrame(const Turn& turn, int64_t seq, const Prepared& p, std::vector<Assertion>* found) const {
  if (HasCurrentAboutSpeaker(*found, options_.threshold)) return;
  const FrameReader::Reading r = models_->frame->Read(p, res_);
  if (r.score < options_.frame_threshold) return;
  const SpanRef span{r.run.begin, r.run.end};
  const int32_t begin = p.tokens[static_cast<size_t>(span.begin)].begin;
  const int32_t end = p.tokens[static_cast<size_t>(span.end - 1)].end;
  // The reader knows no modality or holder: the perceptrons' best reading of an overlapping span
  // vetoes it when that reading is not current or not the speaker's, and else names the relation.
  const Assertion* same = nullptr;
  for (const Assertion& a : *found)
    if (a.tail_begin < end && begin < a.tail_end && (!same || a.confidence > same->confidence)) same = &a;
  if (same && !AboutSpeaker(same->modality, same->head_is_speaker)) return;
  const CueFlags cues = Cues(p, span);
  const Stance stance = AnalyseStance(p.tokens, span.begin, span.end);
  if (cues.question || cues.past_cue || cues.hypothetical_cue || (cues.negation_before && stance.flipped == 0)) return;
  Assertion a;
  a.head = turn.speaker;
  a.relation = same ? same->relation : (stance.net() < 0 ? "DISLIKES" : "LIKES");
  a.tail_begin = begin;
  a.tail_end = end;
  a.tail = NormaliseTail(p, span.begin, span.end);
  if (res_.gazetteer) a.tail_type = res_.gazetteer(a.tail);
  a.time_ms = turn.time_ms;
  a.source_seq = seq;
  a.source_turn = turn.id;
  a.confidence = r.score;
  const Verdict v = verifier_->Verify(a, turn);
  if (!v.valid) a.confidence = r.score * options_.rejected_factor;
  else if (!v.relation.empty()) a.relation = v.relation;
  if (v.valid && v.modality) a.modality = *v.modality;
  found->push_back(std::move(a));
  std::stable_sort(found->begin(), found->end(), [](const Assertion& x, const Assertion& y) { return x.confidence > y.confidence; });
}

}  // namespace ontomem::extract
