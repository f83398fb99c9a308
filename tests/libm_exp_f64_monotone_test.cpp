// attncheck: what can be checked of the f64 exp's monotonicity, on which the order obligation
// SM-MON-001 rests at f64 (no allowance: exp, the subtraction of the max and the division by the
// same sum are monotone). At f16, bf16 and f32 every input is checked (BMC-AXIOMS-*); f64 has
// 2^64 inputs, so this checks consecutive pairs (x, next(x)) -- a function on the doubles is
// non-decreasing iff it is on every consecutive pair -- in windows around the points where a
// break is likeliest, and at a seeded sample (docs/oracle.md, "What each certificate rests on"):
//  - every multiple of ln2/256 in the finite range of exp: where a table-driven exp with up to
//    2^8 entries per ln 2 switches its reduction index (glibc's has 2^7) and, at multiples of
//    ln 2, where the result changes binade; 32 doubles either side;
//  - both sides of every power of two in |x| (x changes binade), 32 doubles either side;
//  - the underflow and overflow thresholds and the start of subnormal results, 4096 either side;
//  - 100,000 seeded points (seed 0x6d6f6e6f, printed), half uniform on [-4, 4], half uniform on [-745.2, 709.8],
//    32 doubles either side.
// Not shown: the other ~2^62 consecutive pairs. For |x| >= 4 (ulp(x) >= 2^-50) neighbouring
// exact values differ by more than 2 ulps of the result, so there an exp erring by at most 1 ulp
// (glibc's documented figure, sampled in oracle_tiered_double_test.cpp) is non-decreasing; below
// 4 only the windows and the sample speak.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>

namespace {

using exp_fn = double (*)(double);

struct Sweep {
  std::uint64_t pairs = 0, violations = 0;
  double first = std::numeric_limits<double>::quiet_NaN();  // the first x with f(next(x)) < f(x)
};

// Every consecutive pair among the 2w + 1 doubles centred at c.
void sweep(exp_fn f, double c, int w, Sweep& s) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double x = c;
  for (int i = 0; i < w; ++i) x = std::nextafter(x, -inf);
  double fx = f(x);
  for (int i = 0; i < 2 * w; ++i) {
    const double y = std::nextafter(x, inf);
    const double fy = f(y);
    ++s.pairs;
    if (fy < fx && s.violations++ == 0) s.first = x;
    x = y;
    fx = fy;
  }
}

constexpr double lo = -745.2, hi = 709.8;  // exp is 0 below about -745.13, +inf above about 709.78
constexpr std::uint64_t seed = 0x6d6f6e6f;

Sweep validate(exp_fn f) {
  Sweep s;
  const double step = std::log(2.0) / 256;
  for (auto m = static_cast<long>(std::ceil(lo / step)); m <= static_cast<long>(std::floor(hi / step)); ++m) sweep(f, m * step, 32, s);
  for (int e = -1074; e <= 10; ++e) {
    sweep(f, std::ldexp(1.0, e), 32, s);
    sweep(f, -std::ldexp(1.0, e), 32, s);
  }
  // The thresholds, found by bisection on f itself, then swept.
  const auto edge = [&](double a, double b, auto below) {  // below(a) holds, below(b) does not
    for (int i = 0; i < 200; ++i) {
      const double m = a + (b - a) / 2;
      (below(f(m)) ? a : b) = m;
    }
    sweep(f, a, 4096, s);
  };
  edge(lo, 0.0, [](double v) { return v == 0; });
  edge(lo, 0.0, [](double v) { return v < std::numeric_limits<double>::min(); });
  edge(0.0, hi, [](double v) { return v < std::numeric_limits<double>::infinity(); });
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> small(-4, 4), whole(lo, hi);
  for (int i = 0; i < 50000; ++i) {
    sweep(f, small(g), 32, s);
    sweep(f, whole(g), 32, s);
  }
  return s;
}

double libm_exp(double x) { return std::exp(x); }

// A stand-in that breaks monotonicity by one ulp just past one table switch point.
double exp_with_a_dip(double x) {
  const double at = std::nextafter(1234 * (std::log(2.0) / 256), 1.0);
  const double e = std::exp(x);
  return x == at ? std::nextafter(std::exp(std::nextafter(x, -1.0)), 0.0) : e;
}

}  // namespace

TEST_CASE("LIBM-F64-EXP-MONOTONE: exp(x) <= exp(next(x)) on every pair of the windows and the seeded sample") {
  const Sweep s = validate(libm_exp);
  char seed_hex[24];
  std::snprintf(seed_hex, sizeof seed_hex, "0x%llx", static_cast<unsigned long long>(seed));
  MESSAGE("f64 exp: ", s.pairs, " consecutive pairs checked (sample seed ", seed_hex, "), ", s.violations, " decreasing");
  CHECK(s.pairs > 40000000);
  CHECK(s.violations == 0);
}

TEST_CASE("LIBM-F64-EXP-MONOTONE-CATCH: the same sweep finds an exp that dips by one ulp at one switch point") {
  const Sweep s = validate(exp_with_a_dip);
  CHECK(s.violations >= 1);
  CHECK(s.first == std::nextafter(std::nextafter(1234 * (std::log(2.0) / 256), 1.0), -1.0));
}
