// Fuzzes the LoCoMo-format loader (bench/dataset.h) and the JSONL turn reader: any bytes give a
// Dataset or an error Status, never a crash, throw or hang.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/dataset.h"

namespace {

// LoadTurnsJsonl reads a path: the input goes through one scratch file per process.
std::string* scratch_path = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char templ[] = "/tmp/ontomem-fuzz-jsonl-XXXXXX";
  const int fd = mkstemp(templ);
  if (fd < 0) abort();
  close(fd);
  scratch_path = new std::string(templ);
  atexit([] { unlink(scratch_path->c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto ds = ontomem::ParseLocomo(text, "fuzz");
  if (ds.ok()) {
    for (const auto& s : ds->samples) {
      if (s.sample_id.empty()) abort();  // the loader names unnamed samples
      for (const auto& t : s.turns)
        if (t.id.empty() || t.session.empty()) abort();
    }
  }
  // The free-text helpers see the raw bytes too (they parse strings taken from the file).
  (void)ontomem::ParseLocomoDateTime(text);
  (void)ontomem::NormaliseEvidence(text);

  FILE* f = fopen(scratch_path->c_str(), "wb");
  if (f == nullptr) abort();
  if (size > 0 && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  (void)ontomem::LoadTurnsJsonl(*scratch_path);
  return 0;
}
