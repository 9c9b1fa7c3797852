// Lexicon format, builder and reader: round trips, lookups, damaged files, the wink JSON parser,
// and (when present) the real lexicon made by `make lexicon`.
#include "embed/lexicon.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "embed/lexicon_build.h"
#include "embed/lexicon_cli.h"
#include "lexicon_fixture.h"
#include "ontomem/embedder.h"
#include "test_util.h"

namespace ontomem {
namespace {

namespace fs = std::filesystem;
using testing::kTinyLexiconDim;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += double{a[i]} * b[i];
    aa += double{a[i]} * a[i];
    bb += double{b[i]} * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

std::vector<float> Vec(const Lexicon& lex, std::string_view word) {
  std::vector<float> v(static_cast<size_t>(lex.dim()));
  int64_t r = lex.Find(word);
  EXPECT_GE(r, 0) << word;
  if (r >= 0) lex.Vector(r, v.data());
  return v;
}

// Expects Open to fail with FailedPrecondition and a message telling the user how to fix it.
void ExpectUnusable(const std::string& path, const std::string& why_substring) {
  auto lex = Lexicon::Open(path);
  ASSERT_FALSE(lex.ok());
  EXPECT_EQ(lex.status().code(), StatusCode::kFailedPrecondition) << lex.status().ToString();
  EXPECT_NE(lex.status().message().find("make lexicon"), std::string::npos)
      << lex.status().ToString();
  EXPECT_NE(lex.status().message().find(path), std::string::npos) << lex.status().ToString();
  EXPECT_NE(lex.status().message().find(why_substring), std::string::npos)
      << lex.status().ToString();
}

class LexiconTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TinyLexiconData(&words_, &vectors_);
  }
  const testing::TempDir temp_{"lexicon_test"};  // before what uses it: removed after
  const std::string dir_ = temp_.path();
  std::vector<std::string> words_;
  std::vector<float> vectors_;
};

TEST_F(LexiconTest, Float32RoundTripIsExact) {
  std::string path = testing::WriteTinyLexicon(dir_);
  auto lex = Lexicon::Open(path);
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  EXPECT_EQ((*lex)->dim(), kTinyLexiconDim);
  EXPECT_EQ((*lex)->size(), words_.size());
  EXPECT_EQ((*lex)->element_type(), LexiconElementType::kFloat32);
  EXPECT_EQ((*lex)->file_size(), fs::file_size(path));
  std::vector<float> v(kTinyLexiconDim);
  for (size_t r = 0; r < words_.size(); ++r) {
    EXPECT_EQ((*lex)->Word(static_cast<int64_t>(r)), words_[r]);
    EXPECT_EQ((*lex)->Find(words_[r]), static_cast<int64_t>(r)) << words_[r];
    (*lex)->Vector(static_cast<int64_t>(r), v.data());
    for (int i = 0; i < kTinyLexiconDim; ++i) {
      ASSERT_EQ(v[static_cast<size_t>(i)], vectors_[r * kTinyLexiconDim + static_cast<size_t>(i)]);
    }
  }
}

TEST_F(LexiconTest, Int8RoundTripWithinHalfAStep) {
  std::string path = testing::WriteTinyLexicon(dir_, LexiconElementType::kInt8);
  auto lex = Lexicon::Open(path);
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  EXPECT_EQ((*lex)->element_type(), LexiconElementType::kInt8);
  std::vector<float> v(kTinyLexiconDim);
  double worst_cos = 1;
  for (size_t r = 0; r < words_.size(); ++r) {
    const float* orig = vectors_.data() + r * kTinyLexiconDim;
    float maxabs = 0;
    for (int i = 0; i < kTinyLexiconDim; ++i) maxabs = std::max(maxabs, std::fabs(orig[i]));
    const float step = maxabs / 127;
    (*lex)->Vector(static_cast<int64_t>(r), v.data());
    for (int i = 0; i < kTinyLexiconDim; ++i) {
      ASSERT_NEAR(v[static_cast<size_t>(i)], orig[i], step * 0.5f + 1e-6f) << words_[r] << " " << i;
    }
    worst_cos = std::min(worst_cos, Cosine(v, std::vector<float>(orig, orig + kTinyLexiconDim)));
  }
  EXPECT_GT(worst_cos, 0.999);
  // The int8 file is about a quarter of the float32 one for the vector section.
  EXPECT_LT(fs::file_size(path), fs::file_size(testing::WriteTinyLexicon(dir_)));
}

