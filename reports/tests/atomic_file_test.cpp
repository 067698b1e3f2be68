// write_file_atomically: the destination holds either the old or the new content, never a part;
// no temporary file is left behind; failures name the argument.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/error.hpp"
#include "fpconform/reports/atomic_file.hpp"

namespace fpconform::reports {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, ReplacesWholeFileAndLeavesNoTemporary) {
  const auto dir = std::filesystem::temp_directory_path() / "fpconform_atomic_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = (dir / "out.json").string();
  write_file_atomically(path, "first");
  EXPECT_EQ(slurp(path), "first");
  write_file_atomically(path, std::string(1 << 20, 'x'));
  EXPECT_EQ(slurp(path).size(), 1u << 20);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, UnwritablePlaceIsAnErrorNamingTheArgument) {
  try {
    write_file_atomically("/nonexistent-dir/x/out.json", "data", "--out");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--out");
  }
}

}  // namespace
}  // namespace fpconform::reports
