#include "fuzz_common.hpp"

#include <vector>

namespace fpfuzz {

void fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "\n==== fpconform fuzz finding (%s): %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {
const std::vector<fpconform::Format>& pool() {
  static const std::vector<fpconform::Format> formats = [] {
    std::vector<fpconform::Format> v = fpconform::builtin_formats();
    for (const char* spec : {"binary8p3se", "binary8p4sf", "binary8p1ue", "binary6p3sf",
                             "binary4p2se", "e6m9", "custom:e=15,m=48", "custom:e=1,m=1,nan=none,inf=none",
                             "custom:e=3,m=2,inf=ieee,nan=ones",
                             "custom:e=5,m=2,bias=10,signed=0,nan=max,inf=none",
                             "custom:e=2,m=0,subnormals=0,zero=0,nan=none,inf=none",
                             "custom:e=11,m=52,inf=none,nan=negzero",
                             "custom:e=4,m=3,inf=top,nan=ones"}) {
      v.push_back(fpconform::parse_format(spec));  // throws (and the target stops) if invalid
    }
    return v;
  }();
  return formats;
}
}  // namespace

const fpconform::Format& pick_format(std::uint8_t index) { return pool()[index % pool().size()]; }
std::size_t format_pool_size() { return pool().size(); }

}  // namespace fpfuzz
