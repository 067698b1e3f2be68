// fpconform formats [--json]
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "fpconform/files/format_listing.hpp"

namespace fpconform::cli {
using namespace fpconform::files;

void add_formats_command(CLI::App& app, std::vector<Command>& commands) {
  auto* sub = app.add_subcommand("formats", "List the built-in formats and their limits");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "Print a JSON array of objects instead of a table");
  commands.push_back({sub, [json] {
                        const auto rows = describe_builtin_formats();
                        const std::string text =
                            *json ? formats_json(rows).dump(2) + "\n" : formats_table(rows);
                        std::fwrite(text.data(), 1, text.size(), stdout);
                        return 0;
                      }});
}

}  // namespace fpconform::cli
