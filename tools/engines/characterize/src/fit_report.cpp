// fit_report_text / fit_report_json / fit_answer (see fit.hpp).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <bit>
#include <climits>
#include <cstring>
#include <map>

#include "fpconform/characterize/fit.hpp"
#include "fpconform/fdpa_spec.hpp"
#include "fpconform/convert.hpp"

namespace fpconform::characterize {

namespace {

std::string hex(std::uint64_t code, const Format& f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", f.hex_digits(), static_cast<unsigned long long>(code));
  return buf;
}

// The value of a code, for people (%.9g of the exact value rounded to f64).
std::string value(std::uint64_t code, const Format& f) {
  static const Format f64 = parse_format("f64");
  const std::uint64_t bits = convert(code, f, f64, Rounding{}).bits;
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string codes(const std::vector<std::uint64_t>& v, const Format& f) {
  std::string s;
  for (std::uint64_t x : v) s += (s.empty() ? "" : " ") + hex(x, f);
  return s;
}

// "1, 2, 5" (class numbers from 1), shortened past a dozen.
std::string class_list(const std::vector<std::size_t>& classes) {
  std::string s;
  for (std::size_t i = 0; i < classes.size() && i < 12; ++i)
    s += (i ? ", " : "") + std::to_string(classes[i] + 1);
  if (classes.size() > 12) s += ", ... (" + std::to_string(classes.size()) + " classes)";
  return s;
}

std::string preset_note(const FamilyMember& m) { return m.preset.empty() ? "" : "  (= preset " + m.preset + ")"; }

void line(std::string& out, const std::string& text) { out += text + "\n"; }

// Facts about the rows that say why a field can stay open.
struct RowFacts {
  std::size_t k_min = SIZE_MAX, k_max = 0;
  bool subnormal_input = false;   // a subnormal a, b (input format) or c (output format)
  bool subnormal_result = false;  // a subnormal d
  bool all_c_zero = true;
  int lowest_beside_zero = INT_MAX;  // the largest term exponent of a row with a zero term, lowest
};

bool is_subnormal(std::uint64_t code, const Format& f) {
  const ExactValue v = decode(code, f);
  return v.is_finite_nonzero() && f.subnormals &&
         v.exp + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v.sig))) - 1 < f.emin();
}

// Exponent of the leading bit of a finite non-zero value (INT_MIN for zeros and specials).
int lead(std::uint64_t code, const Format& f) {
  const ExactValue v = decode(code, f);
  if (!v.is_finite_nonzero()) return INT_MIN;
  return v.exp + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v.sig))) - 1;
}

RowFacts row_facts(const RecordedRows& rows) {
  RowFacts f;
  for (const DotCase& dc : rows.cases) {
    f.k_min = std::min(f.k_min, dc.a.size());
    f.k_max = std::max(f.k_max, dc.a.size());
    f.subnormal_input = f.subnormal_input || is_subnormal(dc.c, rows.out);
    f.subnormal_result = f.subnormal_result || is_subnormal(dc.d, rows.out);
    f.all_c_zero = f.all_c_zero && (dc.c & rows.out.magnitude_mask()) == 0;
    bool zero_term = lead(dc.c, rows.out) == INT_MIN;
    int top = lead(dc.c, rows.out);
    for (std::size_t i = 0; i < dc.a.size(); ++i) {
      f.subnormal_input = f.subnormal_input || is_subnormal(dc.a[i], rows.in) || is_subnormal(dc.b[i], rows.b_format());
      const int ea = lead(dc.a[i], rows.in), eb = lead(dc.b[i], rows.b_format());
      if (ea == INT_MIN || eb == INT_MIN) zero_term = true;
      else top = std::max(top, ea + eb);
    }
    if (zero_term) f.lowest_beside_zero = std::min(f.lowest_beside_zero, top);
  }
  return f;
}

