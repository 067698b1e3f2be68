// The matrix and FMA units of this machine, characterized as black boxes (cpu: targets);
// units the CPU lacks are listed with the reason. The work is bounded (ReportRun::unit_cases
// fresh validation cases per unit, a few refinement rounds) so that the section stays under a
// minute; a unit no model reproduces is a finding, its failing cases listed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "fpconform/core/parallel_for.hpp"
#include "fpconform/core/threads.hpp"
#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/target.hpp"
#include "fpconform/convert.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/fdpa_kernel.hpp"
#include "fpconform/report/report_content.hpp"

namespace fpconform::report {

namespace {

constexpr std::size_t kShownPerUnit = 8;  // counterexamples in the visible table, per unit

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string code_value(std::uint64_t code, const Format& f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%llx (%.9g)", static_cast<unsigned long long>(code), to_double(code, f));
  return buf;
}

}  // namespace

std::vector<std::vector<std::string>> counterexample_rows(const characterize::Characterization& c) {
  std::vector<std::vector<std::string>> rows;
  std::optional<FdpaKernel> kernel;
  try {
    kernel.emplace(c.model, c.in, c.out);
  } catch (const Error&) {
  }
  for (const characterize::DotCase& x : c.counterexamples) {
    std::string model_d = "refused";
    if (kernel) try {
        model_d = code_value(kernel->dot(x.a, x.b, x.c), c.out);
      } catch (const Error& e) {
        model_d = std::string("refused: ") + e.what();
      }
    std::string line;
    for (std::uint64_t v : x.a) line += hex(v) + " ";
    for (std::uint64_t v : x.b) line += hex(v) + " ";
    line += hex(x.c) + " " + hex(x.d);
    rows.push_back({c.target, std::to_string(x.a.size()), code_value(x.c, c.out), code_value(x.d, c.out),
                    model_d, line});
  }
  return rows;
}

namespace {

// One unit's part of the section.
struct UnitOutcome {
  std::vector<std::string> row;
  nlohmann::json result;
  std::vector<std::vector<std::string>> counterexamples;
  std::string failure;  // empty: no finding
};

// What each unit is doing, for the progress lines (the units run on worker threads).
class UnitProgress {
 public:
  UnitProgress(const ReportRun& run, std::size_t units) : run_(run), units_(units) {}
  void step(std::size_t unit, const std::string& line, bool milestone) {
    std::lock_guard<std::mutex> lock(m_);
    units_[unit].last = line;
    if (run_.step) run_.step(line, milestone);
  }
  void begin(std::size_t unit, const std::string& name) {
    std::lock_guard<std::mutex> lock(m_);
    units_[unit].name = name;
    units_[unit].start = std::chrono::steady_clock::now();
    units_[unit].running = true;
  }
  void end(std::size_t unit) {
    std::lock_guard<std::mutex> lock(m_);
    units_[unit].running = false;
  }
  // Until stop(): every 10 s, a line for each unit still running (the synthesis of a unit
  // reports nothing for tens of seconds).
  void heartbeat() {
    std::unique_lock<std::mutex> lock(m_);
    while (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return stopped_; })) {
      for (const Unit& u : units_) {
        if (!u.running || !run_.step) continue;
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - u.start).count();
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f s", t);
        run_.step(u.name + ": working, " + buf + " (last: " + u.last.substr(std::min(u.last.size(), u.name.size() + 2)) + ")",
                  true);
      }
    }
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopped_ = true;
    }
    cv_.notify_all();
  }

 private:
  struct Unit {
    std::string name, last;
    std::chrono::steady_clock::time_point start;
    bool running = false;
  };
  const ReportRun& run_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Unit> units_;
  bool stopped_ = false;
};

UnitOutcome characterize_unit(std::size_t index, const std::string& name, characterize::CharacterizeOptions o,
                              UnitProgress& progress) {
  UnitOutcome u;
  auto t = characterize::make_target(name);
  const std::string io = t->in().name + " -> " + t->out().name;
  if (const std::string why = t->unavailable(); !why.empty()) {
    progress.step(index, name + ": not here: " + why, true);
    u.row = {name, io, "", "", "", "", "not here: " + why};
    u.result = {{"target", name}, {"available", false}, {"reason", why}};
    return u;
  }
  progress.begin(index, name);
  progress.step(index, name + " (" + io + "): characterizing", true);
  std::string last_stage;
  o.progress = [&](std::string_view stage, std::string_view detail) {
    // A line per probe and stage in a log, and the end of every validation and refinement.
    const bool milestone = stage == "probe" || stage != last_stage || stage == "validate" || stage == "refine";
    last_stage = stage;
    progress.step(index, name + ": " + std::string(stage) + ": " + std::string(detail), milestone);
  };
  characterize::Characterization c;
  try {
    c = characterize::characterize(*t, o);
  } catch (const Error& e) {
    // The unit could not be run through (it refused every k, ...): a finding.
    progress.end(index);
    progress.step(index, name + ": stopped: " + e.what(), true);
    u.row = {name, io, "", "", std::to_string(t->queries()), "", std::string("stopped: ") + e.what()};
    u.result = {{"target", name}, {"available", true}, {"error", e.what()}};
    u.failure = name + ": characterization stopped: " + e.what();
    return u;
  }
  progress.end(index);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", c.seconds);
  const bool reproduced = c.agreed == c.validated && c.expressible && c.deterministic;
  progress.step(index, name + ": " + (reproduced ? "reproduced" : "no model found") + ", " + std::to_string(c.agreed) +
                           " of " + std::to_string(c.validated) + " fresh cases agree, " + secs + " s",
                true);
  u.row = {name, io, c.model_spec, std::to_string(c.agreed) + " / " + std::to_string(c.validated),
           std::to_string(c.queries), secs, c.verdict};
  u.result = {{"target", name}, {"available", true}, {"model", c.model_spec},
              {"agreed", c.agreed}, {"validated", c.validated}, {"deterministic", c.deterministic},
              {"counterexamples", c.counterexamples.size()}};
  u.counterexamples = counterexample_rows(c);
  if (!reproduced) {
    u.failure = name + ": ";
    if (!c.deterministic) u.failure += "non-deterministic (identical calls gave different answers)";
    else if (c.validated == 0) u.failure += c.verdict;
    else
      u.failure += "no model found; the best disagrees on " + std::to_string(c.validated - c.agreed) + " of " +
                   std::to_string(c.validated) + " fresh cases (the section lists them)";
  }
  return u;
}

}  // namespace

