#include <cstdlib>
#include <string>

#include "ontomem/options.h"
#include "ontomem/types.h"

namespace ontomem {

const char* MethodName(Method m) {
  switch (m) {
    case Method::kDense: return "dense";
    case Method::kBm25: return "bm25";
    case Method::kFusion: return "fusion";
    case Method::kFull: return "full";
    case Method::kRewrite: return "rewrite";
    case Method::kPpr: return "ppr";
  }
  return "unknown";
}

bool ParseMethod(const std::string& name, Method* out) {
  if (name == "dense") *out = Method::kDense;
  else if (name == "bm25") *out = Method::kBm25;
  else if (name == "fusion") *out = Method::kFusion;
  else if (name == "full") *out = Method::kFull;
  else if (name == "rewrite") *out = Method::kRewrite;
  else if (name == "ppr") *out = Method::kPpr;
  else return false;
  return true;
}

std::string DefaultLexiconPath() {
  if (const char* env = std::getenv("ONTOMEM_LEXICON"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.cache/ontomem/lexicon.bin";
}

}  // namespace ontomem
