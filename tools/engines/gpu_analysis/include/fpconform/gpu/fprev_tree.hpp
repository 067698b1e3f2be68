// Summation trees from the FPRev rows of gpu-check (plans/write_check_plans.sh, fprev.plan):
// the recorded rows answer the queries of characterize's recover_checked_readings through a
// replay target, so the tree comes out of the same algorithm as for any live target, and is
// compared with the tree the kernel's expected model implies (expected_order).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "fpconform/gpu/result.hpp"

namespace fpconform::gpu {

struct FprevTree {
  std::string job, kernel, device, cc;
  int k = 0;
  std::string recovered;      // canonical tree text (order.hpp); empty when none was recovered
  std::vector<std::string> alternatives;  // other trees every count fits alike
  std::string findings;       // describe_order's summary of the recovered tree
  std::string expected;       // the expected model's tree; empty when no model is expected
  std::string expected_from;  // "hopper-mma", "split-k=4 pairwise of ampere"
  std::string error;          // why no tree was recovered
  bool matches() const { return !recovered.empty() && recovered == expected; }
};

// Whether r is an FPRev result (job fprev.<kernel>).
bool is_fprev_result(const Result& r);

// Recovers the tree from one FPRev result. A row that is not an FPRev row (M, -M, equal units)
// throws std::invalid_argument (the caller names the file); an output that is not a count of
// units, or counts that give no tree (a query the rows lack, inconsistent counts), are reported
// in `error`: findings about the device rather than bad input.
FprevTree fprev_tree(const Result& r);

// "fprev KERNEL (k = K): tree T", the findings, and "expected (model): T': matches|DIFFERS".
std::string to_string(const FprevTree& t);
// The "Summation trees" section of mma.md.
std::string fprev_markdown(std::span<const FprevTree> trees);

}  // namespace fpconform::gpu
