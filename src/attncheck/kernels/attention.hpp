// attncheck: single-head scaled dot-product attention O = softmax(Q K^T / sqrt(d) + mask) V.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// q: n x d, k: m x d, v: m x dv, o: n x dv. causal: key j is visible to query i iff j <= i
// (masked scores become -inf, whose exp is exactly 0). A query that sees no key (causal with
// i >= m is impossible; m = 0 is) gets an all-NaN row: there is no distribution to average by.
template <Scalar T>
void attention(const T* q, const T* k, const T* v, std::size_t n, std::size_t m, std::size_t d,
               std::size_t dv, bool causal, T* o) {
  const T scale = sqrt(lit<T>(static_cast<double>(d)));
  const T minus_inf = lit<T>(-std::numeric_limits<double>::infinity());
  std::vector<T> s(m), p(m);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j)
      s[j] = select(!causal || j <= i, T(dot(q + i * d, k + j * d, d) / scale), minus_inf);
    softmax(s.data(), p.data(), m);
    for (std::size_t c = 0; c < dv; ++c) {
      T acc = lit<T>(0);
      for (std::size_t j = 0; j < m; ++j) acc = dot_step(acc, p[j], v[j * dv + c]);
      o[i * dv + c] = select(m > 0, acc, lit<T>(std::numeric_limits<double>::quiet_NaN()));
    }
  }
}

}  // namespace attncheck::kernels
