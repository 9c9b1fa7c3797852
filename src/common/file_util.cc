#include "common/file_util.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ontomem {

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  // A directory opens as a stream that reads as empty.
  if (std::filesystem::is_directory(path, ec)) return Status::InvalidArgument(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": cannot read");
  return ss.str();
}

Status WriteFileAtomic(const std::string& path, const std::string& content) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::InvalidArgument(path + ": is a directory, not a file");
  // One temporary name per writer: two processes sharing one would interleave their bytes.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter.fetch_add(1));
  bool ok;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << content;
    ok = static_cast<bool>(f.flush());
  }
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return Status::IOError(ok ? "cannot rename " + tmp + " to " + path + ": " + ec.message() : "cannot write " + tmp);
  }
  return Status::Ok();
}

}  // namespace ontomem
