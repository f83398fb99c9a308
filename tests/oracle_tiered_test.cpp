// attncheck: tests of the double-double and interval scalars and of the tiered oracle.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/oracle/tiered.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/scalar/double_double.hpp"
#include "attncheck/scalar/mpfi.hpp"
#include "attncheck/scalar/mpfr.hpp"

using namespace attncheck;
namespace tiered = attncheck::oracle::tiered;

namespace {

mpfr200 wide(dd x) { return mpfr200(x.hi) + mpfr200(x.lo); }  // exact: the parts span < 200 bits

// |computed - ref| / |ref| at 200 bits.
double rel_err(dd computed, const mpfr200& ref) {
  return abs(mpfr200((wide(computed) - ref) / ref)).convert_to<double>();
}

// A double-double with a genuine tail: x + x * 2^-60 * t, rounded to double-double.
dd random_dd(std::mt19937_64& g, double scale) {
  std::uniform_real_distribution<double> u(-1, 1);
  const double h = u(g) * scale;
  double s, e;
  eft::two_sum(h, h * 0x1p-60 * u(g), s, e);
  return {s, e};
}

template <class T>
std::vector<T> random_row(std::mt19937_64& g, std::size_t n, double sigma) {
  std::normal_distribution<double> nd(0, sigma);
  std::vector<T> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(scalar_traits<T>::from_double(nd(g)));
  return x;
}

// Every certified element equals the direct mpfr200 result rounded to T (±0 equal).
template <class T>
void check_against_mpfr(const tiered::result<T>& r, const std::vector<mpfr200>& exact) {
  REQUIRE(r.values.size() == exact.size());
  const auto& c = r.counts;
  CHECK(c.total() == exact.size());
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (!r.values[i].certified) continue;
    const T direct = oracle::round_to<T>(exact[i].backend().data());
    INFO("element ", i, " exact ", r.values[i].exact_text());
    CHECK(oracle::ulp_distance(r.values[i].rounded, direct) == 0);
  }
}

}  // namespace

TEST_CASE("Oracle: dd arithmetic stays within its stated bound against mpfr200") {
  std::mt19937_64 g(7);
  double worst = 0;
  for (int i = 0; i < 4000; ++i) {
    const dd a = random_dd(g, std::ldexp(1.0, i % 40 - 20)), b = random_dd(g, 1.0);
    const mpfr200 A = wide(a), B = wide(b);
    worst = std::max({worst, rel_err(a + b, A + B), rel_err(a - b, A - B),
                      rel_err(a * b, A * B), rel_err(a / b, A / B)});
  }
  MESSAGE("dd + - * /: max relative error ", worst / 0x1p-106, " u^2 (bound ",
          scalar_traits<dd>::arith_rel / 0x1p-106, " u^2)");
  CHECK(worst < scalar_traits<dd>::arith_rel);
  CHECK(dd(1.0) < dd(1.0, 0x1p-80));
  CHECK(dd(1.0, -0x1p-80) < dd(1.0));
  CHECK(dd(2.0) / dd(0.0) == dd(std::numeric_limits<double>::infinity()));
}

