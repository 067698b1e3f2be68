// Feature probes: crafted dot products (after Fasi, Higham, Mikaitis, Pranesh, PeerJ CS 7:e330
// (2021), and Khattak & Mikaitis, HPEC 2025 / arXiv 2512.07004) run on a black-box Target. Each returns the cases it
// ran, with the target's outputs, and what they show. Probes see only the Target interface.
//
// Two kinds: direct probes read a parameter off a threshold in the outputs (block size L: where a
// tiny term stops being swamped; alignment fraction bits F: the largest distance at which it
// survives), and discriminating probes run inputs chosen to separate the values of one parameter
// and keep the values whose predictions (with everything found so far) match every output seen.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/exact.hpp"

namespace fpconform::characterize {

// "0x3f800000".
std::string hex_code(std::uint64_t code);

// The target, its formats, and code-making helpers for crafted inputs.
class Prober {
 public:
  explicit Prober(Target& t, std::uint64_t seed = 1, int max_k = 64);
  Target& target() { return t_; }
  const Format& in() const { return in_; }  // a's format
  const Format& in_b() const { return in_b_; }
  const Format& out() const { return out_; }
  int max_k() const { return max_k_; }
  std::uint64_t seed() const { return seed_; }
  // The shortest supported length >= n (0: none up to max_k).
  int k_at_least(int n) const;
  // The code of (-1)^negative * sig * 2^exp in f when it is exactly representable.
  static std::optional<std::uint64_t> exact_code(const Format& f, bool negative, u128 sig, int exp);
  // Codes a of in() and b of in_b() (normal where possible) with a * b = (-1)^negative * sig *
  // 2^exp, where sig fits a's precision (b is a power of two); nullopt when the formats cannot
  // make it.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> product(bool negative, u128 sig, int exp) const;
  // A case of length k_at_least(n) with the given (position, a, b) terms, zeros elsewhere.
  DotCase make_case(int n, const std::vector<std::pair<int, std::pair<std::uint64_t, std::uint64_t>>>& terms,
                    std::uint64_t c) const;
  // Runs the cases on the target (fills d).
  void run(std::vector<DotCase>& cases) { observe(t_, cases); }
  // The lowest and highest exponents of products of normal inputs that the output holds.
  int low_product_exp() const;
  int high_product_exp() const;

 private:
  Target& t_;
  Format in_, in_b_, out_;
  std::uint64_t seed_;
  int max_k_;
};

// Whether the target computes simple exact dot products (1*1 + 0 = 1, ...): false with the
// reason for a target that returns NaN everywhere or garbage.
struct SanityResult {
  bool ok = true;
  std::string reason;
  ProbeEvidence evidence;
};
SanityResult probe_sanity(Prober& p);

// Identical calls (the same batch twice, and the cases in another batch order) must give identical
// answers; `deterministic` false with the differing cases otherwise.
struct DeterminismResult {
  bool deterministic = true;
  ProbeEvidence evidence;
};
DeterminismResult probe_determinism(Prober& p, std::size_t cases = 512);

// Direct probes: set the parameter in `guess` when the outputs determine it.
ProbeEvidence probe_block_size(Prober& p, FdpaParams& guess);
ProbeEvidence probe_frac_bits(Prober& p, FdpaParams& guess);

// Discriminating probes: crafted cases for one parameter group (synthesize.hpp names: "structure",
// "c_place", "align", "out_round", "acc_frac_bits", "zero_exp", "flush", "carry_bits",
// "product", "nan"); `seen` are the cases observed so far, used with the new ones.
ProbeEvidence probe_discriminate(Prober& p, const std::string& probe, FdpaParams& guess,
                                 const std::vector<DotCase>& seen);

// The feature probes in order (block size, F, then the discriminating probes "nan", "structure",
// "c_place", "out_round", "align", "acc_frac_bits", "zero_exp", "flush", "carry_bits",
// "product"), each starting from what the earlier ones found in `guess`. `progress`, when set,
// hears each finding; `direct`, when set, receives the guess after the two direct probes.
std::vector<ProbeEvidence> run_feature_probes(
    Prober& p, FdpaParams& guess,
    const std::function<void(const ProbeEvidence&)>& progress = nullptr,
    FdpaParams* direct = nullptr);

// The probes' crafted cases for one discriminating probe (not yet observed).
std::vector<DotCase> crafted_cases(Prober& p, const std::string& probe, const FdpaParams& guess);

}  // namespace fpconform::characterize
