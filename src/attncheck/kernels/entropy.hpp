// attncheck: Shannon entropy (natural log) of one probability row, with 0 log 0 = 0.
#pragma once

#include <cstddef>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::kernels {

// -p log p for one entry; p = 0 contributes 0 (the limit), chosen with select so that both arms
// exist for a symbolic scalar (log(0) = -inf is computed and discarded, never multiplied in).
template <Scalar T>
T entropy_term(T p) {
  const auto positive = p > lit<T>(0);  // auto: a symbolic scalar compares to a symbolic truth value
  const T safe = select(positive, p, lit<T>(1));
  return select(positive, T(-(safe * log(safe))), lit<T>(0));
}

// H(p) = -sum_i p_i log p_i, summed left to right.
template <Scalar T>
T entropy(const T* p, std::size_t n) {
  T h = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) h = h + entropy_term(p[i]);
  return h;
}

}  // namespace attncheck::kernels