TEST_CASE("Oracle: dd exp, log and sqrt stay within their stated bounds against mpfr200") {
  std::mt19937_64 g(11);
  double we = 0, wl = 0, ws = 0;
  for (int i = 0; i < 3000; ++i) {
    // exp on [-600, 600] (results above 2^-969, where the tail is still normal), [-1, 1] and
    // near 0; log and sqrt on its results and on 1 + tiny (the cancellation log must avoid).
    const double scale = i % 3 == 0 ? 600 : i % 3 == 1 ? 1 : 1e-6;
    const dd x = random_dd(g, scale);
    const dd e = scalar_traits<dd>::exp(x);
    we = std::max(we, rel_err(e, boost::multiprecision::exp(wide(x))));
    wl = std::max(wl, rel_err(scalar_traits<dd>::log(e), boost::multiprecision::log(wide(e))));
    const dd near1 = dd(1.0) + random_dd(g, 1e-9);
    wl = std::max(wl, rel_err(scalar_traits<dd>::log(near1), boost::multiprecision::log(wide(near1))));
    ws = std::max(ws, rel_err(scalar_traits<dd>::sqrt(e), boost::multiprecision::sqrt(wide(e))));
    // Below 2^-969 the relative bound gives way to the absolute eta.
    const dd t = dd(-670.0) - random_dd(g, 75.0) * random_dd(g, 1.0);
    const mpfr200 et = boost::multiprecision::exp(wide(t));
    const mpfr200 err = abs(mpfr200(wide(scalar_traits<dd>::exp(t)) - et));
    CHECK(err <= et * scalar_traits<dd>::exp_rel + scalar_traits<dd>::eta);
  }
  MESSAGE("dd exp ", we / 0x1p-106, " u^2, log ", wl / 0x1p-106, " u^2, sqrt ", ws / 0x1p-106,
          " u^2 (u = 2^-53)");
  CHECK(we < scalar_traits<dd>::exp_rel);
  CHECK(wl < scalar_traits<dd>::log_rel);
  CHECK(ws < scalar_traits<dd>::sqrt_rel);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(scalar_traits<dd>::exp(dd(-inf)) == dd(0.0));
  CHECK(scalar_traits<dd>::exp(dd(800.0)) == dd(inf));
  CHECK(scalar_traits<dd>::log(dd(0.0)) == dd(-inf));
  CHECK(std::isnan(scalar_traits<dd>::log(dd(-1.0)).hi));
  CHECK(std::isnan(scalar_traits<dd>::sqrt(dd(-1.0)).hi));
  CHECK(scalar_traits<dd>::log(dd(1.0)) == dd(0.0));
}

static_assert(Scalar<dd> && Scalar<mpfi128>);

TEST_CASE("Oracle: the kernel templates run at dd and at mpfi128") {
  const std::vector<double> xs{1.5, -2, 0.25, 3};
  std::vector<dd> x(xs.begin(), xs.end()), y(4);
  kernels::softmax(x.data(), y.data(), 4);
  std::vector<mpfr200> X(xs.begin(), xs.end()), Y(4);
  kernels::softmax(X.data(), Y.data(), 4);
  std::vector<mpfi128> xi, yi(4);
  for (double v : xs) xi.emplace_back(v);
  const auto before = undecided_comparisons;
  kernels::softmax(xi.data(), yi.data(), 4);
  CHECK(undecided_comparisons == before);  // point inputs: the row max needs no decision
  for (int i = 0; i < 4; ++i) {
    CHECK(rel_err(y[i], Y[i]) < 0x1p-95);
    CHECK(mpfr_lessequal_p(yi[i].lower(), Y[i].backend().data()));  // MPFR result enclosed
    CHECK(mpfr_greaterequal_p(yi[i].upper(), Y[i].backend().data()));
  }
  // Overlapping intervals: undecidable, counted; the hull max encloses both.
  const mpfi128 a = yi[0] + yi[1], b = (yi[0] * mpfi128(3.0) + yi[1] * mpfi128(3.0)) / mpfi128(3.0);
  CHECK_FALSE(a > b);
  CHECK(undecided_comparisons == before + 1);
  const mpfi128 m = max_step(a, b);
  CHECK(mpfr_lessequal_p(m.lower(), a.lower()));
  CHECK(mpfr_greaterequal_p(m.upper(), b.upper()));
  CHECK(scalar_traits<mpfi128>::log(mpfi128(-1.0)).is_nan());
  CHECK((mpfi128(1.0) / (mpfi128(1.0) - mpfi128(1.0))).is_nan());  // divisor contains 0
}

TEST_CASE_TEMPLATE("Oracle: tiered softmax agrees with direct mpfr200 rounding", T, float, double,
                   f16, bf16) {
  std::mt19937_64 g(3);
  tiered::tier_counts total;
  for (int row = 0; row < 12; ++row) {
    const auto x = random_row<T>(g, 8 + 4 * row, row % 3 == 0 ? 1.0 : row % 3 == 1 ? 10.0 : 100.0);
    const auto r = tiered::softmax(x);
    std::vector<mpfr200> X = oracle::lift(x), Y(x.size());
    kernels::softmax(X.data(), Y.data(), X.size());
    check_against_mpfr(r, Y);
    total += r.counts;
  }
  MESSAGE(format_of<T>.name, " softmax: certified by double ", total.dbl, ", dd ", total.dd, ", mpfr ", total.mpfr,
          ", mpfi ", total.mpfi, "; uncertified ", total.uncertified);
  CHECK(total.certified() > 0);
  CHECK(total.uncertified == 0);
  if (format_of<T>.precision < 53) {
    CHECK(total.dbl > 0);
  } else {
    CHECK(total.dbl + total.dd == 0);  // f64 starts at the mpfr tier
  }
}

