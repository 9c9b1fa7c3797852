#include "extract/train.h"

#include <fmt/format.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <unordered_set>

#include "bench/dataset.h"
#include "bench/ipr_synth.h"
#include "embed/lexicon.h"
#include "extract/drills.h"
#include "extract/frame_reader.h"
#include "extract/resources.h"
#include "ontology/ontology.h"
#include "ontology/wordnet.h"
#include "ontomem/options.h"

namespace ontomem::extract {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Tokens [tb, te) covering bytes [b, e), punctuation excluded; false if none.
bool TokenSpan(const Prepared& p, int32_t b, int32_t e, int* tb, int* te) {
  *tb = -1;
  *te = -1;
  for (int i = 0; i < static_cast<int>(p.tokens.size()); ++i) {
    const Token& t = p.tokens[static_cast<size_t>(i)];
    if (t.punct || t.end <= b || t.begin >= e) continue;
    if (*tb < 0) *tb = i;
    *te = i + 1;
  }
  return *tb >= 0;
}

bool Overlap(int b1, int e1, int b2, int e2) { return b1 < e2 && b2 < e1; }

struct GoldSpan {
  SpanRef ref;
  int relation = 0;
  int modality = 0;
};

struct PreparedTurn {
  const AnnotatedTurn* src = nullptr;
  Prepared p;
  std::vector<int> labels;
  std::vector<GoldSpan> gold;
  int repeat = 1;
  int fold = 0;
  uint64_t key = 0;  // hash of id and text: the turn's place in every training order
};

PreparedTurn PrepareTurn(const AnnotatedTurn& a, const ClusterTable& words, const FeatureResources& res,
                         int repeat) {
  PreparedTurn t;
  t.src = &a;
  t.p = Prepare(a.text, a.speaker, words, res);
  t.repeat = repeat;
  t.key = std::hash<std::string>()(a.id + '\n' + a.text);
  t.labels.assign(t.p.tokens.size(), kTagO);
  for (const auto& f : a.facts) {
    GoldSpan g;
    if (!TokenSpan(t.p, f.tail_begin, f.tail_end, &g.ref.begin, &g.ref.end)) continue;
    if (!f.head_is_speaker) TokenSpan(t.p, f.head_begin, f.head_end, &g.ref.hbegin, &g.ref.hend);
    g.relation = RelationIndex(f.relation);
    g.modality = static_cast<int>(f.modality);
    if (g.relation < 0) continue;
    for (int i = g.ref.begin; i < g.ref.end; ++i)
      if (t.labels[static_cast<size_t>(i)] == kTagO) t.labels[static_cast<size_t>(i)] = i == g.ref.begin ? kTagBT : kTagIT;
    t.gold.push_back(g);
  }
  // Holders win over tails on conflict (the holder is proposed as a tail candidate anyway).
  for (const auto& g : t.gold)
    for (int i = g.ref.hbegin; i >= 0 && i < g.ref.hend; ++i)
      t.labels[static_cast<size_t>(i)] = i == g.ref.hbegin ? kTagBH : kTagIH;
  return t;
}

// An item's place in one epoch of one training order: a hash of the order's seed, the epoch and
// the item's own key (its turn's id and text, a span, a repeat). The perceptrons depend on the
// order they see examples in; with a shuffle, adding or changing one training turn permuted every
// other example anew (session 36: one changed turn moved IPR-synth dev strict recall by 3 points).
// Keyed places move nothing but the changed turn's own examples.
uint64_t OrderKey(uint64_t seed, int epoch, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = seed ^ 0x9E3779B97F4A7C15ull;
  for (uint64_t v : {static_cast<uint64_t>(epoch), a, b, c}) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
  }
  return h;
}

// `items` sorted by `keys` (equal keys, which a 64-bit hash makes rare, keep their positions).
std::vector<size_t> SortByKey(const std::vector<size_t>& items, const std::vector<uint64_t>& keys) {
  std::vector<size_t> idx(items.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return keys[x] < keys[y]; });
  std::vector<size_t> out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back(items[i]);
  return out;
}

// The seed of training order `o` of `orders` (parameter mixing: each order trains a model from
// scratch on the same examples, and their weights are averaged; McDonald et al. 2010).
uint64_t OrderSeed(uint64_t seed, int o) { return seed + 7919ull * static_cast<uint64_t>(o); }

std::vector<size_t> Schedule(const std::vector<PreparedTurn>& turns, const std::vector<size_t>& subset,
                             uint64_t seed, int epoch) {
  std::vector<size_t> order;
  std::vector<uint64_t> keys;
  for (size_t i : subset)
    for (int r = 0; r < turns[i].repeat; ++r) {
      order.push_back(i);
      keys.push_back(OrderKey(seed, epoch, turns[i].key, 0, static_cast<uint64_t>(r)));
    }
  return SortByKey(order, keys);
}

// Trains `orders` copies of `*model` as it is now, copy o by `train_one(&copy, OrderSeed(seed, o))`,
// and leaves the average of their weights in `*model`.
template <typename Model, typename TrainOne>
void AverageOverOrders(Model* model, int orders, uint64_t seed, const TrainOne& train_one) {
  const Model fresh = *model;
  for (int o = 0; o < orders; ++o) {
    Model m = fresh;
    train_one(&m, OrderSeed(seed, o));
    m.Finish();
    if (o == 0) *model = std::move(m);
    else model->AddWeights(m);
  }
  model->ScaleWeights(1.0f / static_cast<float>(orders));
}

void TrainTagger(SpanTagger* tagger, const std::vector<PreparedTurn>& turns, const std::vector<size_t>& subset,
                 int epochs, int orders, uint64_t seed) {
  AverageOverOrders(tagger, orders, seed, [&](SpanTagger* t, uint64_t order_seed) {
    for (int e = 0; e < epochs; ++e)
      for (size_t i : Schedule(turns, subset, order_seed, e)) t->Learn(turns[i].p, turns[i].labels);
  });
}

// Relation examples of a turn: gold spans plus (out-of-fold) predicted spans: overlapping a gold
// tail -> that gold's labels; otherwise NONE.
struct RelExample {
  size_t turn;
  SpanRef ref;
  int relation, modality;
};

