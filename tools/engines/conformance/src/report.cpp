// run_conversion_report: a chosen subset of the conformance sweeps, with counts per
// (source, target, mode), written as report.md + results.json; and run_scale_rule_report, the
// block-scale rule section of the same files.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fpconform/core/splitmix.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/block_scale.hpp"
#include "fpconform/conformance/conversion.hpp"
#include "fpconform/reports/atomic_file.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fast_block_scale.hpp"

namespace fpconform::conformance {

namespace {

std::vector<std::string> quick_sources() {
  return {"f32", "f16", "bf16", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e3m4",
          "e4m3ieee"};
}
std::vector<std::string> quick_targets() {
  return {"f32", "tf32", "f16", "bf16", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz",
          "e3m4", "e4m3ieee", "e3m2", "e2m3", "e2m1", "ue8m0"};
}
std::vector<std::string> full_sources() {
  std::vector<std::string> v = {"f64", "f32"};
  for (const Format& f : builtin_formats())
    if (f.width() <= 16) v.push_back(f.name);
  for (const char* p : {"binary8p1se", "binary8p3se", "binary8p4sf", "binary8p5se", "binary8p7sf",
                        "binary6p3sf", "binary4p2se", "binary8p4ue", "binary8p1uf",
                        "custom:e=4,m=3,bias=5,inf=ieee,nan=ieee"})
    v.push_back(p);
  return v;
}
std::vector<std::string> full_targets() {
  std::vector<std::string> v;
  for (const Format& f : builtin_formats()) v.push_back(f.name);
  for (const char* p : {"binary8p1se", "binary8p3se", "binary8p4sf", "binary8p5se", "binary8p7sf",
                        "binary6p3sf", "binary4p2se", "binary8p4ue", "binary8p1uf",
                        "custom:e=4,m=3,bias=5,inf=ieee,nan=ieee"})
    v.push_back(p);
  return v;
}

bool is_wide_ieee(const Format& f) {
  return f.is_signed && f.inf == InfEncoding::ieee && f.nan == NanEncoding::ieee &&
         ((f.exp_bits == 8 && f.man_bits == 23 && f.bias == 127) ||
          (f.exp_bits == 11 && f.man_bits == 52 && f.bias == 1023));
}

// A narrow source: every code if there are at most `cap`, else every special code (NaN, inf,
// zero, the ends of the finite range, subnormal boundary) plus a seeded sample.
InputSet narrow_inputs(const Format& f, std::uint64_t cap, std::uint64_t seed) {
  const std::uint64_t n = std::uint64_t{1} << f.width();
  if (n <= cap) return InputSet::all_codes(f);
  std::vector<std::uint64_t> codes;
  const std::uint64_t top = f.max_finite_code();
  for (std::uint64_t mag : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2},
                            f.min_normal_code() - 1, f.min_normal_code(), f.min_normal_code() + 1,
                            top - 1, top, top + 1, top + 2, f.magnitude_mask() - 1,
                            f.magnitude_mask()}) {
    if (mag > f.magnitude_mask()) continue;
    codes.push_back(mag);
    if (f.is_signed) codes.push_back(mag | f.sign_mask());
  }
  for (std::uint64_t i = 0; codes.size() < cap; ++i) codes.push_back(splitmix64(seed + i) & f.code_mask());
  return InputSet::list(std::move(codes), std::to_string(cap) + " sampled codes of " + f.name +
                                              " (seed " + std::to_string(seed) + ")");
}

void atomic_write(const std::filesystem::path& dir, const std::string& name,
                  const std::string& text) {
  reports::write_file_atomically((dir / name).string(), text, "report");
}

}  // namespace

// ---- Block-scale rules ----------------------------------------------------------------------

