// Ecosystem profiles are built-in data, not read from JSON: the text a user gives is a profile
// name (find_profile), and the options they set (UserOptions) are resolved against the
// profile's rules. This fuzzes the name lookup and every profile's resolve_rounding and
// convert_with_profile on formats, options and codes from the input.
#include "fpconform/profile.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const std::string_view name = in.line();
  fpfuzz::guarded("profile", [&] { (void)find_profile(name, "--profile"); });
  const auto& profiles = builtin_profiles();
  const Profile& p = profiles[in.u8() % profiles.size()];
  const Format& from = fpfuzz::pick_format(in.u8());
  const Format& to = fpfuzz::pick_format(in.u8());
  const std::uint8_t set = in.u8(), val = in.u8();
  UserOptions u;
  if (set & 1) u.mode = static_cast<RoundingMode>(val % 10);
  if (set & 2) u.sat = static_cast<Saturation>((val >> 4) % 3);
  if (set & 4) u.ftz = (val >> 6) & 1;
  if (set & 8) u.daz = (val >> 7) & 1;
  if (set & 16) u.tininess = (val & 1) ? Tininess::before_rounding : Tininess::after_rounding;
  if (set & 32) u.stochastic_bits = static_cast<int>(in.u8()) - 64;  // out of range too
  if (set & 64) u.random = in.u64();
  fpfuzz::guarded("profile", [&] { (void)resolve_rounding(p, from, to, u); });
  for (int i = 0; i < 4 && in.size() > 0; ++i) {
    const std::uint64_t code = in.u64() & from.code_mask();
    fpfuzz::guarded("profile", [&] {
      const Rounded r = convert_with_profile(code, from, to, p, u);
      fpfuzz::require((r.bits & ~to.code_mask()) == 0, "profile",
                      p.name + ": a code wider than " + to.name);
    });
  }
  return 0;
}
