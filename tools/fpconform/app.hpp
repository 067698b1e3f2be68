// The whole command line as a library: main is a thin wrapper over run(), and the fuzz target
// over the command line (suites/fuzz/fuzz_cli.cpp) calls it in-process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace fpconform::cli {

// A fresh App with every command and its options (fresh option storage, so nothing carries
// over from one run to the next), and what to run for each command.
struct CliApp {
  std::unique_ptr<CLI::App> app;
  std::vector<Command> commands;
};
CliApp make_app();

// Parses `args` (without the program name) and runs the command: the exit status of
// `fpconform ARGS...`, with the same output. Exceptions other than fpconform::Error propagate.
int run(std::vector<std::string> args);

}  // namespace fpconform::cli
