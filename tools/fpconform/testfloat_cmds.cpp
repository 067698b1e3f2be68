// fpconform gen|ver|eval FUNCTION, with TestFloat's options (-rnear_even, -level 2, -n N,
// -seed S, -tininessbefore, -exact, ...; main rewrites them to the long forms); and the one-off
// `eval OP --format FMT A B [C]`.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "numeric_options.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "eval_once.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/run.hpp"
#include "options.hpp"

namespace fpconform::cli {

namespace {

struct TestFloatArgs {
  std::string function;
  RoundingOptionSet rounding;
  int level = 1;
  std::uint64_t n = 0, seed = 1;
  bool exhaustive = false, exact_nan = false, exact_int = true;
  std::string file, nan;
  CLI::Option* file_opt = nullptr;
  CLI::Option* nan_opt = nullptr;
  CLI::Option* exact_opt = nullptr;
  // eval only: a one-off evaluation.
  std::string format;
  CLI::Option* format_opt = nullptr;
  std::vector<std::string> operands;
};

std::string function_help() {
  std::string s = "Function: ";
  for (const auto& f : testfloat::families()) s += f.syntax + " (e.g. " + f.example + ") ";
  return s;
}

testfloat::Options options_of(const TestFloatArgs& a) {
  testfloat::OptionText t = a.rounding.text();
  t.exact_nan = a.exact_nan;
  if (a.nan_opt->count()) t.nan = a.nan;
  if (a.exact_opt->count()) t.exact_int = a.exact_int;
  return testfloat::make_options(t);
}

struct Input {
  std::FILE* f = stdin;
  explicit Input(const TestFloatArgs& a) {
    std::string place = "stdin";
    if (a.file_opt->count() && a.file != "-") {
      place = "--file '" + a.file + "'";
      if (std::filesystem::is_directory(a.file)) throw Error(place, "is a directory");
      f = std::fopen(a.file.c_str(), "rb");
      if (!f) throw Error("--file", "cannot open '" + a.file + "'");
    }
    try {
      require_input(f, place);
    } catch (...) {
      if (f != stdin) std::fclose(f);
      throw;
    }
  }
  ~Input() {
    if (f != stdin) std::fclose(f);
  }
};

CLI::App* add_common(CLI::App& app, const char* name, const char* help, TestFloatArgs& a) {
  auto* sub = app.add_subcommand(name, help);
  sub->footer(
      "TestFloat's spellings work too: -rnear_even -rnear_maxMag -rminMag -rmin -rmax -rodd,\n"
      "-tininessbefore -tininessafter, -level N, -seed S, -n N, -checkNaNs (= --exact-nan),\n"
      "-exact -notexact.\n"
      "Lines: operand(s) result flags, upper-case hex padded to each format's width (a\n"
      "comparison's result is one digit, 0 or 1); flags are TestFloat's mask (invalid 10,\n"
      "infinite 08, overflow 04, underflow 02, inexact 01).");
  sub->add_option("FUNCTION", a.function, function_help())->required();
  a.rounding.add_to(sub, true);
  a.nan_opt = sub->add_option("--nan", a.nan,
                              "Operations: which NaN a NaN result is: ieee (default), x86, "
                              "arm-default-nan, riscv, nvidia");
  a.exact_opt = sub->add_flag("--exact,!--notexact", a.exact_int,
                              "roundToInt raises inexact (default; TestFloat -exact / -notexact)");
  return sub;
}

}  // namespace

void add_testfloat_commands(CLI::App& app, std::vector<Command>& commands) {
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "gen",
                           "Generate TestFloat lines `operands result flags`, results from the "
                           "MPFR oracle",
                           *a);
    sub->add_option("--level", a->level, "1 or 2 (TestFloat -level)")->capture_default_str()->check(integer_in(1, 2));
    sub->add_option("-n", a->n, "Number of cases (default 100000 at level 1, 1000000 at 2; "
                                "the pattern set is always complete)")
        ->check(unsigned_in(0, 1000000000000, "0: the level's default"));
    sub->add_option("--seed", a->seed, "Seed of the random cases")->capture_default_str()->check(unsigned_in(0, std::numeric_limits<std::uint64_t>::max()));
    sub->add_flag("--exhaustive", a->exhaustive,
                  "Every operand code (at most 32 operand bits: pairs of 16-bit codes, "
                  "triples of 8-bit ones)");
    commands.push_back({sub, [a] {
                          const auto fn = testfloat::parse_function(a->function);
                          const testfloat::Options o = options_of(*a);
                          testfloat::GenOptions g;
                          g.level = a->level;
                          g.n = a->n;
                          g.seed = a->seed;
                          g.exhaustive = a->exhaustive;
                          testfloat::check_gen(*fn, o, g);
                          if (!g.exhaustive)
                            std::fprintf(stderr, "fpconform gen: seed %llu\n",
                                         static_cast<unsigned long long>(g.seed));
                          testfloat::run_gen(*fn, o, g, stdout);
                          return 0;
                        }});
  }
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "ver",
                           "Check TestFloat lines against fpconform's emu; prints mismatches and "
                           "`P passed, F failed`; exit 1 on any failure",
                           *a);
    a->file_opt = sub->add_option("--file", a->file, "Read lines from this file (default stdin)");
    sub->add_flag("--exact-nan", a->exact_nan, "NaN results must match bit for bit");
    commands.push_back({sub, [a] {
                          const auto fn = testfloat::parse_function(a->function);
                          const testfloat::Options o = options_of(*a);
                          Input in(*a);
                          const auto sum = testfloat::run_ver(*fn, o, in.f, stdout);
                          return sum.failed ? 1 : 0;
                        }});
  }
  {
    auto a = std::make_shared<TestFloatArgs>();
    auto* sub = add_common(app, "eval",
                           "Read operand lines and write complete lines with emu's results;\n"
                           "or evaluate once: eval OP --format FMT A B [C] (e.g. eval mulAdd "
                           "--format e4m3 1.5 2 0x01)",
                           *a);
    a->file_opt = sub->add_option("--file", a->file, "Read lines from this file (default stdin)");
    a->format_opt = sub->add_option("--format", a->format,
                                    "One-off: the format of the operands; FUNCTION is then an "
                                    "operation (add, mulAdd, lt_quiet, ...)");
    sub->add_option("OPERAND", a->operands,
                    "One-off: operands, numbers (1.5, -0x1p-3, inf, nan) rounded to the format "
                    "or 0x<hex> raw codes");
    commands.push_back({sub, [a] {
                          const testfloat::Options o = options_of(*a);
                          if (a->format_opt->count() || !a->operands.empty()) {
                            if (a->file_opt->count())
                              throw Error("--file", "not with operands on the command line");
                            if (!a->format_opt->count() && find_op(a->function))
                              throw Error("--format", "needed with operation '" + a->function +
                                                          "' (e.g. eval " + a->function +
                                                          " --format bf16 ...), or name a "
                                                          "function such as bf16_" + a->function);
                            const auto fn =
                                a->format_opt->count()
                                    ? testfloat::make_operation(
                                          testfloat::parse_op(a->function, "OP"),
                                          parse_format(a->format, "--format"))
                                    : testfloat::parse_function(a->function);
                            const EvalOnceOutput out = eval_once(*fn, o, a->operands);
                            for (const auto& n : out.notes)
                              std::fprintf(stderr, "fpconform: %s\n", n.c_str());
                            for (const auto& l : out.lines) std::printf("%s\n", l.c_str());
                            return 0;
                          }
                          const auto fn = testfloat::parse_function(a->function);
                          Input in(*a);
                          testfloat::run_eval(*fn, o, in.f, stdout);
                          return 0;
                        }});
  }
}

}  // namespace fpconform::cli
