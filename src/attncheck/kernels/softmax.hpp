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

// softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x), n >= 1; y may alias nothing.
// Subtract the row max first: every exp argument is <= 0, so nothing overflows, and the max
// cancels in the ratio. The sum is accumulated left to right (the order the bounds assume).
template <Scalar T>
void softmax(const T* x, T* y, std::size_t n) {
  if (n == 0) return;
  const T m = row_max(x, n);
  T s = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = shifted_exp_step(x[i], m);
    s = s + y[i];
  }
  for (std::size_t i = 0; i < n; ++i) y[i] = y[i] / s;
}

}  // namespace attncheck::kernels