TEST_CASE_TEMPLATE("Oracle: every tiered kernel agrees with direct mpfr200 rounding", T, float,
                   double) {
  std::mt19937_64 g(5);
  const std::size_t n = 12, d = 4, dv = 3;
  const auto x = random_row<T>(g, n, 3.0), dx = random_row<T>(g, n, 1.0);
  const auto X = oracle::lift(x), DX = oracle::lift(dx);
  std::vector<mpfr200> Y(n);

  kernels::log_softmax(X.data(), Y.data(), n);
  check_against_mpfr(tiered::log_softmax(x), Y);
  kernels::softmax_jvp(X.data(), DX.data(), n, Y.data());
  check_against_mpfr(tiered::softmax_jvp(x, dx), Y);
  const T eps = T(1e-6);
  kernels::rmsnorm(X.data(), DX.data(), n, mpfr200(to_double(eps)), Y.data());
  check_against_mpfr(tiered::rmsnorm(x, dx, eps), Y);

  std::vector<T> p;  // a probability row with an exact zero
  for (const auto& v : Y) p.push_back(T(std::fabs(v.convert_to<double>()) / n));
  p[2] = T(0);
  const auto P = oracle::lift(p);
  check_against_mpfr(tiered::entropy(p), {kernels::entropy(P.data(), n)});

  const auto q = random_row<T>(g, 3 * d, 1.0), k = random_row<T>(g, n * d, 1.0);
  const auto v = random_row<T>(g, n * dv, 1.0);
  const auto Q = oracle::lift(q), K = oracle::lift(k), V = oracle::lift(v);
  std::vector<mpfr200> S(3 * n), O(3 * dv);
  kernels::scores(Q.data(), K.data(), 3, n, d, S.data());
  check_against_mpfr(tiered::scores(q, k, 3, n, d), S);
  kernels::attention(Q.data(), K.data(), V.data(), 3, n, d, dv, true, O.data());
  const auto att = tiered::attention(q, k, v, 3, n, d, dv, true);
  check_against_mpfr(att, O);
  CHECK(att.counts.uncertified == 0);  // masked -inf scores stay exact through the balls
}

// exp(x_i - max) across the underflow threshold: dd's absolute eta and the mpfr ball's 2^-1070
// floor are wider than f64's subnormal spacing, so those outputs fall through to mpfi.
TEST_CASE_TEMPLATE("Oracle: softmax outputs near underflow are certified by a higher tier", T,
                   float, double) {
  const double s = format_of<T>.precision == 53 ? 1 : 0.135;  // f32: same shape, scaled
  std::vector<T> x;
  for (double v : {0.0, -700.0, -740.0, -744.0, -745.5, -800.0}) x.push_back(T(v * s));
  const auto r = tiered::softmax(x);
  std::vector<mpfr200> X = oracle::lift(x), Y(x.size());
  kernels::softmax(X.data(), Y.data(), X.size());
  check_against_mpfr(r, Y);
  MESSAGE(format_of<T>.name, " underflow row: double ", r.counts.dbl, ", dd ", r.counts.dd, ", mpfr ", r.counts.mpfr,
          ", mpfi ", r.counts.mpfi, ", uncertified ", r.counts.uncertified);
  CHECK(r.counts.uncertified == 0);
  if (format_of<T>.precision == 53) {
    CHECK(r.counts.mpfi > 0);
  }
}