namespace {

std::string choice_text(ScaleChoice c) {
  switch (c) {
    case ScaleChoice::floor_log2_minus_emax: return "2^(floor(log2 amax) - emax_elem)";
    case ScaleChoice::ceil_pow2_of_ratio: return "2^ceil(log2(amax / max_elem))";
    case ScaleChoice::ratio: return "amax / max_elem";
  }
  return "?";
}

// One quantization of x (rows x cols, blocks of `block` along rows) under `rule`: the scale
// values per block and the dequantized values, both as doubles (exact: every element * scale
// (* g) here has at most 30 significant bits and lies in double's range).
struct Dequantized {
  std::vector<double> scales, values;
};

Dequantized quantize_dequantize(const std::vector<float>& x, const Format& elem,
                                const ScaleRule& rule, int block) {
  const Format f32 = parse_format("f32");
  const Format sf = rule_scale_format(rule);
  const F32BlockQuantizer q(elem, rule, block);
  std::optional<std::uint64_t> g;
  double gv = 1.0;
  if (!rule.tensor_scale_format.empty()) {
    std::vector<std::uint64_t> codes(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) codes[i] = std::bit_cast<std::uint32_t>(x[i]);
    g = tensor_scale(codes, f32, elem, rule);
    gv = to_double(*g, parse_format(rule.tensor_scale_format));
  }
  const std::size_t nblocks = x.size() / static_cast<std::size_t>(block);
  std::vector<std::uint8_t> codes(x.size() * q.code_bytes()), scales(nblocks * q.scale_bytes());
  q.quantize(x.data(), x.size(), codes.data(), scales.data(), g);
  auto load = [](const std::vector<std::uint8_t>& v, std::size_t bytes, std::size_t i) {
    std::uint64_t c = 0;
    for (std::size_t k = 0; k < bytes; ++k) c |= std::uint64_t{v[i * bytes + k]} << (8 * k);
    return c;
  };
  Dequantized d;
  d.scales.resize(nblocks);
  d.values.resize(x.size());
  for (std::size_t b = 0; b < nblocks; ++b) {
    d.scales[b] = to_double(load(scales, q.scale_bytes(), b), sf);
    const double s = d.scales[b] * gv;
    for (std::size_t i = b * block; i < (b + 1) * block; ++i)
      d.values[i] = to_double(load(codes, q.code_bytes(), i), elem) * s;
  }
  return d;
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

ScaleRuleReport run_scale_rule_report(std::uint64_t seed, int rows, int cols) {
  const auto t0 = std::chrono::steady_clock::now();
  if (rows < 1 || cols < 128 || cols % 128 != 0)
    throw Error("scale rule report", "rows >= 1 and cols a positive multiple of 128");
  ScaleRuleReport rep;
  rep.rows = rows;
  rep.cols = cols;
  rep.seed = seed;
  for (const ScaleRule& r : scale_rules())
    rep.rules.push_back({r.name, r.default_element, r.scale_format, choice_text(r.choice),
                         std::string(to_string(r.element_mode)),
                         std::string(to_string(r.element_sat)), r.tensor_scale_format, r.source,
                         r.default_block});

  struct Geometry {
    const char* name;
    const char* element;
    int block;
    std::vector<const char*> rules;  // the first is the baseline (ocp) where it is listed
  };
  const std::vector<Geometry> geometries = {
      {"mxfp8 1x32", "e4m3", 32, {"ocp", "rceil", "microxcaling"}},
      {"tile 1x128", "e4m3", 128, {"tile"}},
      {"mxfp4 1x32", "e2m1", 32, {"ocp", "rceil", "microxcaling"}},
      {"nvfp4 1x16", "e2m1", 16, {"nvfp4"}},
  };
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  for (const char* dist : {"normal", "log-normal"}) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + (dist[0] == 'n' ? 1 : 2));
    std::vector<float> x(n);
    std::normal_distribution<double> nd(0.0, 1.0);
    for (float& v : x) {
      const double z = nd(rng);
      v = static_cast<float>(dist[0] == 'n' ? z : ((rng() & 1) ? -1 : 1) * std::exp(2.0 * z));
    }
    std::map<std::string, Dequantized> ocp_by_element;  // the baseline per element format
    for (const Geometry& g : geometries) {
      for (const char* name : g.rules) {
        const ScaleRule& rule = find_scale_rule(name, "scale rule report");
        const Format elem = parse_format(g.element);
        const Dequantized d = quantize_dequantize(x, elem, rule, g.block);
        ScaleRuleResult r;
        r.distribution = dist;
        r.geometry = g.name;
        r.rule = name;
        r.element = g.element;
        r.blocks = d.scales.size();
        r.values = n;
        double signal = 0, noise = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double v = x[i], e = v - d.values[i];
          signal += v * v;
          noise += e * e;
          if (v != 0) r.max_rel_err = std::max(r.max_rel_err, std::fabs(e / v));
        }
        r.sqnr_db = noise == 0 ? INFINITY : 10 * std::log10(signal / noise);
        const auto base = ocp_by_element.find(g.element);
        if (std::string(name) == "ocp") {
          ocp_by_element[g.element] = d;
          r.scales_differing = r.values_differing = 0;
        } else if (base != ocp_by_element.end()) {
          r.values_differing = 0;
          for (std::size_t i = 0; i < n; ++i)
            r.values_differing += !same_value(d.values[i], base->second.values[i]);
          if (base->second.scales.size() == d.scales.size() && rule.scale_format == "ue8m0") {
            r.scales_differing = 0;
            for (std::size_t b = 0; b < d.scales.size(); ++b)
              r.scales_differing += !same_value(d.scales[b], base->second.scales[b]);
          }
        }
        rep.results.push_back(r);
      }
    }
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

ConversionReport run_conversion_report(const ReportOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  ConversionReport rep;
  rep.quick = opt.quick;
  rep.seed = opt.seed;
  rep.threads = resolve_threads(opt.threads, "threads");
  const std::vector<std::string> srcs =
      opt.sources.empty() ? (opt.quick ? quick_sources() : full_sources()) : opt.sources;
  const std::vector<std::string> tgts =
      opt.targets.empty() ? (opt.quick ? quick_targets() : full_targets()) : opt.targets;
  const std::uint64_t wide_n = opt.wide_inputs ? opt.wide_inputs : (opt.quick ? 20000 : 1000000);
  const std::uint64_t narrow_n = opt.narrow_inputs ? opt.narrow_inputs : (opt.quick ? 4096 : 65536);

  std::vector<Rounding> configs;
  if (opt.quick) {
    const std::vector<StochasticDraw> draws = {{3, 5}, {64, 0x9E3779B97F4A7C15ull}};
    const std::vector<Saturation> sats = {Saturation::none, Saturation::finite};
    configs = make_configs(all_modes(), draws, sats, subnormal_ftz());
    rep.configs = "10 modes (stochastic: n=3 r=5, n=64 r=0x9e3779b97f4a7c15) x sat none/finite "
                  "x ftz off/on (daz off, tininess after)";
  } else {
    configs = make_configs(all_modes(), default_stochastic_draws(), all_saturations(),
                           subnormal_pairwise());
    rep.configs = "10 modes (stochastic: n=3 r=0,5,7; n=64 r=0x9e3779b97f4a7c15) x sat "
                  "none/finite/propagate x (ftz, daz, tininess) pairwise: (0,0,after) "
                  "(0,1,before) (1,0,before) (1,1,after)";
  }

  SweepOptions so;
  so.threads = rep.threads;
  so.max_counterexamples = opt.max_counterexamples;
  for (const std::string& sname : srcs) {
    const Format from = parse_format(sname, "source");
    for (const std::string& tname : tgts) {
      const Format to = parse_format(tname, "target");
      InputSet in;
      if (is_wide_ieee(from)) {
        BoundaryOptions bo;
        bo.min_total = wide_n;
        bo.seed = opt.seed;
        bo.double_rounding_traps = from.exp_bits == 11;
        in = boundary_input_set(from, to, bo);
        // The deterministic core alone can exceed the budget (f16 targets: ~10^6 values).
        if (in.size() > wide_n) in = InputSet::strided(in, wide_n);
      } else {
        in = narrow_inputs(from, narrow_n, opt.seed);
      }
      const SweepResult r = ConversionSweep(from, to, configs).run(in, so);
      // Aggregate per mode label, in configuration order.
      std::map<std::string, std::size_t> row_of;
      const std::size_t first = rep.rows.size();
      for (const ConfigCount& c : r.per_config) {
        const std::string label = mode_label(c.rounding);
        auto it = row_of.find(label);
        if (it == row_of.end()) {
          ReportRow row;
          row.source = from.name;
          row.target = to.name;
          row.mode = label;
          row.inputs = r.inputs;
          it = row_of.emplace(label, rep.rows.size()).first;
          rep.rows.push_back(row);
        }
        rep.rows[it->second].cases += c.cases;
        rep.rows[it->second].mismatches += c.mismatches;
      }
      for (const CounterExample& c : r.counterexamples)
        rep.rows[row_of.at(mode_label(c.rounding))].counterexamples.push_back(
            r.format_counterexample(c));
      for (std::size_t i = first; i < rep.rows.size(); ++i) {
        rep.total_cases += rep.rows[i].cases;
        rep.total_mismatches += rep.rows[i].mismatches;
      }
    }
  }
  if (opt.scale_rules) rep.scale_rules = run_scale_rule_report(opt.seed);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

std::string report_json(const ConversionReport& rep) {
  nlohmann::ordered_json j;
  j["kind"] = "conversion-conformance";
  j["description"] = "emu convert vs the MPFR oracle (fpconform::reference), bits and flags";
  j["preset"] = rep.quick ? "quick" : "full";
  j["seed"] = rep.seed;
  j["configs"] = rep.configs;
  j["threads"] = rep.threads;
  j["seconds"] = rep.seconds;
  j["total_cases"] = rep.total_cases;
  j["total_mismatches"] = rep.total_mismatches;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ReportRow& r : rep.rows) {
    nlohmann::ordered_json o;
    o["source"] = r.source;
    o["target"] = r.target;
    o["mode"] = r.mode;
    o["inputs"] = r.inputs;
    o["cases"] = r.cases;
    o["mismatches"] = r.mismatches;
    o["counterexamples"] = r.counterexamples;
    rows.push_back(std::move(o));
  }
  j["rows"] = std::move(rows);
  if (rep.scale_rules) {
    const ScaleRuleReport& sr = *rep.scale_rules;
    nlohmann::ordered_json o;
    o["description"] =
        "block-scale rules (emu block_scale.hpp); per generated distribution and rule: SQNR and "
        "largest relative error of the dequantized values against the f32 input, and the scale "
        "values and dequantized values differing from rule ocp on the same element format "
        "(-1: not comparable)";
    o["rows"] = sr.rows;
    o["cols"] = sr.cols;
    o["seed"] = sr.seed;
    o["seconds"] = sr.seconds;
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const ScaleRuleInfo& r : sr.rules)
      rules.push_back({{"name", r.name},
                       {"element", r.element},
                       {"scale_format", r.scale_format},
                       {"scale", r.scale},
                       {"block", r.block},
                       {"element_rounding", r.element_rounding},
                       {"element_saturation", r.element_saturation},
                       {"tensor_scale_format", r.tensor_scale_format},
                       {"source", r.source}});
    o["rules"] = std::move(rules);
    nlohmann::ordered_json res = nlohmann::ordered_json::array();
    for (const ScaleRuleResult& r : sr.results)
      res.push_back({{"distribution", r.distribution},
                     {"geometry", r.geometry},
                     {"rule", r.rule},
                     {"element", r.element},
                     {"sqnr_db", r.sqnr_db},
                     {"max_rel_err", r.max_rel_err},
                     {"blocks", r.blocks},
                     {"values", r.values},
                     {"scales_differing_from_ocp", r.scales_differing},
                     {"values_differing_from_ocp", r.values_differing}});
    o["results"] = std::move(res);
    j["scale_rules"] = std::move(o);
  }
  return j.dump(2) + "\n";
}

