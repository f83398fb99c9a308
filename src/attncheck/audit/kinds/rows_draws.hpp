// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call the kinds of ABI version 1 (rows.cpp's softmax, log_softmax, scores, rmsnorm, entropy,
// softmax_jvp, and attention.cpp's attention), registered in draws_registry.hpp.
#pragma once

#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// softmax and log_softmax: a row of up to 512 entries (property::draw_row: every magnitude class).
template <class T>
DrawnCall<T> softmax_call(Kind k, const KernelSet<T>& ks) {
  Drawn<T> d;
  auto x = draw_row<T>(512);
  d.inputs = {{"x", x}};
  d.shape = "n = " + std::to_string(x.size());
  const auto& f = k == Kind::softmax ? ks.softmax : ks.log_softmax;
  return {d, [x, &f] { std::vector<T> y(x.size()); f(x.data(), y.data(), x.size()); return y; }};
}

// Every output depends on every input (through the row's max and sum).
template <class T>
NanCase<T> softmax_nan(Kind k, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  auto x = draw_row<T>(64);
  c.why = "x[" + std::to_string(put_nan(x)) + "] is NaN";
  c.y.resize(x.size());
  (k == Kind::softmax ? ks.softmax : ks.log_softmax)(x.data(), c.y.data(), x.size());
  c.inputs = {{"x", x}};
  return c;
}

template <class T>
DrawnCall<T> scores_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  const std::size_t n = size_in(1, 8), m = size_in(1, 8), dd = size_in(1, 64);
  auto q = draw_vector<T>(n * dd, 4), kk = draw_vector<T>(m * dd, 4);
  d.inputs = {{"q", q}, {"k", kk}};
  d.shape = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(dd);
  return {d, [=, &ks] { std::vector<T> s(n * m); ks.scores(q.data(), kk.data(), n, m, dd, s.data()); return s; }};
}

// A NaN in q_i reaches every score of row i.
template <class T>
NanCase<T> scores_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  const std::size_t n = *rc::gen::inRange<std::size_t>(1, 5), m = *rc::gen::inRange<std::size_t>(1, 5),
                    d = *rc::gen::inRange<std::size_t>(1, 9);
  auto q = draw_vector<T>(n * d, 4);
  const auto kk = draw_vector<T>(m * d, 4);
  const std::size_t at = put_nan(q), i = at / d;
  c.why = "q[" + std::to_string(i) + "][" + std::to_string(at % d) + "] is NaN (n = " + std::to_string(n) + ", m = " +
          std::to_string(m) + ", d = " + std::to_string(d) + ")";
  c.y.resize(n * m);
  ks.scores(q.data(), kk.data(), n, m, d, c.y.data());
  for (std::size_t j = 0; j < m; ++j) c.must.push_back(i * m + j);
  c.inputs = {{"q", q}, {"k", kk}};
  return c;
}

template <class T>
DrawnCall<T> rmsnorm_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  const std::size_t dd = size_in(1, 128);
  // Gains up to 1e4 (f16: as large as keeps √d·|w| finite): a gain multiplies the underflow
  // error of a subnormal x_i/r (proofs/bounds/rmsnorm.md), which gains of at most 4 hid.
  auto x = draw_vector<T>(dd, 100), w = gen::draw_gains<T>(dd);
  const T eps = T(*rc::gen::element(0.0, 1e-6, 1e-5));
  d.inputs = {{"x", x}, {"w", w}};
  d.shape = "d = " + std::to_string(dd) + ", eps = " + decimal(to_double(eps));
  return {d, [=, &ks] { std::vector<T> y(dd); ks.rmsnorm(x.data(), w.data(), dd, eps, y.data()); return y; }};
}

// Every output depends on every x (through the mean of squares).
template <class T>
NanCase<T> rmsnorm_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  auto x = draw_vector<T>(static_cast<std::size_t>(*rc::gen::inRange(1, 65)), 100);
  const auto w = draw_vector<T>(x.size(), 4);
  c.why = "x[" + std::to_string(put_nan(x)) + "] is NaN";
  c.y.resize(x.size());
  ks.rmsnorm(x.data(), w.data(), x.size(), T(1e-5), c.y.data());
  c.inputs = {{"x", x}, {"w", w}};
  return c;
}

// A probability row: the reference softmax of a random row (zeros included where it underflows).
template <class T>
std::vector<T> probability_row(std::size_t max_n) {
  const auto x = draw_row<T>(max_n);
  std::vector<T> p(x.size());
  kernels::softmax(x.data(), p.data(), x.size());
  return p;
}

template <class T>
DrawnCall<T> entropy_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  const auto p = probability_row<T>(512);
  d.inputs = {{"p", p}};
  d.shape = "n = " + std::to_string(p.size());
  return {d, [p, &ks] { return std::vector<T>{ks.entropy(p.data(), p.size())}; }};
}

template <class T>
NanCase<T> entropy_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  auto p = probability_row<T>(64);
  c.why = "p[" + std::to_string(put_nan(p)) + "] is NaN";
  c.y = {ks.entropy(p.data(), p.size())};
  c.inputs = {{"p", p}};
  return c;
}

template <class T>
DrawnCall<T> softmax_jvp_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  auto [x, dx] = property::draw_row_and_direction<T>();
  d.inputs = {{"x", x}, {"dx", dx}};
  d.shape = "n = " + std::to_string(x.size());
  return {d, [x, dx, &ks] { std::vector<T> dy(x.size()); ks.softmax_jvp(x.data(), dx.data(), x.size(), dy.data()); return dy; }};
}

// A NaN in x or dx reaches every output (through the row's sum and the inner product).
template <class T>
NanCase<T> softmax_jvp_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  auto [x, dx] = property::draw_row_and_direction<T>();
  const bool in_x = *rc::gen::arbitrary<bool>();
  c.why = (in_x ? "x[" + std::to_string(put_nan(x)) : "dx[" + std::to_string(put_nan(dx))) + "] is NaN";
  c.y.resize(x.size());
  ks.softmax_jvp(x.data(), dx.data(), x.size(), c.y.data());
  c.inputs = {{"x", x}, {"dx", dx}};
  return c;
}

// attention (ABI version 1): one head, causal or not.
template <class T>
DrawnCall<T> attention_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  const std::size_t n = size_in(1, 6), m = size_in(1, 6), dd = size_in(1, 16), dv = size_in(1, 16);
  const bool causal = *rc::gen::arbitrary<bool>();
  auto q = draw_vector<T>(n * dd, 2), kk = draw_vector<T>(m * dd, 2), v = draw_vector<T>(m * dv, 8);
  d.inputs = {{"q", q}, {"k", kk}, {"v", v}};
  d.shape = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(dd) + ", dv = " + std::to_string(dv) +
            (causal ? ", causal" : "");
  return {d, [=, &ks] {
            std::vector<T> o(n * dv);
            ks.attention(q.data(), kk.data(), v.data(), n, m, dd, dv, causal, o.data());
            return o;
          }};
}

// Not causal: a NaN in k_j reaches every score column j, hence every output.
template <class T>
NanCase<T> attention_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> c;
  auto a = draw_attention<T>();
  const std::size_t at = put_nan(a.k);
  c.why = "k[" + std::to_string(at / a.d) + "][" + std::to_string(at % a.d) + "] is NaN, not causal (" + a.shape() + ")";
  c.y = a.run(ks, false);
  c.inputs = {{"q", a.q}, {"k", a.k}, {"v", a.v}};
  return c;
}

}  // namespace attncheck::audit::obligations
