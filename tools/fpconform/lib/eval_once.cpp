#include "eval_once.hpp"

#include "fpconform/files/convert_values.hpp"
#include "fpconform/files/format_listing.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/line.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

EvalOnceOutput eval_once(const testfloat::Function& f, const testfloat::Options& options,
                         const std::vector<std::string>& values) {
  const testfloat::Signature& sig = f.signature();
  const int n = sig.arity();
  static constexpr const char* kNames[testfloat::kMaxArity] = {"a", "b", "c"};
  if (static_cast<int>(values.size()) != n) {
    std::string names;
    for (int k = 0; k < n; ++k) {  // appended: GCC 12 warns (-Wrestrict) on " " + string
      if (k) names += ' ';
      names += kNames[k];
    }
    throw Error("OPERAND", f.name() + " takes " + std::to_string(n) +
                               (n == 1 ? " operand" : " operands") + " (" + names + "), got " +
                               std::to_string(values.size()));
  }
  EvalOnceOutput out;
  testfloat::Operands ops{};
  for (int k = 0; k < n; ++k) {
    const Format& fk = sig.operands[static_cast<std::size_t>(k)];
    const std::string& v = values[static_cast<std::size_t>(k)];
    const std::string where = "operand " + std::string(kNames[k]) + " '" + v + "'";
    bool exact = true;
    ops[static_cast<std::size_t>(k)] =
        code_of_value(v, fk, where, "operand " + std::string(kNames[k]) + " of " + f.name(), exact);
    if (!exact) out.notes.push_back(inexact_note(where, ops[static_cast<std::size_t>(k)], fk));
  }
  const testfloat::Result r = f.emu(ops.data(), options);
  for (int k = 0; k < n; ++k) {
    const Format& fk = sig.operands[static_cast<std::size_t>(k)];
    const std::uint64_t c = ops[static_cast<std::size_t>(k)];
    out.lines.push_back(std::string(kNames[k]) + ": " + code_text(c, fk) + " " +
                        exact_decimal(decode(c, fk)));
  }
  Flags flags;
  flags.bits = r.flags;
  std::string result;
  if (sig.result == testfloat::bool_format())  // a comparison
    result = std::to_string(r.bits) + (r.bits ? " true" : " false");
  else
    result = code_text(r.bits, sig.result) + " " + exact_decimal(decode(r.bits, sig.result));
  out.lines.push_back("result: " + result + " " + flags.to_string());
  out.lines.push_back("testfloat: " + testfloat::format_line(sig, ops.data(), r.bits, r.flags));
  return out;
}

}  // namespace fpconform::cli
