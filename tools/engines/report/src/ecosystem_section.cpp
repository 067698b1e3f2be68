// Where the ecosystem's conversion profiles disagree: each profile's conversion (its defaults)
// against SEMANTICS.md's plain rounding (RNE, no saturation), over boundary and random inputs.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "fpconform/conformance/conversion.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/profile.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {
namespace {

struct Pair {
  const char* from;
  const char* to;
};
constexpr Pair kPairs[] = {{"f32", "e4m3"}, {"f32", "e5m2"}, {"f32", "bf16"}, {"f32", "f16"},
                           {"f32", "e3m2"}, {"f32", "e2m3"}, {"f32", "e2m1"}, {"f32", "ue8m0"},
                           {"f64", "bf16"}, {"e4m3", "f32"}, {"e5m2", "f16"}};

std::string code_text(const Format& f, std::uint64_t bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", f.hex_digits(), static_cast<unsigned long long>(bits));
  return buf;
}

}  // namespace

reports::Section ecosystem_section(const ReportRun& run) {
  const auto& profiles = builtin_profiles();
  reports::Section s;
  s.id = "ecosystem";
  s.title = "Ecosystem conversions: where the libraries disagree";
  reports::HeatMap h;
  h.id = "ecosystem-heatmap";
  h.title = "Fraction of inputs on which a profile differs from plain RNE without saturation";
  h.value_label = "fraction of inputs that differ";
  h.note = "Grey: the library has no such conversion, or needs options the defaults do not give.";
  for (const auto& p : profiles) h.row_labels.push_back(p.name);
  reports::Table examples{"ecosystem-examples", "Inputs on which the profiles give different results",
                          {"conversion", "input"}, {}, ""};
  for (const auto& p : profiles) examples.columns.push_back(p.name);
  nlohmann::json results = nlohmann::json::object();
  h.values.assign(profiles.size(), {});
  for (const Pair& pair : kPairs) {
    const Format from = parse_format(pair.from), to = parse_format(pair.to);
    const std::string name = std::string(pair.from) + "->" + pair.to;
    h.col_labels.push_back(name);
    std::vector<std::uint64_t> inputs;
    if (from.width() <= 16) {
      for (std::uint64_t c = 0; c <= from.code_mask(); ++c) inputs.push_back(c);
    } else {
      conformance::BoundaryOptions bo;
      bo.seed = run.seed;
      bo.min_total = run.quick ? 4000 : 100000;
      bo.min_random = run.quick ? 1000 : 20000;
      bo.max_target_values = run.quick ? 1024 : 1u << 17;
      inputs = conformance::boundary_inputs(from, to, bo);
    }
    std::vector<std::vector<std::optional<std::uint64_t>>> out(profiles.size());
    for (std::size_t pi = 0; pi < profiles.size(); ++pi) {
      std::uint64_t differ = 0;
      bool usable = true;
      for (std::uint64_t x : inputs) {
        std::optional<std::uint64_t> r;
        try {
          r = convert_with_profile(x, from, to, profiles[pi], UserOptions{}).bits;
        } catch (const Error&) {
          usable = false;
          break;
        }
        out[pi].push_back(r);
        if (*r != convert(x, from, to, Rounding{}).bits) ++differ;
      }
      const double frac = usable ? static_cast<double>(differ) / static_cast<double>(inputs.size()) : NAN;
      h.values[pi].push_back(frac);
      results[name][profiles[pi].name] =
          usable ? nlohmann::json{{"inputs", inputs.size()}, {"differ", differ}} : nlohmann::json(nullptr);
      if (!usable) out[pi].clear();
    }
    // The inputs with the most distinct answers across the profiles (up to 3 per conversion).
    std::vector<std::pair<std::size_t, std::size_t>> spread;  // (distinct answers, input index)
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      std::set<std::uint64_t> answers;
      for (const auto& o : out)
        if (!o.empty()) answers.insert(*o[i]);
      if (answers.size() > 1) spread.push_back({answers.size(), i});
    }
    std::stable_sort(spread.begin(), spread.end(), [](auto a, auto b) { return a.first > b.first; });
    for (std::size_t n = 0; n < spread.size() && n < 3; ++n) {
      const std::size_t i = spread[n].second;
      std::vector<std::string> row{name, code_text(from, inputs[i])};
      for (const auto& o : out) row.push_back(o.empty() ? "n/a" : code_text(to, *o[i]));
      examples.rows.push_back(row);
    }
  }
  s.paragraphs.push_back(
      "Each profile converts with its library's defaults (its rounding, saturation and NaN "
      "rules, as emu/include/fpconform/profile.hpp records them; `fpconform convert --profile NAME` applies one). The reference is SEMANTICS.md's conversion "
      "with round-to-nearest-even and no saturation; saturating libraries differ on every "
      "overflowing input, and NaN conventions differ on every NaN.");
  s.heatmaps.push_back(std::move(h));
  s.tables.push_back(std::move(examples));
  s.results = results;
  return s;
}

}  // namespace fpconform::report
