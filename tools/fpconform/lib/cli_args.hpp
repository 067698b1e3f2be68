// Argument-list preparation for the fpconform CLI (kept out of main so it can be tested).
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fpconform::cli {

// True for text that is a negative number to the value parser ("-1.5", "-.5", "-0x1p-3",
// "-inf", "-nan", "-snan(0x1)"), which CLI11 would otherwise take for an option.
bool looks_like_negative_number(const std::string& arg);

// Moves the positional arguments after a "--" (keeping their order) so that negative numbers
// reach the positional list. `value_options` names the options that take a value (their next
// argument is theirs, even if it starts with '-'); `command_index` is the position of the
// subcommand name (arguments before it are left alone).
std::vector<std::string> positionals_last(const std::vector<std::string>& args,
                                          const std::set<std::string>& value_options,
                                          std::size_t command_index);

// Line-reading commands (ver, eval, dot) refuse an input with no bytes at all: a checker that
// checked nothing must not pass. Peeks one character (and puts it back); throws
// Error(place, ...) on an empty input.
void require_input(std::FILE* in, const std::string& place);

// An error message as the CLI prints it: control characters escaped (\xNN), and any word (a
// run without spaces) longer than 400 characters cut to its first 200 with a count, so a
// 10^6-character line from a hostile input gives a readable message that still names the place.
std::string printable_message(std::string_view message);

}  // namespace fpconform::cli
