#include "fpconform/files/checkpoint.hpp"

#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"

namespace fpconform::files {

namespace {

constexpr std::string_view kMagic = "fpconform-checkpoint 1";

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

std::size_t Checkpoint::find(std::string_view key, const std::string& path) const {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == key) return i;
  throw Error(path, "checkpoint has no '" + std::string(key) + "' line");
}

std::string escape_field(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c <= ' ' || c == '\\' || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out.empty() ? "\\e" : out;  // an empty value still fills its column
}

std::string unescape_field(std::string_view s, const std::string& place) {
  if (s == "\\e") return "";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 3 >= s.size() || s[i + 1] != 'x')
      throw Error(place, "bad escape in '" + std::string(s) + "'");
    const std::string h(s.substr(i + 2, 2));
    char* end = nullptr;
    const long v = std::strtol(h.c_str(), &end, 16);
    if (h.size() != 2 || *end) throw Error(place, "bad escape in '" + std::string(s) + "'");
    out += static_cast<char>(v);
    i += 3;
  }
  return out;
}

std::string checkpoint_text(const Checkpoint& c) {
  std::string body(kMagic);
  body += "\ncommand " + c.command + "\nargs " + c.args + "\n";
  for (const auto& [k, v] : c.fields) body += k + " " + v + "\n";
  return body + "checksum " + hex16(fnv1a(body)) + "\n";
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  reports::write_file_atomically(path, checkpoint_text(c), "--checkpoint");
}

Checkpoint parse_checkpoint(std::string_view text, const std::string& path,
                            std::string_view command, std::string_view args) {
  if (text.substr(0, kMagic.size()) != kMagic || text.substr(kMagic.size(), 1) != "\n")
    throw Error(path + ":1", "not an fpconform checkpoint (it should start with '" +
                                 std::string(kMagic) + "')");
  // Whose checkpoint it is comes first (a probe journal has no whole-file checksum), then the
  // checksum line that closes the file: anything damaged, cut short or edited fails there.
  {
    std::istringstream head{std::string(text.substr(0, 4096))};
    std::string l1, l2;
    std::getline(head, l1);
    if (std::getline(head, l2) && l2.rfind("command ", 0) == 0 && l2.substr(8) != command)
      throw Error(path + ":2", "a checkpoint of 'fpconform " + l2.substr(8) + "', not of 'fpconform " +
                                   std::string(command) + "'");
  }
  const std::size_t sum_at = text.rfind("checksum ");
  if (sum_at == std::string_view::npos || (sum_at > 0 && text[sum_at - 1] != '\n') ||
      text.substr(sum_at) != "checksum " + hex16(fnv1a(text.substr(0, sum_at))) + "\n")
    throw Error(path, "damaged checkpoint (checksum does not match; the file was cut short or "
                      "changed): delete it to start again");
  Checkpoint c;
  std::istringstream in{std::string(text.substr(0, sum_at))};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (n == 1) continue;
    const std::size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    const std::string place = path + ":" + std::to_string(n);
    if (n == 2) {
      if (key != "command") throw Error(place, "expected 'command NAME'");
      if (value != command)
        throw Error(place, "a checkpoint of 'fpconform " + value + "', not of 'fpconform " +
                               std::string(command) + "'");
      c.command = value;
    } else if (n == 3) {
      if (key != "args") throw Error(place, "expected 'args ...'");
      if (value != args)
        throw Error(place, "a checkpoint of a run with other arguments (" + value +
                               "), not of this one (" + std::string(args) +
                               "): rerun with those arguments, or delete the checkpoint");
      c.args = value;
    } else {
      c.add(key, value);
      c.places.push_back(place);
    }
  }
  return c;
}

std::optional<Checkpoint> read_checkpoint(const std::string& path, std::string_view command,
                                          std::string_view args) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  if (std::filesystem::is_directory(path, ec)) throw Error("--checkpoint", "'" + path + "' is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("--checkpoint", "cannot read '" + path + "'");
  std::ostringstream s;
  s << f.rdbuf();
  return parse_checkpoint(s.str(), path, command, args);
}

}  // namespace fpconform::files