TEST_F(LexiconTest, FindPresentAndAbsentWords) {
  auto lex = Lexicon::Open(testing::WriteTinyLexicon(dir_));
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  EXPECT_EQ((*lex)->Find("the"), 0);
  EXPECT_GE((*lex)->Find("film"), 0);
  EXPECT_GE((*lex)->Find("'s"), 0);
  EXPECT_EQ((*lex)->Find("zyzzyva"), -1);
  EXPECT_EQ((*lex)->Find(""), -1);
  EXPECT_EQ((*lex)->Find("Film"), -1);  // exact bytes; the embedder lower-cases first
  EXPECT_EQ((*lex)->Find("fil"), -1);
  EXPECT_EQ((*lex)->Find("films "), -1);
  EXPECT_EQ((*lex)->Find(std::string_view("film\0", 5)), -1);
}

TEST_F(LexiconTest, ClusterGeometry) {
  auto lex = Lexicon::Open(testing::WriteTinyLexicon(dir_));
  ASSERT_TRUE(lex.ok());
  auto embedder = LoadSifEmbedder(testing::WriteTinyLexicon(dir_));
  ASSERT_TRUE(embedder.ok());
  auto embed = [&](const std::string& w) {
    std::vector<float> v(kTinyLexiconDim);
    EXPECT_TRUE((*embedder)->Embed(w, v.data()).ok());
    return v;
  };
  // [raw, embedded] extremes per relation.
  double min_group[2] = {1, 1}, min_cluster[2] = {1, 1}, max_other[2] = {-1, -1};
  const auto& clusters = testing::TinyLexiconClusters();
  for (size_t c = 0; c < clusters.size(); ++c) {
    for (size_t g = 0; g < clusters[c].groups.size(); ++g) {
      for (const std::string& w : clusters[c].groups[g]) {
        std::vector<float> v[2] = {Vec(**lex, w), embed(w)};
        for (size_t c2 = 0; c2 < clusters.size(); ++c2) {
          for (size_t g2 = 0; g2 < clusters[c2].groups.size(); ++g2) {
            for (const std::string& w2 : clusters[c2].groups[g2]) {
              if (w2 == w) continue;
              std::vector<float> v2[2] = {Vec(**lex, w2), embed(w2)};
              for (int k = 0; k < 2; ++k) {
                double cos = Cosine(v[k], v2[k]);
                if (c == c2 && g == g2)
                  min_group[k] = std::min(min_group[k], cos);
                else if (c == c2)
                  min_cluster[k] = std::min(min_cluster[k], cos);
                else
                  max_other[k] = std::max(max_other[k], cos);
              }
            }
          }
        }
      }
    }
  }
  // The bounds documented in lexicon_fixture.h.
  EXPECT_GE(min_group[0], 0.90);
  EXPECT_GE(min_cluster[0], 0.70);
  EXPECT_LE(max_other[0], 0.55);
  EXPECT_GE(min_group[1], 0.85);
  EXPECT_GE(min_cluster[1], 0.50);
  EXPECT_LE(max_other[1], 0.20);
}

