// Does a question ask what was said before ("what was it?", "did I tell you ...", "you once
// recommended ...") rather than for something new? The domain classifier's intent finds few of
// these (it learned IPR-synth's request templates); the engine's recall probability is 1 when
// this says so (src/engine/pipeline.cc; the lexical floor, docs/combiner.md).
#pragma once

#include <string_view>

namespace ontomem::text {

// The question says a cue of recall: a memory verb ("remember", "remind", "recall", "forgot"),
// "did I/you", "have I", "I/you once", "what was/were", "when did/was", "I/you/we" + a past verb
// of saying ("you recommended"), or "did/have/had I/you/we" + a verb of saying ("had we
// discussed"); texting "u" counts as "you". The retriever's static route sends such questions
// dense-first; the lexical floor keeps common words for them.
bool AsksWhatWasSaid(std::string_view question);

}  // namespace ontomem::text
