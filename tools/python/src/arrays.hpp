// What the binding files share: the array types they take, numpy arrays that own C++ vectors,
// and the check that codes fit their format.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/gemm.hpp"

namespace fpconform::python {

namespace nb = nanobind;

using Codes = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Codes2 = nb::ndarray<const std::uint64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using F32s = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A numpy array that owns `v`.
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& v, std::initializer_list<std::size_t> shape) {
  auto* owner = new std::vector<T>(std::move(v));
  nb::capsule free_it(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owner->data(), shape, free_it);
}

// A new 1-D numpy array of n elements, left uninitialized for the caller to fill (no memset of
// what is about to be overwritten); `data` receives its storage.
template <class T>
nb::ndarray<nb::numpy, T> new_numpy(std::size_t n, T*& data) {
  data = new T[n];
  nb::capsule free_it(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy, T>(data, {n}, free_it);
}

// Throws Error naming `what` at the first code with bits above f's width.
inline void check_codes(const std::uint64_t* codes, std::size_t n, const Format& f, const char* what) {
  for (std::size_t i = 0; i < n; ++i)
    if ((codes[i] & ~f.code_mask()) != 0)
      throw Error(what, "element " + std::to_string(i) + " holds bits above " + f.name + "'s " +
                            std::to_string(f.width()));
}
inline void check_codes(const Codes& c, const Format& f, const char* what) {
  check_codes(c.data(), c.shape(0), f, what);
}
inline void check_codes(const Codes2& c, const Format& f, const char* what) {
  check_codes(c.data(), c.shape(0) * c.shape(1), f, what);
}

// A matrix of codes of f (the library's Matrix) from a 2-D array.
inline Matrix matrix_of(const Codes2& a, const Format& f) {
  Matrix m{static_cast<int>(a.shape(0)), static_cast<int>(a.shape(1)), f, {}};
  m.codes.assign(a.data(), a.data() + a.shape(0) * a.shape(1));
  return m;
}

void bind_quantize(nb::module_& m);
void bind_probe(nb::module_& m);
void bind_bench(nb::module_& m);

}  // namespace fpconform::python
