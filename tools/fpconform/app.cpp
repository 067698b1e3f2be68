// The fpconform command line (app.hpp): the App, the argument rewriting, the exit status.
#include "app.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>

#include "cli_args.hpp"
#include "commands.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/testfloat/run.hpp"

#ifndef FPCONFORM_VERSION
#define FPCONFORM_VERSION "0.0.0"
#endif

namespace fpconform::cli {

namespace {

// Options of `sub` that take a value, with their dashes ("--to", "-n").
std::set<std::string> value_options(const CLI::App& sub) {
  std::set<std::string> names;
  for (const CLI::Option* o : sub.get_options()) {
    if (o->get_expected_max() == 0 || !o->nonpositional()) continue;  // flags, positionals
    for (const auto& l : o->get_lnames()) names.insert("--" + l);
    for (const auto& s : o->get_snames()) names.insert("-" + s);
  }
  return names;
}

// CLI11 2.1 reads "-5" into an unsigned option as 2^64 - 5; every unsigned option of every
// command refuses negative numbers instead.
// (CLI::NonNegativeNumber would say "not in range 0 to 1.797...e308".)
void refuse_negative_unsigned(CLI::App& app) {
  const CLI::Validator non_negative(
      [](std::string& text) -> std::string {
        const auto first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text[first] == '-')
          return "'" + text + "' is negative; a count or size is expected";
        return {};
      },
      "UINT");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* o : sub->get_options())
      if (o->get_type_name() == "UINT") o->check(non_negative);
}

// The token `--name=value` whose value is an integer outside int64: CLI11 2.1 reads a negated
// flag's value (--notexact=N) with std::stoll and lets its out_of_range escape parse().
std::string out_of_range_flag_value(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    const auto eq = a.find('=');
    if (a.size() < 2 || a[0] != '-' || eq == std::string::npos) continue;
    std::string_view v = std::string_view(a).substr(eq + 1);
    if (!v.empty() && v[0] == '+') v.remove_prefix(1);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc::result_out_of_range) return a;
  }
  return {};
}

}  // namespace

CliApp make_app() {
  CliApp c;
  c.app = std::make_unique<CLI::App>(
      "fpconform " FPCONFORM_VERSION
      ": bit-exact models of low-precision floating-point formats (bf16, fp8, fp6, fp4, "
      "P3109), checked against an MPFR oracle",
      "fpconform");
  CLI::App& app = *c.app;
  app.set_version_flag("--version", "fpconform " FPCONFORM_VERSION);
  app.require_subcommand(1);
  // The verbs, in the order --help lists them.
  using AddCommands = void (*)(CLI::App&, std::vector<Command>&);
  const AddCommands verbs[] = {add_formats_command, add_convert_command, add_testfloat_commands,
                               add_report_command, add_matrix_commands, add_quantize_commands,
                               add_probe_command, add_fit_command, add_validate_command,
                               add_bench_command, add_sweep_command, add_gpu_analyze_command,
                               add_tolerance_command};
  for (AddCommands add : verbs)
    add(app, c.commands);

  refuse_negative_unsigned(app);

  return c;
}

int run(std::vector<std::string> args) {
  CliApp cli = make_app();
  CLI::App& app = *cli.app;
  const std::vector<Command>& commands = cli.commands;
  std::string unknown_command;  // the first word, if it names no command
  // Find the subcommand; give TestFloat's spellings to gen/ver/eval, and keep negative numbers
  // from looking like options.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    CLI::App* sub = nullptr;
    for (const auto& c : commands)
      if (c.app->get_name() == args[i]) sub = c.app;
    if (!sub) {
      if (!args[i].empty() && args[i][0] != '-') {
        unknown_command = args[i];
        break;
      }
      continue;
    }
    if (sub->get_name() == "gen" || sub->get_name() == "ver" || sub->get_name() == "eval") {
      std::vector<std::string> tail(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      tail = testfloat::rewrite_testfloat_args(tail);
      args.resize(i + 1);
      args.insert(args.end(), tail.begin(), tail.end());
    }
    args = positionals_last(args, value_options(*sub), i);
    break;
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector last-first
  const std::vector<std::string> given = args;  // parse() consumes args
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) == 0) return 0;
    if (!unknown_command.empty()) {
      std::string names;
      for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c.app->get_name();
      std::fprintf(stderr, "fpconform: unknown command '%s' (commands: %s)\n",
                   unknown_command.c_str(), names.c_str());
    }
    return 2;
  } catch (const std::exception& e) {
    const std::string token = out_of_range_flag_value(given);
    std::fprintf(stderr, "fpconform: %s: %s\n",
                 token.empty() ? "the command line" : printable_message(token).c_str(),
                 token.empty() ? printable_message(e.what()).c_str()
                               : "a flag's value is true, false or a small count");
    return 2;
  }
  for (const auto& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const Error& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "fpconform: %s\n", printable_message(e.what()).c_str());
      return 2;
    }
  }
  return 2;
}

}  // namespace fpconform::cli
