// attncheck: reference log-softmax, log(softmax(x)) without forming softmax(x).
#pragma once

#include <cstddef>

#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// log_softmax(x)_i = (x_i - m) - log(sum_j exp(x_j - m)), m = max x. Never takes log of a
// rounded probability, so entries whose softmax underflows stay finite. The exps go through y
// (y may alias nothing) so that the sum is softmax's row_sum, bit for bit.
template <Scalar T>
void log_softmax(const T* x, T* y, std::size_t n) {
  if (n == 0) return;
  const T m = row_max(x, n);
  for (std::size_t i = 0; i < n; ++i) y[i] = shifted_exp_step(x[i], m);
  const T ls = log(row_sum(y, n));
  for (std::size_t i = 0; i < n; ++i) y[i] = T(x[i] - m) - ls;
}

}  // namespace attncheck::kernels
