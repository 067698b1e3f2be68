#include "fpconform/characterize/dot_case.hpp"

#include <map>

#include "fpconform/fdpa_kernel.hpp"

namespace fpconform::characterize {

void observe(Target& t, std::span<DotCase> cases) {
  std::map<std::size_t, std::vector<std::size_t>> by_k;
  for (std::size_t i = 0; i < cases.size(); ++i) by_k[cases[i].a.size()].push_back(i);
  for (const auto& [k, idx] : by_k) {
    DotBatch batch;
    batch.k = static_cast<int>(k);
    for (std::size_t i : idx) batch.add(cases[i].a, cases[i].b, cases[i].c);
    const std::vector<std::uint64_t> d = t.run(batch);
    for (std::size_t j = 0; j < idx.size(); ++j) cases[idx[j]].d = d[j];
  }
}

std::vector<std::size_t> disagreements(const FdpaParams& p, const FdpaFormats& f,
                                       std::span<const DotCase> cases) {
  const FdpaKernel kernel(p, f);
  std::vector<std::size_t> bad;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (kernel.dot(cases[i].a, cases[i].b, cases[i].c) != cases[i].d) bad.push_back(i);
  return bad;
}

}  // namespace fpconform::characterize
