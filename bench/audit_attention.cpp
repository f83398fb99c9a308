// attncheck benchmarks: the audit of batched attention at shipped sizes (AUDIT-ATTB-002,
// src/attncheck/audit/attention_at_size.hpp) — every output checked structurally, the hidden keys
// bit for bit, the sampled rows against the 200-bit oracle.
//
// Named audit/attention_batched/<dtype>/B:H:H_kv:n:m:d/<mask>. One iteration is one whole audit of
// one shape. The audited kernel is the reference tiled kernel (64 x 64 tiles, f32 arithmetic,
// outputs rounded to bf16), in process; the counters split the time between the kernel's calls
// (kernel_s: a third party's kernel replaces this part) and attncheck's own work (audit_s: input
// generation, the structural checks, the oracle on the sampled rows). The target shape is
// B = 1, H = 32, H_kv = 8, n = m = 4096, d = 128, bf16 storage, f32 arithmetic, causal bottom-right.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>

#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "bench/common.hpp"
#include "bench/sized_audit_shapes.hpp"

namespace attncheck::bench {
namespace {

void bm_audit_attention(benchmark::State& state, kernels::AttentionShape shape) {
  const arithmetic_scope scope(Arithmetic::f32);
  const kernels::AttentionProblem p = causal_problem(shape);
  KernelSet<bf16> ks = reference_kernels<bf16, float>();
  double kernel_s = 0;
  const auto inner = ks.attention_batched;
  ks.attention_batched = [&](const kernels::AttentionProblem& pp, kernels::Tiling, const bf16* q, const bf16* k, const bf16* v, bf16* o,
                             float* lse) {
    const auto t0 = std::chrono::steady_clock::now();
    inner(pp, {64, 64}, q, k, v, o, lse);
    kernel_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  ks.attention_batched_follows_tiling = false;
  audit::SizedAuditStats st;
  double total_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    audit::audit_attention_at_size<bf16>(
        ks, p, 0x5eed2026, [](const bf16* r, std::size_t dv) { return property::follows_masked_policy(r, dv, property::MaskedPolicy::zeros); }, st);
    total_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  state.counters["kernel_s"] = kernel_s;
  state.counters["audit_s"] = total_s - kernel_s;
  state.counters["kernel_calls"] = static_cast<double>(st.kernel_calls);
  state.counters["sampled_rows"] = static_cast<double>(st.sampled_rows);
  state.counters["outputs"] = static_cast<double>(st.outputs);
}

const bool registered = register_sized_audits("audit/attention_batched/bf16@f32/", bm_audit_attention);

}  // namespace
}  // namespace attncheck::bench
