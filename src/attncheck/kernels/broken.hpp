// attncheck: broken kernels, beside the kernels they break. Each is written once, as a template
// over the scalar like the reference it breaks, and plugged in by both mutant registries: the
// gate's (falsify/mutants/<f>.cpp, into a KernelSet<T>) and bmc's (harnesses/mutants.cpp, into
// kernel_slots<T>, symbolic and concrete). The tests each must be caught by are stated with the
// tests (`catches:` in contracts/<stem>.yaml) and in the registrations' caught_by lists, which
// `attncheck coverage --registry` checks agree.
#pragma once

#include <cstddef>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels::broken {

// softmax without max subtraction: exp overflows to +inf for large inputs (x > 88.7 in f32), and
// inf/inf = NaN.
template <class T>
void softmax_no_max_subtraction(const T* x, T* y, std::size_t n) {
  T s = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) s = s + (y[i] = exp(x[i]));
  for (std::size_t i = 0; i < n; ++i) y[i] = y[i] / s;
}

// softmax that subtracts the maximum only where exp(max) would leave the range (|max| >= 50): right
// on every row but those whose entries' exps are subnormal unshifted at a moderate negative maximum
// (gen::shift_region_row), where exp(x_i) keeps a few bits and exp(x_i - max) all of them.
template <class T>
void softmax_shift_only_beyond_50(const T* x, T* y, std::size_t n) {
  const double m = n ? to_double(row_max(x, n)) : 0;
  if (m > -50 && m < 50)
    softmax_no_max_subtraction(x, y, n);
  else
    softmax(x, y, n);
}

// Scores without the 1/sqrt(d) scaling: |q.k| reaches d > sqrt(d).
template <class T>
void scores_unscaled(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) s[i * m + j] = dot(q + i * d, k + j * d, d);
}

// Attention that masks causally whatever the flag says: query row i sees keys 0..i only, so a
// row's output depends on its position.
template <class T>
void attention_always_causal(const T* q, const T* k, const T* v, std::size_t n, std::size_t m, std::size_t d,
                             std::size_t dv, bool, T* o) {
  attention(q, k, v, n, m, d, dv, true, o);
}

// Entropy with the sign flipped: H = sum p log p (<= 0). The term alone is bmc's step slot.
template <class T>
T entropy_term_sign_flipped(T p) { return -entropy_term(p); }
template <class T>
T entropy_sign_flipped(const T* p, std::size_t n) { return -entropy(p, n); }

// Entropy without the p = 0 guard: an underflowed probability gives 0 * log 0 = 0 * -inf = NaN.
template <class T>
T entropy_term_unguarded(T p) { return -T(p * log(p)); }
template <class T>
T entropy_unguarded(const T* p, std::size_t n) {
  T h = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) h = h + entropy_term_unguarded(p[i]);
  return h;
}

// RMSNorm with eps dropped: y = x / sqrt(mean(x^2)) * w, so RMSNorm(0) = 0/0 = NaN.
template <class T>
void rmsnorm_without_eps(const T* x, const T* w, std::size_t d, T, T* y) {
  const T r = sqrt(T(dot(x, x, d) / lit<T>(static_cast<double>(d))));
  for (std::size_t i = 0; i < d; ++i) y[i] = T(x[i] / r) * w[i];
}

// The softmax JVP without its mean (centring) term: dy = p * dx (Diag(p) without -p pᵀ), whose
// sum is <dx>_p, not 0.
template <class T>
void softmax_jvp_missing_mean(const T* x, const T* dx, std::size_t n, T* dy) {
  std::vector<T> p(n);
  softmax(x, p.data(), n);
  for (std::size_t i = 0; i < n; ++i) dy[i] = p[i] * dx[i];
}

}  // namespace attncheck::kernels::broken
