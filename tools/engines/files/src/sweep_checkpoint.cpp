#include "fpconform/files/sweep_checkpoint.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "fpconform/core/error.hpp"

namespace fpconform::files {

namespace {

std::uint64_t number(const std::string& word, const std::string& place) {
  if (word.empty() || word[0] < '0' || word[0] > '9') throw Error(place, "expected a number, got '" + word + "'");
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(word.c_str(), &end, 10);
  if (*end || errno) throw Error(place, "expected a number, got '" + word + "'");
  return v;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

}  // namespace

void add_sweep_progress(Checkpoint& c, const conformance::SweepProgress& p, std::uint64_t inputs) {
  c.add("inputs", std::to_string(inputs));
  c.add("configs", std::to_string(p.mismatches.size()));
  c.add("done", std::to_string(p.done));
  std::string m;
  for (std::uint64_t x : p.mismatches) m += (m.empty() ? "" : " ") + std::to_string(x);
  c.add("mismatches", m);
  for (const auto& e : p.counterexamples) {
    std::ostringstream o;
    o << e.index << ' ' << e.input << ' ' << e.config << ' ' << e.emu_bits << ' '
      << unsigned{e.emu_flags} << ' ' << e.oracle_bits << ' ' << unsigned{e.oracle_flags} << ' '
      << escape_field(e.error);
    c.add("cex", o.str());
  }
}

conformance::SweepProgress sweep_progress_of(const Checkpoint& c, const std::string& path,
                                             std::uint64_t inputs, std::size_t configs) {
  conformance::SweepProgress p;
  const auto one = [&](const char* key) {
    const std::size_t i = c.find(key, path);
    return std::pair{number(c.fields[i].second, c.place(i, path)), c.place(i, path)};
  };
  if (const auto [v, at] = one("inputs"); v != inputs)
    throw Error(at, "checkpoint of a sweep over " + std::to_string(v) + " inputs, this one has " +
                        std::to_string(inputs));
  if (const auto [v, at] = one("configs"); v != configs)
    throw Error(at, "checkpoint of a sweep with " + std::to_string(v) +
                        " configurations, this one has " + std::to_string(configs));
  const auto [done, done_at] = one("done");
  if (done > inputs) throw Error(done_at, "done " + std::to_string(done) + " > inputs");
  p.done = done;
  const std::size_t mi = c.find("mismatches", path);
  const auto mw = words(c.fields[mi].second);
  if (mw.size() != configs)
    throw Error(c.place(mi, path), "expected " + std::to_string(configs) + " mismatch counts, got " +
                                       std::to_string(mw.size()));
  for (const auto& w : mw) p.mismatches.push_back(number(w, c.place(mi, path)));
  for (std::size_t i = 0; i < c.fields.size(); ++i) {
    if (c.fields[i].first != "cex") continue;
    const std::string& at = c.place(i, path);
    const auto w = words(c.fields[i].second);
    if (w.size() != 8) throw Error(at, "a counter-example needs 8 fields, got " + std::to_string(w.size()));
    conformance::CounterExample e;
    e.index = number(w[0], at);
    e.input = number(w[1], at);
    e.config = number(w[2], at);
    e.emu_bits = number(w[3], at);
    e.emu_flags = static_cast<std::uint8_t>(number(w[4], at));
    e.oracle_bits = number(w[5], at);
    e.oracle_flags = static_cast<std::uint8_t>(number(w[6], at));
    e.error = unescape_field(w[7], at);
    if (e.config >= configs || e.index >= done)
      throw Error(at, "a counter-example outside the sweep");
    p.counterexamples.push_back(std::move(e));
  }
  return p;
}

}  // namespace fpconform::files
