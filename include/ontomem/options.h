// Options for Memory::Open. Every field states its default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ontomem/embedder.h"

namespace ontomem {

enum class Durability {
  kFull,    // SQLite synchronous=FULL: an acknowledged ingest survives power loss (default)
  kNormal,  // synchronous=NORMAL: survives a process crash, may lose the last commits on power loss
  kOff,     // synchronous=OFF: benchmarks and throwaway data only
};

struct Options {
  // Directory holding ontomem.db. Required.
  std::string data_dir;
  // Create the directory and database when missing (default true). False: NotFound if absent.
  bool create_if_missing = true;
  Durability durability = Durability::kFull;
  // Path of the lexicon made by `ontomem lexicon build`. Used when `embedder` is null.
  // Default: empty, which means $ONTOMEM_LEXICON, else $HOME/.cache/ontomem/lexicon.bin.
  std::string lexicon_path;
  // Custom embedder (tests, a remote endpoint). Default null: the GloVe-SIF lexicon embedder.
  std::shared_ptr<Embedder> embedder;
  // Upper bound on memory held by loaded users; least-recently-used users are evicted past it
  // and reloaded from the store on next use. Default 512 MiB.
  size_t memory_budget_bytes = size_t{512} << 20;
  // Largest accepted turn text in bytes (default 64 KiB); larger turns are ResourceExhausted.
  size_t max_turn_bytes = size_t{64} << 10;
  // Largest accepted batch (default 10,000 turns).
  size_t max_batch_turns = 10000;
};

// The lexicon path Options would use when lexicon_path is empty.
std::string DefaultLexiconPath();

}  // namespace ontomem
