// attncheck: the Hessian-vector-product oracle of attention: the mixed second partial
// ∂²/∂t₁∂t₂ ⟨W, attention(x + t₁a + t₂b)⟩ at 0 = aᵀ∇²L b, from Boost.Math autodiff's
// two-variable jets (fvar<fvar<mpfr200, 1>, 1>) running the SAME kernels::attention template.
//
// Why two variables and not polarization of one-variable order-2 jets
// ((D²L[a + b] − D²L[a − b])/4): forming a ± b at 200 bits loses an entry of one direction that
// is far smaller than the other's at the same place (an f64 subnormal against 1), and with it the
// whole answer when that entry is the only one that matters; found by FALSIFY-SJVP-008 at seed 1.
// Here x + t₁a + t₂b is a jet whose two first-order parts are a and b themselves: nothing is added.
// Separate from oracle/autodiff.hpp so that only the HVP tests compile the nested jets.
#pragma once

#include <cstddef>
#include <vector>

#include "attncheck/oracle/autodiff.hpp"

namespace attncheck::oracle {

// A 200-digit number with its first partials in t₁ and t₂ and the mixed one.
using jet11 = boost::math::differentiation::detail::fvar<boost::math::differentiation::detail::fvar<mpfr200, 1>, 1>;

// aᵀ∇²L b for L = ⟨W, attention(Q, K, V)⟩ (w: n x dv_dim), a = (aq, ak, av), b = (bq, bk, bv).
template <class Jet = jet11>
mpfr200 attention_hvp_ad(const std::vector<mpfr200>& q, const std::vector<mpfr200>& k, const std::vector<mpfr200>& v,
                         const std::vector<mpfr200>& w, const std::vector<mpfr200>& aq, const std::vector<mpfr200>& ak,
                         const std::vector<mpfr200>& av, const std::vector<mpfr200>& bq, const std::vector<mpfr200>& bk,
                         const std::vector<mpfr200>& bv, std::size_t n, std::size_t m, std::size_t d, std::size_t dv_dim,
                         bool causal) {
  const auto vars = boost::math::differentiation::make_ftuple<mpfr200, 1, 1>(mpfr200(0), mpfr200(0));
  const Jet t1 = std::get<0>(vars), t2 = std::get<1>(vars);
  const auto at = [&](const std::vector<mpfr200>& x, const std::vector<mpfr200>& da, const std::vector<mpfr200>& db) {
    std::vector<Jet> r;
    r.reserve(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r.push_back(Jet(x[i]) + t1 * da[i] + t2 * db[i]);
    return r;
  };
  const auto Q = at(q, aq, bq), K = at(k, ak, bk), V = at(v, av, bv);
  std::vector<Jet> o(n * dv_dim);
  kernels::attention(Q.data(), K.data(), V.data(), n, m, d, dv_dim, causal, o.data());
  Jet loss(mpfr200(0));
  for (std::size_t i = 0; i < o.size(); ++i) loss = loss + Jet(w[i]) * o[i];
  return loss.derivative(1, 1);
}

}  // namespace attncheck::oracle
