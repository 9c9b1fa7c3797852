#include "extract/models.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "text/text.h"

namespace ontomem::extract {
namespace {

float Squash(float v, float scale) { return std::tanh(v / scale); }

bool IsHolderLabel(int l) { return l == kTagBH || l == kTagIH; }

// A holder mention is a person or an animal: as a tail it can only be one of the speaker's
// people or pets ("my sister" -> HAS_RELATIVE), never a liking or a possession.
bool PersonRelation(int r) {
  const std::string_view id = kRelationIds[static_cast<size_t>(r)];
  return id == "HAS_RELATIVE" || id == "HAS_FRIEND" || id == "HAS_PET";
}

}  // namespace

std::vector<TaggedSpan> SpanTagger::Tag(const Prepared& p) const {
  std::vector<TaggedSpan> spans;
  const int n = static_cast<int>(p.tokens.size());
  std::vector<uint32_t> feats;
  feats.reserve(64);
  float scores[kNumTagLabels];
  int prev = kTagO;
  TaggedSpan cur;
  bool open = false;
  float sum = 0;
  auto close = [&](int end) {
    if (!open) return;
    cur.end = end;
    cur.score = sum / static_cast<float>(end - cur.begin);
    spans.push_back(cur);
    open = false;
  };
  for (int i = 0; i < n; ++i) {
    int label = kTagO;
    if (!p.tokens[static_cast<size_t>(i)].punct) {
      feats.clear();
      TaggerFeatures(p, i, &feats);
      TaggerDynamicFeatures(p, i, prev, &feats);
      label = model_.Predict(feats, scores);
      if (label != kTagO) {
        const bool holder = IsHolderLabel(label);
        const bool begin = label == kTagBT || label == kTagBH || !open || cur.holder != holder;
        if (begin) {
          close(i);
          open = true;
          cur = TaggedSpan{i, i + 1, holder, 0};
          sum = 0;
        }
        sum += scores[label] - scores[kTagO];
      } else {
        close(i);
      }
    } else {
      // Hyphens and apostrophes do not end a span; other punctuation does.
      close(i);
    }
    prev = label;
  }
  close(n);
  return spans;
}

void SpanTagger::Learn(const Prepared& p, const std::vector<int>& gold) {
  const int n = static_cast<int>(p.tokens.size());
  std::vector<uint32_t> feats;
  float scores[kNumTagLabels];
  int prev = kTagO;
  for (int i = 0; i < n; ++i) {
    if (p.tokens[static_cast<size_t>(i)].punct) { prev = kTagO; continue; }
    feats.clear();
    TaggerFeatures(p, i, &feats);
    TaggerDynamicFeatures(p, i, prev, &feats);
    const int pred = model_.Predict(feats, scores);
    model_.Tick();
    model_.Update(feats, gold[static_cast<size_t>(i)], pred);
    prev = pred;
  }
}

RelationScores RelationModel::Score(const Prepared& p, const SpanRef& c) const {
  std::vector<uint32_t> feats;
  feats.reserve(128);
  RelationFeatures(p, c, &feats);
  RelationScores s;
  rel_.Score(feats, s.rel.data());
  mod_.Score(feats, s.mod.data());
  return s;
}

void RelationModel::Learn(const Prepared& p, const SpanRef& c, int relation, int modality) {
  std::vector<uint32_t> feats;
  RelationFeatures(p, c, &feats);
  float scores[kNumRelations + 1];
  const int pr = rel_.Predict(feats, scores);
  rel_.Tick();
  rel_.Update(feats, relation, pr);
  if (modality >= 0) {
    float ms[kNumModalities];
    const int pm = mod_.Predict(feats, ms);
    mod_.Tick();
    mod_.Update(feats, modality, pm);
  }
}

std::vector<TaggedSpan> ProposeSpans(const SpanTagger& tagger, const Prepared& p) {
  std::vector<TaggedSpan> spans = tagger.Tag(p);
  const int n = static_cast<int>(p.tokens.size());
  auto content = [&](int i) {
    const Token& t = p.tokens[static_cast<size_t>(i)];
    return !t.punct && !text::IsStopWord(t.lower);
  };
  const size_t tagged = spans.size();
  for (int d = 1; d + 1 < n; ++d) {
    const std::string& w = p.tokens[static_cast<size_t>(d)].lower;
    if (!(w == "a" || w == "an" || w == "the" || w == "my" || w == "our")) continue;
    if (!content(d - 1)) continue;  // after a content word (usually the verb): "buy a", "try the"
    int e = d + 1;
    while (e < n && e - d <= 3 && content(e)) ++e;
    if (e == d + 1 || e - d > 3) continue;  // no word, or 3+ words: not a short noun phrase
    bool overlap = false;
    for (size_t k = 0; k < tagged; ++k) overlap |= spans[k].begin < e && d + 1 < spans[k].end;
    if (!overlap) spans.push_back(TaggedSpan{d + 1, e, false, 0});
  }
  return spans;
}

std::vector<Candidate> GenerateCandidates(const SpanTagger& tagger, const RelationModel& relation,
                                          const Prepared& p, const FeatureResources& res, int max_relations) {
  std::vector<Candidate> out;
  const std::vector<TaggedSpan> spans = ProposeSpans(tagger, p);
  int n_tails = 0;
  for (const auto& s : spans) n_tails += !s.holder;
  const int ntok = static_cast<int>(p.tokens.size());
  for (const auto& s : spans) {
    SpanRef ref{s.begin, s.end, -1, -1};
    if (!s.holder) {
      // Head: the nearest holder mention in the same sentence (else the speaker); not across a
      // first-person subject ("Sarah loves jazz but I prefer X"), and one after the tail only
      // in the tail's clause ("X is what my brother loves").
      int best = 1 << 30;
      for (const auto& h : spans) {
        if (!h.holder) continue;
        if (p.info[static_cast<size_t>(h.begin)].sentence != p.info[static_cast<size_t>(s.begin)].sentence) continue;
        const bool before = h.begin < s.begin;
        if (!before && p.info[static_cast<size_t>(h.begin)].clause != p.info[static_cast<size_t>(s.begin)].clause) continue;
        bool speaker_between = false;
        for (int i = before ? h.end : s.end; i < (before ? s.begin : h.begin); ++i) {
          const std::string& w = p.tokens[static_cast<size_t>(i)].lower;
          speaker_between |= w == "i" || w == "we";
        }
        if (speaker_between) continue;
        const int d = before ? s.begin - h.end : h.begin - s.end + 2;
        if (d < best) { best = d; ref.hbegin = h.begin; ref.hend = h.end; }
      }
    }
    const RelationScores sc = relation.Score(p, ref);
    std::array<int, kNumRelations> order;
    int n_order = 0;
    for (int r = 0; r < kNumRelations; ++r)
      if (!s.holder || PersonRelation(r)) order[static_cast<size_t>(n_order++)] = r;
    std::partial_sort(order.begin(), order.begin() + 2, order.begin() + n_order,
                      [&](int a, int b) { return sc.rel[static_cast<size_t>(a)] > sc.rel[static_cast<size_t>(b)]; });
    const float none = sc.rel[kNoneRelation];
    const int mod = static_cast<int>(std::max_element(sc.mod.begin(), sc.mod.end()) - sc.mod.begin());
    std::array<float, kNumModalities> ms = sc.mod;
    std::sort(ms.begin(), ms.end(), std::greater<float>());
    const CueFlags cues = Cues(p, ref);
    const bool cap = p.info[static_cast<size_t>(s.begin)].cap;
    std::string tail_lower;
    for (int i = s.begin; i < s.end; ++i) {
      if (i > s.begin) tail_lower.push_back(' ');
      tail_lower += p.tokens[static_cast<size_t>(i)].lower;
    }
    for (int k = 0; k < std::min(max_relations, n_order); ++k) {
      const int r = order[static_cast<size_t>(k)];
      const float margin = sc.rel[static_cast<size_t>(r)] - none;
      if (k > 0 && margin < -30) break;  // hopeless runner-up
      Candidate c;
      c.span = ref;
      c.relation = r;
      c.modality = mod;
      c.rank = k;
      c.tag_score = s.score;
      c.cues = cues;
      float* x = c.x.data();
      x[0] = Squash(margin, 10);
      x[1] = static_cast<float>(k);
      x[2] = Squash(sc.rel[static_cast<size_t>(order[0])] - sc.rel[static_cast<size_t>(order[1])], 10);
      x[3] = Squash(ms[0] - ms[1], 10);
      x[4] = Squash(s.score, 10);
      x[5] = std::min(1.0f, static_cast<float>(s.end - s.begin) / 6.0f);
      x[6] = cap ? 1 : 0;
      x[7] = ref.hbegin >= 0 ? 1 : 0;
      x[8] = cues.question ? 1 : 0;
      x[9] = cues.negation_before ? 1 : 0;
      x[10] = std::min(1.0f, static_cast<float>(ntok) / 60.0f);
      x[11] = std::min(1.0f, static_cast<float>(n_tails) / 6.0f);
      x[12] = res.type_check ? static_cast<float>(res.type_check(kRelationIds[static_cast<size_t>(r)], tail_lower)) : 0;
      x[13] = p.info[static_cast<size_t>(s.begin)].gaz.empty() ? 0 : 1;
      x[14] = s.holder ? 1 : 0;
      x[15] = cues.first_person ? 1 : 0;
      x[16 + r] = 1;
      x[16 + kNumRelations + mod] = 1;
      out.push_back(c);
    }
  }
  return out;
}

std::string NormaliseTail(const Prepared& p, int begin, int end) {
  static const char* kDrop[] = {"the", "a", "an", "my", "our", "some", "his", "her", "their", "your"};
  while (begin < end - 1) {
    const std::string& w = p.tokens[static_cast<size_t>(begin)].lower;
    if (std::find_if(std::begin(kDrop), std::end(kDrop), [&](const char* d) { return w == d; }) == std::end(kDrop)) break;
    ++begin;
  }
  std::string out;
  for (int i = begin; i < end; ++i) {
    const Token& t = p.tokens[static_cast<size_t>(i)];
    if (t.punct && t.text != "-") continue;
    std::string w = t.lower;
    if (i == end - 1 && w.size() > 3 && !t.punct) {
      auto ends = [&](const char* s) { const size_t n = std::strlen(s); return w.size() >= n && w.compare(w.size() - n, n, s) == 0; };
      if (ends("ies")) w = w.substr(0, w.size() - 3) + "y";
      else if (ends("sses") || ends("shes") || ends("ches") || ends("xes")) w.resize(w.size() - 2);
      else if (ends("s") && !ends("ss") && !ends("us") && !ends("is")) w.resize(w.size() - 1);
    }
    if (!out.empty() && !t.punct && !(i > begin && p.tokens[static_cast<size_t>(i - 1)].end == t.begin)) out.push_back(' ');
    out += w;
  }
  return out;
}

// ------------------------------------------------------------------ persistence
Status ExtractorModels::Save(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  {
    BlobWriter w;
    clusters.Write(&w);
    RETURN_IF_ERROR(WriteModelFile(dir + "/clusters.bin", "CLUS", w.bytes()));
  }
  {
    BlobWriter w;
    tagger.model().Write(&w);
    RETURN_IF_ERROR(WriteModelFile(dir + "/tagger.bin", "TAGR", w.bytes()));
  }
  {
    BlobWriter w;
    relation.Write(&w);
    RETURN_IF_ERROR(WriteModelFile(dir + "/relation.bin", "RELC", w.bytes()));
  }
  RETURN_IF_ERROR(WriteModelFile(dir + "/scorer.bin", "SCOR", scorer.Serialize()));
  // A frame.bin left from an earlier training would pair an old reader with these models.
  if (frame) RETURN_IF_ERROR(frame->Save(dir + "/frame.bin"));
  else std::filesystem::remove(dir + "/frame.bin", ec);
  if (fallback) RETURN_IF_ERROR(fallback->Save(dir + "/fallback"));
  else std::filesystem::remove_all(dir + "/fallback", ec);
  return Status::Ok();
}

StatusOr<std::unique_ptr<ExtractorModels>> ExtractorModels::Load(const std::string& dir) {
  auto m = std::make_unique<ExtractorModels>();
  auto bad = [](const std::string& path, const std::string& why) {
    return Status::Corruption("extractor model " + path + " " + why + "; " + kExtractorFixHint);
  };
  {
    const std::string path = dir + "/clusters.bin";
    ASSIGN_OR_RETURN(std::string b, ReadModelFile(path, "CLUS"));
    BlobReader r(b);
    if (!m->clusters.Read(&r) || !r.done()) return bad(path, "has a malformed payload");
  }
  {
    const std::string path = dir + "/tagger.bin";
    ASSIGN_OR_RETURN(std::string b, ReadModelFile(path, "TAGR"));
    BlobReader r(b);
    if (!m->tagger.model().Read(&r) || !r.done() || m->tagger.model().labels() != kNumTagLabels)
      return bad(path, "has a malformed payload");
  }
  {
    const std::string path = dir + "/relation.bin";
    ASSIGN_OR_RETURN(std::string b, ReadModelFile(path, "RELC"));
    BlobReader r(b);
    if (!m->relation.Read(&r) || !r.done()) return bad(path, "has a malformed payload");
  }
  {
    const std::string path = dir + "/scorer.bin";
    ASSIGN_OR_RETURN(std::string b, ReadModelFile(path, "SCOR"));
    auto mlp = learn::Mlp::Deserialize(b, path);
    if (!mlp.ok()) return bad(path, "holds a damaged MLP (" + mlp.status().message() + ")");
    if (mlp->inputs() != kScorerInputs || mlp->outputs() != 1) return bad(path, "has the wrong scorer shape");
    m->scorer = std::move(mlp).value();
  }
  if (std::error_code ec; std::filesystem::exists(dir + "/frame.bin", ec)) {
    ASSIGN_OR_RETURN(FrameReader f, FrameReader::Load(dir + "/frame.bin"));
    m->frame = f;
  }
  if (std::error_code ec; std::filesystem::exists(dir + "/fallback/tagger.bin", ec)) {
    ASSIGN_OR_RETURN(auto f, Load(dir + "/fallback"));
    m->fallback = std::move(f);
  }
  return m;
}

}  // namespace ontomem::extract
