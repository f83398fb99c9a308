// attncheck audit: obligations that only make sense for a kernel attncheck did not write (no
// contract states them about the reference): special-value policies, determinism and safety.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/audit/attention_shape.hpp"
#include "attncheck/audit/call.hpp"
#include "attncheck/audit/capabilities.hpp"
#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/property/masked_rows.hpp"

namespace attncheck::audit {

// What a fully masked row (every entry -inf) must give: softmax all zeros (log_softmax all -inf,
// log 0), all NaN, or either (property/masked_rows.hpp). Set per kernel (bindings file) or for all
// (--masked).
using property::MaskedPolicy;
std::string_view masked_policy_name(MaskedPolicy p);
std::optional<MaskedPolicy> parse_masked_policy(std::string_view s);

// The special-value policies of one audited kernel.
struct Policy {
  MaskedPolicy masked = MaskedPolicy::either;  // attention_v2: the policy of its fully masked rows (O)
  bool returns_lse = true;  // attention_v2: whether the kernel computes the LSE (false: never asked)
  // false: the kernel is declared nondeterministic (atomic adds over dQ, split-K over keys:
  // --nondeterministic, deterministic: false): AUDIT-DET-001 is then not demanded, and every run
  // is judged by the accuracy checks on its own.
  bool deterministic = true;
  // attention_v2 with 16-bit storage: what it stores in the storage format (the error model its
  // allowances are derived for; scalar/arithmetic.hpp).
  Intermediates stores = Intermediates::fused;
  // Every kernel of the run: its subnormal arithmetic (--subnormals, bindings subnormals:), the
  // error model's η (bounds/error_model.hpp: model_of; scalar/arithmetic.hpp).
  Subnormals subnormals = Subnormals::ieee;
  // attention_v2: the shapes AUDIT-ATTB-002 audits (--attention-shape), each with the magnitudes
  // of its inputs; empty: default_sized_problems().
  std::vector<SizedProblem> attention_shapes;
  // attention_v2 and attention_paged: the largest num_splits the kernels are declared to read
  // (--splits S; 0: never told to split, and FALSIFY-MERGE-004 and FALSIFY-PAGED-005 are not
  // applicable). AUDIT-ATTB-002 and AUDIT-PAGED-001 then run split at S.
  std::size_t splits = 0;
  // attention_paged: the kernel gives the same bits whatever the page size (--page-size-invariant):
  // FALSIFY-PAGED-002 then redraws the page size of its second placement (KernelSet::
  // attention_paged_page_size_invariant).
  bool page_size_invariant = false;
  // attention_varlen: the kernel computes each sequence in the order its dense attention kernel
  // computes it alone (--packing-invariant): FALSIFY-VARLEN-003 then demands the same bits
  // (KernelSet::attention_varlen_packing_invariant).
  bool packing_invariant = false;
  // The attention kinds: what the kernel declares it supports (--supports, supports:;
  // capabilities.hpp); empty: everything. Problems outside are not sent.
  std::vector<Supports> supports;
};

// One audit obligation, checked once per applicable kind: body(kind) draws an input for that
// kind, calls the kernel and fails with a report. The ID is stable (it appears in reports).
struct AuditProperty {
  std::string id;
  std::string title;
  std::vector<Kind> kinds;  // the kinds it is stated for
  // Runs one case at T for kind k.
  std::function<void(Kind, const KernelSet<f16>&, const Policy&)> f16;
  std::function<void(Kind, const KernelSet<bf16>&, const Policy&)> bf16;
  std::function<void(Kind, const KernelSet<float>&, const Policy&)> f32;
  std::function<void(Kind, const KernelSet<double>&, const Policy&)> f64;
  bool judges_masked_policy = false;  // its verdict depends on Policy::masked (reports show the policy)
  // A statistical test over a sample it draws itself (AUDIT-BIAS-001): run once per check, not
  // --cases times, and never shrunk.
  bool one_shot = false;
};

const std::vector<AuditProperty>& audit_properties();

}  // namespace attncheck::audit
