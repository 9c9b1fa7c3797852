// A tiny deterministic lexicon for tests that need real-looking word vectors without the
// 300 MB download: 306 words, 100 dimensions, same file format as the real one.
//
// Words come in clusters, each split into groups. Cosines (min/max over all pairs; asserted by
// LexiconTest.ClusterGeometry):
//                        raw word vectors   one-word SifEmbedder outputs (default options)
//   same group           >= 0.90            >= 0.85   e.g. movie/film/cinema, pizza/pasta/lasagna
//   same cluster         >= 0.70            >= 0.50   e.g. movie/actor, pizza/restaurant
//   different clusters   <= 0.55            <= 0.20   e.g. movie/pizza
// Raw vectors share a common direction (as GloVe's do), which the SIF common-component removal
// takes out; cluster and group centres are orthogonal by construction.
// Clusters and their groups (one bracket per group):
//   movie  [movie film cinema movies films] [actor actress director hollywood dicaprio]
//          [titanic oscar documentary screenplay] [watch watched theater]
//   food   [food meal dinner lunch breakfast eat ate] [pizza pasta lasagna spaghetti italian]
//          [cooking cook recipe chef kitchen bake baking] [restaurant cafe sushi burger delicious]
//   music  [music song songs concert band] [guitar piano violin drums] [singer musician album]
//   sport  [sport sports soccer football basketball tennis] [team game match coach player]
//          [run running marathon gym yoga hiking]
//   pet    [dog dogs puppy cat cats kitten pet pets] [animal animals vet bird horse]
//   travel [travel trip vacation holiday journey] [flight airport hotel beach]
//          [paris france italy japan london]
//   work   [work job office career company] [boss colleague manager meeting salary]
//   family [family mother father mom dad parents] [sister brother son daughter kids children]
//          [wife husband married wedding]
//   health [doctor hospital medicine nurse sick illness] [health healthy diet exercise]
//   book   [book books novel reading read author] [library poetry poem writing writer]
//   tech   [computer software programming code laptop] [phone internet app website]
//   school [school university college student students class]
//          [teacher exam study degree psychology]
//   art    [art painting paint painted artist drawing] [museum gallery sculpture]
//   nature [weather rain snow sunny] [nature garden flowers tree park mountain]
//   time   [yesterday today tomorrow week weekend month year]
//          [monday friday saturday sunday morning evening]
//   color  [red blue green yellow color]
// Unclustered words (random directions): people time day new good great nice love like think
// feel want know go went going make made see saw say said tell friend friends home house car
// money life world help happy excited fun big little idea place way.
// Stop words (most frequent ranks, vectors near the common direction): the of and to a in is i
// it you that was for on are with he she they we my me at be this have has had from or an by not
// but what all were when there can do did so about 's n't 'm just really also would will your
// our his her their them us been if out up how very.
// Not in the lexicon (for "unknown word" tests): anything else, e.g. "zyzzyva", "qwertyuiop".
#pragma once

#include <string>
#include <vector>

#include "embed/lexicon.h"

namespace ontomem::testing {

inline constexpr int kTinyLexiconDim = 100;

struct TinyCluster {
  std::string name;                              // "movie"
  std::vector<std::vector<std::string>> groups;  // {{"movie", "film", ...}, {"actor", ...}}
};

// The clusters above.
const std::vector<TinyCluster>& TinyLexiconClusters();

// The words in rank order and their row-major vectors (words.size() * kTinyLexiconDim floats).
// Deterministic across runs and platforms.
void TinyLexiconData(std::vector<std::string>* words, std::vector<float>* vectors);

// Writes <dir>/tiny_lexicon.bin (or tiny_lexicon_int8.bin) and returns its path. Throws
// std::runtime_error if writing fails (gtest reports it as a test failure).
std::string WriteTinyLexicon(const std::string& dir,
                             LexiconElementType type = LexiconElementType::kFloat32);

}  // namespace ontomem::testing
