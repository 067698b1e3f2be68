// Results are written atomically: to a temporary file in the same directory, flushed, then
// renamed over the destination, so an interrupted run never leaves a half-written file that
// looks complete, and a failed write leaves the previous file as it was.
//
// What a user names as an output is only ever a regular file (or absent), a directory (for
// options naming one), or "-" (standard output, where the option says so). A symlink, FIFO,
// device node, socket or directory in place of an output file is refused, not replaced: the
// rename would swap the link or node for a regular file, and /dev/full as root would be gone.
// (Refusing a symlink rather than writing through it keeps the rule simple: the path named is
// the file written.)
#pragma once

#include <string>
#include <string_view>

namespace fpconform::reports {

// Throws Error naming `what` when `path` exists and is not a regular file (checked without
// following a symlink), or is "-" or empty.
void check_output_file(const std::string& path, std::string_view what);

// Writes `bytes` to `path` atomically. Throws Error naming `what` (an argument such as "-o") and
// the path when the path is refused (check_output_file) or cannot be written or renamed; the
// temporary file is removed then, and an existing file is left untouched.
void write_file_atomically(const std::string& path, std::string_view bytes,
                           std::string_view what = "output");

// As write_file_atomically, except that "-" writes `bytes` to standard output.
void write_output(const std::string& path, std::string_view bytes, std::string_view what);

// An output directory: created (with its parents) when absent; refused (Error naming `what`)
// when it exists and is not a directory (a symlink to a directory is accepted: writing inside
// it replaces nothing), or is "-" or empty.
void prepare_output_dir(const std::string& path, std::string_view what);

}  // namespace fpconform::reports
