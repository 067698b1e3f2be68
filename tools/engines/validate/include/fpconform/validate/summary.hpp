// Validation results as text (what `fpconform validate` prints) and JSON (--json).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fpconform/validate/mismatch.hpp"
#include "fpconform/validate/validate.hpp"

namespace fpconform::validate {

// One block per comparison: match rate, ulp histogram, relative errors, the worst elements
// each with a command that shows its working (`repro` + " --element R,C"), then the verdict.
std::string summary_text(const ValidateReport& r, const Format& out, const std::string& repro);
nlohmann::json summary_json(const ValidateReport& r);

std::string mismatch_text(const LogitMismatch& m);
nlohmann::json mismatch_json(const LogitMismatch& m);

}  // namespace fpconform::validate