TEST_F(LexiconTest, DeterministicBytesAndChecksum) {
  std::string a = testing::WriteTinyLexicon(dir_);
  std::string bytes_a = ReadFile(a);
  fs::create_directory(dir_ + "/b");
  std::string b = testing::WriteTinyLexicon(dir_ + "/b");
  EXPECT_EQ(bytes_a, ReadFile(b));
  auto la = Lexicon::Open(a);
  ASSERT_TRUE(la.ok());
  // A one-ulp change in a single vector changes the checksum (and so the embedder id).
  vectors_[1234] = std::nextafter(vectors_[1234], 1e9f);
  std::string c = dir_ + "/c.bin";
  ASSERT_TRUE(BuildLexicon(words_, vectors_, kTinyLexiconDim, c).ok());
  auto lc = Lexicon::Open(c);
  ASSERT_TRUE(lc.ok());
  EXPECT_NE((*la)->checksum(), (*lc)->checksum());
}

TEST_F(LexiconTest, CommonComponentIsUnitAndStable) {
  auto lex = Lexicon::Open(testing::WriteTinyLexicon(dir_));
  ASSERT_TRUE(lex.ok());
  const float* u = (*lex)->common_component();
  double n2 = 0;
  for (int i = 0; i < kTinyLexiconDim; ++i) n2 += double{u[i]} * u[i];
  EXPECT_NEAR(n2, 1.0, 1e-5);
  auto again = ComputeCommonComponent(words_, vectors_, kTinyLexiconDim, LexiconBuildOptions{});
  for (int i = 0; i < kTinyLexiconDim; ++i) EXPECT_EQ(u[i], again[static_cast<size_t>(i)]);
  EXPECT_EQ((*lex)->common_component_sif_a(), 1e-3);

  LexiconBuildOptions none;
  none.common_component_words = 0;
  std::string path = dir_ + "/nocc.bin";
  ASSERT_TRUE(BuildLexicon(words_, vectors_, kTinyLexiconDim, path, none).ok());
  auto lex0 = Lexicon::Open(path);
  ASSERT_TRUE(lex0.ok());
  for (int i = 0; i < kTinyLexiconDim; ++i) EXPECT_EQ((*lex0)->common_component()[i], 0.0f);
}

TEST_F(LexiconTest, ProbabilityFollowsZipfAndSumsToOne) {
  auto lex = Lexicon::Open(testing::WriteTinyLexicon(dir_));
  ASSERT_TRUE(lex.ok());
  double total = 0;
  for (size_t r = 0; r < (*lex)->size(); ++r) total += (*lex)->Probability(static_cast<int64_t>(r));
  EXPECT_NEAR(total, 1.0, 1e-9);
  EXPECT_GT((*lex)->Probability(0), (*lex)->Probability(1));
  EXPECT_NEAR((*lex)->Probability(0) / (*lex)->Probability(10), (10 + 2.7) / 2.7, 1e-9);
}

TEST_F(LexiconTest, MissingFileNamesTheFix) {
  std::string path = dir_ + "/nope.bin";
  auto lex = Lexicon::Open(path);
  ASSERT_FALSE(lex.ok());
  EXPECT_EQ(lex.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(lex.status().message().find("make lexicon"), std::string::npos);
  EXPECT_NE(lex.status().message().find("ontomem lexicon build"), std::string::npos);
  EXPECT_NE(lex.status().message().find("not found"), std::string::npos);
  EXPECT_NE(lex.status().message().find(path), std::string::npos);
  ExpectUnusable(dir_, "not a regular file");
}

TEST_F(LexiconTest, EveryCorruptedByteIsDetected) {
  std::string path = testing::WriteTinyLexicon(dir_);
  const std::string good = ReadFile(path);
  // One byte in each region: header fields, word offsets, word pool, hash table, vectors,
  // common component, final padding.
  auto lex = Lexicon::Open(path);
  ASSERT_TRUE(lex.ok());
  std::vector<size_t> positions = {8,
                                   16,
                                   24,
                                   56,
                                   100,
                                   300,
                                   good.size() / 3,
                                   good.size() / 2,
                                   good.size() - 300,
                                   good.size() - 1};
  for (size_t pos : positions) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x10);
    WriteFile(path, bad);
    auto r = Lexicon::Open(path);
    ASSERT_FALSE(r.ok()) << "flip at " << pos << " went unnoticed";
    EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(r.status().message().find("make lexicon"), std::string::npos)
        << r.status().ToString();
  }
  // A flip in the vectors is reported as a checksum mismatch.
  std::string bad = good;
  bad[good.size() / 2] ^= 0x01;
  WriteFile(path, bad);
  ExpectUnusable(path, "checksum mismatch");
}

