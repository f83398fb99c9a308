// attncheck: the generators of falsify/gen draw what their comments promise at RapidCheck test
// sizes 0, 1, 25, 50 and 100 (histograms at fixed seeds), and properties draw at the nominal size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include "attncheck/property/registry.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/gen/regions.hpp"
#include "attncheck/property/gen/values.hpp"
#include "attncheck/scalar/arithmetic.hpp"
#include "tests/run_rapidcheck_body.hpp"

namespace attncheck::gen {
namespace {

// Tolerances. Each statistical check compares a frequency p̂ (or a mean x̄) of N independent
// draws with its exact value p (μ). Hoeffding's inequality bounds the chance that a correct
// generator misses by t or more: P(|p̂ - p| >= t) <= 2 exp(-2 N t²) for a frequency, and
// P(|x̄ - μ| >= t) <= 2 exp(-N t² / 2) for a mean of values in [-1, 1]. Each TEST_CASE below has a
// false-alarm probability of at most 1e-9 over the choice of its seed: its K checks each get
// δ = 1e-9 / K (union bound), so t = sqrt(ln(2/δ) / (2N)) and sqrt(2 ln(2/δ) / N).
constexpr double false_alarm = 1e-9;
double frequency_tolerance(double n, double checks) { return std::sqrt(std::log(2 * checks / false_alarm) / (2 * n)); }
double mean_tolerance(double n, double checks) { return std::sqrt(2 * std::log(2 * checks / false_alarm) / n); }
// uniform_int(lo, hi) takes a 64-bit word modulo span = hi - lo + 1, so a value's probability
// exceeds 1/span by a factor of at most 1 + span/2^64: an event of probability p is off by at
// most p·span/2^64, a mean of values in [-1, 1] by at most span/2^64.
double modulo_bias(double span) { return span / 0x1p64; }

constexpr int small_size = 0, large_size = rc::kNominalSize;  // RapidCheck's sizes run from 0 to 100
// The sizes each distribution is measured at: both ends and three between.
constexpr int test_sizes[] = {small_size, 1, 25, 50, large_size};
constexpr double size_count = std::size(test_sizes);

TEST_CASE("generators: unit() is uniform in [-1, 1] at every test size and shrinks towards 0") {
  constexpr int n = 100000;  // draws per size
  constexpr double checks = size_count * (1 + 1 + 10);  // per size: the mean, the positive fraction, 10 bins
  const double span = 0x1p53 + 1;  // the 2^53 + 1 values k·2^-52, |k| <= 2^52
  // A bin of width 0.2 holds 0.2·2^52 grid values, give or take one at each end: 2^-52 of p.
  const double t_freq = frequency_tolerance(n, checks) + modulo_bias(span) + 0x1p-52;
  const double t_mean = mean_tolerance(n, checks) + modulo_bias(span);
  for (const int size : test_sizes) {
    CAPTURE(size);
    rc::Random random(0x5eed0000u + static_cast<std::uint64_t>(size));  // a fixed seed per size
    double sum = 0;
    int positive = 0, zero = 0;
    std::vector<int> bins(10, 0);
    for (int i = 0; i < n; ++i) {
      const double u = unit()(random.split(), size).value();
      REQUIRE((u >= -1 && u <= 1));
      sum += u;
      positive += u > 0;
      zero += u == 0;
      ++bins[static_cast<std::size_t>(std::min(9.0, std::floor((u + 1) * 5)))];
    }
    CHECK(std::abs(sum / n) <= t_mean);
    // P(u > 0) = 2^52 / (2^53 + 1): one half but for the single value 0.
    CHECK(std::abs(static_cast<double>(positive) / n - 0x1p52 / span) <= t_freq);
    for (int b = 0; b < 10; ++b) {
      CAPTURE(b);
      CHECK(std::abs(static_cast<double>(bins[static_cast<std::size_t>(b)]) / n - 0.1) <= t_freq);
    }
  }
  // Shrinking: the first candidate is 0, the simplest value (inRange-based, it was -1).
  const auto drawn = unit()(rc::Random(0x5eed), large_size);
  REQUIRE(drawn.value() != 0);
  const auto first = drawn.shrinks().next();
  REQUIRE(static_cast<bool>(first));
  CHECK(first->value() == 0.0);
}

// The length distribution of a row generator against the uniform one on [lo, hi], from N rows
// drawn at one test size, by two distribution-free tests whose false-alarm probabilities hold at
// every N (no asymptotic χ² approximation, which says little at 1e-9):
//   KS:  sup_k |F̂(k) - F(k)| >= ε with probability <= 2 exp(-2Nε²) (Dvoretzky-Kiefer-Wolfowitz
//        with Massart's constant; for a discrete F too), so ε = sqrt(ln(2/δ) / (2N));
//   L1:  Σ_k |p̂_k - p_k| >= ε with probability <= (2^K - 2) exp(-Nε²/2) over K = hi - lo + 1
//        lengths (Weissman, Ordentlich, Seroussi, Verdú, Weinberger 2003, Theorem 2.1), so
//        ε = sqrt(2 (K ln 2 + ln(1/δ)) / N).
// KS sees a shifted or lopsided distribution, L1 any other (every other length, two lengths), and
// the shortest and longest lengths drawn must be lo and hi (a correct generator misses one with
// probability <= 2 (1 - 1/K)^N: below 1e-33 at the N and K used here).
struct LengthFit {
  double ks = 0, ks_limit = 0, l1 = 0, l1_limit = 0;
  std::size_t shortest = 0, longest = 0;
  bool uniform(int lo, int hi) const {
    return ks < ks_limit && l1 < l1_limit && shortest == static_cast<std::size_t>(lo) && longest == static_cast<std::size_t>(hi);
  }
};

LengthFit length_fit(const rc::Gen<std::vector<double>>& g, int lo, int hi, int n, int size, std::uint64_t seed, double delta) {
  const auto k = static_cast<std::size_t>(hi - lo + 1);
  std::vector<int> count(k, 0);
  rc::Random random(seed);
  for (int i = 0; i < n; ++i) {
    const std::size_t len = g(random.split(), size).value().size();
    REQUIRE((len >= static_cast<std::size_t>(lo) && len <= static_cast<std::size_t>(hi)));
    ++count[len - static_cast<std::size_t>(lo)];
  }
  LengthFit fit;
  fit.shortest = static_cast<std::size_t>(hi), fit.longest = static_cast<std::size_t>(lo);
  double cdf_hat = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double p_hat = count[j] / static_cast<double>(n), p = 1.0 / static_cast<double>(k);
    cdf_hat += p_hat;
    fit.ks = std::max(fit.ks, std::abs(cdf_hat - static_cast<double>(j + 1) * p));
    fit.l1 += std::abs(p_hat - p);
    if (count[j] > 0) fit.shortest = std::min(fit.shortest, j + static_cast<std::size_t>(lo)), fit.longest = j + static_cast<std::size_t>(lo);
  }
  fit.ks_limit = std::sqrt(std::log(2 / delta) / (2.0 * n));
  fit.l1_limit = std::sqrt(2 * (static_cast<double>(k) * std::log(2.0) + std::log(1 / delta)) / n);
  return fit;
}

// Sizes 0..100 (RapidCheck's), 5 of them, and two ranges: sized_row(1, 256) and sized_row(0, 14)
// (mixed_extremes' tail). N = 20000 rows per size and range; 5 sizes x 2 ranges x 2 statistics =
// 20 checks, each at δ = (1e-9 - 1e-11) / 20. uniform_int's modulo makes each draw's law differ
// from the uniform one by at most span/2^64 in total variation, so a sample of N by at most
// N·span/2^64 <= 2.8e-13, the 10 samples by 2.8e-12; the shortest/longest checks add < 1e-32.
// Union bound: a correct sized_row fails this case with probability < 1e-9 (seeds fixed).
TEST_CASE("generators: sized_row draws lengths uniform in [lo, hi] at every size (KS and L1 at 1e-9) and shrinks towards the shortest") {
  constexpr int n = 20000;
  constexpr double checks = size_count * 2 * 2;
  const double delta = (false_alarm - 1e-11) / checks;
  for (const auto& [lo, hi] : {std::pair{1, 256}, std::pair{0, 14}})
    for (const int size : test_sizes) {
      CAPTURE(lo);
      CAPTURE(hi);
      CAPTURE(size);
      const auto seed = 0x5eed1000u + static_cast<std::uint64_t>(size) + static_cast<std::uint64_t>(hi) * 1000;
      const LengthFit fit = length_fit(sized_row(lo, hi, rc::gen::just(0.0)), lo, hi, n, size, seed, delta);
      CAPTURE(fit.ks);
      CAPTURE(fit.l1);
      CHECK(fit.ks < fit.ks_limit);
      CHECK(fit.l1 < fit.l1_limit);
      CHECK(fit.shortest == static_cast<std::size_t>(lo));
      CHECK(fit.longest == static_cast<std::size_t>(hi));
    }
  const auto drawn = sized_row(1, 256, rc::gen::just(0.0))(rc::Random(0x5eed), small_size);
  REQUIRE(drawn.value().size() > 1);
  const auto first = drawn.shrinks().next();
  REQUIRE(static_cast<bool>(first));
  CHECK(first->value().size() == 1);
}

// The test above can fail: generators with the wrong length law are rejected by it at the same N
// and limits (the old single statistic, P(len > 128) = 1/2, passed the first two; the third,
// one length short, is caught by the longest length drawn, not by KS or L1).
TEST_CASE("generators: the sized_row length test rejects planted wrong generators: only 1 and 256, only even lengths, lengths 1..255") {
  const auto with_length = [](rc::Gen<int> len) {
    return rc::gen::mapcat(len, [](int k) { return rc::gen::container<std::vector<double>>(static_cast<std::size_t>(k), rc::gen::just(0.0)); });
  };
  const double delta = (false_alarm - 1e-11) / 20;  // as above
  const auto ends = with_length(rc::gen::map(uniform_int(0, 1), [](int b) { return b ? 256 : 1; }));
  const auto even = with_length(rc::gen::map(uniform_int(1, 128), [](int h) { return 2 * h; }));
  const auto short_by_one = with_length(uniform_int(1, 255));
  for (const auto& [name, g] : {std::pair{"only 1 and 256", ends}, std::pair{"only even", even}, std::pair{"1..255", short_by_one}}) {
    CAPTURE(name);
    const LengthFit fit = length_fit(g, 1, 256, 20000, large_size, 0x5eed1100u, delta);
    MESSAGE(std::string(name) << ": KS " << fit.ks << " (limit " << fit.ks_limit << "), L1 " << fit.l1 << " (limit " << fit.l1_limit
                 << "), lengths " << fit.shortest << ".." << fit.longest);
    CHECK_FALSE(fit.uniform(1, 256));
  }
}

TEST_CASE("generators: row() draws each of its buckets at its weight, at every test size, and each bucket keeps its promise") {
  const format_info& f = format_of<float>;
  const std::vector<RowBucket> buckets = row_buckets(f);
  double total = 0;
  for (const RowBucket& b : buckets) total += static_cast<double>(b.weight);
  constexpr int n = 20000;
  const double checks = size_count * static_cast<double>(buckets.size());
  const double t = frequency_tolerance(n, checks) + modulo_bias(total);
  for (const int size : test_sizes) {
    CAPTURE(size);
    rc::Random random(0x5eed2000u + static_cast<std::uint64_t>(size));
    std::vector<int> count(buckets.size(), 0);
    for (int i = 0; i < n; ++i) {
      const auto [bucket, x] = tagged_row(f)(random.split(), size).value();
      ++count[bucket];
      REQUIRE(!x.empty());
      REQUIRE(std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); }));
      const double top = *std::max_element(x.begin(), x.end());
      const std::string_view name = buckets[bucket].name;
      if (name == "long") REQUIRE((x.size() >= 257 && x.size() <= 4096));
      if (name == "negative max") REQUIRE((top >= -104 && top <= -5));
      if (name == "near overflow") REQUIRE(top >= f.max_finite / 2);
      if (name == "narrow") REQUIRE(top - *std::min_element(x.begin(), x.end()) <= 1);
      if (name == "mixed extremes") REQUIRE((top >= f.max_finite / 4 && *std::min_element(x.begin(), x.end()) <= -0.75 * f.max_finite));
    }
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      CAPTURE(buckets[b].name);
      CHECK(std::abs(static_cast<double>(count[b]) / n - static_cast<double>(buckets[b].weight) / total) <= t);
    }
  }
  // Rows for kernels that cap long rows below 257 have no long bucket (it used to fail the case)
  // and no row longer than 256.
  rc::Random random(0x5eed3000u);
  for (int i = 0; i < 2000; ++i) {
    const auto [bucket, x] = tagged_row(f, 64)(random.split(), large_size).value();
    REQUIRE(buckets[bucket].name != std::string_view("long"));
    REQUIRE(x.size() <= 256);
  }
}

