// Sentence embedders turn text into unit-length vectors for the dense view.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ontomem/status.h"

namespace ontomem {

class Embedder {
 public:
  virtual ~Embedder() = default;
  // Stable identity stored next to every vector ("glove-sif-100:<checksum>"); a different id on
  // open means the stored vectors are stale and must be rebuilt.
  virtual std::string id() const = 0;
  virtual int dim() const = 0;
  // Writes dim() floats with unit L2 norm into `out` (all zeros when no word is known).
  // Thread-safe.
  virtual Status Embed(std::string_view text, float* out) const = 0;
  // Embeds every text, row i at out + i * dim(). The default embeds them one by one; a remote
  // embedder sends them in few requests (ingest and reindexing call this). Thread-safe.
  virtual Status EmbedBatch(const std::vector<std::string_view>& texts, float* out) const {
    for (size_t i = 0; i < texts.size(); ++i) RETURN_IF_ERROR(Embed(texts[i], out + i * static_cast<size_t>(dim())));
    return Status::Ok();
  }
};

// Loads the default GloVe-SIF embedder from a lexicon file made by `ontomem lexicon build`.
// Fails with FailedPrecondition naming the command that fixes a missing or corrupt file.
StatusOr<std::shared_ptr<Embedder>> LoadSifEmbedder(const std::string& lexicon_path);

// An embedding model behind an OpenAI-compatible endpoint (`POST <base_url>/v1/embeddings` with
// {"model", "input"}; llama.cpp's server, vLLM, Ollama, a hosted API). Optional: the engine never
// needs one. Vectors are normalised to unit length here.
struct HttpEmbedderOptions {
  std::string base_url = "http://127.0.0.1:8080";  // scheme://host[:port][/prefix]; a trailing /v1 is fine
  std::string model = "default";
  std::string api_key;          // sent as "Authorization: Bearer <key>" when not empty
  int timeout_ms = 10000;       // connect, read and write, per request
  size_t max_text_bytes = 16384;  // longer texts are cut (at a UTF-8 boundary) before sending
};

// Embeds a probe text to learn the model's dimension. Fails with Unavailable naming the URL and
// what went wrong (no answer, HTTP status, a body without one numeric vector). The embedder's
// id() is "http:<model>:<dim>": vectors stored by another model are recomputed on each user's
// next load, as after a lexicon change.
// Thread-safe; Embed() is one request, EmbedBatch() one per 64 texts; any failure is Unavailable.
StatusOr<std::shared_ptr<Embedder>> ConnectHttpEmbedder(const HttpEmbedderOptions& options);

}  // namespace ontomem
