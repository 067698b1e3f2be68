// Differential fuzzer: one scalar operation (emu's apply_op) against the MPFR oracle
// (reference::apply_op), with the operation, format, rounding, NaN policy and operands taken
// from the input. Results must agree bit for bit, NaNs included (the NaN policy fixes every NaN
// result's code, as in tools/engines/conformance's arith tests), and in all five flags.
#include <cinttypes>
#include <cstdio>

#include "fpconform/arith.hpp"
#include "fpconform/reference/arith.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const auto ops = all_ops();
  const OpInfo& op = ops[in.u8() % ops.size()];
  const Format& f = fpfuzz::pick_format(in.u8());
  const std::uint8_t k1 = in.u8(), k2 = in.u8();
  OpOptions o;
  o.rounding.mode = static_cast<RoundingMode>(k1 % 10);
  o.rounding.sat = static_cast<Saturation>((k1 >> 4) % 3);
  o.rounding.ftz = (k1 >> 6) & 1;
  o.rounding.daz = (k1 >> 7) & 1;
  o.rounding.tininess = (k2 & 1) ? Tininess::before_rounding : Tininess::after_rounding;
  const auto policies = nan_policies();
  o.nan = &policies[(k2 >> 1) % policies.size()];
  o.exact_int = !((k2 >> 4) & 1);
  if (is_stochastic(o.rounding.mode)) {
    o.rounding.stochastic_bits = 1 + in.u8() % 64;
    o.rounding.random = in.u64();
  }
  std::uint64_t operands[3];
  for (auto& v : operands) v = in.u64() & f.code_mask();

  Rounded emu;
  reference::OracleResult oracle;
  std::string emu_error, oracle_error;
  try {
    emu = apply_op(op.op, f, operands, o);
  } catch (const Error& e) {
    emu_error = e.what();
  } catch (const std::exception& e) {
    fpfuzz::fail("arith_diff", std::string("emu threw ") + e.what());
  }
  try {
    oracle = reference::apply_op(op.op, f, operands, o);
  } catch (const Error& e) {
    oracle_error = e.what();
  } catch (const std::exception& e) {
    fpfuzz::fail("arith_diff", std::string("oracle threw ") + e.what());
  }
  const bool agree = emu_error.empty() && oracle_error.empty()
                         ? emu.bits == oracle.bits && emu.flags.bits == oracle.flags
                         : emu_error.empty() == oracle_error.empty();
  if (!agree) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s %.*s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ") mode=%d sat=%d ftz=%d "
                  "daz=%d tininess=%d nan=%.*s exact_int=%d sr_bits=%d random=0x%" PRIx64
                  ": emu 0x%" PRIx64 " flags %02x %s| oracle 0x%" PRIx64 " flags %02x %s",
                  f.name.c_str(), static_cast<int>(op.name.size()), op.name.data(), operands[0],
                  operands[1], operands[2], static_cast<int>(o.rounding.mode),
                  static_cast<int>(o.rounding.sat), o.rounding.ftz, o.rounding.daz,
                  static_cast<int>(o.rounding.tininess), static_cast<int>(o.nan->name.size()),
                  o.nan->name.data(), o.exact_int, o.rounding.stochastic_bits, o.rounding.random,
                  emu.bits, emu.flags.bits, emu_error.c_str(), oracle.bits, oracle.flags,
                  oracle_error.c_str());
    fpfuzz::fail("arith_diff", buf);
  }
  return 0;
}