TEST_CASE("generators: rows, values and moderate values ignore the test size") {
  // The same seed gives the same draw at size 0 and at size 100: nothing depends on the size.
  for (const format_info* f : {&format_of<f16>, &format_of<float>, &format_of<double>})
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      CAPTURE(seed);
      CHECK(row(*f)(rc::Random(seed), small_size).value() == row(*f)(rc::Random(seed), large_size).value());
      CHECK(value(*f, 8)(rc::Random(seed), small_size).value() == value(*f, 8)(rc::Random(seed), large_size).value());
      CHECK(moderate_value(*f, 4)(rc::Random(seed), small_size).value() ==
            moderate_value(*f, 4)(rc::Random(seed), large_size).value());
    }
}

// Would fail if unit() scaled with the size again: at size 0 the old inRange-based unit() returned
// -1, so every σ = 1e4 and near-overflow row was constant (spread 0).
TEST_CASE("generators: at the smallest test size, as at the largest, wide rows come up at the rate the buckets promise") {
  const format_info& f = format_of<float>;
  const std::vector<RowBucket> buckets = row_buckets(f);
  double total = 0, sigma1e4 = 0, near_overflow = 0;
  for (const RowBucket& b : buckets) {
    total += static_cast<double>(b.weight);
    if (b.name == std::string_view("sigma 1e4")) sigma1e4 = static_cast<double>(b.weight);
    if (b.name == std::string_view("near overflow")) near_overflow = static_cast<double>(b.weight);
  }
  // A lower bound on P(spread > 1e3): a σ = 1e4 row (n >= 2 entries uniform on [-L, L], L = 1e4·√3)
  // has spread <= d only if its first two entries are within d: probability 1 - (1 - d/2L)²; a
  // near-overflow row (n uniform in 1..30) has n >= 2 with probability 29/30, and then a spread
  // below 1e3 needs two equal draws of unit() (its values are max_finite/4 apart per unit of u):
  // probability at most 2^-52 per pair. Only rows of these two buckets are counted. These
  // are the probabilities of exactly uniform draws; uniform_int's modulo favours a value by a
  // factor of at most 1 + 2^-11 (modulo_bias of unit()'s 2^53 + 1 values), which lowers them by
  // less than a factor 1 - 2^-10 (the σ = 1e4 term: 1 - (1 + 2^-11)²·(1 - p) >= p·(1 - 2^-10)
  // for p >= 0.9).
  const double d = 1e3, L = 1e4 * 1.7320508;
  const double p_exact = (sigma1e4 * (1 - d / (2 * L)) * (1 - d / (2 * L)) + near_overflow * 29.0 / 30.0 * (1 - 0x1p-52)) / total;
  const double p_min = p_exact * (1 - 2 * modulo_bias(0x1p53 + 1));
  constexpr int n = 20000;
  const double t = frequency_tolerance(n, size_count) + modulo_bias(total);
  for (const int size : test_sizes) {
    CAPTURE(size);
    rc::Random random(0x5eed4000u + static_cast<std::uint64_t>(size));
    int wide = 0;  // rows of those two buckets with a spread above d, out of all n rows
    for (int i = 0; i < n; ++i) {
      const auto [bucket, x] = tagged_row(f)(random.split(), size).value();
      const std::string_view name = buckets[bucket].name;
      if (name != "sigma 1e4" && name != "near overflow") continue;
      wide += *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end()) > d;
    }
    CHECK(static_cast<double>(wide) / n >= p_min - t);
  }
}

