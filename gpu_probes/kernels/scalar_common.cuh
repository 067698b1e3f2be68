// Op structs for the scalar intrinsics: FPC_SCALAR_OP(Name, Type, Bits, Arity, expression over
// a, b, c of Type) converts codes to Type, evaluates, and returns the result's code.
#pragma once
#include "elementwise.cuh"

#define FPC_SCALAR_OP(NAME, TYPE, BITS, ARITY, FROM_BITS, TO_BITS, EXPR)            \
  struct NAME {                                                                     \
    static constexpr int arity = ARITY, in_bits = BITS;                             \
    __device__ static bool supported() { return FPC_SM80; }                         \
    __device__ static std::uint32_t apply(const std::uint32_t* ops) {               \
      const TYPE a = FROM_BITS(ops[0]);                                             \
      const TYPE b = ARITY > 1 ? FROM_BITS(ops[ARITY > 1 ? 1 : 0]) : a;             \
      const TYPE c = ARITY > 2 ? FROM_BITS(ops[ARITY > 2 ? 2 : 0]) : a;             \
      (void)b;                                                                      \
      (void)c;                                                                      \
      return static_cast<std::uint32_t>(TO_BITS(EXPR));                             \
    }                                                                               \
  };
