// Parameter values as text, shared by the two model texts (fdpa_spec.cpp's key=value list and
// unit_model.cpp's stages), so that both read and write a value the same way.
#pragma once

#include <string>
#include <string_view>

#include "fpconform/fdpa.hpp"

namespace fpconform::detail {

std::string_view align_name(AlignRounding a);
// An int; with allow_none, "none" is INT_MIN. Values beyond int saturate (range checks name
// the range). Throws Error naming `where`.
int to_int(std::string_view v, const std::string& where, bool allow_none = false);
bool to_bool(std::string_view v, const std::string& where);
AlignRounding to_align(std::string_view v, const std::string& where);

}  // namespace fpconform::detail