std::vector<RelExample> RelationExamples(const std::vector<PreparedTurn>& turns,
                                         const std::vector<std::vector<TaggedSpan>>& predicted) {
  std::vector<RelExample> out;
  for (size_t i = 0; i < turns.size(); ++i) {
    const auto& t = turns[i];
    for (const auto& g : t.gold) out.push_back({i, g.ref, g.relation, g.modality});
    for (const auto& s : predicted[i]) {
      SpanRef ref{s.begin, s.end, -1, -1};
      const GoldSpan* hit = nullptr;
      bool same = false;
      for (const auto& g : t.gold) {
        if (!Overlap(s.begin, s.end, g.ref.begin, g.ref.end)) continue;
        hit = &g;
        same |= g.ref.begin == s.begin && g.ref.end == s.end;
      }
      if (same) continue;
      // A holder mention tagged as a tail teaches nothing about tails: its words ("Sarah has")
      // would otherwise make capitalised subjects ("My Volvo has never let me down") NONE.
      bool on_holder = false;
      for (const auto& g : t.gold) on_holder |= g.ref.hbegin >= 0 && Overlap(s.begin, s.end, g.ref.hbegin, g.ref.hend);
      if (!hit && on_holder) continue;
      if (hit) {
        ref.hbegin = hit->ref.hbegin;
        ref.hend = hit->ref.hend;
        out.push_back({i, ref, hit->relation, hit->modality});
      } else {
        out.push_back({i, ref, kNoneRelation, -1});
      }
    }
  }
  return out;
}

void TrainRelation(RelationModel* model, const std::vector<PreparedTurn>& turns, const std::vector<RelExample>& ex,
                   const std::vector<size_t>& subset_turns, int epochs, int orders, uint64_t seed) {
  std::vector<char> in(turns.size(), 0);
  for (size_t i : subset_turns) in[i] = 1;
  std::vector<size_t> idx;
  std::vector<uint64_t> item;  // an example's own key: its turn's key, its span, its repeat
  for (size_t k = 0; k < ex.size(); ++k)
    if (in[ex[k].turn])
      for (int r = 0; r < turns[ex[k].turn].repeat; ++r) {
        idx.push_back(k);
        item.push_back(OrderKey(turns[ex[k].turn].key, 0, static_cast<uint64_t>(static_cast<uint32_t>(ex[k].ref.begin)),
                                static_cast<uint64_t>(static_cast<uint32_t>(ex[k].ref.end)), static_cast<uint64_t>(r)));
      }
  std::vector<uint64_t> keys(idx.size());
  AverageOverOrders(model, orders, seed, [&](RelationModel* m, uint64_t order_seed) {
    for (int e = 0; e < epochs; ++e) {
      for (size_t j = 0; j < idx.size(); ++j) keys[j] = OrderKey(order_seed, e, item[j], 0, 0);
      for (size_t k : SortByKey(idx, keys)) m->Learn(turns[ex[k].turn].p, ex[k].ref, ex[k].relation, ex[k].modality);
    }
  });
}

bool CandidateCorrect(const Candidate& c, const PreparedTurn& t) {
  for (const auto& g : t.gold)
    if (g.relation == c.relation && g.modality == c.modality &&
        Overlap(c.span.begin, c.span.end, g.ref.begin, g.ref.end))
      return true;
  return false;
}

std::string RepoRoot() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) {
    buf[n] = 0;
    const fs::path root = fs::path(buf).parent_path() / ".." / "..";
    std::error_code ec;
    if (fs::exists(root / "CMakeLists.txt", ec) && fs::exists(root / "src" / "extract", ec))
      return fs::weakly_canonical(root, ec).string();
  }
  return ".";
}

// A relative path that does not exist from the current directory is tried against the repo root
// (so `ontomem train extractor` finds ../shared/... from any working directory).
std::string Resolve(const std::string& path, const std::string& root) {
  std::error_code ec;
  if (path.empty() || fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
  const fs::path alt = fs::path(root) / path;
  return fs::exists(alt, ec) ? alt.lexically_normal().string() : path;
}

}  // namespace

