// attncheck: a dense row-major matrix over any scalar of the kernels (f16 … mpfr200), with the few
// products and norms the spectral contracts need. Plain loops in a fixed order: the same source
// runs in the format under test and, as the reference, in MPFR.
#pragma once

#include <cstddef>
#include <vector>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::linalg {

template <class T>
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<T> a;  // row-major, rows·cols entries
  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), a(r * c, lit<T>(0)) {}
  T& operator()(std::size_t i, std::size_t j) { return a[i * cols + j]; }
  const T& operator()(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
};

template <class T>
Matrix<T> identity(std::size_t n) {
  Matrix<T> m(n, n);
  for (std::size_t i = 0; i < n; ++i) m(i, i) = lit<T>(1);
  return m;
}

template <class T>
Matrix<T> transpose(const Matrix<T>& m) {
  Matrix<T> t(m.cols, m.rows);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) t(j, i) = m(i, j);
  return t;
}

// m·n with recursive summation over the inner index (Higham's γ_k model, k = m.cols).
template <class T>
Matrix<T> multiply(const Matrix<T>& m, const Matrix<T>& n) {
  Matrix<T> p(m.rows, n.cols);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < n.cols; ++j) {
      T s = lit<T>(0);
      for (std::size_t k = 0; k < m.cols; ++k) s = s + m(i, k) * n(k, j);
      p(i, j) = s;
    }
  return p;
}

template <class T>
Matrix<T> subtract(const Matrix<T>& m, const Matrix<T>& n) {
  Matrix<T> d(m.rows, m.cols);
  for (std::size_t i = 0; i < m.a.size(); ++i) d.a[i] = m.a[i] - n.a[i];
  return d;
}

// Σ_ij m_ij², recursively summed.
template <class T>
T frobenius_squared(const Matrix<T>& m) {
  T s = lit<T>(0);
  for (const T& x : m.a) s = s + x * x;
  return s;
}

template <class T>
T frobenius(const Matrix<T>& m) { return sqrt(frobenius_squared(m)); }

// Converts entry by entry (exactly when the target format is wider, e.g. double → mpfr200).
template <class U, class T>
Matrix<U> convert(const Matrix<T>& m) {
  Matrix<U> r(m.rows, m.cols);
  for (std::size_t i = 0; i < m.a.size(); ++i) r.a[i] = scalar_traits<U>::from_double(to_double(m.a[i]));
  return r;
}

}  // namespace attncheck::linalg
