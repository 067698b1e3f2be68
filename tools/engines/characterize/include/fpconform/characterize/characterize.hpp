// Automatic characterization of a black-box matrix unit: feature probes with crafted inputs
// (after Fasi et al. 2021 and Khattak & Mikaitis, HPEC 2025), a model of the FdpaParams family
// chosen from their evidence, validation on fresh random and adversarial cases, and refinement
// (a search over what the evidence left open, every case seen kept as evidence) until the model
// agrees on every case or the family is shown unable to express the unit.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/fdpa.hpp"
#include "fpconform/core/format.hpp"

namespace fpconform::characterize {

// What one probe found, and the observed cases that show it.
struct ProbeEvidence {
  std::string probe;    // "frac_bits"
  std::string finding;  // "frac_bits = 13"
  std::string proves;   // why the outputs imply it
  std::vector<DotCase> cases;  // inputs and the target's outputs
};

// The shortest max_k a characterization may use: the longest block of the fused structure
// (emu/src/fdpa.cpp: block 1..64). A shorter one would let the block-size probe see only the start
// of a longer block and the validation never reach its end, so a model with a wrong block could
// agree on every case.
inline constexpr int kMinProbeK = 64;

struct CharacterizeOptions {
  std::uint64_t seed = 1;
  std::uint64_t validation_cases = 100000;  // fresh random + adversarial cases
  int max_k = 64;                           // longest dot product validation uses
  int max_refinements = 8;                  // validate -> refine rounds before giving up
  // Called with a stage ("probe", "synthesize", "validate", "refine") and a line of detail.
  std::function<void(std::string_view stage, std::string_view detail)> progress;
};

struct Characterization {
  std::string target;
  Format in, out;           // a's; C's and D's
  std::optional<Format> b;  // b's format, where it is not a's
  const Format& b_format() const { return b ? *b : in; }
  FdpaFormats formats() const { return {in, b_format(), out, out}; }
  // "e4m3 -> f32", or "e4m3 x e5m2 -> f32" where b's format is not a's.
  std::string formats_text() const;
  FdpaParams model;
  std::string model_spec;                // model_text(model): the staged form
  std::vector<ProbeEvidence> evidence;   // one entry per probe, then refinements
  std::uint64_t validated = 0, agreed = 0;  // the final model on fresh cases
  std::vector<DotCase> counterexamples;  // where the final model disagrees (empty if none)
  bool expressible = true;               // false: no parameter set of the family reproduces it
  std::string verdict;                   // one paragraph: what the unit is, or why no model
  bool deterministic = true;             // identical calls gave identical answers
  std::uint64_t queries = 0;             // dot products the target evaluated
  double seconds = 0;
};

// Probes `t` (which must be available), synthesizes, validates and refines. Never throws for
// what the target answers (garbage, NaN everywhere, non-determinism: the verdict says so);
// throws Error when the target cannot run (unavailable(), or it refuses every k).
Characterization characterize(Target& t, const CharacterizeOptions& o = {});

// The summation tree as one more piece of evidence (FPRev; arXiv 2411.00442), at k = order_k, or
// order_k + 1 where the target takes only that; nullopt where it takes neither. A tree FPRev
// cannot recover is evidence too ("not recovered", and why).
std::optional<ProbeEvidence> order_evidence(Target& t, int order_k);

}  // namespace fpconform::characterize
