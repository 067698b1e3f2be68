// fdpa's tree structure (fdpa.hpp), for fdpa.cpp.
#pragma once

#include <cstdint>
#include <span>

#include "fpconform/fdpa.hpp"

namespace fpconform::detail {

// Products per instruction of p.tree. Throws Error for a malformed tree.
int tree_width(const FdpaParams& p);

std::uint64_t tree_dot(const FdpaParams& p, const FdpaFormats& f,
                       std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                       std::uint64_t c);

}  // namespace fpconform::detail
