#include "fpconform/gpu/result.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

#include "fpconform/gpu/plan.hpp"

namespace fpconform::gpu {

const ResultBlock* Result::block(const std::string& name) const {
  for (const auto& b : blocks)
    if (b.name == name) return &b;
  return nullptr;
}

ResultBlock& Result::add_block(const std::string& name, int width) {
  blocks.push_back(ResultBlock{name, width, {}});
  return blocks.back();
}

std::string Result::get(const std::string& key) const {
  auto it = header.find(key);
  return it == header.end() ? std::string() : it->second;
}

namespace {
void put_le(std::string& out, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
std::uint64_t get_le(const std::string& in, std::size_t pos, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  return v;
}
bool valid_width(int w) { return w == 1 || w == 2 || w == 4 || w == 8; }
}  // namespace

// Layout: magic(8) | u32 header bytes | header text "key=value\n"... | u32 block count |
// per block: u32 name bytes, name, u32 width, u64 count, count*width bytes.
std::string encode_result(const Result& r) {
  std::string header = "version=" + std::to_string(kResultVersion) + "\n";
  for (const auto& [k, v] : r.header) {
    if (k == "version") continue;
    if (k.find_first_of("=\n") != std::string::npos || v.find('\n') != std::string::npos)
      throw std::invalid_argument("result header entry '" + k + "' holds '=' or a newline");
    header += k + "=" + v + "\n";
  }
  std::string out(kResultMagic, sizeof kResultMagic);
  put_le(out, header.size(), 4);
  out += header;
  put_le(out, r.blocks.size(), 4);
  for (const auto& b : r.blocks) {
    if (!valid_width(b.width)) throw std::invalid_argument("block '" + b.name + "' width " + std::to_string(b.width));
    put_le(out, b.name.size(), 4);
    out += b.name;
    put_le(out, static_cast<std::uint64_t>(b.width), 4);
    put_le(out, b.data.size(), 8);
    out.reserve(out.size() + b.data.size() * b.width);
    for (auto v : b.data) put_le(out, v, b.width);
  }
  return out;
}

Result decode_result(const std::string& in, const std::string& source) {
  std::size_t pos = 0;
  auto need = [&](std::size_t n, const char* what) {
    if (in.size() - pos < n) throw FileError(source, 0, std::string("truncated result file (") + what + ")");
  };
  need(sizeof kResultMagic, "magic");
  if (std::memcmp(in.data(), kResultMagic, sizeof kResultMagic) != 0)
    throw FileError(source, 0, "not a fpconform GPU result file (bad magic)");
  pos += sizeof kResultMagic;
  need(4, "header size");
  const auto header_size = get_le(in, pos, 4);
  pos += 4;
  need(header_size, "header");
  Result r;
  std::istringstream hs(in.substr(pos, header_size));
  pos += header_size;
  int line = 0;
  for (std::string l; std::getline(hs, l);) {
    ++line;
    const auto eq = l.find('=');
    if (eq == std::string::npos) throw FileError(source, line, "header line without '='");
    r.header[l.substr(0, eq)] = l.substr(eq + 1);
  }
  if (r.get("version") != std::to_string(kResultVersion))
    throw FileError(source, 1, "result version '" + r.get("version") + "' (this reader reads " +
                                   std::to_string(kResultVersion) + ")");
  r.header.erase("version");
  need(4, "block count");
  const auto blocks = get_le(in, pos, 4);
  pos += 4;
  for (std::uint64_t i = 0; i < blocks; ++i) {
    need(4, "block name size");
    const auto name_size = get_le(in, pos, 4);
    pos += 4;
    need(name_size, "block name");
    ResultBlock b;
    b.name = in.substr(pos, name_size);
    pos += name_size;
    need(12, "block width and count");
    b.width = static_cast<int>(get_le(in, pos, 4));
    const auto count = get_le(in, pos + 4, 8);
    pos += 12;
    if (!valid_width(b.width)) throw FileError(source, 0, "block '" + b.name + "' has width " + std::to_string(b.width));
    if (count > (in.size() - pos) / static_cast<std::uint64_t>(b.width))
      throw FileError(source, 0, "truncated result file (block '" + b.name + "')");
    b.data.resize(count);
    for (std::uint64_t j = 0; j < count; ++j) b.data[j] = get_le(in, pos + j * b.width, b.width);
    pos += count * b.width;
    r.blocks.push_back(std::move(b));
  }
  if (pos != in.size()) throw FileError(source, 0, "trailing bytes after the last block");
  return r;
}

void write_result_file(const Result& r, const std::string& path) {
  const std::string bytes = encode_result(r);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw FileError(path, 0, "cannot write result file");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw FileError(path, 0, "write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw FileError(path, 0, "cannot rename result file into place");
}

Result read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, 0, "cannot open result file");
  std::ostringstream s;
  s << in.rdbuf();
  return decode_result(s.str(), path);
}

}  // namespace fpconform::gpu
