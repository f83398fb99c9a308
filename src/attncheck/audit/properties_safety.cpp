// attncheck audit: the obligations every kind has: AUDIT-SAFE-001 (the call is safe), AUDIT-DET-001
// (deterministic) and AUDIT-NAN-001 (a NaN input reaches every output that depends on it). What
// they draw and call for each kind is in its family's kinds/*_draws.hpp, found through
// kinds/draws_registry.hpp.
#include "attncheck/audit/kinds/draws_registry.hpp"

namespace attncheck::audit::obligations {

// AUDIT-SAFE-001: the call itself; the KernelSet wrapper judges time, bounds and inputs.
template <class T>
void safe(Kind k, const KernelSet<T>& ks, const Policy&) {
  const auto& dr = draws_of<T>(k);
  if (dr.safe) return dr.safe(k, ks);
  auto [d, run] = dr.call(k, ks);
  run();
}

// AUDIT-DET-001: two calls on the same input give the same bits.
template <class T>
void deterministic(Kind k, const KernelSet<T>& ks, const Policy&) {
  const auto& dr = draws_of<T>(k);
  if (dr.deterministic) return dr.deterministic(k, ks);
  auto [d, run] = dr.call(k, ks);
  const auto a = run(), b = run();
  if (!same_bits(a, b)) {
    Report<T> r("AUDIT-DET-001", what<T>(k) + " gave different bits on the same input");
    with_inputs(r, d).input("First output", a).input("Second output", b).raise();
  }
}

// AUDIT-NAN-001: a NaN in the input reaches every output that depends on it, so no NaN input
// comes back as a valid answer. The kind's case says where the NaN is and which outputs depend
// on it (none named: every one).
template <class T>
void nan_propagates(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  auto c = draws_of<T>(k).nan(k, ks, pol);
  if (c.must.empty())
    for (std::size_t i = 0; i < c.y.size(); ++i) c.must.push_back(i);
  for (std::size_t i : c.must)
    if (!is_nan(c.y[i])) {
      Report<T> r("AUDIT-NAN-001", what<T>(k) + ", output " + std::to_string(i) + " of " + std::to_string(c.y.size()));
      for (const auto& [name, v] : c.inputs) r.input(name, v);
      for (const auto& line : c.notes) r.line(line);
      r.input("Output", c.y).line(c.why + " and output " + std::to_string(i) + " depends on it: expected NaN there.").raise();
    }
}

ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(safe);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(deterministic);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(nan_propagates);

std::vector<Kind> kinds_with_draws() {
  std::vector<Kind> v;
  for (const auto& d : kind_draws<float>()) v.push_back(d.kind);
  return v;
}

}  // namespace attncheck::audit::obligations
