// attncheck audit: the audit's own obligations (AUDIT-*), stated with the same generators,
// oracle and derived bounds as the contracts' properties: their IDs, titles and kinds here, their
// bodies in properties_safety.cpp, properties_masked.cpp and properties_at_size.cpp.
#include "attncheck/audit/properties.hpp"
#include "attncheck/audit/properties_obligations.hpp"
#include "attncheck/audit/rounding_bias.hpp"

namespace attncheck::audit {

namespace {

using namespace obligations;

#define ATTNCHECK_AUDIT_PROPERTY(ID, TITLE, KINDS, FN)                                             \
  AuditProperty {                                                                                  \
    ID, TITLE, KINDS, [](Kind k, const KernelSet<f16>& s, const Policy& p) { FN<f16>(k, s, p); },  \
        [](Kind k, const KernelSet<bf16>& s, const Policy& p) { FN<bf16>(k, s, p); },              \
        [](Kind k, const KernelSet<float>& s, const Policy& p) { FN<float>(k, s, p); },            \
        [](Kind k, const KernelSet<double>& s, const Policy& p) { FN<double>(k, s, p); }, false    \
  }

std::vector<AuditProperty> build() {
  const std::vector<Kind> every = kinds_with_draws();
  const std::vector<Kind> sm{Kind::softmax, Kind::log_softmax}, att{Kind::attention}, att2{Kind::attention_v2}, bwd{Kind::attention_backward},
                          merge{Kind::attention_merge}, paged{Kind::attention_paged};
  std::vector<AuditProperty> v = {
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-SAFE-001",
                               "every call returns within the timeout, writes only its output and leaves its inputs unchanged",
                               every, safe),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-DET-001", "the same input twice gives the same bits", every, deterministic),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-NAN-001", "a NaN input gives NaN in every output that depends on it",
                               every, nan_propagates),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MASK-001", "a fully masked row (all -inf) gives what the kernel's masked-row policy accepts", sm, fully_masked),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MASK-002",
                               "-inf entries give exactly 0 (log_softmax: -inf) and the rest is that of the finite entries within the derived bound",
                               sm, partly_masked),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-001", "attention outputs lie in the per-column range of the visible values, within the derived rounding allowance",
                               att, attention_range),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-002", "under the causal mask a query's output does not depend on later keys or values", att,
                               attention_causal),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-003", "permuting the queries permutes the output rows", att, attention_query_permutation),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-004",
                               "permuting keys and values together leaves the output unchanged within twice the derived whole-row bound",
                               att, attention_key_permutation),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTB-001", "a batched-attention row that sees no key gives what the masked-row policy accepts, and LSE -inf",
                               att2, attention_v2_masked_rows),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTB-002",
                               "at shipped sizes every output is deterministic, inside its visible values' range and blind to hidden keys, and sampled rows are within the derived allowance",
                               att2, attention_v2_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTBWD-001",
                               "at shipped sizes no gradient element is NaN (exactly 0 where no term reaches it, finite where a derived bound keeps it in "
                               "range), the results are deterministic and blind to the dO of rows they do not depend on, and sampled query rows and keys are "
                               "within the derived allowance",
                               bwd, attention_backward_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTBWD-002",
                               "on sums whose terms share a sign, the error of dQ over 256 key blocks of 64, and of dK and dV over 256 query blocks "
                               "of 64, is not larger than over one block (false-alarm probability 1e-9 per check)",
                               bwd, attention_backward_drift),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MERGE-001",
                               "a row that no split saw a key of gives what the masked-row policy accepts, and LSE -inf", merge,
                               attention_merge_masked_rows),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MERGE-002",
                               "at decode sizes (64 rows, dv 128, 16 and 128 splits, a quarter of them empty) every output and LSE is within the "
                               "derived allowance of the exact merge",
                               merge, attention_merge_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-PAGED-001",
                               "at decode size (6 sequences of 1 to 4100 keys in shuffled pages of 16 tokens, H 4 over H_kv 2, d 64) every output and "
                               "LSE is within the derived allowance of its sequence's exact attention",
                               paged, attention_paged_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-INF-001", "a row with +inf gives all NaN or the one-hot limit over the +inf entries (log_softmax: its log)", sm,
                               plus_infinity),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-BIAS-001",
                               "over 1000 rows the signed error has mean about 0, as rounding to nearest is assumed to give (false-alarm probability 1e-9 per check)",
                               sm, rounding_bias),
  };
  for (AuditProperty& p : v) {
    p.judges_masked_policy = p.id == "AUDIT-MASK-001" || p.id == "AUDIT-ATTB-001" || p.id == "AUDIT-ATTB-002" || p.id == "AUDIT-MERGE-001";
    p.one_shot = p.id == "AUDIT-BIAS-001" || p.id == "AUDIT-ATTB-002" || p.id == "AUDIT-ATTBWD-001" || p.id == "AUDIT-ATTBWD-002" || p.id == "AUDIT-MERGE-002" ||
                 p.id == "AUDIT-PAGED-001";
  }
  return v;
}

}  // namespace

const std::vector<AuditProperty>& audit_properties() {
  static const std::vector<AuditProperty> v = build();
  return v;
}

}  // namespace attncheck::audit
