// Span tagger, relation model persistence, checkpoint errors and the rule verifier.
#include <gtest/gtest.h>

#include <filesystem>

#include "extract/extractor.h"
#include "extract_fixtures.h"
#include "extract/models.h"
#include "extract/verifier.h"
#include "test_util.h"

namespace ontomem::extract {
namespace {

namespace fs = std::filesystem;

// Toy task: the tail is the noun after "the" following a cue verb; holders are "my <kin>".
struct Toy {
  std::string text;
  int tb = -1, te = -1, hb = -1, he = -1;  // byte spans
};

Toy MakeToy(const std::string& noun, const std::string& kin, int form) {
  Toy t;
  std::string pre;
  if (form == 0) pre = "I really love the ";
  else if (form == 1) pre = "Honestly, I adore the ";
  else {
    t.hb = 3;
    t.he = 3 + static_cast<int>(kin.size());
    pre = "My " + kin + " loves the ";
  }
  t.text = pre + noun + " a lot.";
  t.tb = static_cast<int>(pre.size());
  t.te = t.tb + static_cast<int>(noun.size());
  return t;
}

std::vector<int> Labels(const Prepared& p, const Toy& t) {
  std::vector<int> l(p.tokens.size(), kTagO);
  for (size_t i = 0; i < p.tokens.size(); ++i) {
    const auto& k = p.tokens[i];
    if (k.begin >= t.tb && k.end <= t.te) l[i] = k.begin == t.tb ? kTagBT : kTagIT;
    if (t.hb >= 0 && k.begin >= t.hb && k.end <= t.he) l[i] = k.begin == t.hb ? kTagBH : kTagIH;
  }
  return l;
}

TEST(ExtractTagger, LearnsToyTaskAndGeneralisesToUnseenNouns) {
  const std::vector<std::string> train_nouns = {"piano", "garden", "lake", "movie", "book", "song", "bakery", "museum",
                                                "beach", "forest", "river", "castle", "painting", "show"};
  const std::vector<std::string> test_nouns = {"violin", "stadium", "bridge", "novel", "opera", "market"};
  const std::vector<std::string> kin = {"sister", "brother", "mum", "uncle"};
  ClusterTable words;
  FeatureResources res;
  SpanTagger tagger(12);
  for (int epoch = 0; epoch < 5; ++epoch)
    for (size_t i = 0; i < train_nouns.size(); ++i)
      for (int form = 0; form < 3; ++form) {
        Toy t = MakeToy(train_nouns[i], kin[i % kin.size()], form);
        Prepared p = Prepare(t.text, "Ana", words, res);
        tagger.Learn(p, Labels(p, t));
      }
  tagger.Finish();
  int ok = 0, total = 0;
  for (const auto& n : test_nouns)
    for (int form = 0; form < 3; ++form) {
      Toy t = MakeToy(n, "sister", form);
      Prepared p = Prepare(t.text, "Ana", words, res);
      auto spans = tagger.Tag(p);
      bool tail = false, holder = form != 2;
      for (const auto& s : spans) {
        const int b = p.tokens[static_cast<size_t>(s.begin)].begin, e = p.tokens[static_cast<size_t>(s.end - 1)].end;
        if (!s.holder && b == t.tb && e == t.te) tail = true;
        if (s.holder && b == t.hb && e == t.he) holder = true;
      }
      ok += tail && holder;
      ++total;
    }
  EXPECT_GE(ok, total - 1) << ok << "/" << total;
}

TEST(ExtractTagger, EmptyModelTagsNothing) {
  SpanTagger tagger(8);
  ClusterTable words;
  Prepared p = Prepare("I love jazz.", "Ana", words, {});
  // All-zero weights: every label ties and argmax picks O.
  EXPECT_TRUE(tagger.Tag(p).empty());
}

// The tokens of p that the first occurrence of `needle` in `text` covers ({-1, -1} if none match).
SpanRef SpanOf(const Prepared& p, std::string_view text, std::string_view needle) {
  const int32_t b = static_cast<int32_t>(text.find(needle)), e = b + static_cast<int32_t>(needle.size());
  SpanRef s{-1, -1};
  for (int i = 0; i < static_cast<int>(p.tokens.size()); ++i) {
    if (p.tokens[static_cast<size_t>(i)].begin == b) s.begin = i;
    if (p.tokens[static_cast<size_t>(i)].end == e) s.end = i + 1;
  }
  return s;
}

std::string Tidied(const std::string& text, std::string_view span, bool stance) {
  FeatureResources res;
  res.lexname = [](std::string_view w) -> std::string {
    if (w == "lucky" || w == "fresh") return "adj.all";
    if (w == "sunday") return "noun.time";
    if (w == "never") return "adv.all";
    if (w == "charm" || w == "planning" || w == "session" || w == "air" || w == "hiking") return "noun.act";
    return "";
  };
  ClusterTable words;
  const Prepared p = Prepare(text, "Ana", words, res);
  const SpanRef s = TidyTail(p, SpanOf(p, text, span), stance, res);
  return NormaliseTail(p, s.begin, s.end);
}

TEST(ExtractTidyTail, TrimsTrailingStopWordsAndWidensANoThingStanceToItsNouns) {
  // A tail ends on a content word.
  EXPECT_EQ(Tidied("I love hiking in the hills.", "hiking in", true), "hiking");
  EXPECT_EQ(Tidied("Ana wants to visit it soon", "visit it", false), "visit");
  EXPECT_EQ(Tidied("I love it.", "it", true), "it");  // never empty
  // A stance toward a quality or a time reaches the nouns after it, at most two.
  EXPECT_EQ(Tidied("The lucky charm never lets me down.", "lucky", true), "lucky charm");
  EXPECT_EQ(Tidied("I live for a Sunday planning session with coffee.", "Sunday", true), "sunday planning session");
  EXPECT_EQ(Tidied("I just love fresh air.", "fresh", true), "fresh air");
  EXPECT_EQ(Tidied("I love spicy.", "spicy", true), "spicy");  // nothing to reach
  // Only stances are widened; other relations keep the tagger's span.
  EXPECT_EQ(Tidied("Ana goes out every Sunday planning session.", "Sunday", false), "sunday");
}

// Saves tiny models under `root` and returns their directory.
std::string SaveTinyModels(const ontomem::testing::TempDir& root) {
  const std::string dir = root.path() + "/extractor";
  ExtractorModels m;
  m.clusters.Set("jazz", 3);
  m.clusters.SetLexname("jazz", "noun.communication");
  m.scorer = learn::Mlp({kScorerInputs, 8, 1}, learn::OutputActivation::kSigmoid, 1);
  EXPECT_TRUE(m.Save(dir).ok());
  return dir;
}

TEST(ExtractModels, SaveLoadRoundTrip) {
  const ontomem::testing::TempDir temp("extract_models");
  const std::string dir = SaveTinyModels(temp);
  auto m = ExtractorModels::Load(dir);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->clusters.Find("jazz"), 3);
  EXPECT_EQ((*m)->clusters.Lexname("jazz"), "noun.communication");
  EXPECT_EQ((*m)->scorer.inputs(), kScorerInputs);
}

TEST(ExtractModels, FrameReaderIsOptionalAndNeverStale) {
  const ontomem::testing::TempDir temp("extract_models");
  const std::string dir = SaveTinyModels(temp);
  auto plain = ExtractorModels::Load(dir);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE((*plain)->frame);
  (*plain)->frame.emplace(4, 3);
  ASSERT_TRUE((*plain)->Save(dir).ok());
  auto with = ExtractorModels::Load(dir);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  ASSERT_TRUE((*with)->frame);
  FrameRow x{};
  x[0] = 1;
  EXPECT_FLOAT_EQ((*with)->frame->Score(x), (*plain)->frame->Score(x));
  // A damaged frame.bin fails the load like any other model file.
  ontomem::testing::DamageByte(dir + "/frame.bin", 100);
  auto bad = ExtractorModels::Load(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("frame.bin"), std::string::npos) << bad.status().message();
  // Models trained without a reader do not keep an earlier one.
  (*with)->frame.reset();
  ASSERT_TRUE((*with)->Save(dir).ok());
  EXPECT_FALSE(fs::exists(dir + "/frame.bin"));
}

TEST(ExtractModels, CorruptedCheckpointGivesClearError) {
  const ontomem::testing::TempDir temp("extract_models");
  const std::string dir = SaveTinyModels(temp);
  ontomem::testing::DamageByte(dir + "/relation.bin", 200);
  auto m = ExtractorModels::Load(dir);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kCorruption);
  EXPECT_NE(m.status().message().find("relation.bin"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("checksum"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("ontomem train extractor"), std::string::npos) << m.status().message();
  // Truncation.
  fs::resize_file(dir + "/tagger.bin", 100);
  fs::remove(dir + "/relation.bin");
  auto t = ExtractorModels::Load(dir);
  ASSERT_FALSE(t.ok());
}

TEST(ExtractModels, WrongKindAndMissingFile) {
  const ontomem::testing::TempDir temp("extract_models");
  const std::string dir = SaveTinyModels(temp);
  fs::copy_file(dir + "/tagger.bin", dir + "/scorer.bin", fs::copy_options::overwrite_existing);
  auto m = ExtractorModels::Load(dir);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("expected 'SCOR'"), std::string::npos) << m.status().message();

  ExtractorOptions o;
  o.models_dir = "/nonexistent/models";
  auto e = Extractor::Open(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(e.status().message().find("ontomem train extractor"), std::string::npos) << e.status().message();
  EXPECT_NE(e.status().message().find("/nonexistent/models/extractor/"), std::string::npos);
}

// ------------------------------------------------------------------ rule verifier
using fixtures::Cand;
using fixtures::MakeTurn;

TEST(ExtractRuleVerifier, PolarityNegationAndHeads) {
  RuleVerifier v;
  const Turn neg = MakeTurn("I don't own a car anymore.");
  EXPECT_FALSE(v.Verify(Cand(neg.text, "car", "OWNS", Modality::kAsserted), neg).valid);
  EXPECT_TRUE(v.Verify(Cand(neg.text, "car", "OWNS", Modality::kNegated), neg).valid);
  // A dislike is DISLIKES/asserted even with "don't".
  const Turn dis = MakeTurn("I don't like horror films.");
  EXPECT_TRUE(v.Verify(Cand(dis.text, "horror films", "DISLIKES", Modality::kAsserted), dis).valid);
  // A LIKES read there is normalised to the dislike the negation expresses.
  EXPECT_EQ(v.Verify(Cand(dis.text, "horror films", "LIKES", Modality::kAsserted), dis).relation, "DISLIKES");
  // Reported speech needs a third-party head, and vice versa.
  const Turn rep = MakeTurn("My brother loves jazz.");
  EXPECT_TRUE(v.Verify(Cand(rep.text, "jazz", "LIKES", Modality::kReported, false), rep).valid);
  EXPECT_FALSE(v.Verify(Cand(rep.text, "jazz", "LIKES", Modality::kReported, true), rep).valid);
  EXPECT_FALSE(v.Verify(Cand(rep.text, "jazz", "LIKES", Modality::kAsserted, false), rep).valid);
  // Hypothetical and past are left to the classifier.
  const Turn hyp = MakeTurn("If I had more room I might get a dog.");
  EXPECT_TRUE(v.Verify(Cand(hyp.text, "dog", "HAS_PET", Modality::kHypothetical), hyp).valid);
  const Turn past = MakeTurn("I used to love horror films.");
  EXPECT_TRUE(v.Verify(Cand(past.text, "horror films", "LIKES", Modality::kPast), past).valid);
  // Function-word tails are rejected.
  const Turn it = MakeTurn("I love it.");
  EXPECT_FALSE(v.Verify(Cand(it.text, "it", "LIKES", Modality::kAsserted), it).valid);
}

TEST(ExtractRuleVerifier, OntologyTypeCheck) {
  FeatureResources res;
  res.type_check = [](std::string_view rel, std::string_view tail) { return rel == "HAS_PET" && tail == "paris" ? -1 : 0; };
  RuleVerifier v(res);
  const Turn t = MakeTurn("I have paris and a dog.");
  Assertion a = Cand(t.text, "paris", "HAS_PET", Modality::kAsserted);
  const Verdict r = v.Verify(a, t);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.reason, "type mismatch");
  EXPECT_TRUE(v.Verify(Cand(t.text, "dog", "HAS_PET", Modality::kAsserted), t).valid);
}

}  // namespace
}  // namespace ontomem::extract
