// attncheck: the derivative oracle: forward-mode automatic differentiation (Boost.Math autodiff)
// over the 200-digit MPFR oracle type, running the SAME kernel templates along a direction.
//
// f(x + t·v) is evaluated at t = 0 with every scalar a truncated Taylor polynomial in t
// (autodiff's fvar, a "jet"): the kernels' own +, −, ×, ÷, exp, log, sqrt and select propagate the
// first N derivatives exactly, to the oracle's precision. So the JVP of softmax is the kernel
// softmax run on jets, d²/dt² lse is log_softmax run on jets, and the directional derivative of
// attention is attention run on jets: no derivative formula is written here, and none is
// approximated (finite differences appear only in the tests, as a cross-check of this file).
//
// Root type: mpfr200, the oracle type of oracle/exact.hpp (expression templates off; 200 decimal
// digits, std::numeric_limits<mpfr200>::digits = 666 bits). A lower MPFR precision would not
// compile faster (it is another template argument of the same backend: the same code is
// instantiated), so the oracle keeps the one oracle type. The compile-time cost is one set of
// autodiff templates per jet order, and only two orders are used: jet<1> (JVPs: softmax, scores,
// attention) and jet<2> (second directional derivatives: log_softmax for lse). Measured with
// g++ 12 -O2 -g: about 6 s per translation unit for jet<1> alone, 8.5 s for both. Nothing
// instantiates jets over double: a kernel in a hardware format is judged against these values
// with the derived bounds of bounds/, never against a lower-precision derivative.
//
// Piecewise-smooth spots. row_max is a select: at a tie the jet follows one branch, which is
// harmless because the max cancels exactly in softmax, log_softmax and attention (their value and
// derivatives do not depend on which tied entry is the max). Masked keys (score −inf) carry the
// derivative 0, and exp(−inf) = 0 kills it.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/math/differentiation/autodiff.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include "attncheck/oracle/autodiff_mpfr_fix.hpp"  // must precede every jet instantiation

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/scalar/mpfr.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// A jet is a Scalar: arithmetic and comparisons are autodiff's (comparisons look at the value
// only), exp/log/sqrt are autodiff's overloads, which apply the chain rule to every order. The
// format and the function error constants are those of the root type: the jet's value part is
// computed by exactly the root type's operations.
template <class Root, std::size_t Order>
struct scalar_traits<boost::math::differentiation::detail::fvar<Root, Order>> {
  using jet = boost::math::differentiation::detail::fvar<Root, Order>;
  using root = typename jet::root_type;
  static constexpr format_info format = scalar_traits<root>::format;
  static constexpr double exp_rel = scalar_traits<root>::exp_rel;
  static constexpr double log_rel = scalar_traits<root>::log_rel;
  // Qualified calls: an unqualified exp inside this class would find the member itself.
  static jet exp(const jet& x) { return boost::math::differentiation::detail::exp(x); }
  static jet log(const jet& x) { return boost::math::differentiation::detail::log(x); }
  static jet sqrt(const jet& x) { return boost::math::differentiation::detail::sqrt(x); }
  static double to_double(const jet& x) { return scalar_traits<root>::to_double(static_cast<root>(x)); }
  static jet from_double(double x) { return jet(scalar_traits<root>::from_double(x)); }  // a constant
};

}  // namespace attncheck

namespace attncheck::oracle {

// A 200-digit number together with its first N derivatives along one direction t (the type
// autodiff_fvar<mpfr200, N> names, spelled so that N can be deduced).
template <std::size_t N>
using jet = boost::math::differentiation::detail::fvar<mpfr200, N>;

// f(x + t·v) and its t-derivatives at t = 0, one entry per output of f. d2 is filled at N >= 2.
struct Directional {
  std::vector<mpfr200> value, d1, d2;
};

// x + t·v as jets: value x_i, first derivative v_i, higher ones 0. Exact (t·v_i = (0, v_i)).
template <std::size_t N>
std::vector<jet<N>> along(const std::vector<mpfr200>& x, const std::vector<mpfr200>& v) {
  const jet<N> t = boost::math::differentiation::make_fvar<mpfr200, N>(mpfr200(0));
  std::vector<jet<N>> r;
  r.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r.push_back(jet<N>(x[i]) + t * v[i]);
  return r;
}

template <std::size_t N>
Directional unpack(const std::vector<jet<N>>& y) {
  Directional r;
  for (const auto& e : y) {
    r.value.push_back(e.derivative(0));
    r.d1.push_back(e.derivative(1));
    if constexpr (N >= 2) r.d2.push_back(e.derivative(2));
  }
  return r;
}

// softmax(x + t·v): kernels::softmax on jets. d1 is the JVP J(x)v, d2 = vᵀ∇²p_i v.
template <std::size_t N = 1>
Directional softmax_along(const std::vector<mpfr200>& x, const std::vector<mpfr200>& v) {
  const auto z = along<N>(x, v);
  std::vector<jet<N>> y(z.size());
  kernels::softmax(z.data(), y.data(), z.size());
  return unpack(y);
}

// lse(x + t·v), lse(x) = log Σ_j exp(x_j): read off kernels::log_softmax on jets as
// lse = z_0 − log_softmax(z)_0 (exact in exact arithmetic for any index; one subtraction, no
// second copy of the log-sum-exp). d1 = ⟨v⟩_p, d2 = vᵀ(Diag(p) − ppᵀ)v. n >= 1.
template <std::size_t N = 2>
Directional lse_along(const std::vector<mpfr200>& x, const std::vector<mpfr200>& v) {
  const auto z = along<N>(x, v);
  std::vector<jet<N>> y(z.size());
  kernels::log_softmax(z.data(), y.data(), z.size());
  return unpack(std::vector<jet<N>>{jet<N>(z[0] - y[0])});
}

// S(Q + tQ̇, K + tK̇) = (Q + tQ̇)(K + tK̇)ᵀ/√d: kernels::scores on jets; d1 is Ṡ.
inline Directional scores_along(const std::vector<mpfr200>& q, const std::vector<mpfr200>& k,
                                const std::vector<mpfr200>& dq, const std::vector<mpfr200>& dk, std::size_t n,
                                std::size_t m, std::size_t d) {
  const auto Q = along<1>(q, dq), K = along<1>(k, dk);
  std::vector<jet<1>> s(n * m);
  kernels::scores(Q.data(), K.data(), n, m, d, s.data());
  return unpack(s);
}

// O(Q + tQ̇, K + tK̇, V + tV̇): kernels::attention on jets; d1 is the directional derivative Ȯ.
inline Directional attention_along(const std::vector<mpfr200>& q, const std::vector<mpfr200>& k,
                                   const std::vector<mpfr200>& v, const std::vector<mpfr200>& dq,
                                   const std::vector<mpfr200>& dk, const std::vector<mpfr200>& dv, std::size_t n,
                                   std::size_t m, std::size_t d, std::size_t dv_dim, bool causal) {
  const auto Q = along<1>(q, dq), K = along<1>(k, dk), V = along<1>(v, dv);
  std::vector<jet<1>> o(n * dv_dim);
  kernels::attention(Q.data(), K.data(), V.data(), n, m, d, dv_dim, causal, o.data());
  return unpack(o);
}

// For properties: the exact JVP of softmax at a row of T along a direction of T (both lifted
// bit for bit), lowered like every oracle value (oracle/exact.hpp).
template <class T>
auto softmax_jvp_ad(const std::vector<T>& x, const std::vector<T>& dx) {
  return lower(softmax_along<1>(lift(x), lift(dx)).d1);
}

}  // namespace attncheck::oracle
