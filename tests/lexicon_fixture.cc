#include "lexicon_fixture.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "embed/lexicon_build.h"

namespace ontomem::testing {

namespace {

const char* const kStopWords[] = {
    "the", "of",    "and",  "to",   "a",      "in",    "is",    "i",    "it",   "you", "that",
    "was", "for",   "on",   "are",  "with",   "he",    "she",   "they", "we",   "my",  "me",
    "at",  "be",    "this", "have", "has",    "had",   "from",  "or",   "an",   "by",  "not",
    "but", "what",  "all",  "were", "when",   "there", "can",   "do",   "did",  "so",  "about",
    "'s",  "n't",   "'m",   "just", "really", "also",  "would", "will", "your", "our", "his",
    "her", "their", "them", "us",   "been",   "if",    "out",   "up",   "how",  "very"};

const char* const kFillers[] = {
    "people", "time", "day",   "new",     "good",    "great", "nice",   "love", "like",  "think",
    "feel",   "want", "know",  "go",      "went",    "going", "make",   "made", "see",   "saw",
    "say",    "said", "tell",  "friend",  "friends", "home",  "house",  "car",  "money", "life",
    "world",  "help", "happy", "excited", "fun",     "big",   "little", "idea", "place", "way"};

// std::normal_distribution and std::shuffle differ between standard libraries; mt19937's
// output does not, so everything random is derived from its raw 32-bit draws.
class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  double Uniform() { return (static_cast<double>(gen_()) + 0.5) / 4294967296.0; }
  // Irwin-Hall approximation of a standard normal: plenty for random directions.
  double Normal() {
    double s = 0;
    for (int i = 0; i < 12; ++i) s += Uniform();
    return s - 6.0;
  }
  std::vector<double> UnitVector(int d) {
    std::vector<double> v(static_cast<size_t>(d));
    double n2 = 0;
    for (double& x : v) {
      x = Normal();
      n2 += x * x;
    }
    for (double& x : v) x /= std::sqrt(n2);
    return v;
  }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Uniform() * n); }

 private:
  std::mt19937 gen_;
};

}  // namespace

const std::vector<TinyCluster>& TinyLexiconClusters() {
  static const std::vector<TinyCluster> kClusters = {
      {"movie",
       {{"movie", "film", "cinema", "movies", "films"},
        {"actor", "actress", "director", "hollywood", "dicaprio"},
        {"titanic", "oscar", "documentary", "screenplay"},
        {"watch", "watched", "theater"}}},
      {"food",
       {{"food", "meal", "dinner", "lunch", "breakfast", "eat", "ate"},
        {"pizza", "pasta", "lasagna", "spaghetti", "italian"},
        {"cooking", "cook", "recipe", "chef", "kitchen", "bake", "baking"},
        {"restaurant", "cafe", "sushi", "burger", "delicious"}}},
      {"music",
       {{"music", "song", "songs", "concert", "band"},
        {"guitar", "piano", "violin", "drums"},
        {"singer", "musician", "album"}}},
      {"sport",
       {{"sport", "sports", "soccer", "football", "basketball", "tennis"},
        {"team", "game", "match", "coach", "player"},
        {"run", "running", "marathon", "gym", "yoga", "hiking"}}},
      {"pet",
       {{"dog", "dogs", "puppy", "cat", "cats", "kitten", "pet", "pets"},
        {"animal", "animals", "vet", "bird", "horse"}}},
      {"travel",
       {{"travel", "trip", "vacation", "holiday", "journey"},
        {"flight", "airport", "hotel", "beach"},
        {"paris", "france", "italy", "japan", "london"}}},
      {"work",
       {{"work", "job", "office", "career", "company"},
        {"boss", "colleague", "manager", "meeting", "salary"}}},
      {"family",
       {{"family", "mother", "father", "mom", "dad", "parents"},
        {"sister", "brother", "son", "daughter", "kids", "children"},
        {"wife", "husband", "married", "wedding"}}},
      {"health",
       {{"doctor", "hospital", "medicine", "nurse", "sick", "illness"},
        {"health", "healthy", "diet", "exercise"}}},
      {"book",
       {{"book", "books", "novel", "reading", "read", "author"},
        {"library", "poetry", "poem", "writing", "writer"}}},
      {"tech",
       {{"computer", "software", "programming", "code", "laptop"},
        {"phone", "internet", "app", "website"}}},
      {"school",
       {{"school", "university", "college", "student", "students", "class"},
        {"teacher", "exam", "study", "degree", "psychology"}}},
      {"art",
       {{"art", "painting", "paint", "painted", "artist", "drawing"},
        {"museum", "gallery", "sculpture"}}},
      {"nature",
       {{"weather", "rain", "snow", "sunny"},
        {"nature", "garden", "flowers", "tree", "park", "mountain"}}},
      {"time",
       {{"yesterday", "today", "tomorrow", "week", "weekend", "month", "year"},
        {"monday", "friday", "saturday", "sunday", "morning", "evening"}}},
      {"color", {{"red", "blue", "green", "yellow", "color"}}},
  };
  return kClusters;
}

