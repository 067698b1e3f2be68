// fpconform sweep --from F --to T: emu's conversion against the MPFR oracle over every code of
// the source (or N evenly spaced ones) and every rounding configuration asked for; the
// exhaustive sweeps from the command line (all 2^32 f32 codes: hours).
// fpconform sweep --op OP --format F: the same for an operation (apply_op against
// reference::apply_op) over every operand tuple (add on f16: all 2^32 pairs, hours). Resumable: progress is
// checkpointed (--checkpoint PATH, or -o FILE's FILE.checkpoint) every --checkpoint-every
// seconds and on SIGINT/SIGTERM (exit 130/143); --resume continues from it, after a kill -9
// too, and the final output is the one an uninterrupted run writes, whatever the thread count.
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "numeric_options.hpp"
#include "fpconform/files/checkpoint.hpp"
#include "commands.hpp"
#include "fpconform/conformance/arith_sweep.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "interrupt.hpp"
#include "fpconform/files/sweep_checkpoint.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

namespace {

struct SweepArgs {
  std::string from, to, op, format, inputs = "all", modes = "all", sat = "all", subnormal = "ftz";
  std::string output, checkpoint;
  bool resume = false;
  unsigned threads = 0;
  std::size_t max_counterexamples = 10;
  double checkpoint_every = 10;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string w; std::getline(in, w, ',');) out.push_back(w);
  return out;
}

std::vector<RoundingMode> modes_of(const std::string& s) {
  if (s == "all") return conformance::all_modes();
  if (s == "deterministic") return conformance::deterministic_modes();
  std::vector<RoundingMode> v;
  for (const auto& w : split(s)) v.push_back(parse_rounding_mode(w, "--modes"));
  if (v.empty()) throw Error("--modes", "no modes given");
  return v;
}

std::vector<Saturation> sats_of(const std::string& s) {
  if (s == "all") return conformance::all_saturations();
  std::vector<Saturation> v;
  for (const auto& w : split(s)) v.push_back(parse_saturation(w, "--sat"));
  if (v.empty()) throw Error("--sat", "no saturation given");
  return v;
}

std::vector<conformance::SubnormalConfig> subnormals_of(const std::string& s) {
  if (s == "plain") return conformance::subnormal_plain();
  if (s == "ftz") return conformance::subnormal_ftz();
  if (s == "pairwise") return conformance::subnormal_pairwise();
  if (s == "full") return conformance::subnormal_full();
  throw Error("--subnormal", "'" + s + "' is not one of plain, ftz, pairwise, full");
}

conformance::InputSet inputs_of(const std::string& s, const conformance::InputSet& all) {
  if (s == "all") return all;
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    throw Error("--inputs", "'" + s + "' is neither 'all' nor a count");
  const std::uint64_t n = std::stoull(s);
  if (n == 0) throw Error("--inputs", "0 inputs: nothing to check");
  return conformance::InputSet::strided(all, n);
}

// What the result depends on (the thread count and checkpoint options do not).
// `what`: "from=F to=T" or "op=OP format=F".
std::string canonical_args(const SweepArgs& a, const std::string& what,
                           const std::vector<RoundingMode>& modes, const std::vector<Saturation>& sats) {
  std::string m, s;
  for (RoundingMode x : modes) m += (m.empty() ? "" : ",") + std::string(to_string(x));
  for (Saturation x : sats) s += (s.empty() ? "" : ",") + std::string(to_string(x));
  return what + " inputs=" + a.inputs + " modes=" + m +
         " sat=" + s + " subnormal=" + a.subnormal +
         " max-counterexamples=" + std::to_string(a.max_counterexamples);
}

// The result as printed and written to -o: only what the inputs determine (no times, no
// thread count), so an interrupted-and-resumed run can be compared byte for byte.
std::string result_text(const conformance::SweepResult& r, const SweepArgs& a) {
  std::ostringstream o;
  o << "sweep " << r.subject << " against the MPFR oracle\n"
    << "inputs: " << r.input_description << "\n"
    << "configurations: " << r.per_config.size() << " (modes " << a.modes << ", sat " << a.sat
    << ", subnormal " << a.subnormal << ")\n"
    << "cases: " << r.cases << "\n"
    << "mismatches: " << r.mismatches << "\n";
  for (const auto& c : r.per_config)
    if (c.mismatches)
      o << "  " << c.mismatches << " under [" << conformance::describe(c.rounding) << "]\n";
  if (!r.counterexamples.empty()) {
    o << "first " << r.counterexamples.size() << " counter-examples (by input, configuration):\n";
    for (const auto& c : r.counterexamples) o << "  " << r.format_counterexample(c) << "\n";
  }
  return o.str();
}

