// Fuzzes the ingest pipeline: validation, embedding, fact extraction (the trained extractor,
// the repo's ontology, WordNet when installed) and the graph update, then a search and the
// graph's JSON, on an in-memory store. Checks what must hold for any input: a stored batch is
// readable back exactly, the graph serialises to valid JSON whose edges cite stored turns.
//
// Input: lines. "speaker: text" is a turn (no ": " = no speaker), "@ID" sets the next turn's
// id, "#SESSION" its session, "?query" searches, "!RELATION tail" adds a fact. Every
// "=" line ends a batch.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "embed/sif_embedder.h"
#include "engine/memory_impl.h"
#include "engine/pipeline.h"
#include "lexicon_fixture.h"
#include "store/store.h"

namespace ontomem {
namespace {

MemoryImpl* g_memory = nullptr;

void Check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "invariant violated: %s\n", what);
    abort();
  }
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size() && out.size() < 64) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) nl = s.size();
    out.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

void CheckGraph(const UserKey& key) {
  auto graph = g_memory->GraphJson(key);
  if (!graph.ok()) return;  // user never created (every batch rejected)
  auto doc = nlohmann::json::parse(*graph, nullptr, /*allow_exceptions=*/false);
  Check(!doc.is_discarded(), "GraphJson is valid JSON");
  auto turns = g_memory->Turns(key);
  std::set<int64_t> seqs;
  std::set<std::string> ids;
  if (turns.ok())
    for (const auto& t : *turns) {
      seqs.insert(t.seq);
      ids.insert(t.turn.id);
    }
  for (const auto& e : doc.value("edges", nlohmann::json::array())) {
    for (const auto& s : e.value("source_turns", nlohmann::json::array())) {
      if (s.is_number_integer()) Check(seqs.count(s.get<int64_t>()) > 0, "edge source seq is a stored turn");
      if (s.is_string()) Check(ids.count(s.get<std::string>()) > 0, "edge source id is a stored turn");
    }
  }
}

}  // namespace
}  // namespace ontomem

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace ontomem;
  const std::string src = ONTOMEM_SOURCE_DIR;
  const std::string dir = (std::filesystem::temp_directory_path() / "ontomem-fuzz-lexicon").string();
  std::filesystem::create_directories(dir);
  auto embedder = SifEmbedder::Open(testing::WriteTinyLexicon(dir));
  if (!embedder.ok()) abort();
  Options o;
  o.data_dir = dir;
  o.embedder = *embedder;
  o.ontology_path = src + "/data/ontology/ontology.json";
  o.models_dir = src + "/models";
  o.max_turn_bytes = 4096;  // keeps executions fast; the limit itself is part of what is tested
  auto pipeline = OpenFactPipeline(o, *embedder);
  if (!pipeline.ok()) {
    fprintf(stderr, "fuzz_ingest: %s\n", pipeline.status().ToString().c_str());
    abort();
  }
  g_memory = new MemoryImpl(o, NewInMemoryStore(), *embedder);
  g_memory->set_fact_pipeline(pipeline->extractor, pipeline->policy, pipeline->graph_context);
  g_memory->set_ontology(pipeline->ontology);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ontomem;
  const UserKey key{"fuzz", "user"};
  std::vector<Turn> batch;
  std::vector<Turn> stored;  // turns of acknowledged batches, in order
  Turn next;
  int64_t clock = 1700000000000;
  auto flush = [&] {
    if (batch.empty()) return;
    Status st = g_memory->IngestBatch(key, batch);
    if (st.ok())
      for (const Turn& t : batch) stored.push_back(t);
    batch.clear();
  };
  for (const std::string& line : Lines(std::string(reinterpret_cast<const char*>(data), size))) {
    if (line.empty()) continue;
    switch (line[0]) {
      case '@': next.id = line.substr(1); break;
      case '#': next.session = line.substr(1); break;
      case '=': flush(); break;
      case '?': {
        flush();
        SearchOptions so;
        so.k = 5;
        so.method = line.size() > 1 && line[1] == '?' ? Method::kFull : Method::kFusion;
        so.asker = next.speaker;
        auto r = g_memory->Search(key, line.substr(1), so);
        if (r.ok()) Check(r->hits.size() <= 5, "at most k hits");
        break;
      }
      case '!': {
        flush();
        Fact f;
        const size_t sp = line.find(' ', 1);
        f.relation = line.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
        if (sp != std::string::npos) f.tail = line.substr(sp + 1);
        (void)g_memory->AddFact(key, f);
        break;
      }
      default: {
        const size_t colon = line.find(": ");
        next.speaker = colon == std::string::npos ? "" : line.substr(0, colon);
        next.text = colon == std::string::npos ? line : line.substr(colon + 2);
        next.time_ms = (clock += 1000);
        batch.push_back(next);
        next.id.clear();
      }
    }
  }
  flush();
  // Every acknowledged turn is stored once, in order, intact (ids may repeat as duplicates).
  auto turns = g_memory->Turns(key);
  if (!stored.empty()) {
    Check(turns.ok(), "Turns after an acknowledged ingest");
    std::set<std::string> seen;
    size_t j = 0;
    for (const Turn& t : stored) {
      if (!t.id.empty() && seen.count(t.id)) continue;  // a retried id is a no-op
      Check(j < turns->size(), "acknowledged turn missing");
      const Turn& got = (*turns)[j++].turn;
      seen.insert(got.id);  // engine-assigned ids ("T<seq>") count too
      Check(got.text == t.text && got.speaker == t.speaker && got.time_ms == t.time_ms &&
                got.session == t.session && (t.id.empty() || got.id == t.id),
            "stored turn equals the ingested one");
    }
  }
  CheckGraph(key);
  (void)g_memory->Forget(key);
  return 0;
}
