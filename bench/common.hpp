// attncheck benchmarks: deterministic inputs, the shapes every benchmark uses, and naming.
//
// Inputs never come from <random> distributions (whose output differs between standard
// libraries): a splitmix64 stream feeds a Box-Muller transform, seeded from the project seed and
// a tag per input, so every run on every machine times the same numbers.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "attncheck/kernels/softmax.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::bench {

// ---- deterministic N(0, sigma^2) ----------------------------------------------------------------

inline constexpr std::uint64_t base_seed = 0x5eed2026;

class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform on the open interval (0, 1): 53 random bits, offset by half a step (never 0 or 1).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }

 private:
  std::uint64_t s_;
};

// Box-Muller: two uniforms give two independent standard normals; the second is kept.
class normal_stream {
 public:
  explicit normal_stream(std::uint64_t seed) : rng_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(rng_.uniform()));
    const double t = 6.283185307179586476925 * rng_.uniform();
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

 private:
  splitmix64 rng_;
  double spare_ = 0;
  bool has_spare_ = false;
};

// Seed for one input: FNV-1a of a tag ("logits", "k", ...), the row length n and a row index,
// passed once through splitmix64 so that neighbouring (n, index) pairs give unrelated streams.
inline std::uint64_t seed_for(std::string_view tag, std::size_t n, std::size_t index) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : tag) h = (h ^ c) * 0x100000001b3ULL;
  splitmix64 mix(base_seed ^ h ^ (static_cast<std::uint64_t>(n) << 32) ^ index);
  return mix.next();
}

// len values mean + sigma * N(0, 1), each rounded once from double to T.
template <class T>
std::vector<T> normal_vec(std::string_view tag, std::size_t n, std::size_t index, std::size_t len,
                          double sigma, double mean = 0.0) {
  normal_stream g(seed_for(tag, n, index));
  std::vector<T> v;
  v.reserve(len);
  for (std::size_t i = 0; i < len; ++i) v.push_back(lit<T>(mean + sigma * g.next()));
  return v;
}

// ---- shapes --------------------------------------------------------------------------------------

// Row lengths n every kernel is timed at.
inline constexpr std::size_t row_lengths[] = {128, 4096};
// Row kernels cycle through this many distinct rows (one row per benchmark iteration), so that a
// single lucky row does not decide the timing.
inline constexpr std::size_t distinct_rows = 16;
// Standard deviation of logits / activations (softmax, log_softmax, entropy's logits, rmsnorm x,
// the JVP's x) and of the other vectors (q, k, v, dx).
inline constexpr double logit_sigma = 10.0;
inline constexpr double vector_sigma = 1.0;
// scores / attention: q is nq x d, k is n x d, v is n x dv (n keys = row length of the scores);
// one benchmark iteration computes all nq query rows, and nq rows are counted.
inline constexpr std::size_t qk_queries = 4;
inline constexpr std::size_t qk_dim = 64;
inline constexpr std::size_t v_dim = 64;
inline constexpr double rmsnorm_eps = 1e-6;

// ---- per-kernel inputs (shared by the plain and oracle benchmarks) -------------------------------

template <class T>
std::vector<std::vector<T>> rows(std::string_view tag, std::size_t n, double sigma) {
  std::vector<std::vector<T>> r;
  r.reserve(distinct_rows);
  for (std::size_t i = 0; i < distinct_rows; ++i)
    r.push_back(normal_vec<T>(tag, n, i, n, sigma));
  return r;
}

// softmax / log_softmax / entropy logits / JVP x: N(0, 10^2) rows.
template <class T>
std::vector<std::vector<T>> logit_rows(std::size_t n) { return rows<T>("logits", n, logit_sigma); }

// entropy input: probability rows, softmax (in T) of the logit rows.
template <class T>
std::vector<std::vector<T>> prob_rows(std::size_t n) {
  auto x = logit_rows<T>(n);
  for (auto& r : x) {
    std::vector<T> p(n);
    kernels::softmax(r.data(), p.data(), n);
    r = std::move(p);
  }
  return x;
}

// JVP tangents: N(0, 1) rows.
template <class T>
std::vector<std::vector<T>> tangent_rows(std::size_t n) { return rows<T>("dx", n, vector_sigma); }

