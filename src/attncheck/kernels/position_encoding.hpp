// attncheck: sinusoidal position encoding (Vaswani et al. 2017, §3.5), written once for every
// scalar type: Φ[t][2i] = sin(t·ω_i), Φ[t][2i+1] = cos(t·ω_i), ω_i = 10000^(−2i/d).
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::kernels {

namespace detail {
// sin and cos are not part of the Scalar concept (no other kernel needs them): the hardware
// formats call glibc (f16/bf16 through float, like exp in scalar/traits.hpp, then round once);
// any other type (MPFR) is found by argument-dependent lookup.
template <class T>
T pe_sin(T x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return std::sin(x);
  else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) return lit<T>(std::sin(static_cast<float>(to_double(x))));
  else { using std::sin; return T(sin(x)); }
}
template <class T>
T pe_cos(T x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return std::cos(x);
  else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) return lit<T>(std::cos(static_cast<float>(to_double(x))));
  else { using std::cos; return T(cos(x)); }
}
}  // namespace detail

// ω_i = 10000^(−2i/d) = exp(−(2i/d)·ln 10000), evaluated in T. ω_0 = exp(−0) = 1 exactly, so the
// first pair is (sin t, cos t) of the position itself — the pair the distinctness proof uses.
template <Scalar T>
T pe_frequency(std::size_t i, std::size_t d) {
  return exp(T(lit<T>(-2.0 * static_cast<double>(i) / static_cast<double>(d)) * log(lit<T>(10000.0))));
}

// One row: the encoding of integer position t in d dimensions (d even, d >= 2), into row[0..d).
// The position enters as lit<T>(t): exact while t is below 2^p (p the format's precision);
// beyond that distinct positions may round to the same T, and so share a row.
template <Scalar T>
void position_encoding(std::size_t t, std::size_t d, T* row) {
  const T pos = lit<T>(static_cast<double>(t));
  for (std::size_t i = 0; 2 * i + 1 < d; ++i) {
    const T angle = pos * pe_frequency<T>(i, d);
    row[2 * i] = detail::pe_sin(angle);
    row[2 * i + 1] = detail::pe_cos(angle);
  }
}

}  // namespace attncheck::kernels
