// fpconform bench [--quick]: every hot path next to its baseline (tools/engines/bench). The comparison
// lines and the `N ok, M short` summary go to stdout; notes (substituted or skipped baselines,
// extrapolations, peak RSS) to stderr. Exit 0 whatever the speed: a SHORT line is a
// measurement, not a failure of the command.
#include <iostream>
#include <string>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "fpconform/core/error.hpp"
#ifdef FPCONFORM_HAVE_BENCH
#include "fpconform/bench/suite.hpp"
#endif

namespace fpconform::cli {

void add_bench_command(CLI::App& app, std::vector<Command>& commands) {
  CLI::App* sub = app.add_subcommand(
      "bench", "Time every fast path against a baseline measured in the same run (targets "
               "in suites/bench/README.md); one line per comparison, then 'N ok, M short'");
  struct Opts {
    bool quick = false, smoke = false;
    unsigned threads = 0;
    std::string python = "python3";
  };
  auto o = std::make_shared<Opts>();
  sub->add_flag("--quick", o->quick,
                "Under a minute: a 256 MiB stream instead of 1 GiB, a slice of the f16 sweep "
                "(extrapolated to 2^32 pairs), shorter timings");
  sub->add_flag("--smoke", o->smoke,
                "Seconds: tiny sizes and timings; checks the output's form, not the speed");
  add_threads_option(sub, o->threads, "Threads for the f16 sweep (default: FPCONFORM_THREADS, else every core)");
  sub->add_option("--python", o->python,
                  "Python with numpy and ml_dtypes for their baselines (FPCONFORM_PYTHON "
                  "overrides; default python3)");
  commands.push_back({sub, [o]() -> int {
#ifdef FPCONFORM_HAVE_BENCH
                        bench::Options opt;
                        opt.level = o->smoke   ? bench::Level::smoke
                                    : o->quick ? bench::Level::quick
                                               : bench::Level::full;
                        opt.threads = o->threads;
                        opt.python = o->python;
                        bench::run_suite(opt, std::cout, std::cerr);
                        return 0;
#else
                        throw Error("bench", "this build has no Google Benchmark; install it "
                                             "(libbenchmark-dev) and reconfigure");
#endif
                      }});
}

}  // namespace fpconform::cli
