// The result of checking a kernel's D against the model's bound (model_bound.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fpconform::validate {

struct BoundElement {
  int row = 0, col = 0;
  double error = 0, bound = 0, ratio = 0;  // |D - exact|, the model's bound, their ratio
};

struct BoundVerdict {
  bool bit_exact = false, within = false;  // within: every element within its bound
  std::uint64_t elements = 0, over = 0;    // over: elements past their bound
  double worst_ratio = 0;
  std::vector<BoundElement> worst;  // largest error / bound first
  double calc_diff = 0;  // 1 - 2 sum(x y) / sum(x^2 + y^2), x = D, y = exact
  double sqnr_db = 0;    // 10 log10(sum y^2 / sum (x - y)^2) (inf when equal)
  double rel_fro = 0;    // ||D - exact||_F / ||exact||_F
  std::string text() const;
};

}  // namespace fpconform::validate
