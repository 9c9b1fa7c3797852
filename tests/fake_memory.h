// A real SQLite-backed MemoryImpl over a fake embedder, and timed turns: the fixture of the
// retrieval tests.
#pragma once

#include <memory>
#include <string>

#include "engine/memory_impl.h"
#include "fake_embedder.h"
#include "test_util.h"

namespace ontomem::testing {

// Null when the store cannot be opened (the caller asserts).
inline std::unique_ptr<MemoryImpl> OpenFakeMemory(const std::string& dir, int dim = 1024) {
  Options o;
  o.data_dir = dir;
  auto emb = std::make_shared<FakeEmbedder>(dim, "fake-" + std::to_string(dim));
  o.embedder = emb;
  auto store = OpenSqliteStore(dir, true, Durability::kNormal);
  if (!store.ok()) return nullptr;
  return std::make_unique<MemoryImpl>(o, std::move(*store), emb);
}

// A turn of session "s1" said at time_ms.
inline Turn TimedTurn(std::string id, std::string speaker, std::string text, int64_t time_ms) {
  Turn t = MakeTurn(std::move(id), std::move(speaker), std::move(text));
  t.time_ms = time_ms;
  t.session = "s1";
  return t;
}

}  // namespace ontomem::testing