std::shared_ptr<ExtractorModels> TrainModels(const std::vector<AnnotatedTurn>& train, ClusterTable words,
                                             const FeatureResources& res, const TrainOptions& opt,
                                             TrainStats* stats) {
  const auto t0 = Clock::now();
  const int orders = std::max(1, opt.orders);
  auto models = std::make_shared<ExtractorModels>();
  models->clusters = std::move(words);
  std::vector<PreparedTurn> turns;
  turns.reserve(train.size());
  size_t facts = 0;
  for (const auto& a : train) {
    const bool hand = !a.id.empty() && a.id[0] == 'H';
    turns.push_back(PrepareTurn(a, models->clusters, res, hand ? opt.handwritten_repeat : 1));
    facts += turns.back().gold.size();
    // Fold by dialogue (the part of the id before '/'), so near-duplicate turns stay together.
    const std::string key = a.id.rfind("ipr-", 0) == 0 ? a.id.substr(0, a.id.find('/')) : a.id;
    turns.back().fold = static_cast<int>(std::hash<std::string>()(key) & 1);
  }
  std::vector<size_t> all(turns.size()), fold_idx[2];
  std::iota(all.begin(), all.end(), 0);
  for (size_t i = 0; i < turns.size(); ++i) fold_idx[turns[i].fold].push_back(i);

  // 1. Out-of-fold taggers and spans.
  std::vector<std::vector<TaggedSpan>> oof_spans(turns.size());
  SpanTagger fold_tagger[2];
  for (int f = 0; f < 2; ++f) {
    TrainTagger(&fold_tagger[f], turns, fold_idx[1 - f], opt.tagger_epochs, orders, opt.seed + static_cast<uint64_t>(f));
    for (size_t i : fold_idx[f]) oof_spans[i] = fold_tagger[f].Tag(turns[i].p);
  }
  if (opt.verbose) fmt::print(stderr, "extractor: fold taggers done ({:.1f}s)\n", Since(t0));
  const std::vector<RelExample> rel_ex = RelationExamples(turns, oof_spans);

  // 2. Out-of-fold relation models -> scorer training candidates.
  std::vector<std::array<float, kScorerInputs>> rows;
  std::vector<float> labels;
  for (int f = 0; f < 2; ++f) {
    RelationModel rel;
    TrainRelation(&rel, turns, rel_ex, fold_idx[1 - f], opt.relation_epochs, orders, opt.seed + 10 + static_cast<uint64_t>(f));
    for (size_t i : fold_idx[f]) {
      for (const auto& c : GenerateCandidates(fold_tagger[f], rel, turns[i].p, res, 2)) {
        rows.push_back(c.x);
        labels.push_back(CandidateCorrect(c, turns[i]) ? 1.0f : 0.0f);
      }
    }
  }
  if (opt.verbose) fmt::print(stderr, "extractor: {} scorer candidates ({:.1f}s)\n", rows.size(), Since(t0));

  // 3. Final tagger and relation model on everything.
  TrainTagger(&models->tagger, turns, all, opt.tagger_epochs, orders, opt.seed + 100);
  TrainRelation(&models->relation, turns, rel_ex, all, opt.relation_epochs, orders, opt.seed + 200);

  // 4. Scorer.
  models->scorer = learn::Mlp({kScorerInputs, opt.scorer_hidden, 1}, learn::OutputActivation::kSigmoid, opt.seed + 300);
  if (!rows.empty()) {
    Eigen::MatrixXf X(static_cast<Eigen::Index>(rows.size()), kScorerInputs);
    Eigen::MatrixXf Y(static_cast<Eigen::Index>(rows.size()), 1);
    for (size_t r = 0; r < rows.size(); ++r) {
      for (int c = 0; c < kScorerInputs; ++c) X(static_cast<Eigen::Index>(r), c) = rows[r][static_cast<size_t>(c)];
      Y(static_cast<Eigen::Index>(r), 0) = labels[r];
    }
    learn::MlpTrainOptions mo;
    mo.epochs = opt.scorer_epochs;
    mo.batch_size = 64;
    mo.learning_rate = 2e-3f;
    mo.seed = opt.seed + 400;
    mo.verbose = opt.verbose;
    models->scorer.Train(X, Y, mo);
  }
  if (stats) {
    stats->turns = turns.size();
    stats->facts = facts;
    stats->scorer_examples = rows.size();
    stats->scorer_positives = static_cast<size_t>(std::count(labels.begin(), labels.end(), 1.0f));
    stats->seconds = Since(t0);
  }
  return models;
}

ClusterTable BuildWordTable(const std::string& lexicon_path, int k, int top_words, const WordNet* wordnet,
                            const std::vector<std::string>& extra_words, std::string* note) {
  ClusterTable table;
  std::vector<std::string> sources;
  std::vector<std::string> vocab;
  if (!lexicon_path.empty()) {
    auto lex = Lexicon::Open(lexicon_path);
    if (lex.ok()) {
      const Lexicon& L = **lex;
      const int d = L.dim();
      std::vector<float> buf(static_cast<size_t>(d));
      Eigen::MatrixXf X(top_words, d);
      int n = 0;
      for (int64_t r = 0; r < static_cast<int64_t>(L.size()) && n < top_words; ++r) {
        const std::string_view w = L.Word(r);
        if (w.empty() || w.size() > 24) continue;
        bool alpha = true;
        for (unsigned char c : w) alpha &= (std::isalpha(c) || c == '-' || c == '\'');
        if (!alpha) continue;
        L.Vector(r, buf.data());
        Eigen::Map<Eigen::RowVectorXf> v(buf.data(), d);
        const float norm = v.norm();
        if (norm <= 0) continue;
        X.row(n) = v / norm;
        vocab.emplace_back(w);
        ++n;
      }
      X.conservativeResize(n, d);
      k = std::max(1, std::min(k, n));
      Eigen::MatrixXf C(k, d);
      for (int c = 0; c < k; ++c) C.row(c) = X.row(static_cast<Eigen::Index>(static_cast<int64_t>(c) * n / k));
      std::vector<int> assign(static_cast<size_t>(n), 0);
      for (int it = 0; it < 12; ++it) {
        const Eigen::MatrixXf S = X * C.transpose();
        Eigen::MatrixXf sum = Eigen::MatrixXf::Zero(k, d);
        std::vector<int> count(static_cast<size_t>(k), 0);
        for (int i = 0; i < n; ++i) {
          Eigen::Index best;
          S.row(i).maxCoeff(&best);
          assign[static_cast<size_t>(i)] = static_cast<int>(best);
          sum.row(best) += X.row(i);
          count[static_cast<size_t>(best)]++;
        }
        for (int c = 0; c < k; ++c)
          if (count[static_cast<size_t>(c)] > 0) C.row(c) = sum.row(c).normalized();
      }
      for (int i = 0; i < n; ++i) table.Set(vocab[static_cast<size_t>(i)], assign[static_cast<size_t>(i)]);
      table.set_clusters(k);
      sources.push_back(fmt::format("glove-kmeans(k={},words={})", k, n));
    } else {
      sources.push_back("no-glove(" + lex.status().message().substr(0, 80) + ")");
    }
  }
  if (wordnet) {
    std::unordered_set<std::string> seen;
    auto add = [&](const std::string& w) {
      if (!seen.insert(w).second) return;
      const std::string l = WordNetLexname(*wordnet, w);
      if (!l.empty()) table.SetLexname(w, l);
    };
    for (const auto& w : vocab) add(w);
    for (const auto& w : extra_words) add(w);
    sources.push_back("wordnet");
  }
  std::string s;
  for (const auto& x : sources) s += (s.empty() ? "" : ",") + x;
  table.set_sources(s);
  if (note) *note = s;
  return table;
}

