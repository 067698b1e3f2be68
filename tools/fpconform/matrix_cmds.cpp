// `fpconform models`, `dot`, `gemm`: the matrix-unit models from the command line.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "fpconform/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gemm.hpp"
#include "matrix_cmds_lib.hpp"
#include "matrix_io.hpp"

namespace fpconform::cli {

void add_matrix_commands(CLI::App& app, std::vector<Command>& commands) {
  {
    auto* sub = app.add_subcommand("models", "the matrix-unit presets and their parameters");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "JSON with every parameter (the names --model custom: takes)");
    commands.push_back({sub, [json] {
                          std::fputs(list_models(*json).c_str(), stdout);
                          return 0;
                        }});
  }
  {
    auto* sub = app.add_subcommand(
        "dot", "D = sum a_i b_i + c per stdin line (hex codes: a_0..a_{K-1} b_0..b_{K-1} c [d])");
    struct Opts {
      std::string model, in, out;
      bool check = false;
    };
    auto o = std::make_shared<Opts>();
    sub->add_option("--model", o->model, "preset (fpconform models) or custom:key=value,...")->required();
    sub->add_option("--in", o->in, "format of a and b")->required();
    sub->add_option("--out", o->out, "format of c and D")->required();
    sub->add_flag("--check", o->check, "each line ends with the expected D; report mismatches");
    commands.push_back({sub, [o] {
                          const Format in = parse_format(o->in, "--in");
                          const Format out = parse_format(o->out, "--out");
                          const FdpaParams p = parse_model(o->model, in, out, "--model");
                          const DotSummary s = run_dot(p, in, out, o->check, stdin, stdout);
                          return s.failed ? 1 : 0;
                        }});
  }
  {
    auto* sub = app.add_subcommand("gemm", "D = A.B + C with a matrix-unit model (.npy or CSV)");
    struct Opts {
      std::string model, in, out, acc, a, b, c, d;
      int promote = 0, split_k = 1, scale_b_block_cols = 1;
      std::string scale_a, scale_b, block_scale_a, block_scale_b, block_scale_format = "ue8m0";
      bool reverse_k = false;
      std::string reduction = "sequential";
      bool hex = false;
    };
    auto o = std::make_shared<Opts>();
    sub->add_option("--model", o->model, "preset or custom:key=value,...")->required();
    sub->add_option("--in", o->in, "format of A and B")->required();
    sub->add_option("--out", o->out, "format of D")->required();
    sub->add_option("--acc", o->acc, "the unit's output/accumulator format (default: f32)");
    sub->add_option("--a", o->a, "A (M x K)")->required();
    sub->add_option("--b", o->b, "B (K x N)")->required();
    sub->add_option("--c", o->c, "C (M x N, in the accumulator format)");
    sub->add_option("-o", o->d, "D, written atomically (.npy or CSV)")->required();
    sub->add_option("--promote", o->promote, "add partial sums into fp32 every N products (0: off)");
    sub->add_option("--split-k", o->split_k, "cut K into S slices, reduce their results");
    sub->add_option("--reduction", o->reduction, "sequential | pairwise (split-K)");
    sub->add_flag("--hex", o->hex, "CSV output as raw hex codes");
    sub->add_flag("--reverse-k", o->reverse_k, "walk K from the last product to the first");
    sub->add_option("--scale-a", o->scale_a, "fp32 scales of A per promotion group (M x K/N)");
    sub->add_option("--scale-b", o->scale_b, "fp32 scales of B per group (K/N x N, or x N/cols)");
    sub->add_option("--scale-b-block-cols", o->scale_b_block_cols,
                    "columns of B sharing one scale (128 for 128x128 weight blocks)");
    sub->add_option("--block-scale-a", o->block_scale_a,
                    "in-unit block scales of A (MX/NVFP4 units: M x K/scale_block)");
    sub->add_option("--block-scale-b", o->block_scale_b, "in-unit block scales of B (K/scale_block x N)");
    sub->add_option("--block-scale-format", o->block_scale_format, "ue8m0 (MX) or e4m3 (NVFP4)");
    commands.push_back({sub, [o] {
                          GemmOptions g;
                          const Format in = parse_format(o->in, "--in");
                          g.acc = parse_format(o->acc.empty() ? "f32" : o->acc, "--acc");
                          g.out = parse_format(o->out, "--out");
                          g.unit = parse_model(o->model, in, g.acc, "--model");
                          g.promote_every = o->promote;
                          g.split_k = o->split_k;
                          if (o->reduction == "pairwise") g.reduction = SplitReduction::pairwise;
                          else if (o->reduction != "sequential")
                            throw Error("--reduction", "'" + o->reduction + "' is not sequential or pairwise");
                          g.reverse_k = o->reverse_k;
                          g.scale_b_block_cols = o->scale_b_block_cols;
                          const Format f32 = parse_format("f32");
                          auto codes32 = [](const Matrix& m) {
                            return std::vector<std::uint32_t>(m.codes.begin(), m.codes.end());
                          };
                          if (!o->scale_a.empty()) g.scale_a = codes32(read_matrix(o->scale_a, f32, "--scale-a"));
                          if (!o->scale_b.empty()) g.scale_b = codes32(read_matrix(o->scale_b, f32, "--scale-b"));
                          if (g.scale_a.empty() != g.scale_b.empty())
                            throw Error("--scale-a", "give both --scale-a and --scale-b, or neither");
                          if (!o->block_scale_a.empty() || !o->block_scale_b.empty()) {
                            if (o->block_scale_a.empty() || o->block_scale_b.empty())
                              throw Error("--block-scale-a", "give both --block-scale-a and --block-scale-b");
                            g.block_scale_format = parse_format(o->block_scale_format, "--block-scale-format");
                            g.block_scale_a = read_matrix(o->block_scale_a, g.block_scale_format, "--block-scale-a").codes;
                            g.block_scale_b = read_matrix(o->block_scale_b, g.block_scale_format, "--block-scale-b").codes;
                          }
                          const Matrix a = read_matrix(o->a, in, "--a");
                          const Matrix b = read_matrix(o->b, in, "--b");
                          Matrix c;
                          if (!o->c.empty()) c = read_matrix(o->c, g.acc, "--c");
                          const Matrix d = gemm(g, a, b, o->c.empty() ? nullptr : &c);
                          write_matrix(o->d, d, o->hex);
                          return 0;
                        }});
  }
}

}  // namespace fpconform::cli
