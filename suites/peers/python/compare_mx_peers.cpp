// compare_mx_peers DIR: a Python library's MX quantization (dump_mx_peers.py) against fpconform's
// rules (block_scale.hpp, through F32BlockQuantizer, which the suites check bit for bit against
// quantize_block and the MPFR oracle). Every block must match in its scale byte and its element
// codes, except in classes where the library does something else on purpose or by construction;
// each such block is counted under its class, which is decided from the input block alone:
//   nan      a NaN in the block: both give the NaN scale 0xFF; the elements are not compared (a
//            NaN scale makes every element NaN, whatever its code).
//   inf      an infinity and no NaN: we give the NaN scale (OCP: the block cannot be scaled);
//            torchao takes the infinity as amax (FLOOR: a finite scale from inf's exponent field;
//            RCEIL: 0xFE) and quantizes the rest against it.
//   min      the scale is 2^-127 (ue8m0 0x00) in both: torchao divides by 2^-126 instead (FLOOR:
//            it clamps the fp32 scale to the smallest normal) or by 1 (RCEIL: exponent 0 reads as
//            1.0); the block counts here only if every element is then what fpconform's
//            conversion of x * 2^126 (FLOOR) or of x (RCEIL) gives.
//   near2k   rceil only: amax / maxf lies within 2^-16 above a power of two 2^k; torchao's
//            CPU path computes fp32(amax / maxf) and ceil(log2()) in fp32, whose result k + eps
//            rounds to k when eps is below half an fp32 ulp of |k| (2^-18 for |k| in [64, 128)),
//            so the scale is then ours - 1. (On CUDA torchao uses cvt.rp.satfinite.ue8m0x2.f32,
//            the exact ceiling, as our rceil does.)
// Any other difference fails (exit 1). Prints one line per case.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fpconform/block_scale.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fast_block_scale.hpp"
#include "fpconform/fast_convert.hpp"

