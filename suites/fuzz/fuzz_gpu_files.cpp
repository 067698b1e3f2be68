// The GPU probes' plan and result files (gpu_probes/PLAN.md): the first byte chooses which.
// Either reader gives a value or fpconform::gpu::FileError (naming file:line); anything else is
// a finding. Properties of what is accepted: a plan writes back to text that parses to the same
// plan, and a result encodes back to bytes that decode to the same result.
#include <string>

#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"
#include "fuzz_common.hpp"

using namespace fpconform::gpu;

namespace {

// Like fpfuzz::guarded, for this library's own error type (it needs no emu, so no
// fpconform::Error).
template <class F>
bool accepted(F&& body) {
  try {
    body();
    return true;
  } catch (const FileError&) {
    return false;
  } catch (const std::exception& e) {
    fpfuzz::fail("gpu_files", std::string("unexpected exception ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    fpfuzz::fail("gpu_files", "unexpected non-standard exception");
  }
}

void plan_round_trip(const std::string& text) {
  Plan plan;
  if (!accepted([&] { plan = parse_plan(text, "fuzz.plan"); })) return;
  for (const Job& j : plan.jobs) (void)job_case_count(j);
  std::string back;
  Plan again;
  fpfuzz::require(accepted([&] { back = write_plan(plan); }) &&
                      accepted([&] { again = parse_plan(back, "written.plan"); }),
                  "gpu_files", "an accepted plan does not read back from its own text");
  fpfuzz::require(again == plan, "gpu_files", "a plan reads back different from its text");
}

void result_round_trip(const std::string& bytes) {
  Result r;
  if (!accepted([&] { r = decode_result(bytes, "fuzz.res"); })) return;
  std::string back;
  Result again;
  fpfuzz::require(accepted([&] { back = encode_result(r); }) &&
                      accepted([&] { again = decode_result(back, "written.res"); }),
                  "gpu_files", "an accepted result does not decode from its own encoding");
  fpfuzz::require(again == r, "gpu_files", "a result decodes different from its encoding");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const bool plan = (in.u8() & 1) == 0;
  const std::string rest(in.rest());
  if (plan) plan_round_trip(rest);
  else result_round_trip(rest);
  return 0;
}
