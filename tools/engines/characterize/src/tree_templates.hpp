// The reduction-tree shapes fit_family tries: the ways CPU units are known to reduce (a chain of
// FMAs in either order, C first or last; s interleaved chains joined at the end, as AMX's even and
// odd k; a balanced tree), over the products of one instruction.
#pragma once

#include <vector>

#include "fpconform/sum_tree.hpp"

namespace fpconform::characterize {

// Every template over products 0 .. n-1 (n >= 1) and C, without duplicates, in a fixed order.
std::vector<SumTree> tree_templates(int n);

// The instruction sizes tried for rows of k products: n = k and each power of two n < k that
// divides k, from 2 up (a k = 64 row may be two 32-product instructions chained).
std::vector<int> tree_instruction_sizes(int k);

}  // namespace fpconform::characterize
