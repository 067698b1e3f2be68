// The checkpoint of a `report` run: which run it belongs to (the arguments that determine the
// report) and the sections finished so far, each as results.json spells it (one field per
// section, in order). Written after every section, so an interrupted run (Ctrl-C, kill -9)
// loses at most the section it was in; `report --resume` rebuilds only what is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpconform/files/checkpoint.hpp"
#include "fpconform/reports/document.hpp"

namespace fpconform::files {

// The canonical arguments of a report run (not the thread count: it does not change results).
// `selection`: the canonical form of the options that choose what runs (sections not run,
// unit cases), empty for the defaults.
std::string report_args(bool full, std::uint64_t seed, const std::string& devices_dir,
                        const std::string& version, const std::string& selection = {});

void write_report_checkpoint(const std::string& path, const std::string& args,
                             const std::vector<reports::Section>& finished);

// The sections kept at `path` (none when the file does not exist). Throws Error naming
// path:line when the file is damaged, holds a malformed section, or belongs to another run.
std::vector<reports::Section> read_report_checkpoint(const std::string& path, const std::string& args);

// The sections of a checkpoint already read (parse_checkpoint), in order. Throws Error naming
// path:line of a field that is not a section.
std::vector<reports::Section> report_sections_of(const Checkpoint& c, const std::string& path);

}  // namespace fpconform::files
