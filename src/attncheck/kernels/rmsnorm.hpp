// attncheck: reference RMSNorm (the QK-norm of qk-norm-v1): y = x / sqrt(mean(x^2) + eps) * w.
#pragma once

#include <cstddef>

#include "attncheck/kernels/scores.hpp"

namespace attncheck::kernels {

// eps sits inside the square root, so the denominator is >= sqrt(eps) > 0 and RMSNorm(0) = 0.
template <Scalar T>
void rmsnorm(const T* x, const T* w, std::size_t d, T eps, T* y) {
  if (d == 0) return;
  const T ms = dot(x, x, d) / lit<T>(static_cast<double>(d));
  const T r = sqrt(T(ms + eps));
  for (std::size_t i = 0; i < d; ++i) y[i] = T(x[i] / r) * w[i];
}

// Per-head RMSNorm: x holds h heads of d entries each; every head is normalised on its own,
// with the same gain w (length d).
template <Scalar T>
void rmsnorm_heads(const T* x, const T* w, std::size_t h, std::size_t d, T eps, T* y) {
  for (std::size_t j = 0; j < h; ++j) rmsnorm(x + j * d, w, d, eps, y + j * d);
}

}  // namespace attncheck::kernels
