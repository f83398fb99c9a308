// attncheck: the tiered oracle's plain-double tier (ball<double>, f16/bf16/f32 targets): the libm
// error it assumes, and that it never certifies a value the mpfi tier decides differently.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attncheck/oracle/tiered.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/scalar/ball.hpp"
#include "attncheck/scalar/mpfr.hpp"

using namespace attncheck;
namespace tiered = attncheck::oracle::tiered;

namespace {

double rel_err(double computed, const mpfr200& exact) {
  return abs(mpfr200((mpfr200(computed) - exact) / exact)).convert_to<double>();
}

// Every element the default run certifies at the double tier is certified by the mpfi tier
// alone (outward-rounded 256/2048-bit intervals) with the same T value (+0 and -0 equal), and
// every other certified element agrees too. Returns the default run's counts.
template <class T>
tiered::tier_counts agree_with_mpfi(const tiered::result<T>& fast, const tiered::result<T>& ref) {
  REQUIRE(fast.values.size() == ref.values.size());
  for (std::size_t i = 0; i < fast.values.size(); ++i) {
    const auto &a = fast.values[i], &b = ref.values[i];
    if (!a.certified) continue;
    INFO("element ", i, " (", tiered::tier_name(a.decided_by), ") exact ", a.exact_text(),
         ", mpfi exact ", b.exact_text());
    if (a.decided_by == tiered::tier::dbl) CHECK(b.certified);  // never a tie mpfi cannot split
    if (b.certified) CHECK(oracle::ulp_distance(a.rounded, b.rounded) == 0);
  }
  return fast.counts;
}

const tiered::options mpfi_only{.first = tiered::tier::mpfi};

template <class T>
std::vector<T> row(std::mt19937_64& g, std::size_t n, double sigma) {
  std::normal_distribution<double> nd(0, sigma);
  std::vector<T> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(scalar_traits<T>::from_double(nd(g)));
  return x;
}

}  // namespace

// The double tier's soundness rests on glibc's exp and log erring by at most 1 ulp (its manual,
// "Known Maximum Errors in Math Functions", x86_64); the tier assumes 4x that. Measured here over
// the arguments the kernels produce: exp on [-745, 0] (after max subtraction, down to the
// subnormal range), [-1, 1] and beyond 0 up to overflow; log on (0, 2^1024). A libm that breaks
// the assumption fails this test before it can make the tier certify a wrong value.
// What the sample shows (docs/oracle.md, "What each certificate rests on"): 50,000 independent
// arguments from each of exp's four distributions, 200,000 from log's over the binades, about
// 200,000 near 1 and 200,000 subnormal exp results. No error above 1 ulp in n draws means that,
// with confidence 1 − 1e-9, the arguments on which it errs by more have probability below
// ln(1e9)/n under that distribution (4.1e-4 for n = 50,000, 1.0e-4 for n = 200,000): a
// statement about frequencies, not about every argument; glibc's documented 1 ulp is the rest.
TEST_CASE("Oracle: double tier, libm exp and log stay within the bound the tier assumes") {
  std::mt19937_64 g(13);
  std::uniform_real_distribution<double> u(0, 1);
  double we = 0, wl = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 4 == 0 ? -708 * u(g) : i % 4 == 1 ? 2 * u(g) - 1
                     : i % 4 == 2 ? 709 * u(g) : -1e-6 * u(g);
    const double e = std::exp(x);
    we = std::max(we, rel_err(e, boost::multiprecision::exp(mpfr200(x))));
    const double y = std::ldexp(0.5 + u(g), static_cast<int>(2040 * u(g)) - 1020);
    wl = std::max(wl, rel_err(std::log(y), boost::multiprecision::log(mpfr200(y))));
    const double near1 = 1 + (u(g) - 0.5) * 1e-9;
    if (near1 != 1)
      wl = std::max(wl, rel_err(std::log(near1), boost::multiprecision::log(mpfr200(near1))));
    // Subnormal results: within 2^-1074 absolute (the tier's eta is 2^-1072).
    const double t = -708 - 37 * u(g);
    const mpfr200 et = boost::multiprecision::exp(mpfr200(t));
    CHECK(abs(mpfr200(mpfr200(std::exp(t)) - et)) <= et * attncheck::ball_centre<double>::exp + 0x1p-1074);
  }
  MESSAGE("glibc exp: max ", we / 0x1p-53, " u, log: max ", wl / 0x1p-53,
          " u (u = 2^-53; the tier assumes ", attncheck::ball_centre<double>::exp / 0x1p-53, " u), seed 13; ", we <= 0x1p-52 && wl <= 0x1p-52 ? "none" : "SOME", " above 1 ulp",
          " in 50,000 draws per exp distribution / 200,000 per log one: the bad arguments have probability",
          " below ln(1e9)/n = ", std::log(1e9) / 50000, " / ", std::log(1e9) / 200000, " (confidence 1 - 1e-9)");
  CHECK(we <= 0x1p-52);  // the documented 1 ulp: the bound used has a 4x margin over it
  CHECK(wl <= 0x1p-52);
}

