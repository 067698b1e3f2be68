// Model texts: `--model` reads a preset name, the staged form of unit_model.hpp, or the flat
// `custom:key=value,...` list (the names `fpconform models --json` prints); everything that
// writes a model down (profiles, reports, probe, fit) writes the staged form.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fpconform/fdpa.hpp"

namespace fpconform {

// Every parameter as (name, value), in a fixed order: structure, block, frac_bits, align,
// zero_exp ("none" for INT_MIN), c_in_block, late_c, acc_frac_bits, out_round, ...
std::vector<std::pair<std::string, std::string>> describe_params(const FdpaParams& p);

// The staged text of the unit p computes (unit_text(raise(p))): parse_model reads it back to
// parameters that compute the same bits as p, field for field those of lower(raise(p)).
std::string model_text(const FdpaParams& p);

// Whether every field describe_params lists has the same value in a and b.
bool same_params(const FdpaParams& a, const FdpaParams& b);

// `--model` text: a preset name (find_matrix_unit with in/out), the staged form of
// unit_model.hpp ("fused(block=32, frac_bits=13) | out(rtz)"), or
// `custom:key=value,...` with the names describe_params prints; `base=<preset>` (first) starts
// from that preset's parameters, otherwise from the defaults of FdpaParams. The flat keys are
// held to the staged form's rules: a key the unit does not read (frac_bits with
// structure=pairwise, late_c=1 with C in the block) or a combination its stages refuse is an
// error. Throws Error naming `what` for unknown keys, bad values, keys that mean nothing or an
// unknown preset.
FdpaParams parse_model(std::string_view text, const Format& in, const Format& out,
                       std::string_view what = "--model");
// The same for operands in the formats of `formats` (a preset: find_matrix_unit of them).
FdpaParams parse_model(std::string_view text, const FdpaFormats& formats,
                       std::string_view what = "--model");

}  // namespace fpconform
