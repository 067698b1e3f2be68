// write_file_atomically: the destination holds either the old or the new content, never a part;
// no temporary file is left behind; failures name the argument.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/core/error.hpp"
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

// A scratch directory of its own per test.
std::filesystem::path scratch(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

int entries(const std::filesystem::path& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) (void)e, ++n;
  return n;
}

// The refusal names the option and the path, and says what is there.
void expect_refused(const std::string& path, const std::string& kind) {
  try {
    write_file_atomically(path, "data", "-o");
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "-o");
    EXPECT_NE(std::string(e.what()).find("'" + path + "' is not a regular file (" + kind + "); refusing to replace it"),
              std::string::npos)
        << e.what();
  }
}

TEST(AtomicFile, RefusesSymlinkFifoDeviceAndDirectory) {
  const auto dir = scratch("fpconform_atomic_refuse");
  const auto target = dir / "target";
  write_file_atomically(target.string(), "keep");
  std::filesystem::create_symlink(target, dir / "link");
  expect_refused((dir / "link").string(), "a symbolic link");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link"));
  EXPECT_EQ(slurp(target), "keep");
  std::filesystem::create_symlink(dir / "none", dir / "dangling");
  expect_refused((dir / "dangling").string(), "a symbolic link");
  EXPECT_FALSE(std::filesystem::exists(dir / "none"));
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  expect_refused((dir / "fifo").string(), "a FIFO");
  EXPECT_TRUE(std::filesystem::is_fifo(dir / "fifo"));
  std::filesystem::create_directory(dir / "sub");
  expect_refused((dir / "sub").string(), "a directory");
  expect_refused("/dev/null", "a character device");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  EXPECT_EQ(entries(dir), 5);  // no temporary left
  EXPECT_THROW(write_file_atomically("-", "x", "--json"), Error);
  EXPECT_THROW(write_file_atomically("", "x", "--json"), Error);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ReplacedFileKeepsItsPermissions) {
  const auto dir = scratch("fpconform_atomic_mode");
  const auto path = (dir / "out.csv").string();
  write_file_atomically(path, "one");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  write_file_atomically(path, "two");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(slurp(path), "two");
  std::filesystem::remove_all(dir);
}

// A write that fails midway (here: past RLIMIT_FSIZE) leaves the old file whole and no
// temporary behind.
TEST(AtomicFile, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const auto dir = scratch("fpconform_atomic_fail");
  const auto path = (dir / "out.json").string();
  write_file_atomically(path, "old contents");
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    write_file_atomically(path, std::string(1 << 16, 'x'), "--json");
  } catch (const Error& e) {
    threw = true;
    EXPECT_EQ(e.where(), "--json");
    EXPECT_NE(std::string(e.what()).find("write to '" + path + "' failed"), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(slurp(path), "old contents");
  EXPECT_EQ(entries(dir), 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, OutputDirectories) {
  const auto dir = scratch("fpconform_atomic_dirs");
  prepare_output_dir((dir / "a" / "b").string(), "--out");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "a" / "b"));
  std::filesystem::create_directory_symlink(dir / "a", dir / "to-a");
  EXPECT_NO_THROW(prepare_output_dir((dir / "to-a").string(), "--out"));  // writing inside replaces nothing
  write_file_atomically((dir / "file").string(), "x");
  EXPECT_THROW(prepare_output_dir((dir / "file").string(), "--out"), Error);
  std::filesystem::create_symlink(dir / "nowhere", dir / "dangling");
  EXPECT_THROW(prepare_output_dir((dir / "dangling").string(), "--out"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "nowhere"));
  try {
    prepare_output_dir("-", "--out");
    FAIL() << "no error for -";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--out");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fpconform::reports
