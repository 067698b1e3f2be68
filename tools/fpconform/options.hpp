// The rounding options convert, gen, ver and eval share.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "numeric_options.hpp"
#include "fpconform/testfloat/function.hpp"

namespace fpconform::cli {

struct RoundingOptionSet {
  std::string round, sat, tininess, profile, random;
  int sr_bits = 0;
  bool ftz = false, daz = false;
  CLI::Option *round_opt, *sat_opt, *tininess_opt, *profile_opt, *random_opt, *sr_bits_opt,
      *ftz_opt, *daz_opt;

  void add_to(CLI::App* sub, bool stochastic) {
    round_opt = sub->add_option("--round", round,
                                "Rounding mode: rne rna rtz up down odd sr-a sr-b sr-c sr "
                                "(default rne, or the profile's)");
    sat_opt = sub->add_option("--sat", sat, "Overflow: none finite propagate (default none)");
    tininess_opt = sub->add_option("--tininess", tininess,
                                   "Tininess detection: before | after rounding (default after)");
    ftz_opt = sub->add_flag("--ftz,!--no-ftz", ftz, "Flush tiny results to zero");
    daz_opt = sub->add_flag("--daz,!--no-daz", daz, "Treat subnormal inputs as zero");
    profile_opt = sub->add_option("--profile", profile,
                                  "Convert as an ecosystem does (nvidia, ml_dtypes, ...); set "
                                  "options override its defaults");
    if (stochastic) {
      random_opt = sub->add_option("--random", random,
                                   "Random bits for stochastic rounding (decimal or 0x hex)");
      sr_bits_opt = sub->add_option("--sr-bits", sr_bits, "Number of random bits")->check(integer_in(1, 64));
    } else {
      random_opt = sr_bits_opt = nullptr;
    }
  }

  testfloat::OptionText text() const {
    testfloat::OptionText t;
    if (round_opt->count()) t.round = round;
    if (sat_opt->count()) t.sat = sat;
    if (tininess_opt->count()) t.tininess = tininess;
    if (ftz_opt->count()) t.ftz = ftz;
    if (daz_opt->count()) t.daz = daz;
    if (profile_opt->count()) t.profile = profile;
    if (random_opt && random_opt->count()) t.random = random;
    if (sr_bits_opt && sr_bits_opt->count()) t.sr_bits = sr_bits;
    return t;
  }
};

}  // namespace fpconform::cli
