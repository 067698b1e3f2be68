// Checkpoint files of resumable runs (tools/engines/files/include/fpconform/files/checkpoint.hpp) and the report
// sections a `report` checkpoint keeps (reports::section_from_json). The first byte chooses:
//   even: the rest is a checkpoint file of `report`, whose fields must be sections;
//   odd:  the rest is one section as JSON.
// Either gives a value or fpconform::Error (naming the place); anything else is a finding.
// What is accepted must write back to text that reads back the same (checkpoint text and
// section JSON both).
#include <string>

#include "fpconform/files/checkpoint.hpp"
#include "fuzz_common.hpp"
#include "fpconform/files/report_checkpoint.hpp"

using namespace fpconform;

namespace {

constexpr const char* kArgs = "run=quick seed=1 devices=d version=v";

void checkpoint_round_trip(const std::string& text) {
  files::Checkpoint c;
  if (!fpfuzz::guarded("checkpoint", [&] { c = files::parse_checkpoint(text, "fuzz.ckpt", "report", kArgs); }))
    return;
  const std::string back = files::checkpoint_text(c);
  files::Checkpoint again;
  fpfuzz::require(fpfuzz::guarded("checkpoint", [&] { again = files::parse_checkpoint(back, "w.ckpt", "report", kArgs); }),
                  "checkpoint", "an accepted checkpoint does not read back from its own text");
  fpfuzz::require(again.fields == c.fields, "checkpoint", "a checkpoint reads back different fields");
  std::vector<reports::Section> sections;
  if (!fpfuzz::guarded("checkpoint", [&] { sections = files::report_sections_of(c, "fuzz.ckpt"); })) return;
  for (const auto& s : sections) {
    const auto j = reports::section_to_json(s);
    reports::Section r;
    fpfuzz::require(fpfuzz::guarded("checkpoint", [&] { r = reports::section_from_json(j, "again"); }),
                    "checkpoint", "a section does not read back from its own JSON");
    fpfuzz::require(reports::section_to_json(r) == j, "checkpoint", "a section reads back different");
  }
}

void section_round_trip(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return;  // not JSON: nothing of ours to check
  }
  reports::Section s;
  if (!fpfuzz::guarded("checkpoint", [&] { s = reports::section_from_json(j, "fuzz.json"); })) return;
  const auto out = reports::section_to_json(s);
  reports::Section r;
  fpfuzz::require(fpfuzz::guarded("checkpoint", [&] { r = reports::section_from_json(
                                                          nlohmann::json::parse(out.dump()), "again"); }),
                  "checkpoint", "an accepted section does not read back from its own JSON text");
  fpfuzz::require(reports::section_to_json(r) == out, "checkpoint", "a section reads back different");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fpfuzz::Bytes in(data, size);
  const std::uint8_t which = in.u8();
  const std::string text(in.rest());
  if (which % 2 == 0)
    checkpoint_round_trip(text);
  else
    section_round_trip(text);
  return 0;
}
