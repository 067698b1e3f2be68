// `--model` text (parse_model: preset names, staged texts and custom:key=value,... specs).
// Properties of an accepted model: its staged text (model_text) reads back to the same unit and
// computes the same result, and fdpa runs on a short dot product of codes from the input (a
// result or Error; never a crash or a hang).
#include <vector>

#include "fpconform/fdpa.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kIn[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "e2m1", "e3m2",
                                    "e2m3", "f32",  "f64",  "ue8m0", "e4m3fnuz"};
  static const char* const kOut[] = {"f32", "f16", "bf16", "f64", "e4m3"};
  fpfuzz::Bytes in(data, size);
  const std::string_view text = in.line();
  const std::uint8_t pick = in.u8();
  const Format fin = parse_format(kIn[pick % std::size(kIn)]);
  const Format fout = parse_format(kOut[(pick >> 4) % std::size(kOut)]);
  FdpaParams p;
  if (!fpfuzz::guarded("model", [&] { p = parse_model(text, fin, fout, "--model"); })) return 0;
  std::string spec;
  FdpaParams back;
  fpfuzz::guarded("model", [&] { spec = model_text(p); });
  fpfuzz::require(fpfuzz::guarded("model", [&] { back = parse_model(spec, fin, fout, "spec"); }) &&
                      model_text(back) == spec,
                  "model", "model_text '" + spec + "' does not read back to the same unit");
  const std::size_t k = 1 + in.u8() % 16;
  std::vector<std::uint64_t> a(k), b(k);
  for (auto& v : a) v = in.u64() & fin.code_mask();
  for (auto& v : b) v = in.u64() & fin.code_mask();
  const std::uint64_t c = in.u64() & fout.code_mask();
  fpfuzz::guarded("model", [&] {
    const std::uint64_t d = fdpa(p, fin, fout, a, b, c);
    fpfuzz::require((d & ~fout.code_mask()) == 0, "model", "fdpa gave a code wider than " + fout.name);
    fpfuzz::require(fdpa(back, fin, fout, a, b, c) == d, "model",
                    "the staged text '" + spec + "' computes another result than the model read");
  });
  return 0;
}
