// Extraction drills: short generated utterances for all 16 relations and 5 modalities, with
// exact gold spans, written by hand for training only (the IPR-synth train split covers just the
// benchmark's preference relations). Vocabulary and templates are generic English written for
// this project, not taken from any evaluation set.
#pragma once

#include <cstdint>
#include <vector>

#include "extract/annotations.h"

namespace ontomem::extract {

// `n` drill turns (ids "drill/<i>"), deterministic in `seed`.
std::vector<AnnotatedTurn> GenerateDrills(int n, uint64_t seed);
// `n` drill turns (ids "idiom/<i>") stating preferences, allergies, tools and habits in idioms
// ("I'm a sucker for {x}", "{x} drives me up the wall"), plus the same idioms as questions.
std::vector<AnnotatedTurn> GenerateIdiomDrills(int n, uint64_t seed);

}  // namespace ontomem::extract