namespace {

void scale_rule_markdown(std::ostringstream& o, const ScaleRuleReport& sr) {
  o << "\n## Block-scale rules\n\n";
  o << "| rule | element | scale format | scale | block | element rounding | source |\n"
       "|---|---|---|---|---:|---|---|\n";
  for (const ScaleRuleInfo& r : sr.rules)
    o << "| " << r.name << " | " << r.element << " | " << r.scale_format
      << (r.tensor_scale_format.empty() ? "" : " (+ " + r.tensor_scale_format + " per tensor)")
      << " | " << r.scale << " | " << r.block << " | " << r.element_rounding << ", sat "
      << r.element_saturation << " | " << r.source << " |\n";
  o << "\n### What each rule costs on generated data\n\n";
  o << sr.rows << " x " << sr.cols << " f32 matrices (normal: N(0, 1); log-normal: +-exp(2 N(0, 1))), "
    << "seed " << sr.seed << ", blocks along rows. SQNR and largest relative error of the "
    << "dequantized values; scales and values differing from rule ocp on the same element format "
    << "(-: not comparable).\n\n";
  o << "| distribution | blocks | rule | SQNR dB | max rel err | scales differing | values differing |\n"
       "|---|---|---|---:|---:|---:|---:|\n";
  char line[320];
  for (const ScaleRuleResult& r : sr.results) {
    const std::string sd = r.scales_differing < 0 ? "-" : std::to_string(r.scales_differing) + " / " + std::to_string(r.blocks);
    const std::string vd = r.values_differing < 0 ? "-" : std::to_string(r.values_differing) + " / " + std::to_string(r.values);
    std::snprintf(line, sizeof line, "| %s | %s | %s | %.2f | %.3g | %s | %s |\n",
                  r.distribution.c_str(), r.geometry.c_str(), r.rule.c_str(), r.sqnr_db,
                  r.max_rel_err, sd.c_str(), vd.c_str());
    o << line;
  }
}

}  // namespace