// What is swept: a conversion (--from, --to) or an operation (--op, --format).
struct Subject {
  std::optional<conformance::ConversionSweep> conversion;
  std::optional<conformance::OperationSweep> operation;
  std::string name, canonical;  // "f16 -> e4m3", "from=f16 to=e4m3"
  std::optional<conformance::InputSet> all;
};

Subject subject_of(const SweepArgs& a, const std::vector<Rounding>& configs) {
  const bool conv = !a.from.empty() || !a.to.empty(), op = !a.op.empty() || !a.format.empty();
  if (conv && op) throw Error("sweep", "give --from and --to (a conversion) or --op and --format (an operation), not both");
  if (!conv && !op) throw Error("sweep", "give --from and --to (a conversion) or --op and --format (an operation)");
  Subject s;
  if (conv) {
    if (a.from.empty()) throw Error("--from", "missing (the source format of the conversion)");
    if (a.to.empty()) throw Error("--to", "missing (the target format of the conversion)");
    const Format from = parse_format(a.from, "--from"), to = parse_format(a.to, "--to");
    if (from.width() > 32)
      throw Error("--from", from.name + " has " + std::to_string(from.width()) +
                                "-bit codes; sweeps enumerate sources of at most 32 bits");
    s.conversion.emplace(from, to, configs);
    s.name = from.name + " -> " + to.name;
    s.canonical = "from=" + from.name + " to=" + to.name;
    s.all = conformance::InputSet::all_codes(from);
  } else {
    if (a.op.empty()) throw Error("--op", "missing (the operation: add, sub, mul, div, sqrt, mulAdd, ...)");
    if (a.format.empty()) throw Error("--format", "missing (the operands' format)");
    const Op op = conformance::parse_sweep_op(a.op, "--op");
    const Format f = parse_format(a.format, "--format");
    s.operation.emplace(op, f, configs);
    s.name = std::string(op_info(op).name) + " " + f.name;
    s.canonical = "op=" + std::string(op_info(op).name) + " format=" + f.name;
    s.all = s.operation->all_operands();
  }
  return s;
}

