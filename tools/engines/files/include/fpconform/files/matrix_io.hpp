// Matrices in and out of the CLI: .npy (NumPy format 1.0-3.0; float16/32/64 values, or
// unsigned integers / void fields holding raw codes, in exactly the format's storage width:
// uint8 for 8-bit formats and narrower, uint16 for bf16/f16, ...) and text (CSV or whitespace-separated;
// each cell a decimal or hex-float value, or 0x raw bits). Values must be exactly representable
// in the target format: a kernel's inputs are codes, and silently rounding them would hide a
// mismatch. Every error names file:line[:column] (text) or the file and the element (.npy).
#pragma once

#include <string>
#include <string_view>

#include "fpconform/gemm.hpp"

namespace fpconform::files {

// Reads `path` into codes of `f`. `what` names the argument in errors ("--a"). With
// `round_values`, values that `f` cannot hold exactly are rounded to nearest even instead of
// refused (data to be quantized, rather than a kernel's operands).
Matrix read_matrix(const std::string& path, const Format& f, std::string_view what,
                   bool round_values = false);

// Raw little-endian codes: rows x cols elements, each in the smallest of 1, 2, 4 or 8 bytes
// that holds f's width (tf32 in 4). Errors name `what` and the file: a size that is not
// rows * cols elements, codes wider than the format.
Matrix read_raw_matrix(const std::string& path, const Format& f, int rows, int cols,
                       std::string_view what);

// Writes `m` to `path` atomically (a temporary file, then rename): .npy as raw codes in the
// smallest unsigned type that holds them (float32/float16/float64 values for f32/f16/f64),
// otherwise CSV with exact decimal values (hex raw codes when `hex`). "-" writes the CSV to
// standard output; a path that is not a regular file is refused (reports::write_output), errors
// naming `what`.
void write_matrix(const std::string& path, const Matrix& m, bool hex, std::string_view what = "-o");

}  // namespace fpconform::files
