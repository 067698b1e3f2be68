#include "cli_args.hpp"

#include <algorithm>
#include <cctype>

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

}  // namespace fpconform::cli
