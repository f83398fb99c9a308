// attncheck: drawing backward-pass problems of batched attention (kernels/attention_backward.hpp)
// for the gate and the audit: a forward case (attention_batched.hpp), a cotangent dO, and the
// forward's o and LSE as a backward kernel is handed them: the exact forward rounded once to the
// kernel's formats (o in T, the LSE in lse_t<T>).
#pragma once

#include <string>
#include <vector>

#include "attncheck/bounds/attention_backward.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::gen {

template <class T>
struct BackwardCase {
  BatchedCase<T> c;
  std::vector<T> dout, o;
  std::vector<lse_t<T>> lse;

  struct Grads {
    std::vector<T> dq, dk, dv;
  };
  // The kernel's gradients for the forward case `with` (c, or a variant of it with the same o, dO
  // and LSE layouts), at this case's o, dO and LSE.
  Grads run(const KernelSet<T>& ks, const BatchedCase<T>& with) const {
    const auto& s = with.p.shape;
    Grads g{std::vector<T>(s.q_size()), std::vector<T>(s.k_size()), std::vector<T>(s.v_size())};
    ks.attention_backward(with.p, with.tiling, with.q.data(), with.k.data(), with.v.data(), o.data(), dout.data(), lse.data(), g.dq.data(),
                          g.dk.data(), g.dv.data());
    return g;
  }
  Grads run(const KernelSet<T>& ks) const { return run(ks, c); }
  std::string describe() const { return c.describe(); }
  bounds::AttentionBackwardExact exact() const { return bounds::attention_backward_exact(c.p, c.q, c.k, c.v, dout, o, lse, bounds::model_of<T>()); }
};

// The forward's o and LSE for case c, as handed to a backward kernel.
template <class T>
void given_forward(const BatchedCase<T>& c, std::vector<T>& o, std::vector<lse_t<T>>& lse) {
  std::vector<bounds::real> oe, le;
  bounds::attention_forward_exact(c.p, c.q, c.k, c.v, oe, le);
  o.resize(oe.size());
  for (std::size_t e = 0; e < oe.size(); ++e) o[e] = scalar_traits<T>::from_double(static_cast<double>(oe[e]));
  lse.resize(le.size());
  for (std::size_t e = 0; e < le.size(); ++e) lse[e] = static_cast<lse_t<T>>(le[e]);
}

// A backward case: forward case c, dO with entries of about 4 in magnitude.
template <class T>
BackwardCase<T> backward_case(BatchedCase<T> c) {
  BackwardCase<T> r{std::move(c), {}, {}, {}};
  r.dout = property::draw_vector<T>(r.c.p.shape.o_size(), 4);
  given_forward(r.c, r.o, r.lse);
  return r;
}

template <class T>
BackwardCase<T> backward_case() { return backward_case(batched_case<T>()); }

}  // namespace attncheck::gen
