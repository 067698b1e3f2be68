// The three TestFloat-style commands over streams: gen (operands + oracle results),
// ver (check lines against emu), eval (operands -> lines with emu's results). Buffered
// stdio, no iostreams: a million lines take about a second.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/generate.hpp"

namespace fpconform::testfloat {

// Throws Error if gen cannot run with these options (a profile, a bad level, an exhaustive run
// over too many operand bits); run_gen checks the same before it writes anything.
void check_gen(const Function& f, const Options& options, const GenOptions& gen);

// Writes complete lines with the MPFR oracle's results. Throws Error (e.g. with a profile).
// Returns the number of lines written.
std::uint64_t run_gen(const Function& f, const Options& options, const GenOptions& gen,
                      std::FILE* out);

struct VerSummary {
  std::uint64_t passed = 0;
  std::uint64_t failed = 0;
};
// Reads `operands result flags` lines and checks each against emu. Mismatches are written
// to `out` as `line N: <input> expected <ours> <flags>`, then the last line `P passed, F failed`.
// A malformed line throws Error("line N", ...) before the summary is written.
VerSummary run_ver(const Function& f, const Options& options, std::FILE* in, std::FILE* out);

// Reads operand lines (or complete lines, whose result fields are replaced) and writes
// complete lines with emu's results. Malformed lines throw Error("line N", ...).
std::uint64_t run_eval(const Function& f, const Options& options, std::FILE* in,
                       std::FILE* out);

// TestFloat spells options with one dash (-rnear_even, -level 2, -seed 7, -tininessafter,
// -exact, -notexact); this maps them to this CLI's long options (--round rne, --level 2,
// --seed 7, --tininess after, --exact, --notexact). Other arguments pass through unchanged.
std::vector<std::string> rewrite_testfloat_args(const std::vector<std::string>& args);

}  // namespace fpconform::testfloat