int run_sweep(const SweepArgs& a) {
  const auto modes = modes_of(a.modes);
  const auto sats = sats_of(a.sat);
  const auto configs = conformance::make_configs(modes, conformance::default_stochastic_draws(),
                                                 sats, subnormals_of(a.subnormal));
  const Subject subject = subject_of(a, configs);
  const auto inputs = inputs_of(a.inputs, *subject.all);
  if (!(a.checkpoint_every >= 0)) throw Error("--checkpoint-every", "must be 0 or more seconds");
  // "-o -" is standard output, as no -o is; any other -o must be a file we may replace, refused
  // now rather than after the sweep.
  const bool to_stdout = a.output.empty() || a.output == "-";
  if (!to_stdout) reports::check_output_file(a.output, "-o");
  const std::string path = !a.checkpoint.empty() ? a.checkpoint
                           : !to_stdout          ? a.output + ".checkpoint"
                                                 : "";
  if (!path.empty()) reports::check_output_file(path, "--checkpoint");
  if (a.resume && path.empty())
    throw Error("--resume", "needs --checkpoint PATH or -o FILE (whose checkpoint is FILE.checkpoint)");
  const std::string args = canonical_args(a, subject.canonical, modes, sats);

  std::optional<conformance::SweepProgress> resumed;
  if (!path.empty()) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (exists && !a.resume)
      throw Error("--checkpoint", "'" + path + "' exists (an earlier run's checkpoint): add --resume "
                                  "to continue that run, or delete it to start again");
    if (a.resume) {
      if (const auto c = read_checkpoint(path, "sweep", args)) {
        resumed = sweep_progress_of(*c, path, inputs.size(), configs.size());
        std::fprintf(stderr, "fpconform sweep: resuming at input %" PRIu64 " of %" PRIu64 " from %s\n",
                     resumed->done, inputs.size(), path.c_str());
      } else {
        std::fprintf(stderr, "fpconform sweep: no checkpoint at %s; starting from the beginning\n",
                     path.c_str());
      }
    }
    // Refuse an unwritable checkpoint now, not after the first interval of work.
    if (!resumed) {
      Checkpoint c{"sweep", args, {}, {}};
      add_sweep_progress(c, conformance::SweepProgress{0, std::vector<std::uint64_t>(configs.size()), {}},
                         inputs.size());
      write_checkpoint(path, c);
    }
  }

  const bool tty = ::isatty(STDERR_FILENO);
  auto save = [&](const conformance::SweepProgress& p) {
    Checkpoint c{"sweep", args, {}, {}};
    add_sweep_progress(c, p, inputs.size());
    write_checkpoint(path, c);
  };
  InterruptGuard guard;
  conformance::SweepOptions o;
  o.threads = a.threads;
  o.max_counterexamples = a.max_counterexamples;
  o.resume = resumed ? &*resumed : nullptr;
  o.stop = &InterruptGuard::stop_flag();
  o.progress_seconds = std::min(0.5, a.checkpoint_every);
  auto last_save = std::chrono::steady_clock::now();
  o.on_progress = [&](const conformance::SweepProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (!path.empty() && std::chrono::duration<double>(now - last_save).count() >= a.checkpoint_every) {
      save(p);
      last_save = now;
    }
    if (tty)
      std::fprintf(stderr, "\r\033[Ksweep %s: %" PRIu64 "/%" PRIu64 " inputs (%.1f%%)",
                   subject.name.c_str(), p.done, inputs.size(),
                   inputs.size() ? 100.0 * static_cast<double>(p.done) / static_cast<double>(inputs.size()) : 100.0);
  };
  const auto r = subject.conversion ? subject.conversion->run(inputs, o) : subject.operation->run(inputs, o);
  if (tty) std::fputs("\r\033[K", stderr);

  if (!r.complete) {
    const int signo = InterruptGuard::signal_number();
    if (!path.empty()) {
      save(r.progress);
      std::fprintf(stderr, "fpconform sweep: interrupted by %s after %" PRIu64 " of %" PRIu64
                   " inputs; progress saved to %s: rerun the same command with --resume to continue\n",
                   signal_name(signo), r.inputs_done, r.inputs, path.c_str());
    } else {
      std::fprintf(stderr, "fpconform sweep: interrupted by %s after %" PRIu64 " of %" PRIu64
                   " inputs; nothing saved (give --checkpoint PATH or -o FILE to make the run resumable)\n",
                   signal_name(signo), r.inputs_done, r.inputs);
    }
    return 128 + signo;
  }
  const std::string text = result_text(r, a);
  if (!to_stdout) {
    reports::write_file_atomically(a.output, text, "-o");
  } else {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!path.empty()) std::filesystem::remove(path);  // done: nothing left to resume
  std::fprintf(stderr, "fpconform sweep: %" PRIu64 " cases, %" PRIu64 " mismatches, %.1f s on %u threads%s\n",
               r.cases, r.mismatches, r.seconds, r.threads,
               resumed ? " (this part of a resumed run)" : "");
  return r.mismatches ? 1 : 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "sweep", "Check emu's conversion FROM -> TO (--from, --to), or an operation on a format "
               "(--op, --format), against the MPFR oracle on every source code or operand tuple "
               "(or --inputs N of them) and every rounding configuration; resumable "
               "(--checkpoint, --resume). Exit 1 on any mismatch");
  auto a = std::make_shared<SweepArgs>();
  sub->add_option("--from", a->from, "Source format of a conversion (at most 32 bits; f32: 2^32 codes, hours)");
  sub->add_option("--to", a->to, "Target format of a conversion");
  sub->add_option("--op", a->op, "Operation, by its TestFloat name: add, sub, mul, div, sqrt, mulAdd, "
                                 "roundToInt, minimum, ..., lt_quiet");
  sub->add_option("--format", a->format, "Operands' format (an input packs the operands: at most 48 bits; "
                                         "add on f16: 2^32 pairs, hours)");
  sub->add_option("--inputs", a->inputs, "all (every code or operand tuple) or N evenly spaced ones")
      ->capture_default_str();
  sub->add_option("--modes", a->modes, "all, deterministic, or a list: rne,rtz,sr-a,...")->capture_default_str();
  sub->add_option("--sat", a->sat, "all or a list: none,finite,propagate")->capture_default_str();
  sub->add_option("--subnormal", a->subnormal, "ftz/daz/tininess combinations: plain, ftz, pairwise, full")
      ->capture_default_str();
  sub->add_option("--max-counterexamples", a->max_counterexamples, "counter-examples to show")
      ->capture_default_str()
      ->check(unsigned_in(0, 1000000));
  add_threads_option(sub, a->threads, "worker threads (0: FPCONFORM_THREADS, else all cores); "
                                      "the result does not depend on it");
  sub->add_option("-o,--output", a->output, "write the result here (atomically) instead of stdout (-: stdout)");
  sub->add_option("--checkpoint", a->checkpoint, "checkpoint file (default with -o: FILE.checkpoint)");
  sub->add_flag("--resume", a->resume, "continue the run saved in the checkpoint");
  sub->add_option("--checkpoint-every", a->checkpoint_every, "seconds between checkpoints")
      ->capture_default_str()
      ->check(real_in(0, 86400));
  commands.push_back({sub, [a] { return run_sweep(*a); }});
}

}  // namespace fpconform::cli
