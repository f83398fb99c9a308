// attncheck benchmarks: the MPFR-200 oracle (src/attncheck/oracle/exact.hpp) on the same inputs
// as the plain kernels in kernels.cpp.
//
// Named mpfr200/<kernel>/<type>/n:<n>[/<shape>]. Each iteration makes the call a falsification
// test makes for one case: it takes the rows in format T, lifts them to 200 bits, runs the kernel
// template at mpfr200 and lowers the result to the oracle's output type; all of that is timed.
//   softmax, log_softmax  oracle::softmax_row (it computes softmax AND log-softmax, max and gaps:
//                         the same call serves both kernels' tests, so it is timed under both)
//   scores                oracle::scores       rmsnorm      oracle::rmsnorm
//   entropy               oracle::entropy      softmax_jvp  oracle::softmax_jvp
//   attention             exact.hpp has no entry point: kernels::attention<mpfr200> with the same
//                         lift / lower as the others (attention_exact below)
#include <cstddef>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/oracle/exact.hpp"
#include "bench/common.hpp"

namespace attncheck::bench {
namespace {

// Returns whatever oracle::lower returns (the oracle's result type), like the other entry points.
template <class T>
auto attention_exact(const qkv<T>& in, std::size_t n) {
  const auto Q = oracle::lift(in.q), K = oracle::lift(in.k), V = oracle::lift(in.v);
  std::vector<mpfr200> O(qk_queries * v_dim);
  kernels::attention(Q.data(), K.data(), V.data(), qk_queries, n, qk_dim, v_dim,
                     /*causal=*/false, O.data());
  return oracle::lower(O);
}

template <class T>
void bm_softmax_row(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    auto row = oracle::softmax_row(x[r]);
    benchmark::DoNotOptimize(row.p.data());
    benchmark::DoNotOptimize(row.logp.data());
    benchmark::ClobberMemory();
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class T>
void bm_entropy(benchmark::State& state, std::size_t n) {
  const auto p = prob_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    auto h = oracle::entropy(p[r]);
    benchmark::DoNotOptimize(h);
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class T>
void bm_rmsnorm(benchmark::State& state, std::size_t n) {
  const auto x = rows<T>("rmsnorm.x", n, logit_sigma);
  const auto w = rmsnorm_gain<T>(n);
  const T eps = lit<T>(rmsnorm_eps);
  std::size_t r = 0;
  for (auto _ : state) {
    auto y = oracle::rmsnorm(x[r], w, eps);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class T>
void bm_softmax_jvp(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  const auto dx = tangent_rows<T>(n);
  std::size_t r = 0;
  for (auto _ : state) {
    auto dy = oracle::softmax_jvp(x[r], dx[r]);
    benchmark::DoNotOptimize(dy.data());
    benchmark::ClobberMemory();
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class T>
void bm_scores(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  for (auto _ : state) {
    auto s = oracle::scores(in.q, in.k, qk_queries, n, qk_dim);
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  }
  count_rows(state, qk_queries);
}

template <class T>
void bm_attention(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  for (auto _ : state) {
    auto o = attention_exact(in, n);
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  count_rows(state, qk_queries);
}

template <class T>
struct mpfr200_suite {
  static void softmax(benchmark::State& s, std::size_t n) { bm_softmax_row<T>(s, n); }
  static void log_softmax(benchmark::State& s, std::size_t n) { bm_softmax_row<T>(s, n); }
  static void scores(benchmark::State& s, std::size_t n) { bm_scores<T>(s, n); }
  static void rmsnorm(benchmark::State& s, std::size_t n) { bm_rmsnorm<T>(s, n); }
  static void entropy(benchmark::State& s, std::size_t n) { bm_entropy<T>(s, n); }
  static void softmax_jvp(benchmark::State& s, std::size_t n) { bm_softmax_jvp<T>(s, n); }
  static void attention(benchmark::State& s, std::size_t n) { bm_attention<T>(s, n); }
};

const bool registered = register_kernel_suite<mpfr200_suite>("mpfr200");

}  // namespace
}  // namespace attncheck::bench
