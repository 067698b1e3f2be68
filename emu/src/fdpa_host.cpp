// The host path of FdpaKernel (fdpa_host.hpp): the model's IEEE operations on the host's fma
// and add. Eight dot products run as the lanes of one vector, their operands gathered into
// lane-interleaved tiles; AVX2+FMA where the CPU has them, else plain C++ (the C library's fma).
// The row form: rows of A against the consecutive columns of a row-major B that fill a vector
// (AVX-512 as well), one lane per column, B's rows loaded as they are.
#include "fdpa_host.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#define FPC_HOST_X86 1
#include <immintrin.h>
#else
#define FPC_HOST_X86 0
#endif

#include "fdpa_tree.hpp"
#include "fpconform/core/cpu_features.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/nan_policy.hpp"
#include "fpconform/exact.hpp"
#include "fpconform/sum_tree.hpp"

namespace fpconform::detail {

namespace {

constexpr int kLanes = 8;

// An operand of a node while a program is built: a product not yet multiplied, or a register.
struct Operand {
  enum class Kind : std::uint8_t { none, product, reg } kind = Kind::none;
  int id = 0;
};

int new_register(HostProgram& prog) { return prog.registers++; }

Operand as_register(const Operand& o, HostProgram& prog) {
  if (o.kind != Operand::Kind::product) return o;
  HostOp op{HostOp::Kind::product};
  op.p = o.id;
  op.dst = new_register(prog);
  prog.ops.push_back(op);
  return {Operand::Kind::reg, op.dst};
}

// The tree's operations over its products 0 .. m-1 (the rest absent, as fdpa runs a short last
// instruction: a node left with one child rounds it alone, one left with none is dropped).
// Nullopt for a node the host has no one operation for.
std::optional<Operand> emit(const SumTree& t, int m, HostProgram& prog) {
  if (t.is_c()) return Operand{Operand::Kind::reg, 0};
  if (t.is_leaf()) return t.index() < m ? Operand{Operand::Kind::product, t.index()} : Operand{};
  if (t.exact() || t.children().size() > 2) return std::nullopt;
  std::vector<Operand> kids;
  for (const SumTree& ch : t.children()) {
    const std::optional<Operand> o = emit(ch, m, prog);
    if (!o) return std::nullopt;
    if (o->kind != Operand::Kind::none) kids.push_back(*o);
  }
  if (kids.empty()) return Operand{};
  if (kids.size() == 1) return as_register(kids[0], prog);  // a register is rounded already
  const Operand x = kids[0], y = kids[1];
  HostOp op{HostOp::Kind::add};
  if (x.kind == Operand::Kind::product && y.kind == Operand::Kind::product) {
    op.kind = HostOp::Kind::fma_pair;  // the later product onto the earlier one rounded alone
    op.p = std::max(x.id, y.id);
    op.q = std::min(x.id, y.id);
  } else if (x.kind == Operand::Kind::product || y.kind == Operand::Kind::product) {
    op.kind = HostOp::Kind::fma;
    op.p = x.kind == Operand::Kind::product ? x.id : y.id;
    op.x = x.kind == Operand::Kind::product ? y.id : x.id;
  } else {
    op.x = x.id;
    op.y = y.id;
  }
  op.dst = new_register(prog);
  prog.ops.push_back(op);
  return Operand{Operand::Kind::reg, op.dst};
}

// The pairwise structure's group of products lo .. hi-1: a balanced tree of additions over
// products rounded alone (left half (hi - lo) / 2). Where every product is exact in the output
// (fuse_pairs), two products' sum is one fma onto the other.
int emit_balanced(int lo, int hi, bool fuse_pairs, HostProgram& prog) {
  if (hi - lo == 1) return as_register({Operand::Kind::product, lo}, prog).id;
  if (hi - lo == 2 && fuse_pairs) {
    HostOp op{HostOp::Kind::fma_pair};
    op.p = lo + 1;
    op.q = lo;
    op.dst = new_register(prog);
    prog.ops.push_back(op);
    return op.dst;
  }
  const int mid = lo + (hi - lo) / 2;
  HostOp op{HostOp::Kind::add};
  op.x = emit_balanced(lo, mid, fuse_pairs, prog);
  op.y = emit_balanced(mid, hi, fuse_pairs, prog);
  op.dst = new_register(prog);
  prog.ops.push_back(op);
  return op.dst;
}

// The last operation writes the result into register 0 (C), where the next instruction reads
// it, instead of a copy after each instruction: it reads its sources before it writes.
void result_in_c(HostProgram& prog) {
  if (prog.ops.empty() || prog.ops.back().dst != prog.result) return;
  prog.ops.back().dst = 0;
  prog.result = 0;
}

std::optional<HostProgram> tree_program(const SumTree& t, int m) {
  HostProgram prog;
  const std::optional<Operand> root = emit(t, m, prog);
  if (!root) return std::nullopt;
  prog.result = root->kind == Operand::Kind::none ? 0 : root->id;
  result_in_c(prog);
  return prog;
}

HostProgram group_program(int len, bool fuse_pairs) {
  HostProgram prog;
  HostOp op{HostOp::Kind::add};
  op.x = 0;
  op.y = emit_balanced(0, len, fuse_pairs, prog);
  op.dst = new_register(prog);
  prog.ops.push_back(op);
  prog.result = op.dst;
  result_in_c(prog);
  return prog;
}

// The value of a code of f as the model reads an input (subnormals flushed where it flushes
// inputs), as a double: exact for every format that binary64 holds.
double host_value(std::uint64_t code, const Format& f, const FdpaParams& p) {
  ExactValue v = fpconform::decode(code, f);
  if (p.flush_subnormal_inputs && v.is_finite_nonzero() && f.subnormals &&
      v.sig < (u128(1) << f.man_bits))
    v = ExactValue::zero(p.flushed_inputs_positive ? false : v.negative);
  if (p.flush_subnormal_inputs && p.flushed_inputs_positive && v.is_zero())
    v = ExactValue::zero(false);
  if (v.is_nan()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_inf()) return v.negative ? -HUGE_VAL : HUGE_VAL;
  if (v.is_zero()) return v.negative ? -0.0 : 0.0;
  const double s = static_cast<double>(static_cast<std::uint64_t>(v.sig));
  return std::ldexp(v.negative ? -s : s, v.exp);
}

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using U = std::uint32_t;
};
template <>
struct Bits<double> {
  using U = std::uint64_t;
};

template <class T>
bool tiny(T r) {
  return std::fabs(r) <= std::numeric_limits<T>::min() && r != 0;
}

// Eight lanes of T and their operations, in plain C++ (the C library's fma where the compiler
// has no instruction for it). A mask marks the lanes that met a nonzero value of magnitude
// <= 2^emin.
template <class T>
struct PortableLanes {
  struct V {
    T v[kLanes];
  };
  using M = unsigned;
  static constexpr int kWidth = kLanes;
  static constexpr bool has_transpose8 = false;
  static V load(const T* p) {
    V r;
    for (int j = 0; j < kLanes; ++j) r.v[j] = p[j];
    return r;
  }
  static V splat(T x) {
    V r;
    for (int j = 0; j < kLanes; ++j) r.v[j] = x;
    return r;
  }
  static void store(T* p, const V& x) {
    for (int j = 0; j < kLanes; ++j) p[j] = x.v[j];
  }
  static V fma(const V& a, const V& b, const V& c) {
    V r;
    for (int j = 0; j < kLanes; ++j) r.v[j] = std::fma(a.v[j], b.v[j], c.v[j]);
    return r;
  }
  static V add(const V& a, const V& b) {
    V r;
    for (int j = 0; j < kLanes; ++j) r.v[j] = a.v[j] + b.v[j];
    return r;
  }
  static M none() { return 0; }
  static M mark(M m, const V& x) {
    for (int j = 0; j < kLanes; ++j) m |= static_cast<unsigned>(tiny(x.v[j])) << j;
    return m;
  }
  static unsigned bits(M m) { return m; }
};

#if FPC_HOST_X86
#define FPC_AVX2_FMA __attribute__((target("avx2,fma"))) inline

struct Avx2Lanes32 {
  using V = __m256;
  using M = __m256;
  static constexpr int kWidth = 8;
  static constexpr bool has_transpose8 = true;
  FPC_AVX2_FMA static V load(const float* p) { return _mm256_loadu_ps(p); }
  FPC_AVX2_FMA static V splat(float x) { return _mm256_set1_ps(x); }
  FPC_AVX2_FMA static void store(float* p, V x) { _mm256_storeu_ps(p, x); }
  FPC_AVX2_FMA static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  FPC_AVX2_FMA static V add(V a, V b) { return _mm256_add_ps(a, b); }
  FPC_AVX2_FMA static M none() { return _mm256_setzero_ps(); }
  FPC_AVX2_FMA static M mark(M m, V x) {
    const V mag = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const V small = _mm256_cmp_ps(mag, _mm256_set1_ps(std::numeric_limits<float>::min()), _CMP_LE_OQ);
    const V nonzero = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NEQ_UQ);
    return _mm256_or_ps(m, _mm256_and_ps(small, nonzero));
  }
  FPC_AVX2_FMA static unsigned bits(M m) { return static_cast<unsigned>(_mm256_movemask_ps(m)); }
  // Eight products of eight contiguous streams, lane-interleaved: t[i * 8 + j] = s[j][i0 + i]
  // for i < 8 (an 8 x 8 transpose in registers).
  FPC_AVX2_FMA static void transpose8(const float* const* s, std::size_t i0, float* t) {
    __m256 r[8], u[8], v[8];
    for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(s[j] + i0);
    for (int j = 0; j < 8; j += 2) {
      u[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
      u[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
      v[j] = _mm256_shuffle_ps(u[j], u[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
      v[j + 1] = _mm256_shuffle_ps(u[j], u[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
      v[j + 2] = _mm256_shuffle_ps(u[j + 1], u[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
      v[j + 3] = _mm256_shuffle_ps(u[j + 1], u[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
      _mm256_storeu_ps(t + i * 8, _mm256_permute2f128_ps(v[i], v[i + 4], 0x20));
      _mm256_storeu_ps(t + (i + 4) * 8, _mm256_permute2f128_ps(v[i], v[i + 4], 0x31));
    }
  }
};

struct Avx2Lanes64 {
  struct V {
    __m256d lo, hi;
  };
  using M = V;
  static constexpr int kWidth = 8;
  static constexpr bool has_transpose8 = false;
  FPC_AVX2_FMA static V load(const double* p) { return {_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)}; }
  FPC_AVX2_FMA static V splat(double x) { return {_mm256_set1_pd(x), _mm256_set1_pd(x)}; }
  FPC_AVX2_FMA static void store(double* p, V x) {
    _mm256_storeu_pd(p, x.lo);
    _mm256_storeu_pd(p + 4, x.hi);
  }
  FPC_AVX2_FMA static V fma(V a, V b, V c) {
    return {_mm256_fmadd_pd(a.lo, b.lo, c.lo), _mm256_fmadd_pd(a.hi, b.hi, c.hi)};
  }
  FPC_AVX2_FMA static V add(V a, V b) { return {_mm256_add_pd(a.lo, b.lo), _mm256_add_pd(a.hi, b.hi)}; }
  FPC_AVX2_FMA static M none() { return {_mm256_setzero_pd(), _mm256_setzero_pd()}; }
  FPC_AVX2_FMA static __m256d tiny4(__m256d x) {
    const __m256d mag = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    const __m256d small = _mm256_cmp_pd(mag, _mm256_set1_pd(std::numeric_limits<double>::min()), _CMP_LE_OQ);
    return _mm256_and_pd(small, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_NEQ_UQ));
  }
  FPC_AVX2_FMA static M mark(M m, V x) {
    return {_mm256_or_pd(m.lo, tiny4(x.lo)), _mm256_or_pd(m.hi, tiny4(x.hi))};
  }
  FPC_AVX2_FMA static unsigned bits(M m) {
    return static_cast<unsigned>(_mm256_movemask_pd(m.lo) | (_mm256_movemask_pd(m.hi) << 4));
  }
};

// The row path's AVX-512 lanes: sixteen binary32 or eight binary64 columns, masks in k registers.
#define FPC_AVX512 __attribute__((target("avx512f,avx512dq,avx2,fma"))) inline
struct Avx512Lanes32 {
  using V = __m512;
  using M = __mmask16;
  static constexpr int kWidth = 16;
  static constexpr bool has_transpose8 = false;
  FPC_AVX512 static V load(const float* p) { return _mm512_loadu_ps(p); }
  FPC_AVX512 static V splat(float x) { return _mm512_set1_ps(x); }
  FPC_AVX512 static void store(float* p, V x) { _mm512_storeu_ps(p, x); }
  FPC_AVX512 static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  FPC_AVX512 static V add(V a, V b) { return _mm512_add_ps(a, b); }
  FPC_AVX512 static M none() { return 0; }
  FPC_AVX512 static M mark(M m, V x) {
    const V min = _mm512_set1_ps(std::numeric_limits<float>::min());
    return m | (_mm512_cmp_ps_mask(_mm512_abs_ps(x), min, _CMP_LE_OQ) &
                _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NEQ_UQ));
  }
  FPC_AVX512 static unsigned bits(M m) { return m; }
};
struct Avx512Lanes64 {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kWidth = 8;
  static constexpr bool has_transpose8 = false;
  FPC_AVX512 static V load(const double* p) { return _mm512_loadu_pd(p); }
  FPC_AVX512 static V splat(double x) { return _mm512_set1_pd(x); }
  FPC_AVX512 static void store(double* p, V x) { _mm512_storeu_pd(p, x); }
  FPC_AVX512 static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  FPC_AVX512 static V add(V a, V b) { return _mm512_add_pd(a, b); }
  FPC_AVX512 static M none() { return 0; }
  FPC_AVX512 static M mark(M m, V x) {
    const V min = _mm512_set1_pd(std::numeric_limits<double>::min());
    return m | (_mm512_cmp_pd_mask(_mm512_abs_pd(x), min, _CMP_LE_OQ) &
                _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_NEQ_UQ));
  }
  FPC_AVX512 static unsigned bits(M m) { return m; }
};
#endif
namespace portable_lanes {
#define FPC_LANES_FN inline
#include "fdpa_host_lanes.inc"
#undef FPC_LANES_FN
}  // namespace portable_lanes
#if FPC_HOST_X86
namespace avx2_lanes {
#define FPC_LANES_FN __attribute__((target("avx2,fma"))) inline
#include "fdpa_host_lanes.inc"
#undef FPC_LANES_FN
}  // namespace avx2_lanes
namespace avx512_lanes {
#define FPC_LANES_FN __attribute__((target("avx512f,avx512dq,avx2,fma"))) inline
#include "fdpa_host_lanes.inc"
#undef FPC_LANES_FN
}  // namespace avx512_lanes
#endif

template <class T>
__attribute__((flatten)) void chain_portable(const T* const* a, const T* const* b,
                                             std::size_t sb, std::size_t k, bool shared,
                                             bool track_small, T* acc, unsigned& small) {
  portable_lanes::chain_run<PortableLanes<T>>(a, b, sb, k, shared, track_small, acc, small);
}
template <class T>
__attribute__((flatten)) void tree_portable(const HostProgram& full, const HostProgram& last,
                                            std::size_t width, const T* const* a,
                                            const T* const* b, std::size_t sb, std::size_t k,
                                            bool shared, bool track_small, T* acc,
                                            unsigned& small) {
  portable_lanes::tree_run<PortableLanes<T>>(full, last, width, a, b, sb, k, shared, track_small, acc, small);
}

#if FPC_HOST_X86
template <class T>
using Avx2Lanes = std::conditional_t<sizeof(T) == 4, Avx2Lanes32, Avx2Lanes64>;
template <class T>
__attribute__((target("avx2,fma"), flatten)) void chain_avx2(const T* const* a,
                                                             const T* const* b, std::size_t sb,
                                                             std::size_t k, bool shared,
                                                             bool track_small, T* acc,
                                                             unsigned& small) {
  avx2_lanes::chain_run<Avx2Lanes<T>>(a, b, sb, k, shared, track_small, acc, small);
}
template <class T>
__attribute__((target("avx2,fma"), flatten)) void tree_avx2(const HostProgram& full,
                                                            const HostProgram& last,
                                                            std::size_t width, const T* const* a,
                                                            const T* const* b, std::size_t sb,
                                                            std::size_t k, bool shared,
                                                            bool track_small, T* acc,
                                                            unsigned& small) {
  avx2_lanes::tree_run<Avx2Lanes<T>>(full, last, width, a, b, sb, k, shared, track_small, acc, small);
}
template <class T>
__attribute__((target("avx512f,avx512dq,avx2,fma"), flatten)) void rows_avx512(
    const HostProgram* full, const HostProgram* last, std::size_t width, const T* const* a,
    const T* b, std::size_t sb, std::size_t k, bool track_small, int n, T* acc, unsigned* small) {
  avx512_lanes::rows_any<std::conditional_t<sizeof(T) == 4, Avx512Lanes32, Avx512Lanes64>>(
      full, last, width, a, b, sb, k, track_small, n, acc, small);
}
template <class T>
__attribute__((target("avx2,fma"), flatten)) void rows_avx2(
    const HostProgram* full, const HostProgram* last, std::size_t width, const T* const* a,
    const T* b, std::size_t sb, std::size_t k, bool track_small, int n, T* acc, unsigned* small) {
  avx2_lanes::rows_any<Avx2Lanes<T>>(full, last, width, a, b, sb, k, track_small, n, acc, small);
}
#endif

bool use_avx2_fma() {
#if FPC_HOST_X86
  static const bool use = !portable_dispatch() && cpu_features().avx2 && cpu_features().fma;
  return use;
#else
  return false;
#endif
}

template <class T>
void chain(const T* const* a, const T* const* b, std::size_t sb, std::size_t k, bool shared,
           bool track_small, T* acc, unsigned& small) {
#if FPC_HOST_X86
  if (use_avx2_fma()) return chain_avx2(a, b, sb, k, shared, track_small, acc, small);
#endif
  chain_portable(a, b, sb, k, shared, track_small, acc, small);
}

template <class T>
void tree(const HostProgram& full, const HostProgram& last, std::size_t width, const T* const* a,
          const T* const* b, std::size_t sb, std::size_t k, bool shared, bool track_small, T* acc,
          unsigned& small) {
#if FPC_HOST_X86
  if (use_avx2_fma()) return tree_avx2(full, last, width, a, b, sb, k, shared, track_small, acc, small);
#endif
  tree_portable(full, last, width, a, b, sb, k, shared, track_small, acc, small);
}

template <class T>
__attribute__((flatten)) void rows_portable(const HostProgram* full, const HostProgram* last,
                                            std::size_t width, const T* const* a, const T* b,
                                            std::size_t sb, std::size_t k, bool track_small, int n,
                                            T* acc, unsigned* small) {
  portable_lanes::rows_any<PortableLanes<T>>(full, last, width, a, b, sb, k, track_small, n, acc, small);
}

// The row path's vectors: AVX-512 where dispatch allows, else AVX2+FMA, else plain C++.
int row_lanes(bool binary64) {
#if FPC_HOST_X86
  if (avx512_dispatch()) return binary64 ? 8 : 16;
#endif
  return kLanes;
}

template <class T>
void rows(const HostProgram* full, const HostProgram* last, std::size_t width, const T* const* a,
          const T* b, std::size_t sb, std::size_t k, bool track_small, int n, T* acc,
          unsigned* small) {
#if FPC_HOST_X86
  if (avx512_dispatch()) return rows_avx512(full, last, width, a, b, sb, k, track_small, n, acc, small);
  if (use_avx2_fma()) return rows_avx2(full, last, width, a, b, sb, k, track_small, n, acc, small);
#endif
  rows_portable(full, last, width, a, b, sb, k, track_small, n, acc, small);
}

// Whether no operation can give a nonzero result of magnitude <= 2^emin of out, for a C that is
// not itself such a value, where every product is a multiple of q = 2^least_product (the
// product of the operands' least quanta), and so is every value rounded from sums of them (an
// inexact rounding lands on a multiple of an ulp above q). C is a multiple of q 2^-p (p: out's
// precision) or smaller than q/2, so its sum with a nonzero multiple of q is a multiple of
// q 2^-p, or at least q/2 and a multiple of its ulp (q 2^-p at least); and so on. Every result
// is zero, C, or at least q 2^-p in magnitude: none is tiny where q 2^-p > 2^emin (here with a
// margin of 2^2): any f16 inputs into binary32 (q >= 2^-48), anything narrower than binary32
// into binary64, and inputs of ordinary magnitudes whatever their format.
bool never_tiny(long long least_product, const Format& out) {
  return least_product > out.emin() + out.precision() + 2;
}

}  // namespace

std::shared_ptr<const HostIeeePath> HostIeeePath::make(const FdpaParams& p, const Format& in,
                                                       const Format& out) {
  static const Format f32 = parse_format("f32"), f64 = parse_format("f64");
  const bool is32 = out == f32, is64 = out == f64;
  if (!is32 && !is64) return nullptr;
  if (p.structure != FdpaStructure::sequential && p.structure != FdpaStructure::pairwise &&
      p.structure != FdpaStructure::tree)
    return nullptr;
  if (!holds_exactly(in, out) || p.out_rounding.mode != RoundingMode::rne ||
      p.out_rounding.sat != Saturation::none || p.instr_k != 0 ||
      p.k_order != KOrder::natural || p.c_last || p.subsum != 0 || p.acc_frac_bits >= 0)
    return nullptr;
  std::shared_ptr<HostIeeePath> h(new HostIeeePath);
  try {
    find_nan_policy(p.nan, "nan");  // fdpa throws for an unknown policy: let it
    if (p.structure == FdpaStructure::pairwise) {
      if (p.block < 1) return nullptr;
      h->shape_ = Shape::groups;
      h->width_ = static_cast<std::size_t>(p.block);
      h->full_ = group_program(p.block, false);
      h->fusable_ = 2 * in.precision() <= out.precision();
      if (h->fusable_) h->fused_ = group_program(p.block, true);
    } else if (p.structure == FdpaStructure::tree) {
      h->width_ = static_cast<std::size_t>(tree_width(p));  // throws for a malformed tree
      std::optional<HostProgram> prog =
          tree_program(parse_sum_tree(p.tree), static_cast<int>(h->width_));
      if (!prog) return nullptr;
      h->shape_ = Shape::tree;
      h->full_ = std::move(*prog);
    }
  } catch (const Error&) {
    return nullptr;
  }
  h->p_ = p;
  h->in_ = in;
  h->out_ = out;
  h->binary64_ = is64;
  h->flush_outputs_ = p.flush_subnormal_outputs;
  return h;
}

void HostIeeePath::decode(std::span<const std::uint64_t> codes, LineVector<float>& values32,
                          LineVector<double>& values64) const {
  if (binary64_) values64.resize(codes.size());
  else values32.resize(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const double x = host_value(codes[i], in_, p_);
    if (binary64_) values64[i] = x;
    else values32[i] = static_cast<float>(x);  // exact: holds_exactly(in, f32)
  }
}

// Pairs of products fused where every product is exact in out: it fits out's precision (fusable_),
// is below out's overflow threshold and is never tiny there.
bool HostIeeePath::fuses(const ProductBounds& bounds) const {
  return fusable_ && bounds.below <= out_.emax() + 1 && never_tiny(bounds.least, out_);
}

const HostProgram& HostIeeePath::program_for(std::size_t products, bool fused,
                                             HostProgram& scratch) const {
  if (products == width_) return fused ? fused_ : full_;
  if (shape_ == Shape::groups) scratch = group_program(static_cast<int>(products), fused);
  else scratch = *tree_program(parse_sum_tree(p_.tree), static_cast<int>(products));
  return scratch;
}

template <class T>
unsigned HostIeeePath::run_typed(const T* a, const std::size_t* offset_a, const T* b,
                                 const std::size_t* offset_b, std::size_t stride_b, std::size_t k,
                                 const ProductBounds& bounds, std::uint64_t* d, int n) const {
  using U = typename Bits<T>::U;
  const bool track = flush_outputs_ && !never_tiny(bounds.least, out_);
  const bool fused = fuses(bounds);
  const T* pa[kLanes];
  const T* pb[kLanes];
  T acc[kLanes];
  unsigned small = 0;
  bool shared = true;
  for (int j = 0; j < kLanes; ++j) {
    const int src = j < n ? j : 0;  // lanes past n repeat the first dot product
    pa[j] = a + offset_a[src];
    pb[j] = b + offset_b[src];
    shared = shared && pa[j] == pa[0];
    acc[j] = static_cast<T>(host_value(d[src], out_, p_));  // C, read as an input
    if (flush_outputs_ && tiny(acc[j])) small |= 1u << j;
  }
  if (shape_ == Shape::chain) {
    chain(pa, pb, stride_b, k, shared, track, acc, small);
  } else {
    HostProgram scratch;
    const HostProgram& last =
        program_for(k % width_ == 0 ? width_ : k % width_, fused, scratch);
    tree(fused ? fused_ : full_, last, width_, pa, pb, stride_b, k, shared, track, acc, small);
  }
  unsigned left = 0;
  for (int j = 0; j < n; ++j) {
    if (std::isnan(acc[j]) || (small >> j & 1)) left |= 1u << j;
    else d[j] = std::bit_cast<U>(acc[j]);
  }
  return left;
}

int HostIeeePath::row_width() const { return row_lanes(binary64_); }

template <class T>
void HostIeeePath::run_rows_typed(const T* a, const std::size_t* offset_a, const T* b,
                                  std::size_t stride_b, std::size_t k, const ProductBounds& bounds,
                                  std::uint64_t* d, int n, unsigned* left) const {
  using U = typename Bits<T>::U;
  const bool track = flush_outputs_ && !never_tiny(bounds.least, out_);
  const bool fused = fuses(bounds);
  const int w = row_width();
  const T* pa[kMaxRows];
  T acc[kMaxRows * kMaxRowWidth];
  unsigned small[kMaxRows] = {};
  for (int j = 0; j < n; ++j) {
    pa[j] = a + offset_a[j];
    for (int l = 0; l < w; ++l) {
      const std::size_t o = static_cast<std::size_t>(j * w + l);
      acc[o] = static_cast<T>(host_value(d[o], out_, p_));  // C, read as an input
      if (flush_outputs_ && tiny(acc[o])) small[j] |= 1u << l;
    }
  }
  HostProgram scratch;
  const HostProgram* full = shape_ == Shape::chain ? nullptr : fused ? &fused_ : &full_;
  const HostProgram* last =
      full ? &program_for(k % width_ == 0 ? width_ : k % width_, fused, scratch) : nullptr;
  rows(full, last, width_, pa, b, stride_b, k, track, n, acc, small);
  for (int j = 0; j < n; ++j) {
    left[j] = small[j];
    for (int l = 0; l < w; ++l) {
      const std::size_t o = static_cast<std::size_t>(j * w + l);
      if (std::isnan(acc[o])) left[j] |= 1u << l;
      else if (!(small[j] >> l & 1)) d[o] = std::bit_cast<U>(acc[o]);
    }
  }
}

void HostIeeePath::run_rows(const float* a, const double* a64, const std::size_t* offset_a,
                            const float* b, const double* b64, std::size_t offset_b,
                            std::size_t stride_b, std::size_t k, const ProductBounds& bounds,
                            std::uint64_t* d, int n, unsigned* left) const {
  if (k == 0) {  // the model's empty dot product
    std::fill_n(left, n, (1u << row_width()) - 1);
    return;
  }
  if (binary64_) run_rows_typed(a64, offset_a, b64 + offset_b, stride_b, k, bounds, d, n, left);
  else run_rows_typed(a, offset_a, b + offset_b, stride_b, k, bounds, d, n, left);
}

unsigned HostIeeePath::run(const float* a, const double* a64, const std::size_t* offset_a,
                           const float* b, const double* b64, const std::size_t* offset_b,
                           std::size_t stride_b, std::size_t k, const ProductBounds& bounds,
                           std::uint64_t* d, int n) const {
  if (k == 0) return (1u << n) - 1;  // the model's empty dot product
  return binary64_ ? run_typed(a64, offset_a, b64, offset_b, stride_b, k, bounds, d, n)
                   : run_typed(a, offset_a, b, offset_b, stride_b, k, bounds, d, n);
}

}  // namespace fpconform::detail
