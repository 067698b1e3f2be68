// fpconform: command-line front end. Each command lives in its own file; the logic in libraries;
// the App and the argument handling in app.cpp.
#include <string>
#include <vector>

#include "app.hpp"

int main(int argc, char** argv) { return fpconform::cli::run(std::vector<std::string>(argv + 1, argv + argc)); }
