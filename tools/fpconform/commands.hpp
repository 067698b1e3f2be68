// Each command file adds its subcommand(s) to the app and says what to run when chosen.
#pragma once

#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace fpconform::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // exit status; fpconform::Error propagates to main (exit 2)
};

void add_formats_command(CLI::App& app, std::vector<Command>& commands);
void add_convert_command(CLI::App& app, std::vector<Command>& commands);
void add_testfloat_commands(CLI::App& app, std::vector<Command>& commands);
void add_report_command(CLI::App& app, std::vector<Command>& commands);
void add_matrix_commands(CLI::App& app, std::vector<Command>& commands);
void add_quantize_commands(CLI::App& app, std::vector<Command>& commands);
void add_fit_command(CLI::App& app, std::vector<Command>& commands);
void add_validate_command(CLI::App& app, std::vector<Command>& commands);
void add_probe_command(CLI::App& app, std::vector<Command>& commands);
void add_bench_command(CLI::App& app, std::vector<Command>& commands);
void add_sweep_command(CLI::App& app, std::vector<Command>& commands);
void add_gpu_analyze_command(CLI::App& app, std::vector<Command>& commands);  // gpu_cmds.cpp
void add_tolerance_command(CLI::App& app, std::vector<Command>& commands);  // tolerance_cmds.cpp

}  // namespace fpconform::cli
