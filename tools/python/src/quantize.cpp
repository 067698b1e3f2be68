// fpconform.quantize: block-scaled quantization (MX, NVFP4, tiles) of a matrix of values.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include "arrays.hpp"
#include "fpconform/block_scale.hpp"
#include "fpconform/block_spec.hpp"

namespace fpconform::python {
namespace {

using namespace nb::literals;

// (element codes, scale codes, tensor-scale code or None, element format, scale format, rule,
// flags) for `values` (rows x cols codes of `from`).
nb::tuple quantize(Codes2 values, std::string_view from, std::string_view block,
                   std::optional<std::string> rule_name, std::string_view axis) {
  const Format in = parse_format(from, "x");
  const BlockSpec spec = parse_block_spec(block, axis, "block", "axis");
  const ScaleRule& rule = find_scale_rule(rule_name ? *rule_name : spec.rule, "rule");
  const Format elem = parse_format(spec.element);
  check_codes(values, in, "x");
  const int rows = static_cast<int>(values.shape(0)), cols = static_cast<int>(values.shape(1));
  QuantizedMatrix q;
  {
    nb::gil_scoped_release unlocked;
    q = quantize_matrix(std::span(values.data(), values.shape(0) * values.shape(1)), rows, cols, in,
                        elem, rule, spec.block_rows, spec.block_cols,
                        spec.tensor_scale && !rule.tensor_scale_format.empty());
  }
  const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  const auto sr = static_cast<std::size_t>(rows / q.block_rows), sc = static_cast<std::size_t>(cols / q.block_cols);
  nb::object tensor = q.tensor_scale ? nb::cast(*q.tensor_scale) : nb::none();
  return nb::make_tuple(to_numpy(std::move(q.elements), {r, c}), to_numpy(std::move(q.scales), {sr, sc}),
                        tensor, elem.name, rule_scale_format(rule).name, rule.name,
                        q.flags.to_string(), rule.tensor_scale_format);
}

// The values the quantized matrix stands for, as f32 codes.
nb::ndarray<nb::numpy, std::uint64_t> dequantize(Codes2 elements, Codes2 scales,
                                                 std::optional<std::uint64_t> tensor_scale,
                                                 std::string_view element_format, std::string_view rule_name) {
  const ScaleRule& rule = find_scale_rule(rule_name, "rule");
  const Format elem = parse_format(element_format, "element_format");
  check_codes(elements, elem, "codes");
  check_codes(scales, rule_scale_format(rule), "scales");
  QuantizedMatrix q;
  q.rows = static_cast<int>(elements.shape(0));
  q.cols = static_cast<int>(elements.shape(1));
  if (scales.shape(0) == 0 || scales.shape(1) == 0 || elements.shape(0) % scales.shape(0) != 0 ||
      elements.shape(1) % scales.shape(1) != 0)
    throw Error("scales", "a " + std::to_string(scales.shape(0)) + "x" + std::to_string(scales.shape(1)) +
                              " grid does not tile " + std::to_string(q.rows) + "x" + std::to_string(q.cols));
  q.block_rows = q.rows / static_cast<int>(scales.shape(0));
  q.block_cols = q.cols / static_cast<int>(scales.shape(1));
  q.elements.assign(elements.data(), elements.data() + elements.shape(0) * elements.shape(1));
  q.scales.assign(scales.data(), scales.data() + scales.shape(0) * scales.shape(1));
  q.tensor_scale = tensor_scale;
  DequantizedBlock d = dequantize_matrix(q, elem, rule, parse_format("f32"));
  return to_numpy(std::move(d.values), {elements.shape(0), elements.shape(1)});
}

}  // namespace

void bind_quantize(nb::module_& m) {
  m.def("quantize", &quantize, "values"_a, "from_format"_a, "block"_a, "rule"_a.none(), "axis"_a);
  m.def("dequantize", &dequantize, "elements"_a, "scales"_a, "tensor_scale"_a.none(),
        "element_format"_a, "rule"_a);
}

}  // namespace fpconform::python
