// fpconform probe --target T: characterize a matrix unit (feature probes, model synthesis,
// validation, refinement, summation order) and optionally write its device profile.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

#include "numeric_options.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "fpconform/files/probe_journal.hpp"
#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/characterize/device_profile.hpp"

namespace fpconform::cli {
using namespace fpconform::files;
namespace {

struct ProbeArgs {
  std::string target, in, out, b_format, out_dir, checkpoint;
  characterize::CudaTargetOptions cuda;  // cuda: targets: --runner, --plan-out, --results, --stand-in
  std::uint64_t cases = 100000, seed = 1;
  int max_k = 64, order_k = 32;
  bool resume = false;
};

// What the characterization depends on (checkpoints of other arguments are refused).
std::string canonical_args(const ProbeArgs& a, const characterize::Target& t) {
  return "target=" + a.target + " in=" + t.in().name +
         (t.in_b() == t.in() ? "" : " b=" + t.in_b().name) + " out=" + t.out().name +
         " cases=" + std::to_string(a.cases) + " seed=" + std::to_string(a.seed) +
         " max-k=" + std::to_string(a.max_k) + " order-k=" + std::to_string(a.order_k);
}

int characterize_and_print(const ProbeArgs& a, characterize::Target* t, const characterize::CudaTarget* cuda);

// Offline cuda: targets: the rows no result answered become the next round's plan; exit 4 says
// "run this plan on the GPU, then rerun with --results" (no profile is written before then).
int next_gpu_round(const characterize::CudaTarget& t) {
  const std::string plan = t.write_next_round();
  std::printf("INCOMPLETE: %" PRIu64 " answers came from recorded results, %zu rows were answered by the stand-in "
              "emu:%s; their plan is %s: run it on the GPU (fpconform-gpu-run --out RESULTS %s), then rerun this "
              "command with --results RESULTS (exit 4)\n",
              t.recorded_answers(), t.pending(), t.stand_in().c_str(), plan.c_str(), plan.c_str());
  return 4;
}

int run_probe(const ProbeArgs& a) {
  std::optional<Format> in, out, in_b;
  if (!a.in.empty()) in = parse_format(a.in, "--in");
  if (!a.b_format.empty()) in_b = parse_format(a.b_format, "--b-format");
  if (!a.out.empty()) out = parse_format(a.out, "--out");
  if (a.target.rfind("cuda:", 0) != 0 && (a.cuda.offline() || !a.cuda.runner.empty()))
    throw Error("--target", "--runner, --plan-out and --results are for cuda: targets");
  // Outputs that are not what they should be are refused before the characterization.
  if (!a.out_dir.empty()) reports::prepare_output_dir(a.out_dir, "--out-dir");
  if (!a.cuda.plan_out.empty()) reports::prepare_output_dir(a.cuda.plan_out, "--plan-out");
  if (!a.checkpoint.empty()) reports::check_output_file(a.checkpoint, "--checkpoint");
  std::unique_ptr<characterize::Target> target;
  const characterize::CudaTarget* cuda = nullptr;  // offline rounds end in a plan, not a profile
  if (a.target.rfind("cuda:", 0) == 0) {
    if (in_b && (!in || *in_b != *in))
      throw Error("--b-format", "cuda: kernels take a and b in one format (--in)");
    auto t = characterize::make_cuda_target(a.target, in ? &*in : nullptr, out ? &*out : nullptr, "--target", a.cuda);
    cuda = t.get();
    target = std::move(t);
  } else {
    target = characterize::make_target(a.target, in ? &*in : nullptr, out ? &*out : nullptr, "--target",
                                       in_b ? &*in_b : nullptr);
  }
  if (const std::string why = target->unavailable(); !why.empty())
    throw Error("--target", target->name() + " cannot run here: " + why);
  if (a.checkpoint.empty()) {
    if (a.resume) throw Error("--resume", "needs --checkpoint PATH");
    return characterize_and_print(a, target.get(), cuda);
  }
  // Resumable: every answer of the target is journaled; SIGINT/SIGTERM stop at the next query.
  InterruptGuard guard;
  JournalTarget journal(*target, a.checkpoint, canonical_args(a, *target), a.resume,
                        &InterruptGuard::stop_flag());
  if (a.resume)
    std::fprintf(stderr, "fpconform probe: resuming: %zu answers journaled in %s\n", journal.journaled(),
                 a.checkpoint.c_str());
  try {
    const int rc = characterize_and_print(a, &journal, cuda);
    journal.remove();  // done: nothing left to resume
    return rc;
  } catch (const ProbeInterrupted&) {
    const int signo = InterruptGuard::signal_number();
    std::fprintf(stderr, "fpconform probe: interrupted by %s after %zu batches of queries; progress "
                 "saved to %s: rerun the same command with --resume to continue\n",
                 signal_name(signo), journal.answered(), a.checkpoint.c_str());
    return 128 + signo;
  } catch (const JournalError& e) {
    throw Error("", e.message);
  }
}

// The characterization and its report. Everything goes to stdout at the end (and --out-dir is
// written atomically), so an interrupted run prints no result-looking line.
int characterize_and_print(const ProbeArgs& a, characterize::Target* t, const characterize::CudaTarget* cuda) {
  characterize::CharacterizeOptions o;
  o.seed = a.seed;
  o.validation_cases = a.cases;
  o.max_k = a.max_k;
  const bool tty = ::isatty(STDERR_FILENO);
  o.progress = [tty](std::string_view stage, std::string_view detail) {
    if (tty) std::fprintf(stderr, "\r\033[K%.*s: %.*s", static_cast<int>(stage.size()), stage.data(),
                          static_cast<int>(std::min<std::size_t>(detail.size(), 100)), detail.data());
  };
  const std::string b = t->in_b() == t->in() ? "" : " x " + t->in_b().name;
  std::fprintf(stderr, "probing %s (%s%s -> %s), seed %" PRIu64 "\n", t->name().c_str(),
               t->in().name.c_str(), b.c_str(), t->out().name.c_str(), a.seed);
  auto c = characterize::characterize(*t, o);
  if (tty) std::fputs("\r\033[K", stderr);
  if (auto order = characterize::order_evidence(*t, a.order_k)) c.evidence.push_back(std::move(*order));
  c.queries = t->queries();
  std::printf("target %s: %s\n", c.target.c_str(), c.formats_text().c_str());
  for (const auto& e : c.evidence) std::printf("  %-20s %s\n", e.probe.c_str(), e.finding.c_str());
  std::printf("%s\n", c.verdict.c_str());
  if (!c.deterministic) std::printf("non-deterministic: identical calls gave different answers\n");
  std::printf("%" PRIu64 " queries, %.1f s\n", c.queries, c.seconds);
  if (cuda && cuda->pending() > 0)
    return next_gpu_round(*cuda);  // offline: the answers above are partly the stand-in's
  if (!a.out_dir.empty()) {
    const std::string path = characterize::write_device_profile(c, a.out_dir, FPCONFORM_VERSION);
    std::printf("profile written to %s (and .md)\n", path.c_str());
  }
  std::printf("model %s agrees on %" PRIu64 "/%" PRIu64 " cases\n", c.model_spec.c_str(), c.agreed, c.validated);
  return c.expressible && c.agreed == c.validated && c.deterministic ? 0 : 1;
}

}  // namespace

void add_probe_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "probe", "Characterize a matrix unit (emu:MODEL, cpu:fp32-fma|avx512-fp16|avx512-bf16|amx-bf16, cuda:KERNEL): "
               "probes, a bit-exact model, validation");
  auto a = std::make_shared<ProbeArgs>();
  sub->add_option("--target", a->target, "emu:PRESET, emu:<staged unit>, emu:custom:key=value,..., cpu:..., cuda:KERNEL (fpconform-gpu-run --list)")->required();
  sub->add_option("--in", a->in, "input format (emu targets; cpu targets have fixed formats)");
  sub->add_option("--b-format", a->b_format, "format of b, when it is not --in (emu targets: e4m3 x e5m2)");
  sub->add_option("--out", a->out, "output format");
  sub->add_option("--out-dir", a->out_dir, "write the device profile (JSON + Markdown) here");
  sub->add_option("--cases", a->cases, "fresh validation cases")->capture_default_str()->check(unsigned_in(1, 1000000000));
  sub->add_option("--max-k", a->max_k, "longest dot product the probes and the validation use")
      ->capture_default_str()
      ->check(integer_in(characterize::kMinProbeK, 4096, "the block-size probe must reach the family's largest block, " +
                                               std::to_string(characterize::kMinProbeK)));
  sub->add_option("--order-k", a->order_k, "k for the summation-order recovery")
      ->capture_default_str()
      ->check(integer_in(2, 256));
  sub->add_option("--seed", a->seed, "seed of every random choice")->capture_default_str()->check(unsigned_in(0, std::numeric_limits<std::uint64_t>::max()));
  sub->add_option("--checkpoint", a->checkpoint,
                  "journal the target's answers here; SIGINT/SIGTERM/kill -9 leave it to --resume");
  sub->add_flag("--resume", a->resume, "continue the run journaled in --checkpoint");
  sub->add_option("--runner", a->cuda.runner, "cuda: targets: fpconform-gpu-run (default $FPCONFORM_GPU_RUNNER)");
  sub->add_option("--plan-out", a->cuda.plan_out,
                  "cuda: targets, offline: write the rows no result answers as round-N.plan here (exit 4)");
  sub->add_option("--results", a->cuda.results, "cuda: targets, offline: answer from the .res files under here");
  sub->add_option("--stand-in", a->cuda.stand_in,
                  "cuda: targets, offline: preset answering unrecorded rows (default: the kernel's expected preset)");
  commands.push_back({sub, [a] { return run_probe(*a); }});
}

}  // namespace fpconform::cli
