// attncheck audit: the audit's own obligations (AUDIT-*), one function each, checked once per
// applicable kind at each format: properties.cpp states them (IDs, titles, kinds); the bodies are
// in properties_safety.cpp (SAFE, DET, NAN), properties_masked.cpp (MASK, INF, ATT, ATTB-001) and
// properties_at_size.cpp (ATTB-002, PAGED, ATTBWD, MERGE), instantiated there at every format.
#pragma once

#include "attncheck/audit/properties.hpp"

namespace attncheck::audit::obligations {

// The kinds the three obligations every kind has can draw (kinds/draws_registry.hpp): the built-in
// ones (a kind registered by a test has no draws).
std::vector<Kind> kinds_with_draws();

template <class T>
void safe(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void deterministic(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void nan_propagates(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void fully_masked(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void partly_masked(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void plus_infinity(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_range(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_causal(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_query_permutation(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_key_permutation(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_v2_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_v2_at_size(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_paged_at_size(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_backward_at_size(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_backward_drift(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_merge_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol);
template <class T>
void attention_merge_at_size(Kind k, const KernelSet<T>& ks, const Policy& pol);

// The explicit instantiations of obligation FN at every format a kernel is audited at.
#define ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(FN)                        \
  template void FN<f16>(Kind, const KernelSet<f16>&, const Policy&);         \
  template void FN<bf16>(Kind, const KernelSet<bf16>&, const Policy&);       \
  template void FN<float>(Kind, const KernelSet<float>&, const Policy&);     \
  template void FN<double>(Kind, const KernelSet<double>&, const Policy&)

}  // namespace attncheck::audit::obligations
