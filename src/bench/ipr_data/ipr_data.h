// Static pools and template components for the IPR-synth generator (src/bench/ipr_synth.cc).
// Every list here is partitioned by index into the train/dev/test splits (index % 5 in
// {0,1,2} -> train, 3 -> dev, 4 -> test), except the closed-class slot values marked SHARED
// (diets, allergens, genres, ...), which are the concepts the benchmark is about.
// All titles, dishes, apps, services and people are invented; see docs/benchmarks.md.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ontomem::ipr_data {

struct StrList {
  const char* const* items;
  size_t size;
};

// ---- entity pools (partitioned) ----
extern const StrList kTitleAdj, kTitleNoun;    // "The {Adj} {Noun}"
extern const StrList kPlotRole, kPlotPlace;    // alias: "the one about the {role} {place}"
extern const StrList kServices;                // streaming services
extern const StrList kToolStem, kToolSuffix;   // "{Stem}{suffix}"
extern const StrList kHabits;                  // productivity habits / techniques
extern const StrList kNicknames;               // alias for dishes and tools
extern const StrList kNames;                   // people (users and friends)

struct DishBase {
  const char* name;
  int diet;          // 0 vegan, 1 vegetarian, 2 pescatarian, 3 meat
  uint32_t allergens;
};
struct DishStyle {
  const char* name;
  const char* cuisine;
  uint32_t allergens;
};
extern const DishBase kDishBases[];
extern const size_t kNumDishBases;
extern const DishStyle kDishStyles[];
extern const size_t kNumDishStyles;
// Allergen bits (index into kAllergens).
extern const StrList kAllergenNames;

// ---- closed-class slot values (SHARED across splits) ----
extern const StrList kGenres, kDiets, kAllergies, kFoodDislikes, kMovieAvoid, kMovieCompany,
    kToolCategories, kSchedules, kWorkAvoid, kRelations;
// Allergen bit mask for each entry of kAllergies (0 when no dish carries it).
extern const uint32_t kAllergyBits[];
// Diet class each entry of kDiets excludes above (0 vegan .. 3 anything); -1 = not a class diet.
extern const int kDietClass[];

// ---- template components (partitioned) ----
extern const StrList kStmtOpen, kStmtClose, kQueryOpen, kQueryClose;
extern const StrList kLikeCores, kAversionCores, kAllergyCores, kDietCores, kHabitCores,
    kScheduleCores, kCompanyCores, kPlatformCores;
extern const StrList kUpdateLikeCores, kUpdateDietCores, kAliasIntroCores;
extern const StrList kFriendLikeCores, kDislikedOnceCores, kUsedToCores, kHypotheticalCores,
    kQuestionCores;
// Recurring-preference mode: how a concept is named next to an entity ("the {c} {v}").
extern const StrList kRecurCueForms;
extern const StrList kAcks, kChitChatUser, kChitChatPartner, kReactions;
extern const StrList kExplicitCores, kEllipsisCores;
// Query cores and ellipsis cue lines per query type (index = query type, see ipr_synth.cc).
extern const StrList kQueryCores[9];
extern const StrList kCueLines[9];
// Words that mark a LoCoMo filler turn as on-topic for a domain (dropped from filler).
extern const StrList kDomainVocabulary;

}  // namespace ontomem::ipr_data
