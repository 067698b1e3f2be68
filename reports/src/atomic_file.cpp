#include "fpconform/reports/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "fpconform/core/error.hpp"

namespace fpconform::reports {

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// What lies at `path`, in words, for the refusal ("a symbolic link").
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISREG(mode)) return "a regular file";
  return "of an unknown kind";
}

// Writes all of `bytes` to `fd`, then syncs it; false (errno set) on failure.
bool write_all(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0 || errno == EINVAL;  // EINVAL: a file system without fsync
}

}  // namespace

void check_output_file(const std::string& path, std::string_view what) {
  const std::string where(what);
  if (path.empty()) throw Error(where, "an empty path names no file");
  if (path == "-") throw Error(where, "'-' (standard output) is not accepted here; name a file");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // absent (or unreachable: the write says why)
  if (S_ISREG(st.st_mode)) return;
  const char* kind = kind_of(st.st_mode);
  throw Error(where, quoted(path) + " is not a regular file (" + kind + "); refusing to replace it");
}

void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what) {
  const std::string where(what);
  check_output_file(path, what);
  const std::filesystem::path final_path(path);
  std::filesystem::path dir = final_path.parent_path();
  if (dir.empty()) dir = ".";
  // A short hidden name (a long destination name plus a suffix could exceed NAME_MAX), created
  // with O_EXCL so that nothing already there (a planted link) is followed or reused.
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    char name[80];
    std::snprintf(name, sizeof name, ".fpconform.%ld.%u.%08x.tmp", static_cast<long>(::getpid()),
                  counter.fetch_add(1), static_cast<unsigned>(rd()));
    tmp = (dir / name).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw Error(where, "cannot write " + quoted(path) + ": " + std::strerror(errno));
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode))
    (void)::fchmod(fd, old.st_mode & 07777);  // a replaced file keeps its permissions
  const bool written = write_all(fd, bytes);
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    throw Error(where, "write to " + quoted(path) + " failed: " +
                           std::strerror(written ? errno : write_errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw Error(where, "cannot rename into " + quoted(path) + ": " + std::strerror(e));
  }
}

void write_output(const std::string& path, std::string_view bytes, std::string_view what) {
  if (path != "-") return write_file_atomically(path, bytes, what);
  std::fflush(stdout);
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
    throw Error(std::string(what), "write to standard output failed: " + std::string(std::strerror(errno)));
}

void prepare_output_dir(const std::string& path, std::string_view what) {
  const std::string where(what);
  if (path.empty()) throw Error(where, "an empty path names no directory");
  if (path == "-") throw Error(where, "'-' (standard output) cannot hold files; name a directory");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return;
    throw Error(where, quoted(path) + " is not a directory (" + kind_of(st.st_mode) + ")");
  }
  if (::lstat(path.c_str(), &st) == 0)  // a link to nothing: creating would follow it
    throw Error(where, quoted(path) + " is a dangling symbolic link; refusing to follow it");
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw Error(where, "cannot create " + quoted(path) + ": " + ec.message());
}

}  // namespace fpconform::reports
