// fit: test every family member on the rows (stopping at its first wrong row, so most members
// cost one dot product), keep those that reproduce all, then split them with probes.
#include "fpconform/characterize/fit.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "fit_probes.hpp"
#include "fpconform/core/error.hpp"
#include "fpconform/core/parallel_for.hpp"
#include "fpconform/fdpa_kernel.hpp"

namespace fpconform::characterize {

namespace {

// The rows decoded once for FdpaKernel (decoding depends on the input format only).
struct DecodedRows {
  std::vector<DecodedOperands> a, b;
};

// How far a member gets: the number of leading rows it reproduces (all: it matches), or invalid.
struct Outcome {
  bool invalid = false;
  std::size_t prefix = 0;
};

Outcome try_member(const FdpaParams& p, const FdpaFormats& f, std::span<const DotCase> rows,
                   const DecodedRows& decoded) {
  try {
    const FdpaKernel kernel(p, f);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const DotCase& dc = rows[r];
      const std::uint64_t got =
          kernel.fast() ? kernel.dot(decoded.a[r], 0, decoded.b[r], 0, 1, dc.a.size(), dc.c)
                        : fdpa(p, f, dc.a, dc.b, dc.c);
      if (got != dc.d) return {false, r};
    }
    return {false, rows.size()};
  } catch (const Error&) {
    return {true, 0};
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

FitResult fit(const FdpaFormats& f, std::span<const DotCase> rows, const FitOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  FitResult result;
  if (rows.empty()) throw Error("rows", "nothing to fit: no rows");
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows[r].a.size() != rows[r].b.size() || rows[r].a.empty())
      throw Error("row " + std::to_string(r + 1), "a and b must be non-empty and of one length");
  FamilyOptions family_options = options.family;
  if (family_options.k == 0) {
    const std::size_t k = rows.front().a.size();
    bool one_length = true;
    for (const DotCase& dc : rows) one_length = one_length && dc.a.size() == k;
    if (one_length) family_options.k = static_cast<int>(k);
  }
  const std::vector<FamilyMember> family = fit_family(f, family_options);
  result.family_size = family.size();

  DecodedRows decoded;
  const FdpaKernel decoder(FdpaParams{}, f);
  for (const DotCase& dc : rows) {
    decoded.a.push_back(decoder.decode(dc.a, Operand::a));
    decoded.b.push_back(decoder.decode(dc.b, Operand::b));
  }

  // One family member per index, each outcome in its own slot.
  std::vector<Outcome> outcomes(family.size());
  parallel_for(family.size(), std::max(1u, options.threads), [&](std::size_t i) {
    outcomes[i] = try_member(family[i].params, f, rows, decoded);
  });

  for (std::size_t i = 0; i < family.size(); ++i) {
    if (outcomes[i].invalid) ++result.invalid;
    else if (outcomes[i].prefix == rows.size()) result.matching.push_back(family[i]);
  }

  if (result.matching.empty()) {
    // The members that got furthest, then ranked by how many rows they fail in all.
    std::vector<std::size_t> order(family.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return !outcomes[x].invalid && (outcomes[y].invalid || outcomes[x].prefix > outcomes[y].prefix);
    });
    order.resize(std::min<std::size_t>(order.size(), 64));
    // The presets too: a unit's published model failing is worth seeing whatever its prefix.
    for (std::size_t i = 0; i < family.size() && !family[i].preset.empty(); ++i)
      if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
    for (std::size_t i : order) {
      if (outcomes[i].invalid) continue;
      try {
        result.closest.push_back({family[i], disagreements(family[i].params, f, rows)});
      } catch (const Error&) {
        // refuses a later row: not a near miss
      }
    }
    std::stable_sort(result.closest.begin(), result.closest.end(),
                     [](const NearMiss& x, const NearMiss& y) {
                       return x.failed_rows.size() < y.failed_rows.size();
                     });
    if (result.closest.size() > options.closest) result.closest.resize(options.closest);
  }
  result.fit_seconds = seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  std::vector<FdpaParams> survivors;
  for (const FamilyMember& m : result.matching) survivors.push_back(m.params);
  ProbeSearch search = split_by_probes(f, survivors, rows, options.seed, options.probe_budget);
  result.classes = std::move(search.classes);
  result.probes = std::move(search.probes);
  result.probes_tried = search.tried;
  result.probe_seconds = seconds_since(t1);
  return result;
}

}  // namespace fpconform::characterize
