// fpconform report [--out DIR] [--full] [--seed S] [--threads N]
// Runs the conversion conformance sweeps (emu against the MPFR oracle) and the block-scale rule
// section (the rule table; SQNR and disagreement with OCP's rule on generated data), and writes
// report.md and results.json into DIR atomically. Exit 0: every case agrees; 1: some disagree.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "fpconform/conformance/conversion.hpp"

namespace fpconform::cli {

namespace {
struct ReportArgs {
  std::string out = "out/report";
  bool full = false;
  std::uint64_t seed = 1;
  unsigned threads = 0;
};
}  // namespace

void add_report_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "report", "Check emu's conversions against the MPFR oracle and write a report directory");
  auto a = std::make_shared<ReportArgs>();
  sub->add_option("--out,-o", a->out, "Directory for report.md and results.json")
      ->capture_default_str();
  sub->add_flag("--full", a->full, "The default suite's sweeps (minutes) instead of a sample");
  sub->add_option("--seed", a->seed, "Seed for the sampled inputs")->capture_default_str();
  sub->add_option("--threads", a->threads, "Worker threads (0: all cores)");
  commands.push_back({sub, [a] {
                        conformance::ReportOptions opt;
                        opt.quick = !a->full;
                        opt.seed = a->seed;
                        opt.threads = a->threads;
                        std::fprintf(stderr, "fpconform report: %s sweep, seed %llu\n",
                                     opt.quick ? "quick" : "full",
                                     static_cast<unsigned long long>(opt.seed));
                        const auto rep = conformance::run_conversion_report(opt);
                        conformance::write_conversion_report(rep, a->out);
                        std::printf("%llu cases, %llu disagree (%zu source/target/mode rows, "
                                    "%.1f s); written to %s/report.md and results.json\n",
                                    static_cast<unsigned long long>(rep.total_cases),
                                    static_cast<unsigned long long>(rep.total_mismatches),
                                    rep.rows.size(), rep.seconds, a->out.c_str());
                        if (rep.scale_rules)
                          std::printf("block-scale rules: %zu rules, %zu rule x distribution "
                                      "results (%.1f s)\n",
                                      rep.scale_rules->rules.size(),
                                      rep.scale_rules->results.size(), rep.scale_rules->seconds);
                        return rep.total_mismatches == 0 ? 0 : 1;
                      }});
}

}  // namespace fpconform::cli