// RMSNorm gain: 1 + 0.1 N(0, 1).
template <class T>
std::vector<T> rmsnorm_gain(std::size_t n) { return normal_vec<T>("rmsnorm.w", n, 0, n, 0.1, 1.0); }

template <class T>
struct qkv {
  std::vector<T> q, k, v;
};
template <class T>
qkv<T> qkv_inputs(std::size_t n) {
  return {normal_vec<T>("q", n, 0, qk_queries * qk_dim, vector_sigma),
          normal_vec<T>("k", n, 0, n * qk_dim, vector_sigma),
          normal_vec<T>("v", n, 0, n * v_dim, vector_sigma)};
}

// ---- naming and counting -------------------------------------------------------------------------
//
// Every benchmark is named  <tier>/<kernel>/<type>/n:<n>[/<shape>]  where tier is "plain" for the
// kernel itself and the oracle's name otherwise (tools/bench.sh splits on '/').

using scalar_types = std::tuple<float, double, f16, bf16>;

template <class T>
std::string type_name() { return std::string(format_of<T>.name); }

inline std::string qk_shape() {
  return "nq:" + std::to_string(qk_queries) + ",d:" + std::to_string(qk_dim);
}
inline std::string attention_shape() {
  return "nq:" + std::to_string(qk_queries) + ",d:" + std::to_string(qk_dim) +
         ",dv:" + std::to_string(v_dim) + ",noncausal";
}

inline std::string bench_name(std::string_view tier, std::string_view kernel,
                              const std::string& type, std::size_t n,
                              const std::string& shape = "") {
  std::string s = std::string(tier) + "/" + std::string(kernel) + "/" + type + "/n:" +
                  std::to_string(n);
  if (!shape.empty()) s += "/" + shape;
  return s;
}

// Rows of length n processed per second: reported both as items/s and as a "rows" rate counter.
inline void count_rows(benchmark::State& state, std::size_t rows_per_iteration) {
  const auto rows = static_cast<double>(state.iterations()) * static_cast<double>(rows_per_iteration);
  state.SetItemsProcessed(static_cast<std::int64_t>(rows));
  state.counters["rows"] = benchmark::Counter(rows, benchmark::Counter::kIsRate);
}

// Register one benchmark (times in microseconds; rates use CPU time, which is what a busy
// 2-core machine disturbs least).
template <class F>
void add(const std::string& name, F&& f) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))->Unit(benchmark::kMicrosecond);
}

template <class F>
void for_each_type(F&& f) {
  std::apply([&](auto... t) { (f(t), ...); }, scalar_types{});
}

// The seven kernels a tier is measured on, at every type and row length: the registration table
// of kernels.cpp ("plain"), oracles.cpp ("mpfr200") and tiered.cpp ("tiered"). Suite<T> has one
// static function (benchmark::State&, std::size_t n) per kernel.
template <template <class> class Suite>
bool register_kernel_suite(std::string_view tier) {
  for_each_type([&](auto tag) {
    using S = Suite<decltype(tag)>;
    const std::string ty = type_name<decltype(tag)>();
    for (std::size_t n : row_lengths) {
      add(bench_name(tier, "softmax", ty, n), [n](benchmark::State& s) { S::softmax(s, n); });
      add(bench_name(tier, "log_softmax", ty, n), [n](benchmark::State& s) { S::log_softmax(s, n); });
      add(bench_name(tier, "scores", ty, n, qk_shape()), [n](benchmark::State& s) { S::scores(s, n); });
      add(bench_name(tier, "rmsnorm", ty, n), [n](benchmark::State& s) { S::rmsnorm(s, n); });
      add(bench_name(tier, "entropy", ty, n), [n](benchmark::State& s) { S::entropy(s, n); });
      add(bench_name(tier, "softmax_jvp", ty, n), [n](benchmark::State& s) { S::softmax_jvp(s, n); });
      add(bench_name(tier, "attention", ty, n, attention_shape()), [n](benchmark::State& s) { S::attention(s, n); });
    }
  });
  return true;
}

}  // namespace attncheck::bench
