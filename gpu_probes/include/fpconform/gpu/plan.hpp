// Probe plans: what a GPU machine should run, as a small text file that a CPU machine writes and
// the runner reads (format and rules: gpu_probes/PLAN.md). A plan never lists huge inputs: it
// names explicit cases, a seeded generator, or an exhaustive sweep.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fpconform::gpu {

inline constexpr int kPlanVersion = 1;

// A bad plan or result file, with the place: "file:line: message".
class FileError : public std::runtime_error {
 public:
  FileError(const std::string& file, int line, const std::string& message)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + message) {}
};

enum class InputMode { explicit_cases, generated, sweep };

// How one operand's codes are drawn (PLAN.md "Generator").
struct Distribution {
  enum class Kind { uniform, finite, window, zero } kind = Kind::finite;
  int window = 0;  // Kind::window: biased exponent within bias +- window
  bool operator==(const Distribution&) const = default;
};

struct Job {
  std::string name;
  std::string kernel;
  InputMode input = InputMode::explicit_cases;
  int line = 0;  // where the job starts in its plan file, for messages

  // explicit: one vector of codes per case (convert: 1; scalar: arity; dot: 2k+1 = a, b, c)
  std::vector<std::vector<std::uint32_t>> cases;

  // generated
  std::uint64_t count = 0;
  std::uint64_t seed = 0;
  Distribution dist_a, dist_b, dist_c;  // scalar: operands 1, 2, 3; dot: a, b, c

  // results: raw outputs of the first raw_count cases (generated; all cases when explicit);
  // digests of every 2^chunk_log2 consecutive cases (generated and scalar sweeps);
  // raw outputs of sample_chunks chunks drawn with sample_seed (scalar sweeps).
  std::uint64_t raw_count = 0;
  int chunk_log2 = 12;
  std::uint64_t sample_chunks = 0;
  std::uint64_t sample_seed = 1;
  std::uint64_t max_runs = 1ull << 24;  // conversion sweeps: refuse more runs than this

  // Equal in everything a plan says (the source line is not part of it).
  bool operator==(const Job& o) const;
};

struct Plan {
  std::string source;  // file name used in messages
  std::vector<Job> jobs;
  bool operator==(const Plan& o) const { return jobs == o.jobs; }
};

// Parses plan text; throws FileError naming source:line. Checks every job against the kernel
// catalog (kernel exists, case widths and counts fit it, sweep sizes make sense).
Plan parse_plan(const std::string& text, const std::string& source);
Plan read_plan_file(const std::string& path);
std::string write_plan(const Plan& plan);

std::string to_string(const Distribution& d);
std::string_view to_string(InputMode m);

// Number of cases a job evaluates (sweeps: 2^(in_bits * operands)).
std::uint64_t job_case_count(const Job& job);

}  // namespace fpconform::gpu
