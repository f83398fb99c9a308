// attncheck benchmarks: the arithmetic of the tiered oracle's tiers on their own, i.e. the same
// kernel templates evaluated at
//   dd       double-double points (scalar/double_double.hpp), no error radius;
//   mpfi256  256-bit outward-rounded intervals (scalar/mpfi.hpp, mpfr_interval<256>, the
//            precision of the tiered oracle's last tier).
// Named <tier>/<kernel>/<type>/n:<n>[/<shape>], same inputs as kernels.cpp. Each iteration lifts
// the rows from T to the tier's scalar, runs the kernel and lowers the outputs to double (dd: the
// leading double; mpfi256: the midpoint), all timed, like the mpfr200 benchmarks in oracles.cpp.
// The tiered oracle itself (ball arithmetic, certification, escalation) is timed in tiered.cpp.
#if __has_include("attncheck/scalar/double_double.hpp") && __has_include("attncheck/scalar/mpfi.hpp")

#include <cstddef>
#include <string>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/scalar/double_double.hpp"
#include "attncheck/scalar/mpfi.hpp"
#include "bench/common.hpp"

namespace attncheck::bench {
namespace {

using mpfi256 = mpfr_interval<256>;

template <class S, class T>
std::vector<S> lift_to(const std::vector<T>& x) {
  std::vector<S> r;
  r.reserve(x.size());
  for (const T& v : x) r.push_back(scalar_traits<S>::from_double(to_double(v)));  // exact
  return r;
}

template <class S>
std::vector<double> lower_from(const std::vector<S>& y) {
  std::vector<double> r;
  r.reserve(y.size());
  for (const S& v : y) r.push_back(scalar_traits<S>::to_double(v));
  return r;
}

template <class S>
void keep(const std::vector<S>& y) {
  auto d = lower_from(y);
  benchmark::DoNotOptimize(d.data());
  benchmark::ClobberMemory();
}

// softmax / log_softmax at S.
template <class S, class T, bool Log>
void bm_row_map(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    const auto X = lift_to<S>(x[r]);
    std::vector<S> Y(n);
    if constexpr (Log)
      kernels::log_softmax(X.data(), Y.data(), n);
    else
      kernels::softmax(X.data(), Y.data(), n);
    keep(Y);
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class S, class T>
void bm_entropy(benchmark::State& state, std::size_t n) {
  const auto p = prob_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    const auto P = lift_to<S>(p[r]);
    std::vector<S> h{kernels::entropy(P.data(), n)};
    keep(h);
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class S, class T>
void bm_rmsnorm(benchmark::State& state, std::size_t n) {
  const auto x = rows<T>("rmsnorm.x", n, logit_sigma);
  const auto w = rmsnorm_gain<T>(n);
  const double eps = to_double(lit<T>(rmsnorm_eps));
  std::size_t r = 0;
  for (auto _ : state) {
    const auto X = lift_to<S>(x[r]), W = lift_to<S>(w);
    std::vector<S> Y(n);
    kernels::rmsnorm(X.data(), W.data(), n, scalar_traits<S>::from_double(eps), Y.data());
    keep(Y);
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class S, class T>
void bm_softmax_jvp(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  const auto dx = tangent_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    const auto X = lift_to<S>(x[r]), DX = lift_to<S>(dx[r]);
    std::vector<S> DY(n);
    kernels::softmax_jvp(X.data(), DX.data(), n, DY.data());
    keep(DY);
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class S, class T>
void bm_scores(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  for (auto _ : state) {
    const auto Q = lift_to<S>(in.q), K = lift_to<S>(in.k);
    std::vector<S> Y(qk_queries * n);
    kernels::scores(Q.data(), K.data(), qk_queries, n, qk_dim, Y.data());
    keep(Y);
  }
  count_rows(state, qk_queries);
}

template <class S, class T>
void bm_attention(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  for (auto _ : state) {
    const auto Q = lift_to<S>(in.q), K = lift_to<S>(in.k), V = lift_to<S>(in.v);
    std::vector<S> O(qk_queries * v_dim);
    kernels::attention(Q.data(), K.data(), V.data(), qk_queries, n, qk_dim, v_dim,
                       /*causal=*/false, O.data());
    keep(O);
  }
  count_rows(state, qk_queries);
}

template <class S>
void register_tier(const std::string& tier) {
  for_each_type([&](auto tag) {
    using T = decltype(tag);
    const std::string ty = type_name<T>();
    for (std::size_t n : row_lengths) {
      add(bench_name(tier, "softmax", ty, n),
          [n](benchmark::State& s) { bm_row_map<S, T, false>(s, n); });
      add(bench_name(tier, "log_softmax", ty, n),
          [n](benchmark::State& s) { bm_row_map<S, T, true>(s, n); });
      add(bench_name(tier, "scores", ty, n, qk_shape()),
          [n](benchmark::State& s) { bm_scores<S, T>(s, n); });
      add(bench_name(tier, "rmsnorm", ty, n),
          [n](benchmark::State& s) { bm_rmsnorm<S, T>(s, n); });
      add(bench_name(tier, "entropy", ty, n),
          [n](benchmark::State& s) { bm_entropy<S, T>(s, n); });
      add(bench_name(tier, "softmax_jvp", ty, n),
          [n](benchmark::State& s) { bm_softmax_jvp<S, T>(s, n); });
      add(bench_name(tier, "attention", ty, n, attention_shape()),
          [n](benchmark::State& s) { bm_attention<S, T>(s, n); });
    }
  });
}

const bool registered = [] {
  register_tier<dd>("dd");
  register_tier<mpfi256>("mpfi256");
  return true;
}();

}  // namespace
}  // namespace attncheck::bench

#endif