// Why the rows leave `field` open, where a fact about them says so (empty otherwise).
std::string why_open(const std::string& field, const std::vector<std::string>& values,
                     const std::vector<std::string>& blocks, const RowFacts& f) {
  const auto one_block = [&] {  // every matching set sums a row's K products in one block
    for (const std::string& v : blocks)
      if (std::stoul(v) != 0 && std::stoul(v) < f.k_max) return false;
    return true;
  };
  if (field == "k_order" && one_block())
    return "products reordered inside one block of K = " + std::to_string(f.k_max) + " give the same sum";
  if (field == "block") {
    for (const std::string& v : values)
      if (std::stoul(v) != 0 && std::stoul(v) < f.k_max) return {};
    return "every L >= K = " + std::to_string(f.k_max) + " computes the rows in one block";
  }
  if (field == "flush_inputs" || field == "flush_inputs_positive")
    return f.subnormal_input ? std::string() : "no row has a subnormal a, b or c";
  if (field == "flush_outputs")
    return f.subnormal_result || f.subnormal_input ? std::string() : "no row has a subnormal result";
  if (field == "zero_exp") {
    int lowest = INT_MIN;
    for (const std::string& v : values)
      if (v != "none") lowest = std::max(lowest, std::stoi(v));
    if (f.lowest_beside_zero == INT_MAX || f.lowest_beside_zero >= lowest)
      return "no row has a zero term beside terms all below 2^" + std::to_string(lowest);
    return {};
  }
  if ((field == "c_in_block" || field == "late_c" || field == "instr_k" || field == "k_order" ||
       field == "c_last") && f.all_c_zero)
    return "every row has C = 0";
  return {};
}

}  // namespace

const FamilyMember* fit_answer(const FitResult& result, std::size_t rows, std::size_t* agreed) {
  if (!result.matching.empty()) {
    *agreed = rows;
    return &result.matching.front();
  }
  if (!result.closest.empty()) {
    *agreed = rows - result.closest.front().failed_rows.size();
    return &result.closest.front().member;
  }
  *agreed = 0;
  return nullptr;
}