namespace {

using namespace fpconform;

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot open");
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Counts {
  long blocks = 0, exact = 0, nan = 0, inf = 0, min = 0, near2k = 0, unexplained = 0;
};

// amax / maxf within 2^-16 above a power of two (exact test in double: amax has 24 bits, maxf
// at most 4, so the quotient's error in double is far below the margin).
bool ratio_just_above_power_of_two(double amax, double maxf) {
  const double r = amax / maxf;
  const double p = std::exp2(std::floor(std::log2(r)));
  return r > p && r <= p * (1 + std::ldexp(1.0, -16));
}

int compare_case(const std::string& dir, const std::string& label, const std::string& rule_name,
                 const std::string& elem_name, int block, long nblocks, const std::string& sfile,
                 const std::string& cfile, const std::vector<float>& x) {
  const Format elem = parse_format(elem_name);
  const ScaleRule& rule = find_scale_rule(rule_name);
  const F32BlockQuantizer q(elem, rule, block);
  Rounding er;
  er.mode = rule.element_mode;
  er.sat = rule.element_sat;
  const F32Converter element_converter(elem, er);
  // torchao's divisor at the smallest scale (see "min" above); exact products in fp32.
  const float min_scale_factor = rule.choice == ScaleChoice::ceil_pow2_of_ratio ? 1.0f : 0x1p126f;
  const std::vector<std::uint8_t> their_scales = read_bytes(dir + "/" + sfile);
  const std::vector<std::uint8_t> their_codes = read_bytes(dir + "/" + cfile);
  const std::size_t n = static_cast<std::size_t>(nblocks) * block;
  if (x.size() < n || their_scales.size() != static_cast<std::size_t>(nblocks) ||
      their_codes.size() != n)
    throw Error(label, "sizes in the dump do not match the manifest");
  std::vector<std::uint8_t> codes(n), scales(static_cast<std::size_t>(nblocks));
  q.quantize(x.data(), n, codes.data(), scales.data());
  const double maxf = to_double(elem.max_finite_code(), elem);
  Counts c;
  int shown = 0;
  for (long b = 0; b < nblocks; ++b) {
    ++c.blocks;
    const std::size_t o = static_cast<std::size_t>(b) * block;
    bool nan = false, inf = false;
    double amax = 0;
    for (int i = 0; i < block; ++i) {
      const float v = x[o + i];
      nan |= std::isnan(v);
      inf |= std::isinf(v);
      if (std::isfinite(v)) amax = std::max(amax, std::fabs(static_cast<double>(v)));
    }
    const bool scale_same = scales[b] == their_scales[b];
    bool codes_same = true;
    for (int i = 0; i < block && codes_same; ++i) codes_same = codes[o + i] == their_codes[o + i];
    if (nan) {
      if (scale_same && scales[b] == 0xFF) { ++c.nan; continue; }
    } else if (inf) {
      ++c.inf;
      continue;
    } else if (scale_same && codes_same) {
      ++c.exact;
      continue;
    } else if (scale_same && scales[b] == 0x00) {
      bool as_torchao = true;
      for (int i = 0; i < block && as_torchao; ++i)
        as_torchao = element_converter.convert_one(x[o + i] * min_scale_factor) == their_codes[o + i];
      if (as_torchao) {
        ++c.min;
        continue;
      }
    } else if (rule.choice == ScaleChoice::ceil_pow2_of_ratio &&
               ratio_just_above_power_of_two(amax, maxf) && their_scales[b] + 1 == scales[b]) {
      ++c.near2k;
      continue;
    }
    ++c.unexplained;
    if (shown++ < 3) {
      std::printf("  %s %s block %ld: scale ours %02x theirs %02x; values:", label.c_str(),
                  elem_name.c_str(), b, scales[b], their_scales[b]);
      for (int i = 0; i < block; ++i)
        if (codes[o + i] != their_codes[o + i])
          std::printf(" [%d] %a ours %02x theirs %02x", i, static_cast<double>(x[o + i]),
                      codes[o + i], their_codes[o + i]);
      std::printf("\n");
    }
  }
  std::printf("%s (rule %s) %s: %ld blocks: %ld bit-exact, %ld NaN (scale 0xFF both), %ld with "
              "inf (ours NaN scale), %ld at scale 2^-127 (torchao divides by 2^-126 / 1), %ld "
              "rceil near 2^k (fp32 ratio/log2), %ld unexplained\n",
              label.c_str(), rule_name.c_str(), elem_name.c_str(), c.blocks, c.exact, c.nan,
              c.inf, c.min, c.near2k, c.unexplained);
  return c.unexplained == 0 && c.exact > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: compare_mx_peers DIR (written by dump_mx_peers.py)\n");
    return 2;
  }
  const std::string dir = argv[1];
  try {
    const std::vector<std::uint8_t> raw = read_bytes(dir + "/inputs.f32");
    std::vector<float> x(raw.size() / 4);
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::uint32_t u = 0;
      for (int k = 0; k < 4; ++k) u |= std::uint32_t{raw[4 * i + k]} << (8 * k);
      x[i] = std::bit_cast<float>(u);
    }
    std::ifstream manifest(dir + "/manifest.txt");
    if (!manifest) throw Error(dir + "/manifest.txt", "cannot open");
    std::string line;
    int rc = 0, cases = 0;
    while (std::getline(manifest, line)) {
      if (line.empty()) continue;
      if (line[0] == '#') {
        std::printf("%s\n", line.c_str());
        continue;
      }
      std::istringstream in(line);
      std::string label, rule, elem, sfile, cfile;
      int block = 0;
      long nblocks = 0;
      if (!(in >> label >> rule >> elem >> block >> nblocks >> sfile >> cfile))
        throw Error(dir + "/manifest.txt", "malformed line: " + line);
      rc |= compare_case(dir, label, rule, elem, block, nblocks, sfile, cfile, x);
      ++cases;
    }
    if (cases == 0) throw Error(dir + "/manifest.txt", "no cases");
    return rc;
  } catch (const Error& e) {
    std::fprintf(stderr, "compare_mx_peers: %s\n", e.what());
    return 2;
  }
}
