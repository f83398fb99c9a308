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

template <class T>
struct tiered_suite {
  static void softmax(benchmark::State& s, std::size_t n) { bm_row_map<T, false>(s, n); }
  static void log_softmax(benchmark::State& s, std::size_t n) { bm_row_map<T, true>(s, n); }
  static void scores(benchmark::State& s, std::size_t n) { bm_scores<T>(s, n); }
  static void rmsnorm(benchmark::State& s, std::size_t n) { bm_rmsnorm<T>(s, n); }
  static void entropy(benchmark::State& s, std::size_t n) { bm_entropy<T>(s, n); }
  static void softmax_jvp(benchmark::State& s, std::size_t n) { bm_softmax_jvp<T>(s, n); }
  static void attention(benchmark::State& s, std::size_t n) { bm_attention<T>(s, n); }
};

const bool registered = register_kernel_suite<tiered_suite>("tiered");

}  // namespace
}  // namespace attncheck::bench

#endif
