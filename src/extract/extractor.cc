#include "extract/extractor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "text/text.h"

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

// WordNet lexnames (of a word's first sense, nouns first) that name no thing a stance can be
// about: a quality, a feeling, a number, a time, a state, a part of the body, a modifier.
bool NoThingToLike(std::string_view lexname) {
  static const std::set<std::string, std::less<>> kNoThing = {
      "noun.attribute", "noun.feeling", "noun.quantity", "noun.body", "noun.relation",
      "noun.state",     "noun.shape",   "noun.motive",   "noun.time"};
  return lexname.starts_with("adj.") || lexname.starts_with("adv.") || kNoThing.count(lexname) > 0;
}

// A word that can extend a noun phrase: not punctuation, a stop word or a stance word, and
// WordNet reads it first as a noun or does not know it (names).
bool NounPhraseWord(const Token& t, const FeatureResources& res) {
  if (t.punct || text::IsStopWord(t.lower) || Polarity(t.lower) != 0) return false;
  const std::string lex = res.lexname(t.lower);
  return lex.empty() || lex.starts_with("noun.");
}

// The assertion's tail from a tagged span, tidied for its relation (set before the call).
void SetTail(const Prepared& p, SpanRef span, const FeatureResources& res, Assertion* a) {
  const SpanRef tail = TidyTail(p, span, a->relation == "LIKES" || a->relation == "DISLIKES", res);
  a->tail_begin = p.tokens[static_cast<size_t>(tail.begin)].begin;
  a->tail_end = p.tokens[static_cast<size_t>(tail.end - 1)].end;
  a->tail = NormaliseTail(p, tail.begin, tail.end);
}

}  // namespace

SpanRef TidyTail(const Prepared& p, SpanRef span, bool stance, const FeatureResources& res) {
  const auto tok = [&](int i) -> const Token& { return p.tokens[static_cast<size_t>(i)]; };
  // A tail ends on a content word: the tagger's span sometimes runs on into the next phrase
  // ("hiking in the mountains" -> "hiking in").
  while (span.end - span.begin > 1 && (tok(span.end - 1).punct || text::IsStopWord(tok(span.end - 1).lower)))
    --span.end;
  // A stance toward one word that names no thing is a span cut short of its noun phrase ("the
  // lucky charm never lets me down" -> "lucky", "a Sunday planning session" -> "sunday"): widen
  // it to at most two nouns after it. Not backwards: WordNet reads most verbs before a noun as
  // nouns too ("find camaraderie").
  if (!stance || !res.lexname || span.end - span.begin != 1 || !NoThingToLike(res.lexname(tok(span.begin).lower)))
    return span;
  const int n = static_cast<int>(p.tokens.size());
  while (span.end < n && span.end - span.begin < 3 && NounPhraseWord(tok(span.end), res)) ++span.end;
  return span;
}

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
    a.relation = kRelationIds[static_cast<size_t>(c.relation)];
    a.modality = static_cast<Modality>(c.modality);
    SetTail(p, c.span, res_, &a);
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
  SetTail(p, span, res_, &a);
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
