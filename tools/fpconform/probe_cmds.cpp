// fpconform probe: (being written this session)
#include "commands.hpp"

namespace fpconform::cli {

void add_probe_command(CLI::App& app, std::vector<Command>& commands) {
  (void)app;
  (void)commands;
}

}  // namespace fpconform::cli
