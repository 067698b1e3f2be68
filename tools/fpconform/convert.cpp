// fpconform convert --to FMT [--from FMT] [options] VALUE...
#include <cstdio>
#include <memory>

#include "cli_args.hpp"
#include "commands.hpp"
#include "fpconform/files/convert_values.hpp"
#include "options.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

namespace {
struct ConvertArgs {
  std::string to, from;
  CLI::Option* from_opt = nullptr;
  RoundingOptionSet rounding;
  std::vector<std::string> values;
};
}  // namespace

void add_convert_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand(
      "convert",
      "Round values into a format: prints `<code> <exact value> <flags>` per VALUE.\n"
      "VALUE: a decimal (-1.5e-3), hex float (0x1.8p-3), inf or nan, parsed exactly; with\n"
      "--from, 0x<hex digits> are raw bits of that format (other numbers are first rounded to\n"
      "it, nearest-even, with a note).");
  auto a = std::make_shared<ConvertArgs>();
  sub->add_option("--to", a->to, "Target format (see `fpconform formats`)")->required();
  a->from_opt = sub->add_option("--from", a->from, "Source format: VALUEs are codes of it");
  a->rounding.add_to(sub, true);
  sub->add_option("VALUE", a->values, "Values to convert")->required();
  commands.push_back({sub, [a] {
                        ConvertRequest req;
                        req.to = parse_format(a->to, "--to");
                        if (a->from_opt->count()) req.from = parse_format(a->from, "--from");
                        req.options = testfloat::make_options(a->rounding.text());
                        const ConvertOutput out = convert_values(req, a->values);
                        for (const auto& n : out.notes) std::fprintf(stderr, "fpconform: %s\n", n.c_str());
                        if (!out.errors.empty()) {
                          for (const auto& e : out.errors)
                            std::fprintf(stderr, "fpconform: %s\n", printable_message(e).c_str());
                          return 2;
                        }
                        for (const auto& l : out.lines) std::printf("%s\n", l.c_str());
                        return 0;
                      }});
}

}  // namespace fpconform::cli
