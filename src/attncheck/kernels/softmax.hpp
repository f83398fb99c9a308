// attncheck: reference softmax with max subtraction, written once for every scalar type.
#pragma once

#include <cstddef>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::kernels {

// Step functions: the loop bodies, small enough for a per-step lemma in a harness.
// Running maximum; a NaN candidate is ignored (comparison false), a NaN in x[0] propagates.
template <Scalar T>
T max_step(T m, T xi) { return select(xi > m, xi, m); }

// e_i = exp(x_i - m): every argument is <= 0 after max subtraction, so nothing overflows.
template <Scalar T>
T shifted_exp_step(T xi, T m) { return exp(T(xi - m)); }

template <Scalar T>
T row_max(const T* x, std::size_t n) {
  T m = x[0];
  for (std::size_t i = 1; i < n; ++i) m = max_step(m, x[i]);
  return m;
}

// The denominator: the exps summed left to right from +0 (the order the bounds assume,
// ŝ = Σ ê_j (1 + θ), |θ| <= γ_{n-1}). A function of its own so that the Gappa harness
// GAPPA-SM-001 records exactly this loop (it cannot run row_max, which compares).
template <Scalar T>
T row_sum(const T* e, std::size_t n) {
  T s = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) s = s + e[i];
  return s;
}

// The normalisation: divide each exp by their sum (row_sum), in place. A function of its own so
// that the harness KANI-SM-004 checks exactly this step on every row of exps the exp step can
// produce (any e in [0, 1]^n with some e_k = 1), without the max and exp in its query.
template <Scalar T>
void normalise_row(T* e, std::size_t n) {
  const T s = row_sum(e, n);
  for (std::size_t i = 0; i < n; ++i) e[i] = e[i] / s;
}

// softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x), n >= 1; y may alias nothing.
// Subtract the row max first: every exp argument is <= 0, so nothing overflows, and the max
// cancels in the ratio.
template <Scalar T>
void softmax(const T* x, T* y, std::size_t n) {
  if (n == 0) return;
  const T m = row_max(x, n);
  for (std::size_t i = 0; i < n; ++i) y[i] = shifted_exp_step(x[i], m);
  normalise_row(y, n);
}

}  // namespace attncheck::kernels
