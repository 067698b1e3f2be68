// A characterization written down: the device profile (JSON, schema below) and its readable
// summary (Markdown), as `fpconform probe` leaves them under reports/devices/<name>/.
//
// JSON (schema "fpconform.device-profile/1"): {schema, fpconform_version, target,
// formats: {in, out}, model: {spec (the staged text), stages (unit_json.hpp),
// params: {name: value}}, verdict, expressible,
// deterministic, validation: {cases, agreed, counterexamples: [case]}, queries, seconds,
// evidence: [{probe, finding, proves, cases: [case]}]}, with case = {a: [hex], b: [hex],
// c: hex, d: hex} (codes of the formats, "0x..." strings).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fpconform/characterize/characterize.hpp"

namespace fpconform::characterize {

nlohmann::json device_profile_json(const Characterization& c,
                                   std::string_view fpconform_version);
std::string device_profile_markdown(const Characterization& c,
                                    std::string_view fpconform_version);

// The file stem for a characterization: target and formats with anything but [A-Za-z0-9.-]
// made '-' ("emu-hopper.e4m3-f32").
std::string device_profile_stem(const Characterization& c);

// Writes <dir>/<stem>.json and <dir>/<stem>.md atomically (creating dir); returns the JSON path.
std::string write_device_profile(const Characterization& c, const std::string& dir,
                                 std::string_view fpconform_version);

}  // namespace fpconform::characterize
