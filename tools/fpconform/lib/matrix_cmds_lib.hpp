// The matrix-unit commands' logic: `models` listing, `dot` line streams, `gemm` files.
#pragma once

#include <cstdio>
#include <string>

#include "fpconform/fdpa.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::cli {

// `fpconform models`: per (preset, input) a line with its main parameters and source and an
// indented line with its staged form (unit_model.hpp, which --model takes), or (json) an array
// of {preset, input, output_rule, source, unit, params: {name: value}}.
std::string list_models(bool json);

struct DotSummary {
  std::uint64_t passed = 0, failed = 0, lines = 0;
};
// `fpconform dot`: each line `a_0 .. a_{K-1} b_0 .. b_{K-1} c` (hex, a/b in `in`, c in `out`;
// with `check` one more word, the expected D) -> D's bits, one line each; with `check`,
// mismatches `line N: ... got X expected Y` and a last line `P passed, F failed`. Malformed
// lines throw Error("line N", ...).
DotSummary run_dot(const FdpaParams& p, const FdpaFormats& f, bool check, std::FILE* input,
                   std::FILE* output);

}  // namespace fpconform::cli
