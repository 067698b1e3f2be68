// Checkpoint files of resumable long runs (`sweep`, `probe`): which run a file belongs to (the
// command and its canonical arguments, i.e. those that determine the result) and the run's
// state as named lines. Plain text, so a person can see how far a run got:
//
//   fpconform-checkpoint 1
//   command sweep
//   args from=f16 to=e4m3 inputs=all ...
//   <key> <value>            (the run's own fields, in order; keys may repeat)
//   checksum <16 hex digits>  (FNV-1a 64 of every byte before this line)
//
// Written atomically (reports::write_file_atomically), so a kill -9 leaves the previous
// checkpoint or the new one, never a mixture; the checksum catches a damaged or edited file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpconform::files {

struct Checkpoint {
  std::string command;
  std::string args;
  std::vector<std::pair<std::string, std::string>> fields;  // values hold no newline
  std::vector<std::string> places;  // "path:line" of each field, when read from a file

  void add(std::string key, std::string value) { fields.emplace_back(std::move(key), std::move(value)); }
  // The index of the first field named `key`; throws Error(path, ...) when missing.
  std::size_t find(std::string_view key, const std::string& path) const;
  const std::string& place(std::size_t i, const std::string& path) const {
    return i < places.size() ? places[i] : path;
  }
};

std::string checkpoint_text(const Checkpoint& c);
void write_checkpoint(const std::string& path, const Checkpoint& c);

// The checkpoint at `path`, if the file exists. Throws Error naming path (and line) when it is
// not a checkpoint, is damaged, or belongs to another command or other arguments.
std::optional<Checkpoint> read_checkpoint(const std::string& path, std::string_view command,
                                          std::string_view args);

// Parses text as read_checkpoint does (`path` only names the place in messages).
Checkpoint parse_checkpoint(std::string_view text, const std::string& path,
                            std::string_view command, std::string_view args);

// A value with spaces, backslashes and control characters escaped (\xNN), and back.
std::string escape_field(std::string_view s);
std::string unescape_field(std::string_view s, const std::string& place);

}  // namespace fpconform::files
