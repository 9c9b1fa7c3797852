#include "embed/lexicon_cli.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "embed/lexicon.h"
#include "embed/lexicon_build.h"

namespace ontomem {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string Summary(const Lexicon& lex) {
  return fmt::format("{}: {} words x {} dims, {}, {:.1f} MB, checksum {:016x}", lex.path(),
                     lex.size(), lex.dim(), LexiconElementTypeName(lex.element_type()),
                     static_cast<double>(lex.file_size()) / 1e6, lex.checksum());
}

}  // namespace

int RunLexiconBuild(const std::string& from_json, const std::string& out_path, bool int8) {
  if (from_json.empty() || out_path.empty()) {
    std::fprintf(stderr, "lexicon build: --from and --out are required\n");
    return 1;
  }
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(out_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  LexiconBuildOptions options;
  options.element_type = int8 ? LexiconElementType::kInt8 : LexiconElementType::kFloat32;
  auto t0 = std::chrono::steady_clock::now();
  Status s = BuildLexiconFromWinkJson(from_json, out_path, options);
  if (!s.ok()) {
    std::fprintf(stderr, "lexicon build: %s\n", s.ToString().c_str());
    return 1;
  }
  double build_s = SecondsSince(t0);
  auto t1 = std::chrono::steady_clock::now();
  auto lex = Lexicon::Open(out_path);
  if (!lex.ok()) {
    std::fprintf(stderr, "lexicon build: wrote a file that does not open: %s\n",
                 lex.status().ToString().c_str());
    return 1;
  }
  std::printf("wrote %s in %.1f s (opens in %.0f ms)\n", Summary(**lex).c_str(), build_s,
              SecondsSince(t1) * 1e3);
  return 0;
}

int RunLexiconCheck(const std::string& path) {
  if (path.empty()) {
    std::fprintf(stderr, "lexicon check: --path is required\n");
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto lex = Lexicon::Open(path);
  if (!lex.ok()) {
    std::fprintf(stderr, "lexicon check: %s\n", lex.status().ToString().c_str());
    return 1;
  }
  std::printf("ok %s (opened in %.0f ms)\n", Summary(**lex).c_str(), SecondsSince(t0) * 1e3);
  return 0;
}

}  // namespace ontomem