TEST_CASE_TEMPLATE("Oracle: the double tier agrees with the mpfi tier on softmax rows", T, float,
                   f16, bf16) {
  std::mt19937_64 g(21);
  tiered::tier_counts total;
  for (int k = 0; k < 8; ++k) {  // n = 4096, sigma = 10, and short rows at sigma 1 / 100
    const auto x = row<T>(g, k < 2 ? 4096 : 64, k < 2 ? 10.0 : k % 2 ? 1.0 : 100.0);
    total += agree_with_mpfi(tiered::softmax(x), tiered::softmax(x, mpfi_only));
    total += agree_with_mpfi(tiered::log_softmax(x), tiered::log_softmax(x, mpfi_only));
  }
  // Extreme gaps: outputs that underflow T, reach its subnormals, or are exactly 1.
  auto lit = [](double v) { return scalar_traits<T>::from_double(v); };
  std::vector<T> gaps;
  for (double v : {0.0, -10.0, -17.0, -60.0, -88.0, -103.0, -104.5, -1e4, -1e30})
    gaps.push_back(lit(std::max(v, -format_of<T>.max_finite)));
  total += agree_with_mpfi(tiered::softmax(gaps), tiered::softmax(gaps, mpfi_only));
  total += agree_with_mpfi(tiered::log_softmax(gaps), tiered::log_softmax(gaps, mpfi_only));
  const std::vector<T> one{lit(5), lit(-1e4)};
  const auto r1 = tiered::softmax(one);
  total += agree_with_mpfi(r1, tiered::softmax(one, mpfi_only));
  CHECK(oracle::ulp_distance(r1.values[0].rounded, lit(1)) == 0);
  MESSAGE(format_of<T>.name, ": double ", total.dbl, ", dd ", total.dd, ", mpfr ", total.mpfr,
          ", mpfi ", total.mpfi, ", uncertified ", total.uncertified);
  CHECK(total.dbl > 0);
  CHECK(total.uncertified == 0);
}

TEST_CASE("Oracle: the double tier agrees with the mpfi tier on the other f32 kernels") {
  std::mt19937_64 g(22);
  const std::size_t n = 256, d = 64, dv = 16;
  const auto x = row<float>(g, n, 10.0), dx = row<float>(g, n, 1.0), w = row<float>(g, n, 1.0);
  tiered::tier_counts total;
  total += agree_with_mpfi(tiered::softmax_jvp(x, dx), tiered::softmax_jvp(x, dx, mpfi_only));
  total += agree_with_mpfi(tiered::rmsnorm(x, w, 1e-6f), tiered::rmsnorm(x, w, 1e-6f, mpfi_only));
  const auto p = tiered::softmax(x);
  std::vector<float> pr;
  for (const auto& e : p.values) pr.push_back(e.rounded);
  total += agree_with_mpfi(tiered::entropy(pr), tiered::entropy(pr, mpfi_only));
  const auto q = row<float>(g, 4 * d, 1.0), k = row<float>(g, n * d, 1.0);
  const auto v = row<float>(g, n * dv, 1.0);
  total += agree_with_mpfi(tiered::scores(q, k, 4, n, d), tiered::scores(q, k, 4, n, d, mpfi_only));
  total += agree_with_mpfi(tiered::attention(q, k, v, 4, n, d, dv, true),
                           tiered::attention(q, k, v, 4, n, d, dv, true, mpfi_only));
  MESSAGE("f32 kernels: double ", total.dbl, ", dd ", total.dd, ", mpfr ", total.mpfr, ", mpfi ",
          total.mpfi, ", uncertified ", total.uncertified);
  CHECK(total.dbl > 0);
}

// Near ties: attention over two keys (d = 4, scores q.k / 2) with q = (1, 2^-j, 0, 0),
// k0 = (1, 0, 0, 0), k1 = (1, 1, 0, 0), so the scores differ by 2^-j / 2, and v = (1, next(1)):
// the output is 1 + ulp (1/2 + ~2^-j/8), ~2^-j/8 ulp above the midpoint of 1 and next(1). For small j the double
// tier decides it; from about j = 25 its radius covers the midpoint and it must pass the element
// on; at j = inf (equal scores) the value is the tie itself, which only mpfi decides (to even).
TEST_CASE("Oracle: near a rounding boundary the double tier certifies only what mpfi confirms") {
  const float one = 1, next = std::nextafter(one, 2.0f);
  const std::vector<float> k{1, 0, 0, 0, 1, 1, 0, 0}, v{one, next};
  int by_double = 0, passed_on = 0;
  for (int j = 4; j <= 130; ++j) {
    const float t = j == 130 ? 0.0f : std::ldexp(1.0f, -j);
    const std::vector<float> q{1, t, 0, 0};
    const auto fast = tiered::attention(q, k, v, 1, 2, 4, 1, false);
    const auto ref = tiered::attention(q, k, v, 1, 2, 4, 1, false, mpfi_only);
    INFO("j = ", j);
    agree_with_mpfi(fast, ref);
    REQUIRE(ref.values[0].certified);
    CHECK(ref.values[0].rounded == (t > 0 ? next : one));  // above the midpoint; the tie: even
    if (fast.values[0].decided_by == tiered::tier::dbl && fast.values[0].certified)
      ++by_double;
    else
      ++passed_on;
  }
  MESSAGE("near-tie attention, j = 4..129 and the tie: double tier certified ", by_double,
          ", passed on ", passed_on);
  CHECK(by_double > 0);   // the test reaches both sides of the tier's resolution
  CHECK(passed_on > 0);
}
