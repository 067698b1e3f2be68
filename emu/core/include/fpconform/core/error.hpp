// One error type for everything the user can get wrong. It carries the place (an argument
// name, or file:line:column) so the CLI can say exactly where; the CLI exits 2 on it.
#pragma once

#include <stdexcept>
#include <string>

namespace fpconform {

class Error : public std::runtime_error {
 public:
  Error(std::string where, const std::string& message)
      : std::runtime_error(where.empty() ? message : where + ": " + message),
        where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace fpconform
