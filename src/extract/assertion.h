// What Step I of Tag2Graph produces: a candidate fact {head, relation, tail, time} read from one
// turn, with where it came from and how sure we are.
#pragma once

#include <cstdint>
#include <string>

namespace ontomem {

// How the turn holds the fact. Only kAsserted facts about the speaker describe the speaker's
// current state; the others are kept (they matter for retrieval and contradiction handling) but
// never promoted.
enum class Modality {
  kAsserted,      // "I love Titanic", "I'm allergic to peanuts"
  kNegated,       // "I don't own a car" (a dislike is a DISLIKES assertion, not a negation)
  kHypothetical,  // "if I were vegan...", "I might try sushi"
  kReported,      // "my brother loves jazz": head is the other person
  kPast,          // "I used to love horror films" (no longer current)
};

const char* ModalityName(Modality m);

// A current fact about the speaker: what makes a turn a graph candidate for retrieval.
inline bool AboutSpeaker(Modality m, bool head_is_speaker) { return head_is_speaker && m == Modality::kAsserted; }
bool ParseModality(const std::string& name, Modality* out);

struct Assertion {
  int64_t id = 0;            // store row id; 0 until stored
  std::string head;          // the holder: the speaker's name, or the third party for kReported
  bool head_is_speaker = true;
  std::string relation;      // assertion relation id from the ontology ("LIKES", "ALLERGIC_TO", ...)
  std::string tail;          // normalised tail: lower-case lemma phrase ("titanic", "peanut")
  std::string tail_type;     // ontology entity type of the tail ("movie", "food", "allergen", ...)
  std::string domain;        // ontology domain id ("movies_tv", "food_diet", ...)
  int32_t tail_begin = 0;    // byte span of the tail mention in the turn text
  int32_t tail_end = 0;
  Modality modality = Modality::kAsserted;
  int64_t time_ms = 0;       // when it was said (the turn's time)
  int64_t source_seq = 0;    // the turn's seq
  std::string source_turn;   // the turn's external id ("D1:3")
  float confidence = 0;      // candidate-scorer probability after verification, 0..1
  bool explicit_fact = false;  // added through the API, not extracted
};

}  // namespace ontomem
