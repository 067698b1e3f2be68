// Recorded rows: dot products someone ran on a unit (inputs and its answer), read into DotCases
// for passive fitting. Two layouts:
//  - the tensor-core dumps of Khattak & Mikaitis (suites/data/tensorcore-dumps/<GPU>/<fmt>/:
//    a_*.txt and b_*.txt with fp32 hex patterns, c_*_fp32.txt and d_*_fp32.txt / d_*_fp16.txt
//    with 32 binary digits per line; see the README there);
//  - the plain layout of tools/engines/characterize/ROWS.md (a header `# in=FMT out=FMT`, with
//    `b=FMT` where b's format is not a's, then one row per line: `a_0 .. a_{K-1} | b_0 .. b_{K-1}
//    | c | d` in hex codes).
// Every error names file:line.
#pragma once

#include <iosfwd>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "fpconform/characterize/dot_case.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/fdpa.hpp"

namespace fpconform::characterize {

struct RecordedRows {
  Format in, out;           // a's; C's and D's
  std::optional<Format> b;  // b's format, where it is not a's
  const Format& b_format() const { return b ? *b : in; }
  FdpaFormats formats() const { return {in, b_format(), out, out}; }
  std::vector<DotCase> cases;
  std::vector<std::string> where;  // "file:line" of each case, for reports
  std::string layout;              // "tensorcore-dumps" or "plain"
};

struct RowsOptions {
  std::string in, out;  // format names; empty: from the plain header, or the dumps' names
  std::string in_b;     // b's format name (plain layout); empty: from the header, or in's
  // The rows were recorded with C = +0 whatever the c file says (the H100 fp8 wgmma rows with
  // fp32 output, per the dumps' README).
  bool c_zero = false;
};

// A directory is read as a tensor-core dump, a file as the plain layout. Throws Error naming
// file:line (or the path) on anything malformed.
RecordedRows read_rows(const std::string& path, const RowsOptions& options = {});

// The plain layout from a stream; `name` is the file name errors give.
RecordedRows read_plain_rows(std::istream& text, const std::string& name,
                             const RowsOptions& options = {});

// Writes cases in the plain layout (header included), codes with the formats' hex widths.
void write_plain_rows(std::ostream& text, const FdpaFormats& f, std::span<const DotCase> cases);

}  // namespace fpconform::characterize
