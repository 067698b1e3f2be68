// cuda:<kernel> targets without a GPU: formats and k from the catalog, unavailable() without a
// runner or with a runner that finds no GPU (exit 3), and the offline rounds: plan out, results
// back (here from an emu model standing in for the GPU), until the characterization asks nothing
// unrecorded, when it must equal the characterization of that model itself.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/cuda_target.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::characterize {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("fpconform-cuda-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(CudaTarget, FormatsAndLengthFromTheCatalog) {
  ::unsetenv("FPCONFORM_GPU_RUNNER");
  const auto t = make_target("cuda:mma_m16n8k8_f32_tf32");
  EXPECT_EQ(t->in().name, "tf32");  // fed to the GPU as f32 containers
  EXPECT_EQ(t->out().name, "f32");
  EXPECT_TRUE(t->supports_k(8));
  EXPECT_FALSE(t->supports_k(4));
  EXPECT_NE(t->unavailable().find("FPCONFORM_GPU_RUNNER"), std::string::npos) << t->unavailable();
  DotBatch b;
  b.k = 8;
  b.add(std::vector<std::uint64_t>(8, 0), std::vector<std::uint64_t>(8, 0), 0);
  EXPECT_THROW(t->run(b), Error);
}

TEST(CudaTarget, RefusesWhatIsNotADotKernel) {
  try {
    make_target("cuda:cvt_f32_e4m3x2_rn_satfinite");
    FAIL() << "a conversion kernel was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mma_m16n8k16_f32_f16"), std::string::npos) << e.what();  // lists the dot kernels
  }
  EXPECT_THROW(make_target("cuda:nonsense"), Error);
  const Format bf16 = parse_format("bf16");
  EXPECT_THROW(make_target("cuda:mma_m16n8k16_f32_f16", &bf16), Error);  // the kernel takes f16
}

TEST(CudaTarget, RunnerWithoutGpuMakesItUnavailable) {
  const fs::path dir = scratch("nogpu");
  const fs::path runner = dir / "fake-runner";
  {
    std::ofstream f(runner);
    f << "#!/bin/sh\necho 'fpconform-gpu-run: no CUDA device found' >&2\nexit 3\n";
  }
  ::chmod(runner.c_str(), 0755);
  CudaTargetOptions o;
  o.runner = runner.string();
  const auto t = make_cuda_target("cuda:mma_m16n8k16_f32_f16", nullptr, nullptr, "--target", o);
  const std::string why = t->unavailable();
  EXPECT_NE(why.find("no GPU (runner exit 3"), std::string::npos) << why;
  EXPECT_NE(why.find("no CUDA device found"), std::string::npos) << why;
  fs::remove_all(dir);
}

TEST(CudaTarget, StandInIsTheExpectedPreset) {
  CudaTargetOptions o;
  o.plan_out = scratch("standin").string();
  EXPECT_EQ(CudaTarget("cuda:mma_m16n8k16_f32_f16", o, nullptr, nullptr, "t").stand_in(), "hopper-mma");
  EXPECT_EQ(CudaTarget("cuda:wgmma_m64n8k32_f32_e4m3", o, nullptr, nullptr, "t").stand_in(), "hopper-wgmma");
  // fp8 mma.sync with f32 output on sm_90: hopper-mma's emulated fp8 (reproduces an H200's rows)
  EXPECT_EQ(CudaTarget("cuda:mma_m16n8k32_f32_e4m3", o, nullptr, nullptr, "t").stand_in(), "hopper-mma");
  // wgmma fp8 into f16: hopper-wgmma without the accumulator cut (an H200's rows)
  EXPECT_EQ(CudaTarget("cuda:wgmma_m64n8k32_f16_e4m3", o, nullptr, nullptr, "t").stand_in(), "hopper-wgmma");
  o.cc = 80;
  EXPECT_EQ(CudaTarget("cuda:mma_m16n8k16_f32_f16", o, nullptr, nullptr, "t").stand_in(), "ampere");
  fs::remove_all(o.plan_out);
}