reports::Section matrix_units_section(const ReportRun& run) {
  reports::Section s;
  s.id = "matrix-units";
  s.title = "This machine's units, characterized";
  reports::Table units{"matrix-units", "cpu: targets", {"target", "in -> out", "model", "agreed / validated", "queries", "seconds", "verdict"}, {}, ""};
  const std::vector<std::string> columns{"target", "k", "c", "unit's d", "model's d",
                                         "case: a... b... c d (hex)"};
  reports::Table shown{"matrix-units-counterexamples", "Cases the unit's best model does not reproduce", columns, {}, ""};
  reports::Table all{"matrix-units-counterexamples-all", "Every case kept that the unit's best model does not reproduce",
                     columns, {}, ""};
  all.detail = true;
  characterize::CharacterizeOptions o;
  o.seed = run.seed;
  o.validation_cases = run.unit_cases ? run.unit_cases : run.quick ? kUnitCasesQuick : kUnitCasesFull;
  o.max_refinements = run.quick ? kUnitRefinementsQuick : kUnitRefinementsFull;

  // The units side by side on worker threads (each its own target; the characterization of one
  // does not depend on the others, so the section is the same for any thread count).
  const std::vector<std::string> names = characterize::cpu_target_names();
  std::vector<UnitOutcome> outcomes(names.size());
  std::vector<std::exception_ptr> errors(names.size());
  UnitProgress progress(run, names.size());
  unsigned workers = resolve_threads(run.threads, "threads");
  workers = std::min<unsigned>(workers, static_cast<unsigned>(names.size()));
  {
    std::thread beat([&] { progress.heartbeat(); });
    // Every unit runs, whatever another one throws: its error is kept in its slot.
    parallel_for(names.size(), workers, [&](std::size_t i) {
      try {
        outcomes[i] = characterize_unit(i, names[i], o, progress);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
    progress.stop();
    beat.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  std::size_t listed = 0;
  for (const UnitOutcome& u : outcomes) {
    units.rows.push_back(u.row);
    s.results.push_back(u.result);
    for (std::size_t i = 0; i < u.counterexamples.size(); ++i) {
      if (i < kShownPerUnit) shown.rows.push_back(u.counterexamples[i]);
      all.rows.push_back(u.counterexamples[i]);
    }
    listed += u.counterexamples.size();
    if (!u.failure.empty()) {
      s.ok = false;
      s.failure += (s.failure.empty() ? "" : "; ") + u.failure;
    }
  }
  if (s.results.is_null()) s.results = nlohmann::json::array();
  s.paragraphs.push_back("Each available unit is probed through its own instructions, a model of the "
                         "fused dot-product family is synthesized from the evidence, and the model is "
                         "validated on fresh random and adversarial cases (`fpconform probe --target "
                         "cpu:...` gives the full evidence).");
  s.paragraphs.push_back("The evidence here is bounded: each model was checked on " +
                         std::to_string(o.validation_cases) + " fresh cases per unit (the 'agreed / validated' "
                         "column counts them), after at most " + std::to_string(o.max_refinements) +
                         (o.max_refinements == 1 ? " refinement round" : " refinement rounds") +
                         "; `fpconform probe --target cpu:... --cases 1000000` checks one unit on more.");
  s.tables.push_back(std::move(units));
  if (listed > 0) {
    shown.note = "The first " + std::to_string(kShownPerUnit) + " per unit of the " + std::to_string(listed) +
                 " cases kept (at most 64 per unit); all of them are in the table " + all.id +
                 " (tables/" + all.id + ".csv). A case line is what `fpconform dot --model SPEC --in IN "
                 "--out OUT --check` reads, its last code the unit's d.";
    s.tables.push_back(std::move(shown));
    s.tables.push_back(std::move(all));
  }
  return s;
}

}  // namespace fpconform::report
