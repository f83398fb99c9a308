// attncheck benchmarks: the tiered, certifying oracle (src/attncheck/oracle/tiered.hpp) on the
// same inputs as kernels.cpp.
//
// Named tiered/<kernel>/<type>/n:<n>[/<shape>]. Each iteration is one call of
// oracle::tiered::<kernel>(...) with default options: ball<double>, then ball<dd> (f16, bf16, f32;
// f64 starts at ball<mpfr200>), then ball<mpfr200>, then 256-bit intervals, each tier re-evaluating
// the whole kernel while some output is still uncertified. Besides rows/s, the counters
// cert_double, cert_dd, cert_mpfr,
// cert_mpfi and uncertified give the fraction of output elements each tier certified (over all
// iterations), which is what decides the cost.
#if __has_include("attncheck/oracle/tiered.hpp")

#include <cstddef>
#include <string>
#include <vector>

#include "attncheck/oracle/tiered.hpp"
#include "bench/common.hpp"

namespace attncheck::bench {
namespace {

namespace tiered = oracle::tiered;

struct tally {
  double dbl = 0, dd = 0, mpfr = 0, mpfi = 0, none = 0;
  template <class R>
  void add(const R& res) {
    dbl += static_cast<double>(res.counts.dbl);
    dd += static_cast<double>(res.counts.dd);
    mpfr += static_cast<double>(res.counts.mpfr);
    mpfi += static_cast<double>(res.counts.mpfi);
    none += static_cast<double>(res.counts.uncertified);
    benchmark::DoNotOptimize(res.values.data());
    benchmark::ClobberMemory();
  }
  void report(benchmark::State& state) const {
    const double all = dbl + dd + mpfr + mpfi + none;
    if (all == 0) return;
    state.counters["cert_double"] = dbl / all;
    state.counters["cert_dd"] = dd / all;
    state.counters["cert_mpfr"] = mpfr / all;
    state.counters["cert_mpfi"] = mpfi / all;
    state.counters["uncertified"] = none / all;
  }
};

template <class T, bool Log>
void bm_row_map(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  tally t;
  std::size_t r = 0;
  for (auto _ : state) {
    if constexpr (Log)
      t.add(tiered::log_softmax(x[r]));
    else
      t.add(tiered::softmax(x[r]));
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
  t.report(state);
}

template <class T>
void bm_entropy(benchmark::State& state, std::size_t n) {
  const auto p = prob_rows<T>(n);
  tally t;
  std::size_t r = 0;
  for (auto _ : state) {
    t.add(tiered::entropy(p[r]));
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
  t.report(state);
}

template <class T>
void bm_rmsnorm(benchmark::State& state, std::size_t n) {
  const auto x = rows<T>("rmsnorm.x", n, logit_sigma);
  const auto w = rmsnorm_gain<T>(n);
  const T eps = lit<T>(rmsnorm_eps);
  tally t;
  std::size_t r = 0;
  for (auto _ : state) {
    t.add(tiered::rmsnorm(x[r], w, eps));
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
  t.report(state);
}

template <class T>
void bm_softmax_jvp(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  const auto dx = tangent_rows<T>(n);
  tally t;
  std::size_t r = 0;
  for (auto _ : state) {
    t.add(tiered::softmax_jvp(x[r], dx[r]));
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
  t.report(state);
}

template <class T>
void bm_scores(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  tally t;
  for (auto _ : state) t.add(tiered::scores(in.q, in.k, qk_queries, n, qk_dim));
  count_rows(state, qk_queries);
  t.report(state);
}

template <class T>
void bm_attention(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  tally t;
  for (auto _ : state)
    t.add(tiered::attention(in.q, in.k, in.v, qk_queries, n, qk_dim, v_dim, /*causal=*/false));
  count_rows(state, qk_queries);
  t.report(state);
}

const bool registered = [] {
  for_each_type([](auto tag) {
    using T = decltype(tag);
    const std::string ty = type_name<T>();
    for (std::size_t n : row_lengths) {
      add(bench_name("tiered", "softmax", ty, n),
          [n](benchmark::State& s) { bm_row_map<T, false>(s, n); });
      add(bench_name("tiered", "log_softmax", ty, n),
          [n](benchmark::State& s) { bm_row_map<T, true>(s, n); });
      add(bench_name("tiered", "scores", ty, n, qk_shape()),
          [n](benchmark::State& s) { bm_scores<T>(s, n); });
      add(bench_name("tiered", "rmsnorm", ty, n),
          [n](benchmark::State& s) { bm_rmsnorm<T>(s, n); });
      add(bench_name("tiered", "entropy", ty, n),
          [n](benchmark::State& s) { bm_entropy<T>(s, n); });
      add(bench_name("tiered", "softmax_jvp", ty, n),
          [n](benchmark::State& s) { bm_softmax_jvp<T>(s, n); });
      add(bench_name("tiered", "attention", ty, n, attention_shape()),
          [n](benchmark::State& s) { bm_attention<T>(s, n); });
    }
  });
  return true;
}();

}  // namespace
}  // namespace attncheck::bench

#endif
