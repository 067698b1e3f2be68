// The CLI's matrix readers: read_matrix (.npy, or CSV / whitespace text) and read_raw_matrix,
// on a file holding the input (after two bytes that choose the kind, the format and the
// options). Property of an accepted matrix: rows, cols > 0, rows * cols codes, each within the
// format's width.
#include <unistd.h>

#include <fstream>
#include <string>

#include "fuzz_common.hpp"
#include "fpconform/files/matrix_io.hpp"

using namespace fpconform;

namespace {

const std::string& temp_base() {
  static const std::string base = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/fpconform_fuzz_matrix_" +
           std::to_string(::getpid());
  }();
  return base;
}

void check(const Matrix& m, const Format& f) {
  fpfuzz::require(m.rows > 0 && m.cols > 0, "matrix", "an accepted matrix with an empty shape");
  fpfuzz::require(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols) ==
                      m.codes.size(),
                  "matrix",
                  "shape " + std::to_string(m.rows) + "x" + std::to_string(m.cols) + " but " +
                      std::to_string(m.codes.size()) + " codes");
  for (std::uint64_t c : m.codes)
    fpfuzz::require((c & ~f.code_mask()) == 0, "matrix", "a code wider than " + f.name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const std::uint8_t kind = in.u8();
  const Format& f = fpfuzz::pick_format(in.u8());
  const std::string_view body = in.rest();
  static const char* const kExt[] = {".npy", ".csv", ".txt", ".bin"};
  const std::string path = temp_base() + kExt[kind % 4];
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
  }
  const bool round_values = kind & 4;
  if (kind % 4 == 3) {
    const int rows = static_cast<int>(kind >> 3) - 2, cols = 1 + static_cast<int>(body.size() % 7);
    Matrix m;
    if (fpfuzz::guarded("matrix", [&] { m = files::read_raw_matrix(path, f, rows, cols, "--a"); }))
      check(m, f);
  } else {
    Matrix m;
    if (fpfuzz::guarded("matrix", [&] { m = files::read_matrix(path, f, "--a", round_values); }))
      check(m, f);
  }
  std::remove(path.c_str());
  return 0;
}
