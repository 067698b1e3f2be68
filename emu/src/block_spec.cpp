#include "fpconform/block_spec.hpp"

#include <charconv>
#include <utility>

#include "fpconform/core/error.hpp"

namespace fpconform {
namespace {

int to_positive(std::string_view v, std::string_view what, const std::string& whole) {
  int n = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < 1)
    throw Error(std::string(what), "'" + whole + "': tile sizes are positive integers (tile:1x128)");
  return n;
}

}  // namespace

BlockSpec parse_block_spec(std::string_view text, std::string_view axis, std::string_view what,
                           std::string_view axis_what) {
  BlockSpec b;
  const std::string t(text);
  if (t == "mxfp8") b = {"e4m3", 1, 32, "ocp", false};
  else if (t == "mxfp8-e5m2") b = {"e5m2", 1, 32, "ocp", false};
  else if (t == "mxfp6") b = {"e2m3", 1, 32, "ocp", false};
  else if (t == "mxfp6-e3m2") b = {"e3m2", 1, 32, "ocp", false};
  else if (t == "mxfp4") b = {"e2m1", 1, 32, "ocp", false};
  else if (t == "nvfp4") b = {"e2m1", 1, 16, "nvfp4", true};
  else if (t.rfind("tile:", 0) == 0) {
    const std::string_view dims = std::string_view(t).substr(5);
    const std::size_t x = dims.find('x');
    if (x == std::string_view::npos)
      throw Error(std::string(what), "'" + t + "': expected tile:RxC (tile:1x128, tile:128x128)");
    b = {"e4m3", to_positive(dims.substr(0, x), what, t), to_positive(dims.substr(x + 1), what, t),
         "tile", false};
    return b;  // a tile names both dimensions; --axis does not apply
  } else {
    throw Error(std::string(what), "unknown block '" + t +
                                       "' (known: mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e3m2, mxfp4, "
                                       "nvfp4, tile:RxC)");
  }
  if (axis == "cols") std::swap(b.block_rows, b.block_cols);
  else if (axis != "rows") throw Error(std::string(axis_what), "'" + std::string(axis) + "' is not rows or cols");
  return b;
}

}  // namespace fpconform