std::string report_markdown(const ConversionReport& rep) {
  std::ostringstream o;
  o << "# Conversion conformance: emu vs MPFR oracle\n\n";
  o << "Preset: " << (rep.quick ? "quick" : "full") << ", seed " << rep.seed << ", "
    << rep.threads << " threads, " << rep.seconds << " s.\n\n";
  o << "Configurations per pair: " << rep.configs << ".\n\n";
  o << "**" << rep.total_cases << " cases, " << rep.total_mismatches << " mismatches.**\n\n";
  // Per pair.
  struct Pair {
    std::uint64_t inputs = 0, cases = 0, mism = 0;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, Pair> pairs;
  for (const ReportRow& r : rep.rows) {
    auto key = std::make_pair(r.source, r.target);
    if (!pairs.count(key)) order.push_back(key);
    Pair& p = pairs[key];
    p.inputs = r.inputs;
    p.cases += r.cases;
    p.mism += r.mismatches;
  }
  o << "| source | target | inputs | cases | mismatches |\n|---|---|---:|---:|---:|\n";
  for (const auto& k : order) {
    const Pair& p = pairs[k];
    o << "| " << k.first << " | " << k.second << " | " << p.inputs << " | " << p.cases << " | "
      << (p.mism ? "**" + std::to_string(p.mism) + "**" : std::string("0")) << " |\n";
  }
  bool any = false;
  for (const ReportRow& r : rep.rows) {
    if (!r.mismatches) continue;
    if (!any) o << "\n## Mismatches by mode\n\n";
    any = true;
    o << "- " << r.source << " -> " << r.target << ", " << r.mode << ": " << r.mismatches
      << " of " << r.cases << "\n";
    for (const std::string& c : r.counterexamples) o << "  - `" << c << "`\n";
  }
  if (!any) o << "\nEvery case matched (bits and flags).\n";
  if (rep.scale_rules) scale_rule_markdown(o, *rep.scale_rules);
  return o.str();
}

void write_conversion_report(const ConversionReport& rep, const std::string& directory) {
  const std::filesystem::path dir(directory);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("report", "cannot create " + directory + ": " + ec.message());
  atomic_write(dir, "results.json", report_json(rep));
  atomic_write(dir, "report.md", report_markdown(rep));
}

}  // namespace fpconform::conformance
