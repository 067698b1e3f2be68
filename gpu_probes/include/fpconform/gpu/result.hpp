// Result files: what the runner writes for one job and the CPU side reads back. A versioned text
// header (key=value lines naming job, kernel, arch, driver, device, ...) and named binary blocks of
// little-endian integers. Layout in gpu_probes/PLAN.md "Result files".
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace fpconform::gpu {

inline constexpr int kResultVersion = 1;
inline constexpr char kResultMagic[8] = {'F', 'P', 'C', 'G', 'R', 'E', 'S', '1'};

struct ResultBlock {
  std::string name;
  int width = 4;                     // bytes per element on disk: 1, 2, 4 or 8
  std::vector<std::uint64_t> data;   // widened in memory
  bool operator==(const ResultBlock&) const = default;
};

struct Result {
  std::map<std::string, std::string> header;  // job, kernel, status, device, cc, driver, ...
  // deque: the reference add_block returns stays valid while more blocks are added
  std::deque<ResultBlock> blocks;

  const ResultBlock* block(const std::string& name) const;
  ResultBlock& add_block(const std::string& name, int width);
  std::string get(const std::string& key) const;  // "" when absent
  bool operator==(const Result&) const = default;
};

// Standard block names.
inline constexpr const char* kBlockOutputs = "outputs";           // raw outputs, case order
inline constexpr const char* kBlockInputs = "inputs";             // explicit jobs: the cases' codes
inline constexpr const char* kBlockRunStart = "runs.start";       // RLE: first input of each run
inline constexpr const char* kBlockRunValue = "runs.value";       // RLE: output of each run
inline constexpr const char* kBlockDigests = "digests";           // one per chunk
inline constexpr const char* kBlockSampleChunks = "sample.chunks";  // chunk indices, ascending
inline constexpr const char* kBlockSampleOutputs = "sample.outputs";  // their raw outputs

std::string encode_result(const Result& r);
// Throws FileError(source, 0 or header line, message) on anything malformed.
Result decode_result(const std::string& bytes, const std::string& source);
void write_result_file(const Result& r, const std::string& path);
Result read_result_file(const std::string& path);

}  // namespace fpconform::gpu
