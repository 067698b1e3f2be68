#include "cli_args.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "fpconform/core/error.hpp"

namespace fpconform::cli {

bool looks_like_negative_number(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return false;
  const char c = arg[1];
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return true;
  std::string rest = arg.substr(1);
  std::transform(rest.begin(), rest.end(), rest.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  const auto paren = rest.find('(');
  const std::string word = rest.substr(0, paren);
  return word == "inf" || word == "infinity" || word == "nan" || word == "qnan" || word == "snan";
}

std::vector<std::string> positionals_last(const std::vector<std::string>& args,
                                          const std::set<std::string>& value_options,
                                          std::size_t command_index) {
  std::vector<std::string> opts, pos;
  for (std::size_t i = 0; i < args.size() && i <= command_index; ++i) opts.push_back(args[i]);
  for (std::size_t i = command_index + 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      pos.insert(pos.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (value_options.count(a)) {
      opts.push_back(a);
      if (i + 1 < args.size()) opts.push_back(args[++i]);
      continue;
    }
    if (looks_like_negative_number(a) || a.empty() || a[0] != '-') {
      pos.push_back(a);
      continue;
    }
    opts.push_back(a);
  }
  // Only reorder when a positional would otherwise be taken for an option; CLI11's messages
  // about other arguments then quote the command line as typed.
  const bool needed = std::any_of(pos.begin(), pos.end(),
                                  [](const std::string& p) { return !p.empty() && p[0] == '-'; });
  if (!needed) return args;
  opts.push_back("--");
  opts.insert(opts.end(), pos.begin(), pos.end());
  return opts;
}

void require_input(std::FILE* in, const std::string& place) {
  const int c = std::fgetc(in);
  if (c == EOF) {
    if (std::ferror(in)) throw Error(place, "cannot read");
    throw Error(place, "empty input (no lines)");
  }
  std::ungetc(c, in);
}

// The message as printed: control characters escaped (\xNN), and any word (a run without
// spaces) longer than 400 characters cut to its first 200 with a count, so a 10^6-character
// line from a hostile input gives a readable message that still names the place.
std::string printable_message(std::string_view msg) {
  std::string out;
  std::size_t i = 0;
  while (i < msg.size()) {
    std::size_t j = i;
    while (j < msg.size() && msg[j] != ' ') ++j;
    const std::string_view word = msg.substr(i, j - i);
    const std::string_view shown = word.size() > 400 ? word.substr(0, 200) : word;
    for (char ch : shown) {
      const auto u = static_cast<unsigned char>(ch);
      if ((u < 0x20 && ch != '\n' && ch != '\t') || u == 0x7F) {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02X", u);
        out += b;
      } else {
        out += ch;
      }
    }
    if (shown.size() < word.size())
      out += "...(" + std::to_string(word.size()) + " characters)";
    if (j < msg.size()) out += ' ';
    i = j + 1;
  }
  return out;
}

}  // namespace fpconform::cli
