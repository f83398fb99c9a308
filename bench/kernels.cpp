// attncheck benchmarks: the plain kernels (src/attncheck/kernels/*.hpp) at every hardware format.
//
// Named plain/<kernel>/<type>/n:<n>[/<shape>]. One iteration processes one row of length n
// (cycling through distinct_rows fixed rows), except scores and attention, where it processes
// qk_queries query rows against n keys. Throughput is reported as rows/s (items/s = rows/s).
#include <cstddef>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "bench/common.hpp"

namespace attncheck::bench {
namespace {

// One row in, one row out: softmax and log_softmax.
template <class T, void (*Kernel)(const T*, T*, std::size_t)>
void bm_row_map(benchmark::State& state, std::size_t n) {
  const auto x = logit_rows<T>(n);
  std::vector<T> y(n);
  std::size_t r = 0;
  for (auto _ : state) {
    Kernel(x[r].data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
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
    T h = kernels::entropy(p[r].data(), n);
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
  std::vector<T> y(n);
  std::size_t r = 0;
  for (auto _ : state) {
    kernels::rmsnorm(x[r].data(), w.data(), n, eps, y.data());
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
  std::vector<T> dy(n);
  std::size_t r = 0;
  for (auto _ : state) {
    kernels::softmax_jvp(x[r].data(), dx[r].data(), n, dy.data());
    benchmark::DoNotOptimize(dy.data());
    benchmark::ClobberMemory();
    r = (r + 1) % distinct_rows;
  }
  count_rows(state, 1);
}

template <class T>
void bm_scores(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  std::vector<T> s(qk_queries * n);
  for (auto _ : state) {
    kernels::scores(in.q.data(), in.k.data(), qk_queries, n, qk_dim, s.data());
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  }
  count_rows(state, qk_queries);
}

template <class T>
void bm_attention(benchmark::State& state, std::size_t n) {
  const auto in = qkv_inputs<T>(n);
  std::vector<T> o(qk_queries * v_dim);
  for (auto _ : state) {
    kernels::attention(in.q.data(), in.k.data(), in.v.data(), qk_queries, n, qk_dim, v_dim,
                       /*causal=*/false, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  count_rows(state, qk_queries);
}

template <class T>
struct plain_suite {
  static void softmax(benchmark::State& s, std::size_t n) { bm_row_map<T, kernels::softmax<T>>(s, n); }
  static void log_softmax(benchmark::State& s, std::size_t n) { bm_row_map<T, kernels::log_softmax<T>>(s, n); }
  static void scores(benchmark::State& s, std::size_t n) { bm_scores<T>(s, n); }
  static void rmsnorm(benchmark::State& s, std::size_t n) { bm_rmsnorm<T>(s, n); }
  static void entropy(benchmark::State& s, std::size_t n) { bm_entropy<T>(s, n); }
  static void softmax_jvp(benchmark::State& s, std::size_t n) { bm_softmax_jvp<T>(s, n); }
  static void attention(benchmark::State& s, std::size_t n) { bm_attention<T>(s, n); }
};

const bool registered = register_kernel_suite<plain_suite>("plain");

}  // namespace
}  // namespace attncheck::bench
