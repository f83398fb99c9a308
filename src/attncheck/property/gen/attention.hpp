// attncheck: drawing attention problems (shapes, Q, K, V) for the properties of the gate and the
// audit alike: one definition of what an attention case is and how it is drawn.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/property/gen/values.hpp"

namespace attncheck::gen {

// A vector of n finite values of T with magnitudes at most sigma (no overflow in products).
template <class T>
std::vector<T> moderate_vector(std::size_t n, double sigma) {
  return to_row<T>(*rc::gen::container<std::vector<double>>(n, moderate_value(format_of<T>, sigma)));
}

// The ranges an attention case is drawn from: small by default, so that a failure shrinks to a
// counterexample a reader can check by hand.
struct AttentionLimits {
  std::size_t max_n = 6;   // queries: 1..max_n
  std::size_t min_m = 1;   // keys: min_m..max_m
  std::size_t max_m = 6;
  std::size_t max_d = 16;  // head dimension of q and k: 1..max_d
  std::size_t max_dv = 8;  // head dimension of v: 1..max_dv
  double sigma_qk = 2;     // magnitude of q and k entries (scores stay moderate)
  double sigma_v = 8;      // magnitude of v entries
};

// One attention problem: n queries, m keys, head dimension d (q, k) and dv (v), row-major.
template <class T>
struct AttentionCase {
  std::size_t n = 0, m = 0, d = 0, dv = 0;
  std::vector<T> q, k, v;

  std::vector<T> run(const KernelSet<T>& ks, bool causal) const {
    std::vector<T> o(n * dv);
    ks.attention(q.data(), k.data(), v.data(), n, m, d, dv, causal, o.data());
    return o;
  }
  std::string shape() const {
    return "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
           ", dv = " + std::to_string(dv);
  }
};

template <class T>
AttentionCase<T> attention_case(const AttentionLimits& lim = {}) {
  const auto size_in = [](std::size_t lo, std::size_t hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); };
  AttentionCase<T> c;
  c.n = size_in(1, lim.max_n);
  c.m = size_in(lim.min_m, lim.max_m);
  c.d = size_in(1, lim.max_d);
  c.dv = size_in(1, lim.max_dv);
  c.q = moderate_vector<T>(c.n * c.d, lim.sigma_qk);
  c.k = moderate_vector<T>(c.m * c.d, lim.sigma_qk);
  c.v = moderate_vector<T>(c.m * c.dv, lim.sigma_v);
  return c;
}

}  // namespace attncheck::gen
