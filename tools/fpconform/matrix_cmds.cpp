// `fpconform models`, `dot`, `gemm`: the matrix-unit models from the command line.
#include <cstdio>
#include <string>

#include "cli_args.hpp"
#include "commands.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/gemm.hpp"
#include "gemm_args.hpp"
#include "matrix_cmds_lib.hpp"
#include "fpconform/files/matrix_io.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

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
      std::string model, in, out, b_format, c_format;
      bool check = false;
    };
    auto o = std::make_shared<Opts>();
    sub->add_option("--model", o->model, "preset (fpconform models), staged unit (\"fused(block=32, frac_bits=13) | out(rtz)\") or custom:key=value,...")->required();
    sub->add_option("--in", o->in, "format of a and b")->required();
    sub->add_option("--out", o->out, "format of c and D")->required();
    sub->add_option("--b-format", o->b_format, "format of b, when it is not --in (e4m3 x e5m2)");
    sub->add_option("--c-format", o->c_format, "format of c, when it is not --out (f16 C, f32 D)");
    sub->add_flag("--check", o->check, "each line ends with the expected D; report mismatches");
    commands.push_back({sub, [o] {
                          const Format in = parse_format(o->in, "--in");
                          const Format out = parse_format(o->out, "--out");
                          const FdpaFormats f(
                              in, o->b_format.empty() ? in : parse_format(o->b_format, "--b-format"),
                              o->c_format.empty() ? out : parse_format(o->c_format, "--c-format"), out);
                          const FdpaParams p = parse_model(o->model, f, "--model");
                          require_input(stdin, "stdin");
                          const DotSummary s = run_dot(p, f, o->check, stdin, stdout);
                          return s.failed ? 1 : 0;
                        }});
  }
  {
    auto* sub = app.add_subcommand("gemm", "D = A.B + C with a matrix-unit model (.npy or CSV)");
    struct Opts {
      GemmArgs g;
      std::string in, out, a, b, c, d, b_format, c_format;
      bool hex = false;
    };
    auto o = std::make_shared<Opts>();
    add_gemm_options(sub, o->g, true);
    sub->add_option("--in", o->in, "format of A and B")->required();
    sub->add_option("--out", o->out, "format of D")->required();
    sub->add_option("--b-format", o->b_format, "format of B, when it is not --in (e4m3 x e5m2)");
    sub->add_option("--c-format", o->c_format, "format of C, when it is not the accumulator's");
    sub->add_option("--a", o->a, "A (M x K): CSV, or .npy of float16/32/64 values or of raw codes "
                                 "(uint8/16/32/64: exactly the format's width)")->required();
    sub->add_option("--b", o->b, "B (K x N)")->required();
    sub->add_option("--c", o->c, "C (M x N, in the accumulator format or --c-format)");
    sub->add_option("-o", o->d, "D, written atomically (.npy or CSV)")->required();
    sub->add_flag("--hex", o->hex, "CSV output as raw hex codes");
    commands.push_back({sub, [o] {
                          const Format in = parse_format(o->in, "--in");
                          const Format in_b =
                              o->b_format.empty() ? in : parse_format(o->b_format, "--b-format");
                          const GemmOptions g =
                              make_gemm_options(o->g, in, in_b, parse_format(o->out, "--out"));
                          const Matrix a = read_matrix(o->a, in, "--a");
                          const Matrix b = read_matrix(o->b, in_b, "--b");
                          Matrix c;
                          if (!o->c.empty())
                            c = read_matrix(o->c,
                                            o->c_format.empty() ? g.acc
                                                                : parse_format(o->c_format, "--c-format"),
                                            "--c");
                          const Matrix d = gemm(g, a, b, o->c.empty() ? nullptr : &c);
                          write_matrix(o->d, d, o->hex);
                          return 0;
                        }});
  }
}

}  // namespace fpconform::cli
