// attncheck: softmax Jacobian-vector product dy = (Diag(p) - p p^T) dx, p = softmax(x).
#pragma once

#include <cstddef>
#include <vector>

#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// dy_i = p_i (dx_i - <dx>_p), <dx>_p = sum_j p_j dx_j (softmax-jvp-v1): no Jacobian is formed, and
// the centring makes J 1 = 0 hold up to one rounding per entry.
template <Scalar T>
void softmax_jvp(const T* x, const T* dx, std::size_t n, T* dy) {
  if (n == 0) return;
  std::vector<T> p(n);
  softmax(x, p.data(), n);
  T mean = lit<T>(0);
  for (std::size_t j = 0; j < n; ++j) mean = mean + T(p[j] * dx[j]);
  for (std::size_t i = 0; i < n; ++i) dy[i] = p[i] * T(dx[i] - mean);
}

}  // namespace attncheck::kernels
