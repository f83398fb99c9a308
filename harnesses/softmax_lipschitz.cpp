// Harness of softmax-lipschitz-v1 (SLIP-INV-001, J1 = 0): the outputs of the reference softmax
// JVP sum to 0 up to the derived rounding allowance. exp is an uninterpreted function under the
// validated axioms. Formats f16, bf16, f32. Bound: the row length d.
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

// |Σ dŷ_i| for |dx_i| <= 1. With p̂ the computed softmax (Σp̂ within N of 1, N the derived
// normalisation bound), μ̂ = fl(Σ p̂_j dx_j) = μ* + E with |E| <= γ_d(1+N) + dη, and
// dŷ_i = p̂_i (dx_i - μ̂)(1+δ)(1+δ') ± η:  Σ p̂_i(dx_i - μ̂) = μ*(1 - Σp̂) - EΣp̂, so
// |Σ dŷ| <= (1+N)N + |E|(1+N) + (1+N)(1 + |μ̂|)(2u+u²) + dη,  |μ̂| <= (1+N)(1+γ_d) + dη.
inline real jvp_sum_bound(std::size_t d, const bounds::Model& md) {
  const real n = bounds::normalisation_bound(d, md), g = bounds::gamma(d, md.u);
  const real deta = static_cast<real>(d) * md.eta;
  const real e = g * (1 + n) + deta, mu = (1 + n) * (1 + g) + deta;
  // Σ|dŷ_i| <= (1+n)(1 + |μ̂|)(1+u)² + dη bounds the binary64 summation of the outputs.
  const real magnitude = (1 + n) * (1 + mu) * (1 + md.u) * (1 + md.u) + deta;
  return ((1 + n) * n + e * (1 + n) + (1 + n) * (1 + mu) * (2 * md.u + md.u * md.u) + deta) *
             bounds::evaluation_slack + wide_sum_slack(d, magnitude);
}

/// BMC-SLIP-001: for a finite row x and a direction with |dx_i| <= 1, |Σ_i JVP(x, dx)_i| is
/// within the derived allowance of 0.
struct bmc_slip_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    const std::vector<T> x = h.any_vector("x", d), dx = h.any_vector("dx", d);
    for (std::size_t i = 0; i < d; ++i) h.assume(is_finite(x[i]) && abs_of(dx[i]) <= lit<T>(1));
    std::vector<T> dy(d);
    h.k().softmax_jvp(x.data(), dx.data(), d, dy.data());
    typename H::wide s = h.wide_const(0);
    for (const T& v : dy) {
      h.check(is_finite(v), "JVP_i finite");
      s = s + h.widen(v);
    }
    const double b = up(jvp_sum_bound(d, model<H>()));
    h.check(s <= h.wide_const(b) && s >= h.wide_const(-b), "|sum JVP| <= derived allowance (J1 = 0)");
  }
};

const bool registered = register_harness({"BMC-SLIP-001", "softmax-lipschitz-v1",
                                          "J1 = 0: the JVP outputs sum to 0 within the derived allowance", false,
                                          true, 1, {}, "", make_body<bmc_slip_001>()});

}  // namespace
}  // namespace attncheck::harnesses
