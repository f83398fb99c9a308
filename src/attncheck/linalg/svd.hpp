// attncheck: singular value decomposition by one-sided (Hestenes) Jacobi rotations, written once
// over the scalar type: it runs in the format under test (f32, f64) and, as the reference, in
// mpfr200 (src/attncheck/scalar/mpfr.hpp).
//
// Why our own Jacobi rather than Eigen's JacobiSVD over Boost.Multiprecision: (1) one template
// serves every scalar of the project, including the ones Eigen's NumTraits would need adapters for,
// so the reference and the kernel under test are literally the same source; (2) one-sided Jacobi
// only rotates columns, and each rotation's rounding is bounded by a few u — the a-priori error
// bound of bounds/svd.hpp follows from counting rotations, which an opaque library would not let
// us do; (3) it is ~60 lines and adds no dependency (libeigen3-dev is not installed in CI).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "attncheck/linalg/matrix.hpp"

namespace attncheck::linalg {

// A = w·vᵀ, r = min(rows, cols). The kernel works on the tall matrix M (A, or Aᵀ when A is wide):
// M = W Vᵀ with W = U·Diag(s) (orthogonal columns, to the stopping tolerance, of norms s, descending)
// and V orthogonal. Tall A: w = W, v = V. Wide A: w = V, v = W. Keeping W instead of U means a zero
// singular value needs no division.
template <class T>
struct Svd {
  std::vector<T> s;       // singular values, descending
  Matrix<T> w;            // rows(A) × r
  Matrix<T> v;            // cols(A) × r
  std::size_t rotations = 0;  // rotations applied: the error bound grows with this count
  int sweeps = 0;
  bool converged = false;
  std::size_t m = 0, n = 0;   // the working shape (m >= n) after transposing a wide A
};

template <class T>
T magnitude(T x) { return select(x < lit<T>(0), -x, x); }

// Two columns i, j are left alone once the computed |w_i·w_j| <= tol·√(w_i·w_i)·√(w_j·w_j) with
// tol = m·u: the computed dot product carries a rounding noise of up to γ_m‖w_i‖‖w_j‖, so a smaller
// tolerance could chase noise forever. bounds/svd.hpp turns this stopping rule into the bound on
// how far the columns are from orthogonal.
template <class T>
double jacobi_tolerance(std::size_t m) { return static_cast<double>(m) * format_of<T>.unit_roundoff; }

inline constexpr int jacobi_max_sweeps = 40;

template <Scalar T>
Svd<T> jacobi_svd(const Matrix<T>& a, int max_sweeps = jacobi_max_sweeps) {
  const bool wide = a.rows < a.cols;
  Matrix<T> w = wide ? transpose(a) : a;
  const std::size_t m = w.rows, n = w.cols;
  Matrix<T> v = identity<T>(n);
  Svd<T> out;
  out.m = m;
  out.n = n;
  const T tol = lit<T>(jacobi_tolerance<T>(m));
  const T one = lit<T>(1), two = lit<T>(2);
  const T negligible = tol * frobenius(w);
  for (out.sweeps = 1; out.sweeps <= max_sweeps; ++out.sweeps) {
    bool rotated = false;
    for (std::size_t i = 0; i + 1 < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        T al = lit<T>(0), be = lit<T>(0), ga = lit<T>(0);
        for (std::size_t r = 0; r < m; ++r) {
          al = al + w(r, i) * w(r, i);
          be = be + w(r, j) * w(r, j);
          ga = ga + w(r, i) * w(r, j);
        }
        // A negligible column (norm <= tol·‖A‖_F, including one whose squared norm underflows)
        // is left alone: each rotation adds noise of about u‖A‖_F to every column, so the cosine
        // of a column that small is noise and chasing it never ends (rank-deficient A).
        // bounds/svd.hpp moves such columns into a perturbation of norm <= their total norm.
        if (!(tol * (sqrt(al) * sqrt(be)) < magnitude(ga)) || !(negligible < sqrt(al)) || !(negligible < sqrt(be))) continue;
        // The rotation that makes columns i and j orthogonal: t = tan θ is the smaller root of
        // t² + 2ζt − 1 = 0, ζ = (β − α)/(2γ); for |ζ| > 1, √(1 + ζ²) = |ζ|√(1 + 1/ζ²) avoids ζ².
        const T zeta = (be - al) / (two * ga);
        const T az = magnitude(zeta);
        const T root = select(one < az, az * sqrt(one + (one / az) * (one / az)), sqrt(one + az * az));
        const T t = select(zeta < lit<T>(0), -one, one) / (az + root);
        const T c = one / sqrt(one + t * t);
        const T s = c * t;
        for (std::size_t r = 0; r < m; ++r) {
          const T x = w(r, i), y = w(r, j);
          w(r, i) = c * x - s * y;
          w(r, j) = s * x + c * y;
        }
        for (std::size_t r = 0; r < n; ++r) {
          const T x = v(r, i), y = v(r, j);
          v(r, i) = c * x - s * y;
          v(r, j) = s * x + c * y;
        }
        ++out.rotations;
        rotated = true;
      }
    if (!rotated) {
      out.converged = true;
      break;
    }
  }
  out.sweeps = std::min(out.sweeps, max_sweeps);
  std::vector<T> norm(n);
  for (std::size_t j = 0; j < n; ++j) {
    T q = lit<T>(0);
    for (std::size_t r = 0; r < m; ++r) q = q + w(r, j) * w(r, j);
    norm[j] = sqrt(q);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return norm[y] < norm[x]; });
  Matrix<T> ws(m, n), vs(n, n);
  for (std::size_t k = 0; k < n; ++k) {
    out.s.push_back(norm[order[k]]);
    for (std::size_t r = 0; r < m; ++r) ws(r, k) = w(r, order[k]);
    for (std::size_t r = 0; r < n; ++r) vs(r, k) = v(r, order[k]);
  }
  // A = W Vᵀ for the working matrix; for a wide A, Aᵀ = W Vᵀ, i.e. A = V Wᵀ: swap the roles.
  out.w = wide ? vs : ws;
  out.v = wide ? ws : vs;
  return out;
}

// The rank-k truncation Σ_{i<k} w_i v_iᵀ (k = 0 gives the zero matrix), in T.
template <Scalar T>
Matrix<T> truncate(const Svd<T>& d, std::size_t k) {
  Matrix<T> b(d.w.rows, d.v.rows);
  for (std::size_t i = 0; i < b.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) {
      T acc = lit<T>(0);
      for (std::size_t l = 0; l < k && l < d.s.size(); ++l) acc = acc + d.w(i, l) * d.v(j, l);
      b(i, j) = acc;
    }
  return b;
}

}  // namespace attncheck::linalg
