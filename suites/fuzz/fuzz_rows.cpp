// The recorded-rows reader of tools/engines/characterize (the plain layout of ROWS.md), from a stream.
// The first byte chooses whether --in/--out are given and --c-zero. Property of accepted rows:
// at least one case, a and b of equal non-zero length, codes within their formats' widths (b's
// own format where the header gives `b=`),
// one `where` per case.
#include <sstream>

#include "fpconform/characterize/rows.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;
using namespace fpconform::characterize;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kIn[] = {"", "e4m3", "f16", "bf16", "tf32", "e2m1", "e5m2", "f32"};
  static const char* const kOut[] = {"", "f32", "f16", "bf16"};
  fpfuzz::Bytes bytes(data, size);
  const std::uint8_t knobs = bytes.u8();
  RowsOptions o;
  o.in = kIn[knobs % 8];
  o.out = kOut[(knobs >> 3) % 4];
  o.c_zero = knobs & 0x20;
  std::istringstream text{std::string(bytes.rest())};
  RecordedRows rows;
  if (!fpfuzz::guarded("rows", [&] { rows = read_plain_rows(text, "fuzz.rows", o); })) return 0;
  fpfuzz::require(!rows.cases.empty(), "rows", "accepted rows without a case");
  fpfuzz::require(rows.where.size() == rows.cases.size(), "rows", "where and cases differ in count");
  for (const DotCase& c : rows.cases) {
    fpfuzz::require(!c.a.empty() && c.a.size() == c.b.size(), "rows", "a ragged or empty case");
    for (std::uint64_t v : c.a) fpfuzz::require((v & ~rows.in.code_mask()) == 0, "rows", "wide a");
    for (std::uint64_t v : c.b)
      fpfuzz::require((v & ~rows.b_format().code_mask()) == 0, "rows", "wide b");
    fpfuzz::require((c.c & ~rows.out.code_mask()) == 0 && (c.d & ~rows.out.code_mask()) == 0,
                    "rows", "wide c or d");
    if (o.c_zero) fpfuzz::require(c.c == 0, "rows", "--c-zero but c is not +0");
  }
  return 0;
}
