// ml_dtypes' numpy casts as a baseline: python3 (FPCONFORM_PYTHON, else Options::python) runs in
// a subprocess, times its own `x.astype(dtype)` over the same fp32 values (CPU time, best of the
// same rounds) and prints the rates. Absent Python, numpy or ml_dtypes: no rates, and a note
// says why.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cases.hpp"

namespace fpconform::bench {

struct MlDtypesRates {
  std::map<std::string, double> rate;        // by target label (e4m3_satfinite, ..., e2m1)
  std::map<std::string, std::string> dtype;  // the ml_dtypes type used for each label
};

MlDtypesRates mldtypes_rates(const Settings& s, const std::vector<float>& in);

}  // namespace fpconform::bench