// The GPU of the test: runs a plan with an emu model and writes the results as the runner would.
void run_plan_on(const fs::path& plan_path, const std::string& model, const fs::path& results) {
  const gpu::Plan plan = gpu::read_plan_file(plan_path.string());
  for (const auto& job : plan.jobs) {
    const auto* k = gpu::find_kernel(job.kernel);
    const Format in = parse_format("f16"), out = parse_format("f32");
    auto unit = make_target("emu:" + model, &in, &out);
    DotBatch b;
    b.k = k->k;
    for (const auto& c : job.cases)
      b.add(std::vector<std::uint64_t>(c.begin(), c.begin() + k->k),
            std::vector<std::uint64_t>(c.begin() + k->k, c.begin() + 2 * k->k), c[2 * k->k]);
    const auto d = unit->run(b);
    gpu::Result r;
    r.header = {{"job", job.name}, {"kernel", job.kernel}, {"input", "explicit"}, {"status", "ok"},
                {"device", "emu " + model}, {"cc", "90"}};
    auto& inputs = r.add_block(gpu::kBlockInputs, 4).data;
    for (const auto& c : job.cases) inputs.insert(inputs.end(), c.begin(), c.end());
    r.add_block(gpu::kBlockOutputs, 4).data.assign(d.begin(), d.end());
    gpu::write_result_file(r, (results / (job.name + ".res")).string());
  }
}

TEST(CudaTarget, OfflineRoundsConvergeToTheCharacterizationOfTheUnit) {
  // The "GPU" computes a unit unlike the stand-in (hopper-mma: F = 25), so the adaptive
  // characterization asks new rows once the first answers come back.
  const std::string gpu_model = "custom:base=hopper,frac_bits=22";
  const fs::path plans = scratch("plans"), results = scratch("results");
  CharacterizeOptions co;
  co.validation_cases = 1500;
  co.seed = 5;
  Characterization final_c;
  int rounds = 0;
  for (; rounds < 8; ++rounds) {
    CudaTargetOptions o;
    o.plan_out = plans.string();
    if (rounds > 0) o.results = results.string();
    CudaTarget t("cuda:mma_m16n8k16_f32_f16", o, nullptr, nullptr, "--target");
    EXPECT_EQ(t.unavailable(), "");
    final_c = characterize(t, co);
    if (t.pending() == 0) {
      EXPECT_EQ(t.recorded_answers(), t.queries());  // every answer was the GPU's
      break;
    }
    const std::string plan = t.write_next_round();
    EXPECT_EQ(plan, (plans / ("round-" + std::to_string(rounds + 1) + ".plan")).string());
    std::size_t cases = 0;
    for (const auto& j : gpu::read_plan_file(plan).jobs) cases += j.cases.size();
    EXPECT_EQ(cases, t.pending());
    run_plan_on(plan, gpu_model, results);
  }
  ASSERT_LT(rounds, 8) << "the rounds did not converge";
  std::printf("offline: %d GPU rounds, then every answer recorded\n", rounds);
  EXPECT_GE(rounds, 1);  // the first round answers nothing from results
  // Every answer recorded: the same characterization as of the unit itself.
  const Format in = parse_format("f16"), out = parse_format("f32");
  auto unit = make_target("emu:" + gpu_model, &in, &out);
  struct K16 final : Target {  // the unit restricted to k = 16, as the kernel is
    Target& u;
    explicit K16(Target& t) : u(t) {}
    std::string name() const override { return u.name(); }
    const Format& in() const override { return u.in(); }
    const Format& out() const override { return u.out(); }
    bool supports_k(int k) const override { return k == 16; }
    std::vector<std::uint64_t> run(const DotBatch& b) override { return u.run(b); }
  } direct(*unit);
  const Characterization want = characterize(direct, co);
  EXPECT_EQ(final_c.model_spec, want.model_spec);
  EXPECT_EQ(final_c.agreed, want.agreed);
  EXPECT_EQ(final_c.validated, want.validated);
  fs::remove_all(plans);
  fs::remove_all(results);
}

}  // namespace
}  // namespace fpconform::characterize