TEST_F(LexiconTest, TruncatedExtendedAndEmptyFilesAreRejected) {
  std::string path = testing::WriteTinyLexicon(dir_);
  const std::string good = ReadFile(path);
  WriteFile(path, good.substr(0, good.size() - 64));
  ExpectUnusable(path, "truncated");
  WriteFile(path, good + std::string(64, '\0'));
  ExpectUnusable(path, "truncated or extended");
  WriteFile(path, good.substr(0, 100));
  ExpectUnusable(path, "too short");
  WriteFile(path, "");
  ExpectUnusable(path, "too short");
}

TEST_F(LexiconTest, WrongMagicAndVersionAreRejected) {
  std::string path = testing::WriteTinyLexicon(dir_);
  const std::string good = ReadFile(path);
  std::string bad = good;
  bad.replace(0, 8, "SQLite f");
  WriteFile(path, bad);
  ExpectUnusable(path, "wrong magic");
  bad = good;
  bad[8] = 2;  // version 2
  WriteFile(path, bad);
  ExpectUnusable(path, "version 2");
  // A text file of the same length (someone pointed --path at the JSON).
  WriteFile(path, std::string(good.size(), '{'));
  ExpectUnusable(path, "wrong magic");
}

TEST_F(LexiconTest, BuildRejectsBadInput) {
  const std::string out = dir_ + "/x.bin";
  EXPECT_EQ(BuildLexicon({}, {}, 4, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildLexicon({"a", "b"}, std::vector<float>(7), 4, out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildLexicon({"a", "a"}, std::vector<float>(8), 4, out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildLexicon({"a", ""}, std::vector<float>(8), 4, out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildLexicon({"a"}, {1, 2, NAN, 4}, 4, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildLexicon({"a"}, {1, 2, 3, 4}, 0, out).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(out));
  Status s = BuildLexicon({"a"}, {1, 2, 3, 4}, 4, dir_ + "/no/such/dir/x.bin");
  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
}

TEST_F(LexiconTest, RebuildReplacesAtomicallyAndLeavesNoTempFiles) {
  std::string path = dir_ + "/lex.bin";
  ASSERT_TRUE(BuildLexicon({"a", "b"}, {1, 0, 0, 1}, 2, path).ok());
  auto first = Lexicon::Open(path);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(BuildLexicon({"c", "d", "e"}, {1, 0, 0, 1, 1, 1}, 2, path).ok());
  auto second = Lexicon::Open(path);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)->size(), 3u);
  // The first mapping still reads its own (now unlinked) file.
  EXPECT_EQ((*first)->size(), 2u);
  EXPECT_EQ((*first)->Find("b"), 1);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"lex.bin"});
}

TEST_F(LexiconTest, SingleWordAndManyCollisions) {
  std::string path = dir_ + "/one.bin";
  ASSERT_TRUE(BuildLexicon({"solo"}, {3, 4}, 2, path).ok());
  auto lex = Lexicon::Open(path);
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  EXPECT_EQ((*lex)->Find("solo"), 0);
  EXPECT_EQ((*lex)->Find("sol"), -1);
  // 5000 words: every one found, and 5000 absent ones are not.
  std::vector<std::string> words;
  std::vector<float> vecs;
  for (int i = 0; i < 5000; ++i) {
    words.push_back(fmt::format("w{}", i));
    vecs.push_back(static_cast<float>(i));
    vecs.push_back(1);
  }
  ASSERT_TRUE(BuildLexicon(words, vecs, 2, path).ok());
  auto big = Lexicon::Open(path);
  ASSERT_TRUE(big.ok());
  float v[2];
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ((*big)->Find(words[static_cast<size_t>(i)]), i);
    ASSERT_EQ((*big)->Find(fmt::format("x{}", i)), -1);
    (*big)->Vector(i, v);
    ASSERT_EQ(v[0], static_cast<float>(i));
  }
}

