// Passive fitting: every parameter set of a finite family that reproduces every recorded row,
// the survivors grouped into classes that no probe tried tells apart, and for the classes that
// differ, the inputs (probes) on which they give different answers. Seeded and deterministic.
//
// The family (fit_family) is the presets for the formats (first, so a matching preset is the
// first match) and a grid over the fused block: block L in {1, 2, 4, ..., 64}, frac_bits F in
// [min_frac_bits, max_frac_bits], align in {truncate, nearest_even, down}, zero_exp in {none,
// -132, -133} (the values the presets use), C in the block / added exactly after it / late
// (AMD CDNA3's two stages) / added last by an IEEE addition (ptxas's fp8 mma.sync on Hopper:
// instr_k 32, k_order natural or pairs_mod4), out rounding in {rtz, rne, up, down} or an RZ cut
// to acc_frac_bits in [acc_min, out.man_bits - 1] (then the output rounding is moot: rtz),
// flush of subnormal inputs and outputs; plus the pairwise (L, rounding, flush), sequential
// (rounding, flush) and exact (L, rounding, output flush) structures; and, for rows of k products,
// reduction trees of IEEE operations in `out` (tree_templates.hpp: FMA chains in either order with
// C first or last, interleaved chains, balanced trees; over instructions of k or of a power of two
// dividing k) with every node rounding by one mode, each flush and each NaN rule.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/rows.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform::characterize {

struct FamilyOptions {
  int min_frac_bits = 8, max_frac_bits = 36;
  int acc_min_frac_bits = 10;
  int k = 0;             // products per row: the tree templates' size (0: no trees; fit sets it)
  bool presets = true;   // false: the grid and the trees alone (what the rows imply unaided)
};

struct FamilyMember {
  FdpaParams params;
  std::string preset;  // the preset it is ("hopper"), empty for grid members
};

// The family for operands and results in `f`, without duplicates (grid members that differ
// from a preset only in the NaN policy count as one; the trees vary it: special rows see it).
// A preset is a member where it has one model for a's and b's formats (find_matrix_unit).
std::vector<FamilyMember> fit_family(const FdpaFormats& f, const FamilyOptions& options = {});

struct FitOptions {
  FamilyOptions family;
  std::uint64_t seed = 1;
  int probe_budget = 4000;   // generated cases tried to split the survivors
  std::size_t closest = 5;   // near misses reported when nothing matches
  unsigned threads = 1;      // candidates tested in parallel (results do not depend on it)
};

// A case on which the matching classes do not all agree, with every class's answer.
struct Probe {
  DotCase inputs;                      // d unused
  std::vector<std::uint64_t> answers;  // per class (FitResult::classes order)
  std::vector<bool> failed;            // per class: the model refused the case (Error)
};

struct NearMiss {
  FamilyMember member;
  std::vector<std::size_t> failed_rows;  // indices into the rows
};

struct FitResult {
  std::size_t family_size = 0;
  std::size_t invalid = 0;               // members that threw Error on the rows
  std::vector<FamilyMember> matching;    // in family order
  std::vector<std::vector<std::size_t>> classes;  // indices into matching
  std::vector<Probe> probes;             // each split at least one class when found
  std::size_t probes_tried = 0;
  std::vector<NearMiss> closest;         // when nothing matches: fewest failed rows first
  double fit_seconds = 0, probe_seconds = 0;
};

FitResult fit(const FdpaFormats& f, std::span<const DotCase> rows,
              const FitOptions& options = {});

// The fields (describe_params names) in which members of the family differ.
std::span<const std::string_view> fit_family_fields();

// For each field describe_params names, the distinct values among `sets`, in order of first
// appearance: a field with one value is pinned by the rows, one with several is left open.
std::vector<std::pair<std::string, std::vector<std::string>>> field_values(
    std::span<const FamilyMember> sets);

// ---- reports (fit_report.cpp): what `fpconform fit` prints

struct FitReportOptions {
  std::string rows_path;
  std::size_t max_listed = 40;  // matching sets listed (0: all)
};

// The readable report: the rows, the family, the fields the rows pin and those they leave open,
// the matching sets by class, the probes with each class's answer (or, when nothing matches,
// the closest sets and the rows they fail), and as the last line `model <spec> agrees on N/M
// cases` (the first matching set, else the closest).
std::string fit_report_text(const FitResult& result, const RecordedRows& rows,
                            const FitReportOptions& options);

// The same as JSON text.
std::string fit_report_json(const FitResult& result, const RecordedRows& rows,
                            const FitReportOptions& options);

// The set the last line names (the first matching, else the closest; nullptr: neither) and the
// number of rows it reproduces.
const FamilyMember* fit_answer(const FitResult& result, std::size_t rows, std::size_t* agreed);

}  // namespace fpconform::characterize
