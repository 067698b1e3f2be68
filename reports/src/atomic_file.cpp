#include "fpconform/reports/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fpconform/error.hpp"

namespace fpconform::reports {

void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what) {
  const std::filesystem::path final_path(path);
  std::filesystem::path tmp = final_path;
  tmp += ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const std::string where(what);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(where, "cannot write '" + tmp.string() + "'");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error(where, "write to '" + tmp.string() + "' failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(where, "cannot rename into '" + path + "': " + ec.message());
  }
}

}  // namespace fpconform::reports
