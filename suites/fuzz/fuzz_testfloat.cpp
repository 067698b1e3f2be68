// TestFloat's line protocol: the function name (first line: parse_function), option text
// (second line: `key=value` words for make_options, and the words through
// rewrite_testfloat_args), then the lines `ver` and `eval` read (run_ver, run_eval on the rest).
#include <cstdio>
#include <string>
#include <vector>

#include "fpconform/testfloat/function.hpp"
#include "fpconform/testfloat/line.hpp"
#include "fpconform/testfloat/run.hpp"
#include "fuzz_common.hpp"

using namespace fpconform;
using namespace fpconform::testfloat;

namespace {

std::FILE* devnull() {
  static std::FILE* f = std::fopen("/dev/null", "w");
  return f;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const std::string_view name = in.line();
  const std::string_view option_line = in.line();
  const std::uint8_t knobs = in.u8();
  const std::string_view body = in.rest();

  const std::vector<std::string> argv = words(option_line);
  fpfuzz::guarded("testfloat", [&] { (void)rewrite_testfloat_args(argv); });
  OptionText t;
  for (const std::string& w : argv) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = w.substr(0, eq), v = w.substr(eq + 1);
    if (k == "round") t.round = v;
    else if (k == "sat") t.sat = v;
    else if (k == "tininess") t.tininess = v;
    else if (k == "profile") t.profile = v;
    else if (k == "random") t.random = v;
    else if (k == "nan") t.nan = v;
  }
  if (knobs & 1) t.ftz = true;
  if (knobs & 2) t.daz = true;
  if (knobs & 4) t.sr_bits = static_cast<int>(knobs >> 3) * 3 - 10;  // -10..83
  t.exact_nan = knobs & 0x80;
  if (knobs & 0x40) t.exact_int = false;

  std::unique_ptr<Function> f;
  if (!fpfuzz::guarded("testfloat", [&] { f = parse_function(name, "FUNCTION"); })) return 0;
  fpfuzz::require(f != nullptr, "testfloat", "parse_function returned null without an Error");
  Options o;
  if (!fpfuzz::guarded("testfloat", [&] { o = make_options(t); })) return 0;

  // Each line through parse_line, then the whole body through ver and eval.
  std::string_view rest = body;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    for (LineKind kind : {LineKind::complete, LineKind::operands_or_complete}) {
      Line parsed;
      std::string error;
      fpfuzz::guarded("testfloat", [&] { error = parse_line(line, f->signature(), kind, parsed); });
    }
  }
  std::string copy(body);  // fmemopen wants a writable buffer
  for (int which = 0; which < 2; ++which) {
    std::FILE* stream = copy.empty() ? std::fopen("/dev/null", "r")
                                     : fmemopen(copy.data(), copy.size(), "r");
    if (!stream) return 0;
    fpfuzz::guarded("testfloat", [&] {
      if (which == 0) (void)run_ver(*f, o, stream, devnull());
      else (void)run_eval(*f, o, stream, devnull());
    });
    std::fclose(stream);
  }
  return 0;
}