namespace {

// Whether the span names a gazetteer entity: the phrase without a leading article or
// possessive, or a sub-phrase of up to 4 words (single words under 5 letters skipped).
bool InGazetteer(const std::function<std::string(std::string_view)>& gaz, const std::string& text, int32_t b,
                 int32_t e) {
  std::vector<std::string> w;
  for (const auto& t : TokenizeWithOffsets(std::string_view(text).substr(static_cast<size_t>(b), static_cast<size_t>(e - b))))
    if (!t.punct) w.push_back(t.lower);
  static const std::unordered_set<std::string> kDrop = {"the", "a", "an", "my", "our", "his", "her", "their", "your", "some"};
  size_t from = 0;
  while (from + 1 < w.size() && kDrop.count(w[from])) ++from;
  for (size_t i = from; i < w.size(); ++i) {
    std::string phrase;
    for (size_t len = 1; len <= 4 && i + len <= w.size(); ++len) {
      phrase += (len > 1 ? " " : "") + w[i + len - 1];
      if (len == 1 && phrase.size() < 5) continue;
      if (!gaz(phrase).empty()) return true;
    }
  }
  return false;
}

double Share(size_t part, size_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

EvalReport Evaluate(const Extractor& ex, const std::vector<AnnotatedTurn>& turns, const std::string& name,
                    float threshold, const std::function<std::string(std::string_view)>& gazetteer) {
  EvalReport r;
  r.has_gazetteer = static_cast<bool>(gazetteer);
  r.name = name;
  r.turns = turns.size();
  std::vector<std::vector<Assertion>> preds(turns.size());
  // Thread CPU time: what one core spends, independent of other load on the machine.
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const double c0 = cpu_now();
  for (size_t i = 0; i < turns.size(); ++i) {
    Turn t;
    t.id = turns[i].id;
    t.speaker = turns[i].speaker;
    t.text = turns[i].text;
    preds[i] = ex.Extract(t, static_cast<int64_t>(i + 1));
  }
  r.us_per_turn = turns.empty() ? 0 : (cpu_now() - c0) * 1e6 / static_cast<double>(turns.size());
  auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  // Speaker heads must be the speaker; third-party heads must name the gold holder mention.
  auto head_ok = [&](const Assertion& a, const GoldFact& g, const std::string& text) {
    if (g.head_is_speaker) return a.head_is_speaker;
    if (a.head_is_speaker) return false;
    const std::string gold = lower(text.substr(static_cast<size_t>(g.head_begin), static_cast<size_t>(g.head_end - g.head_begin)));
    const std::string pred = lower(a.head);
    return pred.find(gold) != std::string::npos || gold.find(pred) != std::string::npos;
  };
  for (size_t i = 0; i < turns.size(); ++i) {
    std::vector<const Assertion*> kept;
    for (const auto& a : preds[i]) if (a.confidence >= threshold) kept.push_back(&a);
    const auto& gold = turns[i].facts;
    r.gold += gold.size();
    const bool read = std::any_of(kept.begin(), kept.end(), [&](const Assertion* a) { return AboutSpeaker(a->modality, a->head_is_speaker); });
    if (std::any_of(gold.begin(), gold.end(), [&](const GoldFact& g) { return AboutSpeaker(g.modality, g.head_is_speaker); })) {
      r.statement_turns++;
      r.statement_turns_read += read;
    } else if (gold.empty()) {
      r.other_turns++;
      r.other_turns_read += read;
    }
    std::vector<char> gold_in(gold.size(), 0);
    if (gazetteer)
      for (size_t g = 0; g < gold.size(); ++g) {
        gold_in[g] = InGazetteer(gazetteer, turns[i].text, gold[g].tail_begin, gold[g].tail_end);
        r.gold_gaz_in += gold_in[g];
      }
    r.predicted += kept.size();
    bool update = false;
    for (const auto& a : gold)
      for (const auto& b : gold)
        update |= a.relation == b.relation && a.modality == Modality::kAsserted && b.modality == Modality::kPast;
    r.update_turns += update;
    auto match = [&](int level, Prf* total, bool breakdown) {
      std::vector<char> used(gold.size(), 0);
      for (const Assertion* a : kept) {
        int hit = -1;
        for (size_t g = 0; g < gold.size() && hit < 0; ++g) {
          if (used[g] || !Overlap(a->tail_begin, a->tail_end, gold[g].tail_begin, gold[g].tail_end)) continue;
          if (level >= 1 && a->relation != gold[g].relation) continue;
          if (level >= 2 && a->modality != gold[g].modality) continue;
          if (level >= 3 && !head_ok(*a, gold[g], turns[i].text)) continue;
          hit = static_cast<int>(g);
        }
        if (level == 2 && update) (hit >= 0 ? r.strict_update.tp : r.strict_update.fp)++;
        if (level == 3 && a->modality == Modality::kReported) (hit >= 0 ? r.head_reported.tp : r.head_reported.fp)++;
        if (hit >= 0) {
          used[static_cast<size_t>(hit)] = 1;
          total->tp++;
          if (breakdown && gazetteer)
            (gold_in[static_cast<size_t>(hit)] ? r.strict_gaz_in : r.strict_gaz_out).tp++;
          if (breakdown) {
            r.per_relation[a->relation].tp++;
            r.per_modality[ModalityName(a->modality)].tp++;
          }
        } else {
          total->fp++;
          if (breakdown && gazetteer)
            (InGazetteer(gazetteer, turns[i].text, a->tail_begin, a->tail_end) ? r.strict_gaz_in : r.strict_gaz_out).fp++;
          if (breakdown) {
            r.per_relation[a->relation].fp++;
            r.per_modality[ModalityName(a->modality)].fp++;
          }
        }
      }
      for (size_t g = 0; g < gold.size(); ++g)
        if (!used[g]) {
          total->fn++;
          if (level == 2 && update) r.strict_update.fn++;
          if (level == 3 && gold[g].modality == Modality::kReported) r.head_reported.fn++;
          if (breakdown && gazetteer) (gold_in[g] ? r.strict_gaz_in : r.strict_gaz_out).fn++;
          if (breakdown) {
            r.per_relation[gold[g].relation].fn++;
            r.per_modality[ModalityName(gold[g].modality)].fn++;
          }
        }
    };
    match(0, &r.span_only, false);
    match(1, &r.relation_only, false);
    const int64_t errors_before = r.strict.fp + r.strict.fn;
    match(2, &r.strict, true);
    // Error analysis: $ONTOMEM_EVAL_DUMP names a file that gets every turn with a strict miss.
    if (const char* dump = std::getenv("ONTOMEM_EVAL_DUMP"); dump && *dump && r.strict.fp + r.strict.fn > errors_before) {
      static std::mutex mu;
      std::lock_guard<std::mutex> lock(mu);
      if (FILE* f = std::fopen(dump, "a")) {
        std::string line = fmt::format("[{}] {} | {}\n", name, turns[i].id, turns[i].text);
        auto span = [&](int32_t b, int32_t e) { return turns[i].text.substr(static_cast<size_t>(b), static_cast<size_t>(e - b)); };
        for (const auto& g : gold) line += fmt::format("   gold {} {} '{}'\n", g.relation, ModalityName(g.modality), span(g.tail_begin, g.tail_end));
        for (const Assertion* a : kept)
          line += fmt::format("   pred {} {} '{}' head={} {:.2f}\n", a->relation, ModalityName(a->modality),
                              span(a->tail_begin, a->tail_end), a->head_is_speaker ? "speaker" : a->head, a->confidence);
        std::fputs(line.c_str(), f);
        std::fclose(f);
      }
    }
    match(3, &r.head, false);
  }
  return r;
}

std::string FormatReport(const EvalReport& r) {
  std::string s = fmt::format("== {}: {} turns, {} gold assertions, {} predicted (>= threshold), {:.1f} us CPU/turn\n",
                              r.name, r.turns, r.gold, r.predicted, r.us_per_turn);
  auto row = [](const std::string& name, const Prf& p) {
    return fmt::format("  {:<22} {:>6.3f} {:>6.3f} {:>6.3f} {:>6} {:>6} {:>6}\n", name, p.precision(), p.recall(),
                       p.f1(), p.tp, p.fp, p.fn);
  };
  const std::string head = fmt::format("  {:<22} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}\n", "match", "P", "R", "F1", "tp",
                                       "fp", "fn");
  s += head;
  s += row("strict (rel+mod+span)", r.strict);
  s += row("relation+span", r.relation_only);
  s += row("span only", r.span_only);
  s += row("strict + head", r.head);
  if (r.has_gazetteer) {
    s += row(fmt::format("strict, gaz in ({})", r.gold_gaz_in), r.strict_gaz_in);
    s += row(fmt::format("strict, gaz out ({})", r.gold - r.gold_gaz_in), r.strict_gaz_out);
  }
  if (r.update_turns) s += row(fmt::format("update turns ({})", r.update_turns), r.strict_update);
  s += fmt::format("  turns given a current edge about the speaker: statements {:.3f} ({}/{}), turns without a gold fact {:.3f} ({}/{})\n",
                   Share(r.statement_turns_read, r.statement_turns), r.statement_turns_read, r.statement_turns,
                   Share(r.other_turns_read, r.other_turns), r.other_turns_read, r.other_turns);
  s += row("reported + head", r.head_reported);
  s += "  per relation (strict)\n";
  for (const auto& [k, v] : r.per_relation) s += row(k, v);
  s += "  per modality (strict)\n";
  for (const auto& [k, v] : r.per_modality) s += row(k, v);
  return s;
}

// ------------------------------------------------------------------ CLI
namespace {

// Frame-reader rows of one turn: each run, positive when it overlaps the tail of a current gold
// fact about the speaker (a turn without facts gives only negatives).
void AddFrameRows(const AnnotatedTurn& t, const ClusterTable& words, const FeatureResources& res,
                  std::vector<FrameRow>* x, std::vector<uint8_t>* y) {
  const Prepared p = Prepare(t.text, t.speaker, words, res);
  const auto vectors = TokenVectors(p, res);
  for (const FrameRun& r : FrameRuns(p)) {
    const int32_t b = p.tokens[static_cast<size_t>(r.begin)].begin, e = p.tokens[static_cast<size_t>(r.end - 1)].end;
    bool positive = false;
    for (const GoldFact& g : t.facts)
      positive |= AboutSpeaker(g.modality, g.head_is_speaker) && g.tail_begin < e && b < g.tail_end;
    x->push_back(FrameInputs(p, vectors, r));
    y->push_back(positive ? 1 : 0);
  }
}

// The turns of `d` that are no question's evidence and not in `annotated` ("sample/dia_id").
std::vector<AnnotatedTurn> UnannotatedTurns(const Dataset& d, const std::set<std::string>& annotated) {
  std::vector<AnnotatedTurn> out;
  for (const Sample& s : d.samples) {
    std::set<std::string> evidence;
    for (const QaItem& q : s.qa) evidence.insert(q.evidence.begin(), q.evidence.end());
    for (const Turn& t : s.turns)
      if (!evidence.count(t.id) && !annotated.count(s.sample_id + "/" + t.id))
        out.push_back({s.sample_id + "/" + t.id, t.speaker, t.text, {}});
  }
  return out;
}

// Trains models->frame (TrainExtractorArgs::frame_reader); `annotated` = every annotated turn
// the perceptrons trained on, `base` = their IPR-synth configuration.
Status TrainFrameReader(const TrainExtractorArgs& args, const IprConfig& base, const std::string& root,
                        const std::vector<AnnotatedTurn>& annotated, FeatureResources res, ExtractorModels* models,
                        std::string* summary) {
  ASSIGN_OR_RETURN(res.word_vector, OpenWordVectors(args.lexicon_path));
  std::vector<FrameRow> x;
  std::vector<uint8_t> y;
  for (const AnnotatedTurn& t : annotated) AddFrameRows(t, models->clusters, res, &x, &y);
  size_t annotated_turns = annotated.size();
  std::mt19937_64 g(args.seed + 77);
  size_t negative_turns = 0;
  auto add_negatives = [&](const std::vector<AnnotatedTurn>& turns, double share) {
    std::bernoulli_distribution take(share);
    for (const AnnotatedTurn& t : turns)
      if (take(g)) {
        AddFrameRows(t, models->clusters, res, &x, &y);
        ++negative_turns;
      }
  };
  std::string json;
  for (size_t i = 0; i < args.frame_phrasing_paths.size(); ++i) {
    IprConfig pc = base;
    pc.phrasing_path = Resolve(args.frame_phrasing_paths[i], root);
    pc.dialogues = args.frame_dialogues;
    pc.scale = 8;  // more unannotated chit-chat to draw negatives from
    pc.seed = args.seed + 5000 * (i + 1);
    pc.filler_path.clear();
    RETURN_IF_ERROR(GenerateIpr(pc, &json));
    const std::string origin = fmt::format("frame-phrased{}", i + 1);
    ASSIGN_OR_RETURN(std::vector<AnnotatedTurn> facts, ParseIprFacts(json, origin));
    ASSIGN_OR_RETURN(Dataset d, ParseLocomo(json, origin));
    std::set<std::string> ids;
    for (const AnnotatedTurn& t : facts) {
      AddFrameRows(t, models->clusters, res, &x, &y);
      ids.insert(t.id);
    }
    annotated_turns += facts.size();
    add_negatives(UnannotatedTurns(d, ids), args.frame_negative_share);
  }
  for (const std::string& path : args.frame_negative_paths) {
    ASSIGN_OR_RETURN(Dataset d, LoadLocomo(Resolve(path, root)));
    add_negatives(UnannotatedTurns(d, {}), 1.0);
  }
  const size_t positives = static_cast<size_t>(std::count(y.begin(), y.end(), 1));
  models->frame.emplace(args.frame_hidden, args.seed);
  learn::MlpTrainOptions o;
  o.epochs = args.frame_epochs;
  o.batch_size = 64;
  o.seed = args.seed;
  models->frame->Fit(x, y, o, 1.0f);
  *summary = fmt::format("frame reader ({} hidden units): {} runs ({} positive) from {} annotated turns and {} negative turns",
                         args.frame_hidden, x.size(), positives, annotated_turns, negative_turns);
  return Status::Ok();
}

}  // namespace

int RunTrainExtractor(const TrainExtractorArgs& args) {
  const auto t0 = Clock::now();
  if (!args.frame_reader && (!args.frame_phrasing_paths.empty() || !args.frame_negative_paths.empty())) {
    fmt::print(stderr, "train extractor: --frame-phrasing and --frame-negatives train the frame reader; add --frame-reader\n");
    return 2;
  }
  const std::string root = RepoRoot();
  for (const auto* paths : {&args.frame_phrasing_paths, &args.frame_negative_paths})
    for (const std::string& p : *paths)
      if (std::error_code ec; !fs::exists(Resolve(p, root), ec)) {
        fmt::print(stderr, "train extractor: {} not found (nothing was trained)\n", p);
        return 1;
      }
  const std::string out_dir = (args.out_dir.empty() ? (root + "/models") : args.out_dir) + "/extractor";
  // (a) IPR-synth train split with turn-level facts.
  IprConfig cfg;
  cfg.seed = args.seed;
  cfg.split = "train";
  cfg.dialogues = args.ipr_dialogues;
  cfg.phrasing_fold = args.ipr_phrasing_fold;
  cfg.filler_path = Resolve(args.filler_path, root);
  if (!cfg.filler_path.empty() && !fs::exists(cfg.filler_path)) {
    fmt::print(stderr, "note: IPR filler {} not found; using generated chit-chat only\n", cfg.filler_path);
    cfg.filler_path.clear();
  }
  std::string json;
  if (Status st = GenerateIpr(cfg, &json); !st.ok()) {
    fmt::print(stderr, "train extractor: {}\n", st.ToString());
    return 1;
  }
  auto ipr = ParseIprFacts(json, "ipr-train");
  if (!ipr.ok()) {
    fmt::print(stderr, "train extractor: {}\n", ipr.status().ToString());
    return 1;
  }
  std::vector<AnnotatedTurn> train = std::move(ipr).value();
  // (a') the same split phrased with the training template files and/or drawn from the training
  // entity lists, so the models cannot lean on the frozen templates' words or entity names.
  const size_t n_phr = args.ipr_phrasing_paths.size(), n_ent = args.ipr_entities_paths.size();
  const size_t n_extra = std::max(n_phr, n_ent);
  for (size_t i = 0; i < n_extra; ++i) {
    IprConfig pc = cfg;
    if (n_phr) pc.phrasing_path = Resolve(args.ipr_phrasing_paths[i % n_phr], root);
    if (n_ent) pc.entities_path = Resolve(args.ipr_entities_paths[i % n_ent], root);
    pc.dialogues = args.ipr_extra_dialogues;
    pc.seed = args.seed + 1000 * (i + 1);
    const Status st = GenerateIpr(pc, &json);
    auto extra = st.ok() ? ParseIprFacts(json, fmt::format("ipr-train-extra{}", i + 1))
                         : StatusOr<std::vector<AnnotatedTurn>>(st);
    if (!extra.ok()) {
      fmt::print(stderr, "train extractor: extra IPR set {}: {}\n", i + 1, extra.status().ToString());
      return 1;
    }
    for (auto& t : *extra) train.push_back(std::move(t));
  }
  const size_t n_ipr = train.size();
  // (c) extraction drills for the relations IPR-synth does not cover.
  for (auto& d : GenerateDrills(args.drills, args.seed + 1)) train.push_back(std::move(d));
  for (auto& d : GenerateIdiomDrills(args.idiom_drills, args.seed + 2)) train.push_back(std::move(d));
  const size_t idiom_end = train.size();
  // (b) odd-id handwritten annotations.
  const std::string hand_path =
      args.handwritten_path.empty() ? root + "/data/annotations/handwritten.jsonl" : args.handwritten_path;
  size_t n_hand = 0;
  if (fs::exists(hand_path)) {
    auto hand = LoadHandwritten(hand_path, 1);
    if (!hand.ok()) {
      fmt::print(stderr, "train extractor: {}\n", hand.status().ToString());
      return 1;
    }
    n_hand = hand->size();
    for (auto& h : *hand) {
      if (h.id.empty() || h.id[0] != 'H') h.id = "H" + h.id;
      train.push_back(std::move(h));
    }
  } else {
    fmt::print(stderr, "note: {} not found; training on IPR-synth only\n", hand_path);
  }
  // Knowledge sources.
  std::shared_ptr<const WordNet> wn;
  if (args.wordnet) {
    if (auto w = WordNet::Open(); w.ok()) wn = *w;
    else fmt::print(stderr, "note: WordNet unavailable ({}); no lexname features\n", w.status().message());
  }
  std::shared_ptr<const Ontology> onto;
  if (args.ontology) {
    if (auto o = Ontology::LoadDefault(); o.ok()) onto = *o;
    else fmt::print(stderr, "note: ontology unavailable ({}); no gazetteer features\n", o.status().message());
  }
  std::string wired;
  const FeatureResources res = MakeResources(wn, onto, &wired);
  const std::string lex_path = args.lexicon_path.empty() ? DefaultLexiconPath() : args.lexicon_path;
  std::string note;
  double word_secs = 0;
  // The word table covers the training text's words, so each set of models gets its own.
  auto train_on = [&](const std::vector<AnnotatedTurn>& turns, TrainStats* stats) {
    std::vector<std::string> extra;
    std::unordered_set<std::string> seen;
    for (const auto& t : turns)
      for (const auto& tok : TokenizeWithOffsets(t.text))
        if (!tok.punct && seen.insert(tok.lower).second) extra.push_back(tok.lower);
    note.clear();
    const auto tw = Clock::now();
    ClusterTable words = BuildWordTable(lex_path, args.clusters, args.cluster_words, wn.get(), extra, &note);
    if (onto) note += ",gazetteer";
    words.set_sources(note);
    word_secs += Since(tw);
    return TrainModels(turns, std::move(words), res, args.train, stats);
  };
  TrainStats stats;
  auto models = train_on(train, &stats);
  if (args.fallback_idiom_drills > 0) {
    // The same turns with the idiom drills where --idiom-drills puts them (--idiom-drills N
    // --out D trains D's main models exactly as this fallback).
    std::vector<AnnotatedTurn> with_idioms(train.begin(), train.begin() + static_cast<long>(idiom_end));
    for (auto& d : GenerateIdiomDrills(args.fallback_idiom_drills, args.seed + 2)) with_idioms.push_back(std::move(d));
    with_idioms.insert(with_idioms.end(), train.begin() + static_cast<long>(idiom_end), train.end());
    TrainStats fb_stats;
    models->fallback = train_on(with_idioms, &fb_stats);
  }
  std::string frame_summary;
  if (args.frame_reader) {
    if (Status st = TrainFrameReader(args, cfg, root, train, res, models.get(), &frame_summary); !st.ok()) {
      fmt::print(stderr, "train extractor: {}\n", st.ToString());
      return 1;
    }
  }
  if (Status st = models->Save(out_dir); !st.ok()) {
    fmt::print(stderr, "train extractor: {}\n", st.ToString());
    return 1;
  }
  fmt::print("trained extractor on {} turns ({} IPR-synth train from {} dialogues{}, {} drills, {} idiom drills, {} "
             "handwritten odd-id), {} facts\n", stats.turns, n_ipr, args.ipr_dialogues,
             n_extra ? fmt::format(" and {} extra sets of {}", n_extra, args.ipr_extra_dialogues) : "", args.drills,
             args.idiom_drills, n_hand, stats.facts);
  fmt::print("word table: {} ({:.1f}s); resources: {}\n", note, word_secs, wired.empty() ? "none" : wired);
  fmt::print("perceptrons: weights averaged over {} training order{} (order seed {})\n", args.train.orders,
             args.train.orders > 1 ? "s" : "", args.train.seed);
  fmt::print("scorer: {} out-of-fold candidates, {} positive; models trained in {:.1f}s; total {:.1f}s\n",
             stats.scorer_examples, stats.scorer_positives, stats.seconds, Since(t0));
  if (!frame_summary.empty()) fmt::print("{}\n", frame_summary);
  if (models->fallback) fmt::print("fallback perceptrons: {} idiom drills on top\n", args.fallback_idiom_drills);
  for (const char* f : {"clusters.bin", "tagger.bin", "relation.bin", "scorer.bin", "frame.bin", "fallback/scorer.bin"}) {
    if (std::string(f) == "frame.bin" && !models->frame) continue;
    if (std::string(f) == "fallback/scorer.bin" && !models->fallback) continue;
    std::error_code ec;
    fmt::print("  {}/{}: {} bytes\n", out_dir, f, fs::file_size(fs::path(out_dir) / f, ec));
  }
  return 0;
}

EvidenceShare MeasureEvidenceShare(const Extractor& extractor, const Dataset& dataset, float threshold) {
  EvidenceShare r;
  r.name = dataset.path;
  for (const Sample& s : dataset.samples) {
    std::set<std::string> askers;
    std::set<std::pair<std::string, std::string>> evidence, implicit;  // (speaker, turn id)
    for (const QaItem& q : s.qa) {
      askers.insert(q.speaker);
      for (const std::string& e : q.evidence) {
        evidence.emplace(q.speaker, e);
        if (q.implicit.value_or(false)) implicit.emplace(q.speaker, e);
      }
    }
    int64_t seq = 0;
    for (const Turn& t : s.turns) {
      ++seq;
      if (!askers.count(t.speaker)) continue;
      bool read = false;
      for (const Assertion& a : extractor.Extract(t, seq))
        read |= a.confidence >= threshold && AboutSpeaker(a.modality, a.head_is_speaker);
      if (evidence.count({t.speaker, t.id})) {
        ++r.evidence;
        r.evidence_read += read;
        if (implicit.count({t.speaker, t.id})) {
          ++r.implicit;
          r.implicit_read += read;
        }
      } else {
        ++r.other;
        r.other_read += read;
      }
    }
  }
  return r;
}

std::string FormatEvidenceShare(const EvidenceShare& s) {
  const std::string implicit = s.implicit ? fmt::format(", of implicit questions {:.3f} ({}/{})",
                                                        Share(s.implicit_read, s.implicit), s.implicit_read, s.implicit)
                                           : "";
  return fmt::format("== {}: askers' turns given a current edge about the speaker: evidence {:.3f} ({}/{}){}, "
                     "other {:.3f} ({}/{})\n",
                     s.name, Share(s.evidence_read, s.evidence), s.evidence_read, s.evidence, implicit,
                     Share(s.other_read, s.other), s.other_read, s.other);
}

int RunEvalExtractor(const EvalExtractorArgs& args) {
  const std::string root = RepoRoot();
  ExtractorOptions eo;
  eo.models_dir = args.models_dir;
  eo.threshold = args.threshold;
  eo.frame_threshold = args.frame_threshold;
  const std::string dir = args.models_dir.empty() ? DefaultModelsDir() : args.models_dir;
  // Resources as at training time (recorded in the word table).
  auto probe = ExtractorModels::Load(dir + "/extractor");
  if (!probe.ok()) {
    fmt::print(stderr, "eval extractor: {}\n", probe.status().ToString());
    return 1;
  }
  const std::string sources = (*probe)->clusters.sources();
  std::shared_ptr<const WordNet> wn;
  if (sources.find("wordnet") != std::string::npos)
    if (auto w = WordNet::Open(); w.ok()) wn = *w;
  std::shared_ptr<const Ontology> onto;
  if (sources.find("gazetteer") != std::string::npos)
    if (auto o = Ontology::LoadDefault(); o.ok()) onto = *o;
  FeatureResources res = MakeResources(wn, onto);
  std::string frame = "none";
  if ((*probe)->frame) {
    auto vectors = OpenWordVectors(args.lexicon_path);
    if (!vectors.ok()) {
      fmt::print(stderr, "eval extractor: the models have a frame reader: {}\n", vectors.status().ToString());
      return 1;
    }
    res.word_vector = std::move(vectors).value();
    frame = fmt::format("at {:.2f}", eo.frame_threshold);
  }
  std::shared_ptr<const Verifier> verifier;
  std::shared_ptr<LlmVerifier> llm;
  if (args.llm) {
    llm = std::make_shared<LlmVerifier>(args.llm_options, std::make_shared<RuleVerifier>(res));
    verifier = llm;
  }
  const bool fallback = (*probe)->fallback != nullptr;
  auto ex = Extractor::FromModels(std::shared_ptr<const ExtractorModels>(std::move(probe).value()), eo, res, verifier);
  fmt::print("extractor models: {}/extractor (trained with: {}); threshold {:.2f}; fallback perceptrons {}; frame reader "
             "{}; verifier {}\n",
             dir, sources, args.threshold, fallback ? "yes" : "none", frame, ex->verifier().name());
  int rc = 0;
  if (!args.datasets.empty()) {
    for (const std::string& path : args.datasets) {
      auto ds = LoadLocomo(path);
      if (!ds.ok()) {
        fmt::print(stderr, "eval extractor: {}\n", ds.status().ToString());
        rc = 1;
        continue;
      }
      fmt::print("{}", FormatEvidenceShare(MeasureEvidenceShare(*ex, *ds, args.threshold)));
    }
    if (llm) fmt::print("llm verifier: {} calls, {} fell back to the rules\n", llm->calls(), llm->failures());
    return rc;
  }
  const std::string ann =
      args.locomo_annotations.empty() ? root + "/data/annotations/locomo_dev5.jsonl" : args.locomo_annotations;
  const std::string locomo = Resolve(args.locomo_path, root);
  if (fs::exists(ann) && fs::exists(locomo)) {
    auto turns = LoadLocomoAnnotations(ann, locomo);
    if (turns.ok()) fmt::print("{}\n", FormatReport(Evaluate(*ex, *turns, "LoCoMo dev5 annotations (held out)", args.threshold, res.gazetteer)));
    else { fmt::print(stderr, "eval extractor: {}\n", turns.status().ToString()); rc = 1; }
  } else {
    fmt::print(stderr, "note: skipping LoCoMo annotations ({} or {} missing)\n", ann, locomo);
  }
  const std::string hand = args.handwritten_path.empty() ? root + "/data/annotations/handwritten.jsonl" : args.handwritten_path;
  if (fs::exists(hand)) {
    auto turns = LoadHandwritten(hand, 0);
    if (turns.ok()) fmt::print("{}\n", FormatReport(Evaluate(*ex, *turns, "handwritten even ids (held out)", args.threshold, res.gazetteer)));
    else { fmt::print(stderr, "eval extractor: {}\n", turns.status().ToString()); rc = 1; }
  } else {
    fmt::print(stderr, "note: skipping handwritten annotations ({} missing)\n", hand);
  }
  if (args.ipr_dev_dialogues > 0) {
    IprConfig cfg;
    cfg.seed = args.seed;
    cfg.split = args.ipr_split;
    cfg.phrasing_fold = args.ipr_phrasing_fold;
    cfg.phrasing_path = args.ipr_phrasing_path;
    cfg.dialogues = args.ipr_dev_dialogues;
    cfg.filler_path = Resolve(args.filler_path, root);
    if (!fs::exists(cfg.filler_path)) cfg.filler_path.clear();
    std::string json;
    Status st = GenerateIpr(cfg, &json);
    auto turns = st.ok() ? ParseIprFacts(json, "ipr-" + cfg.split) : StatusOr<std::vector<AnnotatedTurn>>(st);
    std::string fold = cfg.phrasing_fold < 0 ? "" : fmt::format(", phrasing half {}", cfg.phrasing_fold);
    if (!cfg.phrasing_path.empty()) fold += ", templates of " + fs::path(cfg.phrasing_path).filename().string();
    if (turns.ok())
      fmt::print("{}\n", FormatReport(Evaluate(*ex, *turns, fmt::format("IPR-synth {} ({} dialogues, seed {}{})", cfg.split,
                                                                          cfg.dialogues, cfg.seed, fold),
                                               args.threshold, res.gazetteer)));
    else { fmt::print(stderr, "eval extractor: {}\n", turns.status().ToString()); rc = 1; }
  }
  if (llm) fmt::print("llm verifier: {} calls, {} fell back to the rules\n", llm->calls(), llm->failures());
  return rc;
}

}  // namespace ontomem::extract
