// attncheck: judging an SVD kernel's output in a property: exact (MPFR) norms of T matrices, the
// kernel's run with its a-priori bound (bounds/svd.hpp), and the reference (the same kernel at
// mpfr200). Used by falsify/spectral_bounds.cpp and falsify/softmax_filtering_bound.cpp.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "attncheck/bounds/svd.hpp"
#include "attncheck/linalg/svd.hpp"
#include "attncheck/property/property.hpp"
#include "falsify/svd_kernels.hpp"

namespace attncheck::falsify::svdcheck {
using namespace property;  // the property layer: drawing, judging, reporting

using bounds::real;
using linalg::Matrix;
using M200 = Matrix<mpfr200>;

template <class T>
M200 exact(const Matrix<T>& a) { return linalg::convert<mpfr200>(a); }

// A value of T (f16 … f64, exactly) or of mpfr200, as mpfr200.
template <class T>
mpfr200 mp(const T& x) { return mpfr200(to_double(x)); }
inline mpfr200 mp(const mpfr200& x) { return x; }

inline real frob(const M200& a) { return oracle::dbl(linalg::frobenius(a)); }

inline std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "×" + std::to_string(c); }

template <class T>
Report<T> report(const char* id, const std::string& what, const Matrix<T>& a) {
  Report<T> r(id, what);
  r.line("A: " + shape(a.rows, a.cols) + ", row-major").input("A", a.a);
  return r;
}

// One SVD with its a-priori bound: the kernel's singular values s satisfy |s_i − σ_i(A)| <= b.value.
template <class T>
struct Certified {
  linalg::Svd<T> d;
  bounds::SvdBound b;
  std::vector<real> col;  // exact column norms of the scaled factor W, in the kernel's order
  real frob_a = 0;
  std::string problem;    // non-empty: the kernel's output cannot be judged (wrong shape, no convergence)
};

template <class T, class Fn>
Certified<T> run_svd(const Fn& svd, const Matrix<T>& a) {
  Certified<T> c{svd(a), {}, {}, frob(exact(a)), {}};
  const std::size_t r = std::min(a.rows, a.cols);
  const bool tall = a.rows >= a.cols;
  const Matrix<T>& w = tall ? c.d.w : c.d.v;
  if (c.d.s.size() != r || w.cols != r || (tall ? c.d.v : c.d.w).cols != r) {
    c.problem = "the SVD returned " + std::to_string(c.d.s.size()) + " values for " + shape(a.rows, a.cols);
    return c;
  }
  if (!c.d.converged) c.problem = "the SVD did not converge in " + std::to_string(c.d.sweeps) + " sweeps";
  for (std::size_t j = 0; j < r; ++j) {
    mpfr200 q = 0;
    for (std::size_t i = 0; i < w.rows; ++i) q += mp(w(i, j)) * mp(w(i, j));
    c.col.push_back(oracle::dbl(mpfr200(sqrt(q))));
  }
  c.b = bounds::svd_bound(c.d.m, c.d.n, c.d.rotations, linalg::jacobi_tolerance<T>(c.d.m), c.frob_a, c.col, bounds::model_of<T>());
  if (!c.b.bounded) property::note_unbounded();
  return c;
}

// The kernel under test at T; a result that cannot be judged fails the case.
template <class T>
Certified<T> certify(const char* id, const LinalgKernels<T>& lk, const Matrix<T>& a) {
  auto c = run_svd<T>(lk.svd, a);
  if (!c.problem.empty()) report(id, "svd<" + scalar_name<T>() + ">: " + c.problem, a).raise();
  return c;
}

// The reference: the same kernel at mpfr200 on the exact entries, with its own bound (u = 2^-200).
template <class T>
Certified<mpfr200> reference(const char* id, const Matrix<T>& a) {
  auto c = run_svd<mpfr200>([](const M200& m) { return linalg::jacobi_svd<mpfr200>(m); }, exact(a));
  if (!c.problem.empty()) report(id, "reference svd<mpfr200>: " + c.problem, a).raise();
  return c;
}

inline real val(const mpfr200& x) { return oracle::dbl(x); }
template <class T>
real val(const T& x) { return to_double(x); }

template <class T>
std::string values(const std::vector<T>& s) {
  std::string r;
  for (const T& x : s) r += (r.empty() ? "" : ", ") + decimal(static_cast<double>(val(x)));
  return "(" + r + ")";
}

}  // namespace attncheck::falsify::svdcheck
