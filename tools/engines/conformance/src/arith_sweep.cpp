#include "fpconform/conformance/arith_sweep.hpp"

#include <cstdio>

#include "fpconform/core/error.hpp"
#include "fpconform/reference/arith.hpp"

namespace fpconform::conformance {

Op parse_sweep_op(const std::string& name, const std::string& where) {
  if (const auto op = find_op(name)) return *op;
  std::string names;
  for (int i = 0; i <= static_cast<int>(Op::lt_quiet); ++i)
    names += (names.empty() ? "" : ", ") + std::string(op_info(static_cast<Op>(i)).name);
  throw Error(where, "'" + name + "' is not an operation (" + names + ")");
}

OperationSweep::OperationSweep(Op op, Format f, std::vector<Rounding> configs)
    : op_(op), f_(std::move(f)), configs_(std::move(configs)), arity_(op_info(op).arity) {
  if (arity_ * f_.width() > 48)
    throw Error("--format", std::string(op_info(op).name) + " on " + f_.name + " takes " +
                                std::to_string(arity_) + " operands of " + std::to_string(f_.width()) +
                                " bits; a sweep packs them into at most 48 bits");
}

InputSet OperationSweep::all_operands() const {
  const unsigned bits = static_cast<unsigned>(arity_ * f_.width());
  const std::uint64_t n = std::uint64_t{1} << bits;
  return InputSet(n, [](std::uint64_t i) { return i; },
                  "all " + std::to_string(n) + " operand " +
                      (arity_ == 1 ? "codes" : arity_ == 2 ? "pairs" : "triples") + " of " + f_.name);
}

namespace {

// Operand k (0: the first) of a packed input.
std::uint64_t operand(std::uint64_t packed, const Format& f, int arity, int k) {
  return (packed >> (static_cast<unsigned>(f.width()) * static_cast<unsigned>(arity - 1 - k))) &
         f.code_mask();
}

std::string operands_text(Op op, const Format& f, int arity, std::uint64_t packed) {
  std::string s = std::string(op_info(op).name) + " " + f.name;
  for (int k = 0; k < arity; ++k) {
    char buf[40];
    std::snprintf(buf, sizeof buf, " 0x%0*llx", f.hex_digits(),
                  static_cast<unsigned long long>(operand(packed, f, arity, k)));
    s += buf;
  }
  return s;
}

}  // namespace

std::string OperationSweep::input_text(std::uint64_t packed) const {
  return operands_text(op_, f_, arity_, packed);
}

SweepResult OperationSweep::run(const InputSet& operands, const SweepOptions& opt) const {
  if (opt.reference) throw Error("sweep", "an operation sweep has only the MPFR oracle as reference");
  const auto make = [this, &opt]() -> SweepEvaluator {
    return [this, &opt](std::uint64_t packed, std::span<CaseOutcome> out) {
      std::uint64_t ops[3] = {0, 0, 0};
      for (int k = 0; k < arity_; ++k) ops[k] = operand(packed, f_, arity_, k);
      for (std::size_t k = 0; k < configs_.size(); ++k) {
        OpOptions o;
        o.rounding = configs_[k];
        CaseOutcome& c = out[k];
        try {
          c.emu = apply_op(op_, f_, ops, o);
          if (opt.emu_hook) opt.emu_hook(packed, o.rounding, c.emu);
        } catch (const std::exception& e) {
          c.error = std::string("emu: ") + e.what();
        }
        try {
          const reference::OracleResult x = reference::apply_op(op_, f_, ops, o);
          c.oracle.bits = x.bits;
          c.oracle.flags.bits = x.flags;
        } catch (const std::exception& e) {
          c.error += (c.error.empty() ? "" : "; ") + std::string("oracle: ") + e.what();
        }
      }
    };
  };
  SweepResult res = run_sweep(operands, configs_, opt, make);
  res.from = res.to = f_;
  res.subject = std::string(op_info(op_).name) + " " + f_.name;
  // (by value: the result may outlive this sweep)
  res.input_text = [op = op_, f = f_, a = arity_](std::uint64_t p) { return operands_text(op, f, a, p); };
  return res;
}

}  // namespace fpconform::conformance