std::string fit_report_text(const FitResult& r, const RecordedRows& rows, const FitReportOptions& options) {
  std::string out;
  std::size_t k_min = SIZE_MAX, k_max = 0;
  for (const DotCase& dc : rows.cases) {
    k_min = std::min(k_min, dc.a.size());
    k_max = std::max(k_max, dc.a.size());
  }
  const std::string k = k_min == k_max ? std::to_string(k_min) : std::to_string(k_min) + ".." + std::to_string(k_max);
  line(out, "rows: " + options.rows_path + " (" + rows.layout + ", " + std::to_string(rows.cases.size()) +
                " rows, K = " + k + ", " + rows.in.name + (rows.b ? " x " + rows.b->name : "") + " -> " + rows.out.name + ")");
  char timing[96];
  std::snprintf(timing, sizeof timing, " (%.2f s)", r.fit_seconds);
  line(out, "family: " + std::to_string(r.family_size) + " parameter sets; " +
                std::to_string(r.matching.size()) + " reproduce every row" + timing +
                (r.invalid ? "; " + std::to_string(r.invalid) + " refused these formats" : ""));

  if (r.matching.empty()) {
    line(out, "no parameter set in the family reproduces every row; the closest:");
    for (const NearMiss& m : r.closest) {
      // file:line, then :line while the file stays the same
      std::string where, file;
      for (std::size_t i = 0; i < m.failed_rows.size() && i < 5; ++i) {
        const std::string& w = rows.where[m.failed_rows[i]];
        const std::string this_file = w.substr(0, w.rfind(':'));
        where += (i ? ", " : "") + (this_file == file ? w.substr(this_file.size()) : w);
        file = this_file;
      }
      if (m.failed_rows.size() > 5) where += ", ...";
      line(out, "  " + model_text(m.member.params) + preset_note(m.member) + ": fails " +
                    std::to_string(m.failed_rows.size()) + " of " + std::to_string(rows.cases.size()) +
                    " rows: " + where);
    }
    if (rows.layout == "tensorcore-dumps" && rows.in.width() == 8 && rows.out.name == "f32")
      line(out, "note: the dumps' README says the H100 fp8 rows with fp32 output were recorded with "
                "C = 0: try --c-zero");
  } else {
    std::string pinned, open, why;
    const RowFacts facts = row_facts(rows);
    const auto fields = field_values(r.matching);
    std::vector<std::string> blocks;
    for (const auto& [field, values] : fields)
      if (field == "block") blocks = values;
    for (const auto& [field, values] : fields) {
      const auto varied = fit_family_fields();
      if (std::find(varied.begin(), varied.end(), field) == varied.end()) continue;
      if (values.size() == 1) {
        pinned += (pinned.empty() ? "" : " ") + field + "=" + values[0];
      } else {
        std::string vs;
        for (const std::string& v : values) vs += (vs.empty() ? "" : ", ") + v;
        open += (open.empty() ? "" : "; ") + field + " in {" + vs + "}";
        const std::string reason = why_open(field, values, blocks, facts);
        why += "  " + field + ": " + (reason.empty() ? "see the probes" : reason) + "\n";
      }
    }
    line(out, "pinned by the rows: " + pinned);
    line(out, "left open: " + (open.empty() ? std::string("nothing") : open));
    out += why;
    line(out, "matching sets by class (the sets of a class gave one answer on every probe tried):");
    std::size_t listed = 0;
    for (std::size_t c = 0; c < r.classes.size(); ++c) {
      if (options.max_listed && listed >= options.max_listed) {
        std::size_t rest = 0;
        for (std::size_t d = c; d < r.classes.size(); ++d) rest += r.classes[d].size();
        line(out, "  ... " + std::to_string(rest) + " more sets in " + std::to_string(r.classes.size() - c) +
                      " more classes (--all lists them)");
        break;
      }
      const std::size_t size = r.classes[c].size();
      line(out, "class " + std::to_string(c + 1) + " (" + std::to_string(size) + (size == 1 ? " set):" : " sets):"));
      for (std::size_t m : r.classes[c]) {
        if (options.max_listed && listed >= options.max_listed) {
          line(out, "  ...");
          break;
        }
        line(out, "  " + model_text(r.matching[m].params) + preset_note(r.matching[m]));
        ++listed;
      }
    }
    std::snprintf(timing, sizeof timing, "%.2f s", r.probe_seconds);
    if (r.classes.size() > 1)
      line(out, "probes that tell the classes apart (" + std::to_string(r.probes_tried) +
                    " cases tried, " + timing + "):");
    for (std::size_t i = 0; i < r.probes.size(); ++i) {
      const Probe& p = r.probes[i];
      line(out, "probe " + std::to_string(i + 1) + ": K = " + std::to_string(p.inputs.a.size()) +
                    "  a = " + codes(p.inputs.a, rows.in) + "  b = " + codes(p.inputs.b, rows.b_format()) +
                    "  c = " + hex(p.inputs.c, rows.out));
      std::map<std::pair<bool, std::uint64_t>, std::vector<std::size_t>> by_answer;
      std::vector<std::pair<bool, std::uint64_t>> order;
      for (std::size_t c = 0; c < p.answers.size(); ++c) {
        const auto key = std::make_pair(static_cast<bool>(p.failed[c]), p.answers[c]);
        if (!by_answer.count(key)) order.push_back(key);
        by_answer[key].push_back(c);
      }
      for (const auto& key : order)
        line(out, "  " + (key.first ? std::string("refused") : hex(key.second, rows.out) + " = " + value(key.second, rows.out)) +
                      ": class " + class_list(by_answer[key]));
    }
    std::size_t unsplit = 0;
    for (const auto& members : r.classes) unsplit += members.size() > 1 ? 1 : 0;
    if (unsplit)
      line(out, std::to_string(unsplit) + " class(es) hold several sets that no probe among " +
                    std::to_string(r.probes_tried) + " told apart (equivalent for these formats, "
                    "or told apart only by inputs the search did not reach)");
  }
  std::size_t agreed = 0;
  if (const FamilyMember* answer = fit_answer(r, rows.cases.size(), &agreed))
    line(out, "model " + model_text(answer->params) + " agrees on " + std::to_string(agreed) + "/" +
                  std::to_string(rows.cases.size()) + " cases");
  else
    line(out, "no model: every set in the family refused these formats");
  return out;
}

