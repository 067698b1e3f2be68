// `fpconform quantize` and `fpconform scale-rules`: block-scaled quantization of a matrix.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "fpconform/block_scale.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/files/matrix_io.hpp"
#include "quantize_lib.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

void add_quantize_commands(CLI::App& app, std::vector<Command>& commands) {
  {
    auto* sub = app.add_subcommand("scale-rules", "the block-scale rules and their sources");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "JSON");
    commands.push_back({sub, [json] {
                          std::fputs(list_scale_rules(*json).c_str(), stdout);
                          return 0;
                        }});
  }
  auto* sub = app.add_subcommand("quantize", "block-scaled quantization of an f32 matrix (.npy or CSV)");
  struct Opts {
    std::string block, rule, axis = "rows", in, out, scales, compare;
    bool dequantize = false, hex = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--block", o->block, "mxfp8 | mxfp8-e5m2 | mxfp6 | mxfp6-e3m2 | mxfp4 | nvfp4 | tile:RxC")->required();
  sub->add_option("--rule", o->rule, "scale rule (fpconform scale-rules); default: the block's");
  sub->add_option("--axis", o->axis, "rows (blocks along a row, default) | cols");
  sub->add_option("-i", o->in, "input matrix (.npy or CSV; values rounded to f32, RNE)")->required();
  sub->add_option("-o", o->out, "output: element codes (or, with --dequantize, f32 values)");
  sub->add_option("--compare", o->compare,
                  "rules to compare (ocp,rceil,...): SQNR, max relative error, and the scales and "
                  "values that differ from the first rule's");
  sub->add_option("--scales", o->scales, "write the block scales (codes of the scale format) here");
  sub->add_flag("--dequantize", o->dequantize, "write the dequantized values instead of the codes");
  sub->add_flag("--hex", o->hex, "CSV output as raw hex codes");
  commands.push_back({sub, [o] {
                        const BlockSpec spec = parse_block_spec(o->block, o->axis);
                        if (!o->compare.empty()) {
                          std::vector<std::string> names;
                          std::string cur;
                          for (char ch : o->compare + ",") {
                            if (ch == ',') {
                              if (!cur.empty()) names.push_back(cur);
                              cur.clear();
                            } else {
                              cur += ch;
                            }
                          }
                          const Matrix x = read_matrix(o->in, parse_format("f32"), "-i", /*round_values=*/true);
                          std::fputs(compare_rules(x, spec, names).c_str(), stdout);
                          return 0;
                        }
                        if (o->out.empty()) throw Error("-o", "-o is required (or use --compare)");
                        const ScaleRule& rule = find_scale_rule(o->rule.empty() ? spec.rule : o->rule);
                        const Format f32 = parse_format("f32");
                        const Format elem = parse_format(spec.element);
                        const Matrix x = read_matrix(o->in, f32, "-i", /*round_values=*/true);
                        const QuantizedMatrix q =
                            quantize_matrix(x.codes, x.rows, x.cols, f32, elem, rule, spec.block_rows,
                                            spec.block_cols, spec.tensor_scale && !rule.tensor_scale_format.empty());
                        if (o->dequantize) {
                          const DequantizedBlock d = dequantize_matrix(q, elem, rule, f32);
                          write_matrix(o->out, Matrix{x.rows, x.cols, f32, d.values}, o->hex);
                        } else {
                          write_matrix(o->out, Matrix{x.rows, x.cols, elem, q.elements}, o->hex);
                        }
                        if (!o->scales.empty())
                          write_matrix(o->scales,
                                       Matrix{q.rows / q.block_rows, q.cols / q.block_cols,
                                              rule_scale_format(rule), q.scales},
                                       o->hex, "--scales");
                        std::fprintf(stderr, "fpconform quantize: %d x %d in %d x %d blocks, rule %s%s; flags %s\n",
                                     x.rows, x.cols, spec.block_rows, spec.block_cols, rule.name.c_str(),
                                     q.tensor_scale ? ", with a per-tensor scale" : "",
                                     q.flags.to_string().c_str());
                        return 0;
                      }});
}

}  // namespace fpconform::cli
