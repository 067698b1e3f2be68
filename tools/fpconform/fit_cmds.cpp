// fpconform fit: (being written this session)
#include "commands.hpp"

namespace fpconform::cli {

void add_fit_command(CLI::App& app, std::vector<Command>& commands) {
  (void)app;
  (void)commands;
}

}  // namespace fpconform::cli