void TinyLexiconData(std::vector<std::string>* words, std::vector<float>* vectors) {
  const int d = kTinyLexiconDim;
  Rng rng(20240601);
  // The common direction, cluster centres and group centres are mutually orthonormal (Gram-
  // Schmidt), so clusters are unrelated by construction rather than by luck of the draw, and the
  // common component the builder estimates is close to `common`.
  std::vector<std::vector<double>> basis;
  auto structural = [&] {
    std::vector<double> v = rng.UnitVector(d);
    for (const auto& b : basis) {
      double dot = 0;
      for (int i = 0; i < d; ++i) dot += v[static_cast<size_t>(i)] * b[static_cast<size_t>(i)];
      for (int i = 0; i < d; ++i) v[static_cast<size_t>(i)] -= dot * b[static_cast<size_t>(i)];
    }
    double n2 = 0;
    for (double x : v) n2 += x * x;
    for (double& x : v) x /= std::sqrt(n2);
    basis.push_back(v);
    return v;
  };
  const std::vector<double> common = structural();
  struct Entry {
    std::string word;
    std::vector<double> v;
  };
  auto combine = [&](std::initializer_list<std::pair<double, const std::vector<double>*>> parts) {
    std::vector<double> v(static_cast<size_t>(d), 0.0);
    for (const auto& [w, p] : parts)
      for (int i = 0; i < d; ++i) v[static_cast<size_t>(i)] += w * (*p)[static_cast<size_t>(i)];
    return v;
  };
  std::vector<Entry> stop, content;
  for (const char* w : kStopWords) {
    auto noise = rng.UnitVector(d);
    stop.push_back({w, combine({{1.0, &common}, {0.7, &noise}})});
  }
  for (const char* w : kFillers) {
    auto noise = rng.UnitVector(d);
    content.push_back({w, combine({{1.0, &noise}, {1.0, &common}})});
  }
  for (const TinyCluster& c : TinyLexiconClusters()) {
    auto center = structural();
    for (const auto& group : c.groups) {
      auto sub = structural();
      for (const std::string& w : group) {
        auto noise = rng.UnitVector(d);
        content.push_back(
            {w, combine({{1.0, &center}, {0.6, &sub}, {0.4, &noise}, {1.0, &common}})});
      }
    }
  }
  // Content words get interleaved frequency ranks (Fisher-Yates on the raw draws), after the
  // stop words, so no cluster is systematically more frequent than another.
  for (size_t i = content.size(); i > 1; --i) {
    std::swap(content[i - 1], content[rng.Below(static_cast<uint32_t>(i))]);
  }
  words->clear();
  vectors->clear();
  for (auto* list : {&stop, &content}) {
    for (Entry& e : *list) {
      words->push_back(e.word);
      // GloVe-like magnitudes (norms around 4-6).
      double scale = 4.0 + rng.Uniform() * 2.0;
      for (double x : e.v) vectors->push_back(static_cast<float>(x * scale));
    }
  }
}

std::string WriteTinyLexicon(const std::string& dir, LexiconElementType type) {
  std::vector<std::string> words;
  std::vector<float> vectors;
  TinyLexiconData(&words, &vectors);
  LexiconBuildOptions options;
  options.element_type = type;
  std::string path =
      dir + (type == LexiconElementType::kInt8 ? "/tiny_lexicon_int8.bin" : "/tiny_lexicon.bin");
  Status s = BuildLexicon(words, vectors, kTinyLexiconDim, path, options);
  if (!s.ok()) throw std::runtime_error("WriteTinyLexicon: " + s.ToString());
  return path;
}

}  // namespace ontomem::testing
