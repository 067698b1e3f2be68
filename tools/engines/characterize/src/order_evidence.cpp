#include "fpconform/characterize/characterize.hpp"
#include "fpconform/characterize/order.hpp"
#include "fpconform/core/error.hpp"

namespace fpconform::characterize {

std::optional<ProbeEvidence> order_evidence(Target& t, int order_k) {
  const int k = t.supports_k(order_k) ? order_k : (t.supports_k(order_k + 1) ? order_k + 1 : 0);
  if (k == 0) return std::nullopt;
  ProbeEvidence e;
  e.probe = "summation order";
  try {
    OrderStats stats;
    const auto tree = recover_order(t, k, &stats);
    const auto findings = describe_order(tree);
    e.finding = tree.text();
    e.proves = "FPRev with k = " + std::to_string(k) + " (" + std::to_string(stats.queries) +
               " queries): +M and -M at two leaves, units elsewhere; the surviving units count "
               "the leaves outside their lowest common ancestor. " + findings.summary;
    for (const auto& n : stats.notes) e.proves += " " + n;
  } catch (const Error& err) {
    e.finding = "not recovered";
    e.proves = err.what();
  }
  return e;
}

}  // namespace fpconform::characterize
