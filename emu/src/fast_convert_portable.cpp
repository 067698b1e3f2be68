// The fast conversion kernel (fast_convert_kernel.hpp) compiled for the baseline ISA: what the
// compiler vectorizes without AVX2 (no variable shifts, so tiers 2 and 3 stay scalar,
// branch-free code there).
#include <cstddef>
#include <cstdint>

#include "fast_convert_kernel.hpp"
#include "fast_convert_params.hpp"

namespace fpconform::detail {

using RM = RoundingMode;

namespace {

template <RM M, class OutT>
void lean_portable(const float* in, void* out, std::size_t n, const F32Params& p) {
  lean_impl<M, OutT>(in, out, n, p);
}
template <RM M, class OutT>
void full_portable(const float* in, void* out, std::uint8_t* fl, std::size_t n,
                   const F32Params& p) {
  full_impl<M, OutT>(in, out, fl, n, p);
}

}  // namespace

template <class OutT>
void pick_portable(RM mode, LeanFn& lean, FullFn& full) {
  FPC_PICK_KERNELS(lean_portable, full_portable, mode, lean, full)
}

template void pick_portable<std::uint8_t>(RM, LeanFn&, FullFn&);
template void pick_portable<std::uint16_t>(RM, LeanFn&, FullFn&);

}  // namespace fpconform::detail