std::string fit_report_json(const FitResult& r, const RecordedRows& rows, const FitReportOptions& options) {
  using json = nlohmann::ordered_json;
  json j;
  j["rows"] = options.rows_path;
  j["layout"] = rows.layout;
  j["in"] = rows.in.name;
  if (rows.b) j["b"] = rows.b->name;
  j["out"] = rows.out.name;
  j["cases"] = rows.cases.size();
  j["family_size"] = r.family_size;
  j["invalid"] = r.invalid;
  j["fit_seconds"] = r.fit_seconds;
  j["probe_seconds"] = r.probe_seconds;
  j["matching"] = json::array();
  std::vector<std::size_t> class_of(r.matching.size());
  for (std::size_t c = 0; c < r.classes.size(); ++c)
    for (std::size_t m : r.classes[c]) class_of[m] = c + 1;
  for (std::size_t i = 0; i < r.matching.size(); ++i)
    j["matching"].push_back({{"model", model_text(r.matching[i].params)},
                             {"preset", r.matching[i].preset},
                             {"class", class_of[i]}});
  j["pinned"] = json::object();
  j["open"] = json::object();
  const RowFacts facts = row_facts(rows);
  const auto fields = field_values(r.matching);
  std::vector<std::string> blocks;
  for (const auto& [field, values] : fields)
    if (field == "block") blocks = values;
  for (const auto& [field, values] : fields) {
    const auto varied = fit_family_fields();
    if (std::find(varied.begin(), varied.end(), field) == varied.end()) continue;
    if (values.size() == 1) j["pinned"][field] = values[0];
    else j["open"][field] = {{"values", values}, {"why", why_open(field, values, blocks, facts)}};
  }
  j["probes_tried"] = r.probes_tried;
  j["probes"] = json::array();
  for (const Probe& p : r.probes) {
    json answers = json::array();
    for (std::size_t c = 0; c < p.answers.size(); ++c)
      answers.push_back(p.failed[c] ? json{{"class", c + 1}, {"refused", true}}
                                    : json{{"class", c + 1},
                                           {"d", hex(p.answers[c], rows.out)},
                                           {"value", value(p.answers[c], rows.out)}});
    std::vector<std::string> a, b;
    for (std::uint64_t x : p.inputs.a) a.push_back(hex(x, rows.in));
    for (std::uint64_t x : p.inputs.b) b.push_back(hex(x, rows.b_format()));
    j["probes"].push_back({{"a", a}, {"b", b}, {"c", hex(p.inputs.c, rows.out)}, {"answers", answers}});
  }
  j["closest"] = json::array();
  for (const NearMiss& m : r.closest) {
    std::vector<std::string> where;
    for (std::size_t i : m.failed_rows) where.push_back(rows.where[i]);
    j["closest"].push_back({{"model", model_text(m.member.params)}, {"preset", m.member.preset},
                            {"failed", m.failed_rows.size()}, {"failed_rows", where}});
  }
  std::size_t agreed = 0;
  const FamilyMember* answer = fit_answer(r, rows.cases.size(), &agreed);
  j["model"] = answer ? model_text(answer->params) : "";
  j["agrees"] = agreed;
  return j.dump(2) + "\n";
}

}  // namespace fpconform::characterize
