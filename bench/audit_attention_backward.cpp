// attncheck benchmarks: the audit of the backward pass of batched attention at shipped sizes
// (AUDIT-ATTBWD-001, src/attncheck/audit/attention_backward_at_size.hpp): the forward o and LSE
// computed for the kernel, every gradient element checked structurally, two calls and a call
// with dO redrawn compared bit for bit, sampled query rows and keys against the 200-bit oracle.
//
// Named audit/attention_backward/<dtype>/B:H:H_kv:n:m:d/<mask>. One iteration is one whole audit
// of one shape. The audited kernel stands in for an optimised one: the reference backward
// (kernels/attention_backward.hpp) computed in double, one (batch, key/value head) slice per
// core, its gradients rounded to bf16 — correct for bf16@f32 (more accurate than the f32
// arithmetic the allowances are derived for) and fast enough to time the audit around it (the
// bf16 reference template is scalar and emulates bf16: hours a call at this size). The
// counters split the time between the kernel's calls (kernel_s: a third party's kernel replaces
// this part) and attncheck's own work (audit_s: inputs, the forward handed to the kernel, the
// structural and bit checks, the oracle on the sampled rows and keys). The target shape
// is B = 1, H = 32, H_kv = 8, n = m = 4096, d = 128, bf16@f32, causal bottom-right.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "attncheck/audit/attention_backward_at_size.hpp"
#include "bench/common.hpp"
#include "bench/sized_audit_shapes.hpp"

namespace attncheck::bench {
namespace {

// The reference backward in double on each (batch, key/value head) slice: the problem with that
// group's query heads and one key/value head, on every core.
void backward_in_double(const kernels::AttentionProblem& p, const bf16* q, const bf16* k, const bf16* v, const bf16* o, const bf16* dout,
                        const float* lse, bf16* dq, bf16* dk, bf16* dv) {
  const auto& sh = p.shape;
  const std::size_t group = sh.heads / sh.kv_heads;
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    kernels::AttentionProblem s = p;
    s.shape.batch = 1, s.shape.heads = group, s.shape.kv_heads = 1;
    const auto& ss = s.shape;
    std::vector<double> qs(ss.q_size()), ks(ss.k_size()), vs(ss.v_size()), os(ss.o_size()), dos(ss.o_size()), ls(ss.lse_size());
    std::vector<double> dqs(ss.q_size()), dks(ss.k_size()), dvs(ss.v_size());
    for (std::size_t task; (task = next++) < sh.batch * sh.kv_heads;) {
      const std::size_t b = task / sh.kv_heads, g = task % sh.kv_heads;
      if (!p.alibi_slopes.empty()) s.alibi_slopes.assign(p.alibi_slopes.begin() + g * group, p.alibi_slopes.begin() + (g + 1) * group);
      for (std::size_t hh = 0; hh < group; ++hh) {
        const std::size_t h = g * group + hh;
        for (std::size_t i = 0; i < sh.n; ++i) {
          for (std::size_t t = 0; t < sh.d; ++t) qs[ss.q_at(0, i, hh) + t] = to_double(q[sh.q_at(b, i, h) + t]);
          for (std::size_t c = 0; c < sh.dv; ++c) {
            os[ss.o_at(0, i, hh) + c] = to_double(o[sh.o_at(b, i, h) + c]);
            dos[ss.o_at(0, i, hh) + c] = to_double(dout[sh.o_at(b, i, h) + c]);
          }
          ls[ss.lse_at(0, hh, i)] = lse[sh.lse_at(b, h, i)];
        }
      }
      for (std::size_t j = 0; j < sh.m; ++j) {
        for (std::size_t t = 0; t < sh.d; ++t) ks[ss.k_at(0, j, 0) + t] = to_double(k[sh.k_at(b, j, g) + t]);
        for (std::size_t c = 0; c < sh.dv; ++c) vs[ss.v_at(0, j, 0) + c] = to_double(v[sh.v_at(b, j, g) + c]);
      }
      kernels::attention_backward<double>(s, qs.data(), ks.data(), vs.data(), os.data(), dos.data(), ls.data(), dqs.data(), dks.data(), dvs.data());
      for (std::size_t hh = 0; hh < group; ++hh)
        for (std::size_t i = 0; i < sh.n; ++i)
          for (std::size_t t = 0; t < sh.d; ++t) dq[sh.q_at(b, i, g * group + hh) + t] = scalar_traits<bf16>::from_double(dqs[ss.q_at(0, i, hh) + t]);
      for (std::size_t j = 0; j < sh.m; ++j) {
        for (std::size_t t = 0; t < sh.d; ++t) dk[sh.k_at(b, j, g) + t] = scalar_traits<bf16>::from_double(dks[ss.k_at(0, j, 0) + t]);
        for (std::size_t c = 0; c < sh.dv; ++c) dv[sh.v_at(b, j, g) + c] = scalar_traits<bf16>::from_double(dvs[ss.v_at(0, j, 0) + c]);
      }
    }
  };
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(sh.batch * sh.kv_heads)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

void bm_audit_attention_backward(benchmark::State& state, kernels::AttentionShape shape) {
  const arithmetic_scope scope(Arithmetic::f32);
  const kernels::AttentionProblem p = causal_problem(shape);
  KernelSet<bf16> ks;
  double kernel_s = 0;
  ks.attention_backward = [&](const kernels::AttentionProblem& pp, kernels::Tiling, const bf16* q, const bf16* k, const bf16* v, const bf16* o,
                              const bf16* dout, const float* lse, bf16* dq, bf16* dk, bf16* dv) {
    const auto t0 = std::chrono::steady_clock::now();
    backward_in_double(pp, q, k, v, o, dout, lse, dq, dk, dv);
    kernel_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  audit::SizedBackwardStats st;
  double total_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    audit::audit_attention_backward_at_size<bf16>(ks, p, base_seed, true, st);
    total_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  state.counters["kernel_s"] = kernel_s;
  state.counters["audit_s"] = total_s - kernel_s;
  state.counters["kernel_calls"] = static_cast<double>(st.kernel_calls);
  state.counters["sampled_rows"] = static_cast<double>(st.sampled_rows);
  state.counters["sampled_keys"] = static_cast<double>(st.sampled_keys);
  state.counters["worst_ratio"] = st.worst_sampled;
}

const bool registered = register_sized_audits("audit/attention_backward/bf16@f32/", bm_audit_attention_backward);

}  // namespace
}  // namespace attncheck::bench