using testing::run_body;

TEST_CASE("generators: a property's own gen::inRange draws span their whole range in every case (nominal size)") {
  // 200 cases of 10 draws each: with the size running 0..100 over the run, inRange(0, 1000)
  // reached 500 in about 15 % of the draws; at the nominal size, in half.
  constexpr int cases = 200, per_case = 10, n = cases * per_case;
  const double t = frequency_tolerance(n, 1) + modulo_bias(1000);
  int upper = 0;
  const property::Outcome out = run_body(
      [&] {
        for (int i = 0; i < per_case; ++i) upper += *rc::gen::inRange(0, 1000) >= 500;
      },
      cases);
  REQUIRE(out.verdict == property::Verdict::pass);
  CHECK(std::abs(static_cast<double>(upper) / n - 0.5) <= t);
}

}  // namespace
}  // namespace attncheck::gen

// ---- batched attention cases (gen/attention_batched.hpp) and max-subtraction rows ---------------

namespace attncheck::gen {
namespace {
using testing::run_body;

// Bernstein's inequality for a frequency p̂ of N draws with exact value p: P(|p̂ - p| >= t) <=
// 2 exp(-N t² / (2 p(1 - p) + 2t/3)), so t = sqrt(2 p(1-p) L / N) + 2L / (3N), L = ln(2/δ), is
// enough (tighter than Hoeffding where p is small). δ = false_alarm / checks as above.
double bernstein_tolerance(double n, double p, double checks) {
  const double L = std::log(2 * checks / false_alarm);
  return std::sqrt(2 * p * (1 - p) * L / n) + 2 * L / (3 * n);
}

// The regions of N batched cases at T, as the coverage figure counts them (run_body runs the
// draws as the gate does, at the nominal size): region name -> count, and the draws.
template <class T>
std::pair<std::map<std::string, int>, int> batched_coverage(int n, const std::function<void(const BatchedCase<T>&)>& each = {}) {
  const property::Outcome out = run_body(
      [&] {
        const auto c = batched_case<T>();
        if (each) each(c);
      },
      n);
  REQUIRE(out.verdict == property::Verdict::pass);
  std::map<std::string, int> counts;
  int draws = 0;
  for (const auto& series : out.coverage) {
    if (series.generator != "batched attention case") continue;
    draws = static_cast<int>(series.draws);
    for (std::size_t k = 0; k < series.regions.size(); ++k) counts[series.regions[k]] = static_cast<int>(series.counts[k]);
  }
  return {counts, draws};
}

constexpr const char* qk_beyond = "qk beyond f16 (|q·k| > 65504 before the scale)";
constexpr const char* far_below = "every visible score below -5e4";

TEST_CASE("generators: batched_case draws each region at its intended frequency (f32)") {
  constexpr int n = 4000;
  const auto [count, draws] = batched_coverage<float>(n);
  REQUIRE(draws == n);
  // Exact frequencies (uniform_int's modulo bias is below 2^-60 here, far inside the tolerances).
  // Small cases (7/8): n uniform 1..9, m = n or uniform 1..12 (half each), d 1..12, dv 1..5,
  // windows <= 4 keys. Several-tile cases (1/8): m uniform in [65, 300] (236 values, 3 of them
  // multiples of 64, 1 of 128 among those > 128), n = 1 half of the time, d 1..8, dv 1..4, a
  // window left 1/3 and right (not causal, 1/2) 1/3 of the time, long (>= 64) half of those.
  // Shifts: a quarter of the uncapped cases (soft-cap 1/3), moderate half of the time, |q·k|
  // beyond f16 a quarter (7e4, 2e5, 8e5: always), every score about -1e5 or -3e5 a quarter (|q·k|
  // beyond f16 too unless -1e5 at scale 1.7, 1 scale in 5).
  const double shifted = 0.25 * 2.0 / 3.0;
  const std::vector<std::pair<std::string, double>> exact = {
      {"several 64-key tiles (m > 64, m mod 64 != 0)", 1.0 / 8 * 233.0 / 236},
      {"several 128-key tiles (m > 128, m mod 128 != 0)", 1.0 / 8 * 171.0 / 236},
      {"decode row (n = 1, m > 1)", 7.0 / 8 * (1.0 / 9 * 0.5 * 11.0 / 12) + 1.0 / 8 * 0.5},
      {"n != m", 7.0 / 8 * (0.5 * 11.0 / 12) + 1.0 / 8},
      {"dv != d", 7.0 / 8 * 11.0 / 12 + 1.0 / 8 * 7.0 / 8},
      {"window of 64+ keys", 1.0 / 8 * (1 - (1 - 1.0 / 6) * (1 - 1.0 / 12))},
      {"scores shifted by 30..1000", shifted / 2},
      {"value columns with a mean", 1.0 / 4 * (7.0 / 8 * 4.0 / 5 + 1.0 / 8 * 3.0 / 4)},  // draw_value_means, dv > 1
      {qk_beyond, shifted / 4 + shifted / 4 * (0.5 * 4.0 / 5 + 0.5)},
  };
  // Lower bounds: every score below -5e4 at least for the -1e5/-3e5 shifts (at most those and the
  // negative |q·k| beyond f16 ones); an ALiBi bias above 100 at least in several-tile cases with
  // ALiBi (1/4), steep slopes (1/2: 16 for head 0), no causal mask (1/2) and no window (2/3 each),
  // where some key is >= 32 away from the diagonal.
  const double far_lo = shifted / 4, far_hi = shifted / 4 + shifted / 8, alibi_lo = 1.0 / 8 * 1.0 / 4 * 1.0 / 2 * 1.0 / 2 * 2.0 / 3 * 2.0 / 3;
  const double checks = static_cast<double>(exact.size()) + 3;
  for (const auto& [name, p] : exact) {
    CAPTURE(name);
    REQUIRE(count.count(name));
    CHECK(std::abs(static_cast<double>(count.at(name)) / n - p) <= bernstein_tolerance(n, p, checks));
  }
  CHECK(static_cast<double>(count.at(far_below)) / n >= far_lo - bernstein_tolerance(n, far_lo, checks));
  CHECK(static_cast<double>(count.at(far_below)) / n <= far_hi + bernstein_tolerance(n, far_hi, checks));
  CHECK(static_cast<double>(count.at("ALiBi bias above 100 on a visible key")) / n >= alibi_lo - bernstein_tolerance(n, alibi_lo, checks));
}

// The largest magnitude of a case's q and k elements and of its unscaled Σ_t |q_t k_t| over every
// (b, h, i, j) pair (a bound on every product and partial sum of every q·k).
template <class T>
std::pair<double, double> qk_extent(const BatchedCase<T>& c) {
  const auto& s = c.p.shape;
  double elem = 0, dot = 0;
  for (const T& x : c.q) elem = std::max(elem, std::abs(to_double(x)));
  for (const T& x : c.k) elem = std::max(elem, std::abs(to_double(x)));
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < s.n; ++i)
        for (std::size_t j = 0; j < s.m; ++j) {
          double acc = 0;
          for (std::size_t t = 0; t < s.d; ++t) acc += std::abs(to_double(c.q[s.q_at(b, i, h) + t]) * to_double(c.k[s.k_at(b, j, s.kv_head(h)) + t]));
          dot = std::max(dot, acc);
        }
  return {elem, dot};
}

template <class T>
void expect_finite_cases(bool large_regions, bool qk_only = false) {
  constexpr int n = 1000;
  double elem = 0, dot = 0, max_score = 0;
  const auto [count, draws] = batched_coverage<T>(n, [&](const BatchedCase<T>& c) {
    for (const auto* x : {&c.q, &c.k, &c.v})
      for (const T& e : *x) REQUIRE(std::isfinite(to_double(e)));
    // |v| <= 8 about each column's mean (0, or c.v_mean on the odd columns: draw_value_means).
    for (std::size_t i = 0; i < c.v.size(); ++i)
      REQUIRE(std::abs(to_double(c.v[i]) - ((i % c.p.shape.dv) % 2 == 1 ? c.v_mean : 0)) <= 8 + (8 + std::abs(c.v_mean)) / 128);  // and T's rounding of the sum
    const auto [e, d] = qk_extent(c);
    elem = std::max(elem, e), dot = std::max(dot, d);
    max_score = std::max(max_score, c.p.scale * d);
  });
  REQUIRE(draws == n);
  // Every element is finite in every storage format (f16's 65504 the smallest), every q·k in f32.
  CHECK(elem <= 1600);
  CHECK(dot < 1e7);
  CHECK(count.count(qk_beyond) == (large_regions || qk_only ? 1u : 0u));
  CHECK(count.count(far_below) == (large_regions ? 1u : 0u));
  if (large_regions) {
    CHECK(count.at(qk_beyond) > 0);
    CHECK(count.at(far_below) > 0);
  } else if (qk_only) {
    // q·k beyond f16's range, every score within it (the scale folded into q keeps them there).
    CHECK(count.at(qk_beyond) > 0);
    CHECK(max_score <= 3e4 + 1e3);
  } else {
    // Without them every product and partial sum of q·k stays in f16's range.
    CHECK(dot <= 65504);
  }
}

TEST_CASE("generators: batched_case's values stay finite in every format, the large-score regions only where the model can hold them") {
  SUBCASE("f32") { expect_finite_cases<float>(true); }
  SUBCASE("f64") { expect_finite_cases<double>(true); }
  SUBCASE("bf16@bf16: the derived allowance says nothing at such scores") { expect_finite_cases<bf16>(false); }
  SUBCASE("bf16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_finite_cases<bf16>(true);
  }
  SUBCASE("f16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_finite_cases<f16>(true);
  }
  SUBCASE("f16@f16: q·k beyond 65504 overflows the arithmetic itself") { expect_finite_cases<f16>(false); }
  SUBCASE("f16@f32 declared unfused: the scores are stored in f16, q·k need not be") {
    arithmetic_scope a(Arithmetic::f32);
    intermediates_scope s(Intermediates::unfused);
    expect_finite_cases<f16>(false, true);
  }
}

template <class T>
void expect_max_subtraction_rows() {
  const format_info& f = format_of<T>;
  const format_info& a = arithmetic_format<T>();
  const auto buckets = max_subtraction_buckets(f, a);
  REQUIRE(!buckets.empty());
  constexpr int n = 8000;
  const double checks = static_cast<double>(buckets.size()) + 1;
  rc::Random random(0x5eed6000u);
  std::map<std::string, int> count;
  int over = 0;
  for (int i = 0; i < n; ++i) {
    const auto x = to_row<T>(max_subtraction_row(f, a)(random.split(), large_size).value());
    REQUIRE(!x.empty());
    for (const T& e : x) REQUIRE(std::isfinite(to_double(e)));
    const auto regions = max_subtraction_regions(x);
    // Every row is one where max subtraction matters, in exactly one magnitude bucket.
    REQUIRE((regions[0].reached || regions[1].reached));
    over += regions[0].reached;
    int in = 0;
    for (std::size_t k = 2; k < regions.size(); ++k) in += regions[k].reached, count[std::string(regions[k].name)] += regions[k].reached;
    REQUIRE(in == 1);
  }
  // Each bucket 1/#buckets of the rows: every magnitude of the maximum, not only near overflow.
  const double p = 1.0 / static_cast<double>(buckets.size());
  for (const MagnitudeBucket& b : buckets) {
    CAPTURE(b.name);
    CHECK(std::abs(count[std::string(b.name)] / static_cast<double>(n) - p) <= bernstein_tolerance(n, p, checks));
  }
  // Overflow and underflow half of the time each: in these formats both sides reach every bucket.
  CHECK(std::abs(over / static_cast<double>(n) - 0.5) <= bernstein_tolerance(n, 0.5, checks));
}

template <class T>
void expect_shift_rows() {
  const format_info& a = arithmetic_format<T>();
  const double ln_mn = std::log(std::ldexp(1.0, a.min_exponent));
  rc::Random random(0x5eed6001u);
  int reached = 0;
  constexpr int n = 2000;
  for (int i = 0; i < n; ++i) {
    const auto x = to_row<T>(shift_region_row(a)(random.split(), large_size).value());
    REQUIRE(x.size() >= 2);
    const double top = to_double(x[0]);
    REQUIRE(top >= -60);
    REQUIRE(top <= -4);
    for (const T& e : x) {
      REQUIRE(std::isfinite(to_double(e)));
      REQUIRE(to_double(e) <= top);
    }
    // Every entry but the maximum below exp's normal range unshifted, within it shifted, once rounded
    // into T (where the maximum itself is below it, as at f16, every row is one of the underflow side).
    for (std::size_t k = 1; k < x.size(); ++k) {
      CHECK(to_double(x[k]) < ln_mn);
      CHECK(to_double(x[k]) - top >= ln_mn);
    }
    reached += shift_regions(x)[0].reached;
  }
  CHECK(reached == n);
}

TEST_CASE("generators: shift_region_row draws moderate maxima with entries whose exp is subnormal only unshifted, in every format") {
  SUBCASE("f32") { expect_shift_rows<float>(); }
  SUBCASE("f16@f16") { expect_shift_rows<f16>(); }
  SUBCASE("bf16@bf16") { expect_shift_rows<bf16>(); }
  SUBCASE("f16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_shift_rows<f16>();
  }
  SUBCASE("bf16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_shift_rows<bf16>();
  }
}

TEST_CASE("generators: max_subtraction_row draws rows where max subtraction matters, from every decade of the maximum, finite in every format") {
  SUBCASE("f32") { expect_max_subtraction_rows<float>(); }
  SUBCASE("f64") { expect_max_subtraction_rows<double>(); }
  SUBCASE("f16@f16") { expect_max_subtraction_rows<f16>(); }
  SUBCASE("bf16@bf16") { expect_max_subtraction_rows<bf16>(); }
  SUBCASE("f16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_max_subtraction_rows<f16>();
  }
  SUBCASE("bf16@f32") {
    arithmetic_scope a(Arithmetic::f32);
    expect_max_subtraction_rows<bf16>();
  }
  // The buckets the formats reach: f16 up to 65504 (two), f32 and bf16 up to 3.4e38, f64 beyond 1e24 (five).
  CHECK(max_subtraction_buckets(format_of<f16>, format_of<f16>).size() == 2);
  CHECK(max_subtraction_buckets(format_of<float>, format_of<float>).size() == 5);
  CHECK(max_subtraction_buckets(format_of<double>, format_of<double>).size() == 5);
}

}  // namespace
}  // namespace attncheck::gen
