// `fpconform tolerance`: the bound on |D - exact| that a unit's model implies (tools/engines/tolerance).
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/format.hpp"
#include "fpconform/tolerance/bound.hpp"

namespace fpconform::cli {

void add_tolerance_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "tolerance", "the rigorous bound on |D - exact| per dot product that a matrix unit's model "
                   "implies (alpha * sum|a_i b_i| + ulp term + floor), with its derivation");
  struct Opts {
    std::string model, in, out, reduction = "sequential";
    long long k = 0, promote = 0, split_k = 1;
    bool json = false, c_epilogue = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--model", o->model, "preset (fpconform models), staged unit, custom:key=value,..., or exact")->required();
  sub->add_option("--in", o->in, "format of A and B")->required();
  sub->add_option("--out", o->out, "the unit's accumulator format (C and D)")->required();
  sub->add_option("--k", o->k, "products per dot product")->required();
  sub->add_option("--promote", o->promote, "promote to an fp32 accumulator every N products (0: off)");
  sub->add_option("--split-k", o->split_k, "K cut into S slices, reduced in the accumulator format");
  sub->add_option("--reduction", o->reduction, "split-K reduction: sequential or pairwise");
  sub->add_flag("--c-epilogue", o->c_epilogue, "C added once after all products");
  sub->add_flag("--json", o->json, "JSON instead of the table");
  commands.push_back({sub, [o] {
                        const Format in = parse_format(o->in, "--in");
                        const Format out = parse_format(o->out, "--out");
                        if (o->k < 1 || o->k > (1 << 26)) throw Error("--k", "must be 1..2^26");
                        if (o->promote < 0 || o->promote > o->k)
                          throw Error("--promote", "must be 0 (off) or 1..K");
                        if (o->split_k < 1 || o->split_k > o->k)
                          throw Error("--split-k", "must be 1..K");
                        tolerance::GemmShape g;
                        g.promote_every = static_cast<int>(o->promote);
                        g.split_k = static_cast<int>(o->split_k);
                        if (o->reduction == "pairwise") g.reduction = SplitReduction::pairwise;
                        else if (o->reduction != "sequential")
                          throw Error("--reduction", "must be sequential or pairwise, not '" + o->reduction + "'");
                        g.c_in_epilogue = o->c_epilogue;
                        std::fputs(tolerance::tolerance_report(o->model, in, out, static_cast<int>(o->k), g, o->json).c_str(), stdout);
                        return 0;
                      }});
}

}  // namespace fpconform::cli
