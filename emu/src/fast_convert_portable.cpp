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
#define FPC_PICK(MODE)                       \
  case RM::MODE:                             \
    lean = &lean_portable<RM::MODE, OutT>;   \
    full = &full_portable<RM::MODE, OutT>;   \
    return;
  switch (mode) {
    FPC_PICK(rne)
    FPC_PICK(rna)
    FPC_PICK(rtz)
    FPC_PICK(up)
    FPC_PICK(down)
    FPC_PICK(odd)
    default: lean = nullptr; full = nullptr; return;
  }
#undef FPC_PICK
}

template void pick_portable<std::uint8_t>(RM, LeanFn&, FullFn&);
template void pick_portable<std::uint16_t>(RM, LeanFn&, FullFn&);

}  // namespace fpconform::detail
