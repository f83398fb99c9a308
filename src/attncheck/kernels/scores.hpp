// attncheck: reference scaled dot-product scores S = Q K^T / sqrt(d).
#pragma once

#include <cstddef>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::kernels {

// One multiply-add of a dot product (kept separate: -ffp-contract=off keeps it two roundings).
template <Scalar T>
T dot_step(T acc, T a, T b) { return acc + T(a * b); }

template <Scalar T>
T dot(const T* a, const T* b, std::size_t d) {
  T acc = lit<T>(0);
  for (std::size_t t = 0; t < d; ++t) acc = dot_step(acc, a[t], b[t]);
  return acc;
}

// q: n x d, k: m x d, s: n x m, all row-major; s[i*m + j] = (q_i . k_j) / sqrt(d).
// Dividing by the rounded sqrt(d) (rather than multiplying by a rounded 1/sqrt(d)) costs one
// rounding less in the common case where d is a perfect square.
template <Scalar T>
void scores(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s) {
  const T scale = sqrt(lit<T>(static_cast<double>(d)));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) s[i * m + j] = dot(q + i * d, k + j * d, d) / scale;
}

}  // namespace attncheck::kernels
