#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace ontomem::testing {

std::string MakeTempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return std::string(buf.data());
}

}  // namespace ontomem::testing
