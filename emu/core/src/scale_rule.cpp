#include "fpconform/core/scale_rule.hpp"

#include "fpconform/core/error.hpp"

namespace fpconform {

const std::vector<ScaleRule>& scale_rules() {
  static const std::vector<ScaleRule> rules = [] {
    std::vector<ScaleRule> t;
    {
      ScaleRule r;
      r.name = "ocp";
      r.source =
          "OCP Microscaling Formats (MX) v1.0 section 6.3: X = 2^(floor(log2(amax)) - "
          "emax_elem), elements RNE clamped to +-max normal; scale overflow -> NaN and floor at "
          "2^-127 as microxcaling mx_ops.py _quantize_mx";
      r.choice = ScaleChoice::floor_log2_minus_emax;
      r.scale_format = "ue8m0";
      r.default_element = "e4m3";
      t.push_back(r);
    }
    {
      ScaleRule r;
      r.name = "rceil";
      r.source =
          "NVIDIA MXFP8 (Transformer Engine docs, mxfp8.rst: exponent = float_to_e8m0(amax / "
          "max_norm) rounding up when mantissa bits are non-zero; cuBLAS block scaling); "
          "torchao ScaleCalculationMode.RCEIL";
      r.choice = ScaleChoice::ceil_pow2_of_ratio;
      r.scale_format = "ue8m0";
      r.default_element = "e4m3";
      t.push_back(r);
    }
    {
      ScaleRule r;
      r.name = "microxcaling";
      r.source =
          "microsoft/microxcaling mx_ops.py _quantize_mx (default round='nearest': ties away "
          "from zero); scale as OCP MX v1.0 section 6.3";
      r.choice = ScaleChoice::floor_log2_minus_emax;
      r.scale_format = "ue8m0";
      r.default_element = "e4m3";
      r.element_mode = RoundingMode::rna;
      t.push_back(r);
    }
    {
      ScaleRule r;
      r.name = "nvfp4";
      r.source =
          "NVIDIA NVFP4 (Transformer Engine docs nvfp4.rst; 'Pretraining LLMs with NVFP4', "
          "arXiv:2509.25149): e2m1 blocks of 16, e4m3 block scale amax/6, optional fp32 "
          "per-tensor scale global_amax/(448*6)";
      r.choice = ScaleChoice::ratio;
      r.scale_format = "e4m3";
      r.default_element = "e2m1";
      r.default_block = 16;
      r.tensor_scale_format = "f32";
      t.push_back(r);
    }
    {
      ScaleRule r;
      r.name = "tile";
      r.source =
          "DeepSeek-V3 technical report (arXiv:2412.19437) section 3.3: fp32 scale amax/448 per "
          "1x128 activation tile and 128x128 weight block, e4m3 elements";
      r.choice = ScaleChoice::ratio;
      r.scale_format = "f32";
      r.default_element = "e4m3";
      r.default_block = 128;
      t.push_back(r);
    }
    return t;
  }();
  return rules;
}

const ScaleRule& find_scale_rule(std::string_view name, std::string_view what) {
  std::string known;
  for (const ScaleRule& r : scale_rules()) {
    if (r.name == name) return r;
    known += (known.empty() ? "" : ", ") + r.name;
  }
  throw Error(std::string(what), "unknown scale rule '" + std::string(name) + "' (known: " +
                                     known + ")");
}

Format rule_scale_format(const ScaleRule& rule) {
  return parse_format(rule.scale_format, "scale_format");
}

}  // namespace fpconform