// s = (q . k) / sqrt(4) with q = (3, 2^-60), k = (1 + 2^-23, 2^-60): 3 (1 + 2^-23) / 2 is the
// midpoint 1.5 + 1.5 * 2^-23 of two floats, and the 2^-120 / 2 term moves it off by 2^-121 --
// inside dd's error bound, far outside mpfr200's.
TEST_CASE("Oracle: a score 2^-121 above an f32 rounding boundary is decided at the mpfr tier") {
  const std::vector<float> q{3, 0x1p-60f, 0, 0}, k{1 + 0x1p-23f, 0x1p-60f, 0, 0};
  const auto r = tiered::scores(q, k, 1, 1, 4);
  REQUIRE(r.values.size() == 1);
  CHECK(r.values[0].certified);
  CHECK(r.values[0].decided_by == tiered::tier::mpfr);
  CHECK(r.counts.mpfr == 1);
  CHECK(r.values[0].rounded == 1.5f + 0x1p-22f);  // just above the midpoint: rounds up
  const std::vector<float> k_below{1 + 0x1p-23f, -0x1p-60f, 0, 0};
  const auto below = tiered::scores(q, k_below, 1, 1, 4);
  CHECK(below.values[0].decided_by == tiered::tier::mpfr);
  CHECK(below.values[0].rounded == 1.5f + 0x1p-23f);
}

TEST_CASE("Oracle: a score exactly on an f32 rounding boundary is decided by mpfi, ties to even") {
  const std::vector<float> q{3, 0, 0, 0}, k{1 + 0x1p-23f, 0, 0, 0};
  const auto r = tiered::scores(q, k, 1, 1, 4);
  CHECK(r.values[0].certified);
  CHECK(r.values[0].decided_by == tiered::tier::mpfi);  // only a point enclosure decides a tie
  CHECK(r.values[0].rounded == 1.5f + 0x1p-22f);         // 0x3fc00002: the even neighbour
  CHECK(r.values[0].exact_text() == "1.5000001788139343262");
}

// (3 (1 + 3 * 2^-52) + t) / 2 = 1.5 + 4.5 * 2^-52 + t/2: a tie whose even neighbour lies below,
// so an enclosure reaching down to the tie cannot certify the upward rounding t > 0 forces.
TEST_CASE("Oracle: an f64 score within 2^-301 of a boundary is decided at the mpfi tier") {
  const double k1 = 1 + 3 * 0x1p-52;
  const std::vector<double> q{3, 0x1p-150, 0, 0}, k{k1, 0x1p-150, 0, 0};  // t = 2^-300
  const auto r = tiered::scores(q, k, 1, 1, 4);
  CHECK(r.values[0].certified);  // beyond mpfr200's radius: the 2048-bit intervals decide
  CHECK(r.values[0].decided_by == tiered::tier::mpfi);
  CHECK(r.counts.mpfi == 1);
  CHECK(r.values[0].rounded == 1.5 + 5 * 0x1p-52);
  const std::vector<double> q3{3, 0, 0, 0}, k3{k1, 0, 0, 0};  // t = 0: the tie, to even
  CHECK(tiered::scores(q3, k3, 1, 1, 4).values[0].rounded == 1.5 + 4 * 0x1p-52);
}

// Two keys with equal scores q.k / sqrt(2) (irrational) give p = (1/2, 1/2) exactly, so the
// output (v0 + v1) / 2 is a tie; no enclosure of the irrational intermediates proves that.
TEST_CASE_TEMPLATE("Oracle: a tie reached through irrational intermediates stays uncertified and "
                   "is counted", T, float, double) {
  const T one = T(1), next = std::nextafter(one, T(2));
  const std::vector<T> q{one, T(0)}, k{one, T(0), one, T(0)}, v{one, next};
  const auto r = tiered::attention(q, k, v, 1, 2, 2, 1, false);
  REQUIRE(r.values.size() == 1);
  CHECK_FALSE(r.values[0].certified);
  CHECK(r.counts.uncertified == 1);
  CHECK(r.counts.certified() == 0);
  CHECK(r.values[0].decided_by == tiered::tier::mpfi);
  CHECK(r.values[0].rel_radius() > 0);
  CHECK(std::fabs(r.values[0].exact - (1 + (to_double(next) - 1) / 2)) < 1e-30);
}

TEST_CASE("Oracle: with dd_for_f64 the dd tier certifies f64 softmax outputs soundly") {
  std::mt19937_64 g(9);
  const auto x = random_row<double>(g, 64, 4.0);
  const auto r = tiered::softmax(x, {.dd_for_f64 = true});
  std::vector<mpfr200> X = oracle::lift(x), Y(x.size());
  kernels::softmax(X.data(), Y.data(), X.size());
  check_against_mpfr(r, Y);
  MESSAGE("f64 softmax, n = 64, dd tier allowed: dd ", r.counts.dd, ", mpfr ", r.counts.mpfr);
  CHECK(r.counts.dd > 0);
}
