#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

namespace ontomem::testing {

TempDir::TempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

TempDir::~TempDir() {
  // In TearDownTestSuite there is no current test: a failure of any test of the suite counts.
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const bool failed = unit.current_test_info() != nullptr ? ::testing::Test::HasFailure()
                      : unit.current_test_suite() != nullptr ? unit.current_test_suite()->Failed()
                                                             : unit.Failed();
  if (failed) {
    std::cerr << "kept for inspection: " << path_ << "\n";
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void DamageByte(const std::string& path, long offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  f.seekp(offset);
  f.put('\x7f');
}

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace ontomem::testing
