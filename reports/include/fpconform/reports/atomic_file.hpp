// Results are written atomically: to a temporary file in the same directory, flushed, then
// renamed over the destination, so an interrupted run never leaves a half-written file that
// looks complete.
#pragma once

#include <string>
#include <string_view>

namespace fpconform::reports {

// Writes `bytes` to `path` atomically. Throws Error naming `what` (an argument such as "-o") when
// the file cannot be written or renamed; the temporary file is removed then.
void write_file_atomically(const std::string& path, std::string_view bytes,
                           std::string_view what = "output");

}  // namespace fpconform::reports