TEST(LexiconChecksum, XXH64KnownAnswers) {
  // Reference values of the xxHash specification (XXH64, seed 0 unless given).
  EXPECT_EQ(lexicon_format::XXH64("", 0, 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(lexicon_format::XXH64("a", 1, 0), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(lexicon_format::XXH64("abc", 3, 0), 0x44BC2CF5AD770999ULL);
  // Streaming in odd pieces equals one shot.
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  lexicon_format::XXH64Stream s(42);
  for (size_t off = 0, step = 1; off < data.size(); off += step, step = step % 37 + 1) {
    s.Update(data.data() + off, std::min(step, data.size() - off));
  }
  EXPECT_EQ(s.Digest(), lexicon_format::XXH64(data.data(), data.size(), 42));
}

// --- The wink JSON ------------------------------------------------------------------------

class LexiconWinkJsonTest : public LexiconTest {};

TEST_F(LexiconWinkJsonTest, ParsesTheNpmShape) {
  // Same key order and layout as the npm file, with escapes and a non-ASCII word.
  std::string json =
      R"({"precision":8,"l2NormIndex":3,"wordIndex":4,"size":4,"dimensions":3,)"
      R"("words":["the","\"","caf\u00e9","\ud83d\ude00"],"vectors":{)"
      R"("the":[0.5,-1.25,3e-2,1.3,0],"\"":[1,2,3,3.74,1],)"
      R"("caf\u00e9":[-0.000001,0,1E2,100,2], "\ud83d\ude00" : [ 7 , 8 , 9 , 13.9 , 3 ] },)"
      R"("unkVector":[0,0,0,0,-1]})";
  std::string json_path = dir_ + "/wink.json";
  WriteFile(json_path, json);
  std::string out = dir_ + "/wink.bin";
  Status s = BuildLexiconFromWinkJson(json_path, out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto lex = Lexicon::Open(out);
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  ASSERT_EQ((*lex)->size(), 4u);
  ASSERT_EQ((*lex)->dim(), 3);
  EXPECT_EQ((*lex)->Word(1), "\"");
  EXPECT_EQ((*lex)->Find("caf\xC3\xA9"), 2);
  EXPECT_EQ((*lex)->Find("\xF0\x9F\x98\x80"), 3);
  float v[3];
  (*lex)->Vector(0, v);
  EXPECT_EQ(v[0], 0.5f);
  EXPECT_EQ(v[1], -1.25f);
  EXPECT_EQ(v[2], 0.03f);
  (*lex)->Vector(2, v);
  EXPECT_EQ(v[0], -0.000001f);
  EXPECT_EQ(v[2], 100.0f);
}

TEST_F(LexiconWinkJsonTest, RejectsMalformedAndInconsistentJson) {
  const std::string out = dir_ + "/out.bin";
  struct Case {
    const char* what;
    std::string json;
  };
  const std::string head =
      R"({"l2NormIndex":2,"wordIndex":3,"size":2,"dimensions":2,"words":["a","b"],)";
  std::vector<Case> cases = {
      {"truncated", head + R"("vectors":{"a":[1,2,2.2,0],"b":[1,2)"},
      {"rank mismatch", head + R"("vectors":{"a":[1,2,2.2,1],"b":[1,2,2.2,0]}})"},
      {"missing vector", head + R"("vectors":{"a":[1,2,2.2,0]}})"},
      {"short vector", head + R"("vectors":{"a":[1,2.2,0],"b":[1,2,2.2,1]}})"},
      {"duplicate rank", head + R"("vectors":{"a":[1,2,2.2,0],"a":[1,2,2.2,0]}})"},
      {"not a number", head + R"("vectors":{"a":[1,"x",2.2,0],"b":[1,2,2.2,1]}})"},
      {"rank out of range", head + R"("vectors":{"a":[1,2,2.2,0],"b":[1,2,2.2,7]}})"},
      {"trailing garbage", head + R"("vectors":{"a":[1,2,2.2,0],"b":[1,2,2.2,1]}} x)"},
      {"size mismatch",
       R"({"size":3,"dimensions":2,"words":["a","b"],"vectors":{"a":[1,2,2.2,0],"b":[1,2,2.2,1]}})"},
      {"duplicate word", R"({"words":["a","a"],"vectors":{"a":[1,2,2.2,0],"a":[1,2,2.2,1]}})"},
      {"not json", "hello"},
      {"empty", ""},
  };
  for (const Case& c : cases) {
    std::string path = dir_ + "/bad.json";
    WriteFile(path, c.json);
    Status s = BuildLexiconFromWinkJson(path, out);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.what << ": " << s.ToString();
    EXPECT_FALSE(fs::exists(out)) << c.what;
  }
  Status missing = BuildLexiconFromWinkJson(dir_ + "/absent.json", out);
  EXPECT_EQ(missing.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.message().find("npm install"), std::string::npos);
}

TEST_F(LexiconWinkJsonTest, CliBuildAndCheckExitCodes) {
  std::string json_path = dir_ + "/wink.json";
  WriteFile(json_path,
            R"({"dimensions":2,"words":["a","b"],"vectors":{"a":[1,0,1,0],"b":[0,1,1,1]}})");
  std::string out = dir_ + "/sub/dir/lex.bin";
  EXPECT_EQ(RunLexiconBuild(json_path, out, /*int8=*/true), 0);
  EXPECT_EQ(RunLexiconCheck(out), 0);
  EXPECT_EQ(RunLexiconCheck(dir_ + "/absent.bin"), 1);
  EXPECT_EQ(RunLexiconBuild(dir_ + "/absent.json", out, false), 1);
  WriteFile(out, "garbage");
  EXPECT_EQ(RunLexiconCheck(out), 1);
}

// --- The real lexicon (skipped until `make lexicon` has run) ------------------------------

std::string RealLexiconPath() {
  if (const char* env = std::getenv("ONTOMEM_LEXICON"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return home == nullptr ? "" : std::string(home) + "/.cache/ontomem/lexicon.bin";
}

TEST(LexiconReal, OpensFastAndHasGloveNeighbourhoods) {
  const std::string path = RealLexiconPath();
  if (path.empty() || !fs::exists(path))
    GTEST_SKIP() << "no real lexicon at " << path << "; run `make lexicon`";
  auto t0 = std::chrono::steady_clock::now();
  auto lex = Lexicon::Open(path);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(lex.ok()) << lex.status().ToString();
  EXPECT_LT(ms, 2000) << "Open took " << ms << " ms";
  EXPECT_EQ((*lex)->dim(), 100);
  EXPECT_EQ((*lex)->size(), 341479u);
  EXPECT_EQ((*lex)->Word(0), "the");
  EXPECT_EQ((*lex)->Find("the"), 0);
  EXPECT_EQ((*lex)->Find("sandberger"), 341478);
  EXPECT_EQ((*lex)->Find("qwxzvbnmkj"), -1);
  auto movie = Vec(**lex, "movie");
  EXPECT_GT(Cosine(movie, Vec(**lex, "film")), 0.8);
  EXPECT_LT(Cosine(movie, Vec(**lex, "lasagna")), 0.3);
  EXPECT_GT(Cosine(Vec(**lex, "pizza"), Vec(**lex, "pasta")), 0.6);
}

}  // namespace
}  // namespace ontomem
