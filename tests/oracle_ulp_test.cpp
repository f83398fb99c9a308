// attncheck: tests of the ULP conventions, rounding onto a format's grid and the mismatch report.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>

#include "attncheck/oracle/ulp.hpp"

using namespace attncheck;
using oracle::ulp_distance;
using oracle::ulp_error;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
float f32_bits(std::uint32_t b) { return scalar_traits<float>::from_bits(b); }

// An exact sum of doubles (or a decimal string) at 400 bits; raw MPFR keeps Boost out of this
// file's compile.
struct exact {
  mpfr_t v;
  exact(std::initializer_list<double> terms) {
    mpfr_init2(v, 400);
    mpfr_set_zero(v, 1);
    for (double t : terms) mpfr_add_d(v, v, t, MPFR_RNDN);
  }
  explicit exact(const char* decimal) {
    mpfr_init2(v, 400);
    mpfr_set_str(v, decimal, 10, MPFR_RNDN);
  }
  ~exact() { mpfr_clear(v); }
  exact(const exact&) = delete;
  exact& operator=(const exact&) = delete;
};
template <class T>
T rnd(const exact& x) { return oracle::round_to<T>(x.v); }
}  // namespace

TEST_CASE("Oracle: ULP +0 and -0 are equal") {
  CHECK(ulp_distance(0.0f, -0.0f) == 0);
  CHECK(ulp_distance(f16(0), f16(-0.0)) == 0);
  CHECK(ulp_distance(-0.0, std::numeric_limits<double>::denorm_min()) == 1);
  CHECK(ulp_error(-0.0f, 0.0) == 0);
}

TEST_CASE("Oracle: ULP NaN matches NaN whatever the payload, and nothing else") {
  const float qnan = f32_bits(0x7fc00001), neg_nan = f32_bits(0xffc00000);
  CHECK(ulp_distance(qnan, neg_nan) == 0);
  CHECK(ulp_distance(qnan, 1.0f) == inf);
  CHECK(ulp_distance(bf16::from_bits(0x7fc1), bf16::from_bits(0xffc0)) == 0);
  CHECK(ulp_error(qnan, std::nan("")) == 0);
  CHECK(ulp_error(qnan, 1.0) == inf);
  CHECK(ulp_error(1.0f, std::nan("")) == inf);
}

TEST_CASE("Oracle: ULP infinities equal only themselves") {
  const float finf = std::numeric_limits<float>::infinity();
  const float fmax = std::numeric_limits<float>::max();
  CHECK(ulp_distance(finf, finf) == 0);
  CHECK(ulp_distance(finf, -finf) == inf);
  CHECK(ulp_distance(finf, fmax) == inf);
  CHECK(ulp_error(finf, inf) == 0);
  CHECK(ulp_error(-finf, inf) == inf);
  CHECK(ulp_error(finf, 3.5e38) == inf);  // exact beyond FLT_MAX: compare against the rounded value
  CHECK(ulp_error(fmax, inf) == inf);
}

TEST_CASE("Oracle: ULP subnormals are measured on T's grid") {
  const float dmin = std::numeric_limits<float>::denorm_min();
  const float fmin = std::numeric_limits<float>::min();
  CHECK(ulp_distance(dmin, 2 * dmin) == 1);
  CHECK(ulp_distance(0.0f, dmin) == 1);
  CHECK(ulp_distance(-dmin, dmin) == 2);
  CHECK(ulp_distance(fmin, std::nextafter(fmin, 0.0f)) == 1);  // across the normal boundary
  CHECK(oracle::ulp_of(0x1p-140, format_of<float>) == 0x1p-149);
  CHECK(oracle::ulp_of(0x1p-20, format_of<f16>) == 0x1p-24);
  CHECK(oracle::ulp_of(1e-40, format_of<bf16>) == 0x1p-133);
  CHECK(oracle::ulp_of(0.0, format_of<double>) == 0x1p-1074);
  CHECK(ulp_error(f16(0x1p-24), 0.0) == 1);
  CHECK(ulp_error(0x1p-149f, 0x1p-151) == doctest::Approx(0.75));
}

TEST_CASE("Oracle: ULP error is fractional against the exact value, on the exact value's binade") {
  CHECK(ulp_error(1.0f, 1 + 0x1p-25) == 0.25);
  CHECK(ulp_error(1.0f, 1 - 0x1p-26) == 0.25);       // below 1 the spacing halves
  CHECK(ulp_error(1.0f, 1.0, -0x1p-60) == 0x1p-36);  // exact just below 1: tail decides binade
  CHECK(ulp_error(1.0, 1.0, 0x1p-54) == 0.25);       // f64 needs the tail
  CHECK(ulp_error(1.0f, exact{1, 0x1p-25}.v) == 0.25);
  CHECK(ulp_error(bf16(1.0f), 1 + 0x1p-9) == 0.25);
}

TEST_CASE("Oracle: rounding onto T's grid is to nearest, ties to even, with subnormals and overflow") {
  CHECK(rnd<float>({1, 0x1p-24}) == 1.0f);
  CHECK(rnd<float>({1, 3 * 0x1p-24}) == 1 + 0x1p-22f);
  CHECK(rnd<float>({1.5 * 0x1p-149}) == 0x1p-148f);
  CHECK(rnd<float>({0.5 * 0x1p-149}) == 0.0f);
  CHECK(rnd<float>({0.75 * 0x1p-149}) == 0x1p-149f);
  CHECK(std::signbit(rnd<float>({-0x1p-200})));
  const double fmax = std::numeric_limits<float>::max();
  CHECK(std::isinf(rnd<float>({fmax, 0x1p103})));  // the overflow tie goes to infinity
  CHECK(rnd<float>({fmax, 0x1p103, -1}) == std::numeric_limits<float>::max());
  CHECK(std::isinf(to_double(rnd<f16>({65520}))));
  CHECK(to_double(rnd<f16>({65519})) == 65504);
  CHECK(float(rnd<bf16>({1, 0x1p-8})) == 1.0f);
  CHECK(float(rnd<bf16>({1, 3 * 0x1p-8})) == 1 + 0x1p-6f);
  CHECK(rnd<double>({1, 0x1p-53, 0x1p-190}) == 1 + 0x1p-52);
  CHECK(std::isnan(rnd<double>({std::nan("")})));
}

TEST_CASE("Oracle: decimal() prints like %.20Rg") {
  CHECK(oracle::decimal(exact{1.5, 1.5 * 0x1p-23}.v) == "1.5000001788139343262");
  CHECK(oracle::decimal(exact{-2.5e-30}.v, 5) == "-2.5e-30");
  CHECK(oracle::decimal(exact{0.001}.v, 3) == "0.001");
  CHECK(oracle::decimal(exact{1e20}.v) == "1e+20");
  exact z{0.0};
  mpfr_neg(z.v, z.v, MPFR_RNDN);
  CHECK(oracle::decimal(z.v) == "-0");
  CHECK(oracle::decimal(exact{inf}.v) == "inf");
  CHECK(oracle::decimal(exact{std::nan("")}.v) == "nan");
  double v = 1e-40;
  for (int i = 0; i < 200; ++i, v *= -3.7) {  // magnitudes 1e-40 .. 1e73, both notations
    const exact x{v, v * 1e-30};
    char want[64];
    mpfr_snprintf(want, sizeof want, "%.20Rg", x.v);
    CHECK(oracle::decimal(x.v) == want);
  }
}

TEST_CASE("Oracle: the mismatch report shows bits, decimal, exact, rounded and ULP error") {
  const exact e("0.5761168847658291098583189");
  oracle::mismatch<float> m;
  m.what = "FALSIFY-SM-003 (softmax-kernel-v1) failed: softmax<float>, element 2 of 3";
  m.input = {0.0f, -0.0f, 1.0f};
  m.computed = f32_bits(0x3f137c67);
  m.rounded = rnd<float>(e);
  m.exact_text = "0.57611688476582910986";
  m.exact_source = "certified by mpfr, 200 bits";
  m.ulp_error = ulp_error(m.computed, e.v);
  m.bound = "bound 1.5 ULP, derived";
  const std::string s = oracle::format_mismatch(m);
  MESSAGE(s);
  char err[32];
  std::snprintf(err, sizeof err, "%.3f", m.ulp_error);
  CHECK(m.ulp_error > 1.5);
  CHECK(m.ulp_error < 2);
  CHECK(s.find(m.what + "\n") == 0);
  CHECK(s.find("  Input bits:  [0x00000000, 0x80000000, 0x3f800000]\n") != std::string::npos);
  CHECK(s.find("  Input:       [0, -0, 1]\n") != std::string::npos);
  CHECK(s.find("  Kernel:      0x3f137c67  0.576116979\n") != std::string::npos);
  CHECK(s.find("  Exact:       0.57611688476582910986  (certified by mpfr, 200 bits)\n") !=
        std::string::npos);
  CHECK(s.find("  Rounded:     0x3f137c65  0.57611686\n") != std::string::npos);
  CHECK(s.find(std::string("  ULP error:   ") + err + "  (2 ULP from the rounded value; bound 1.5 "
               "ULP, derived)\n") != std::string::npos);

  oracle::mismatch<bf16> b;  // 16-bit formats print 4 hex digits
  b.input = {bf16(1.0f)};
  b.computed = bf16(2.0f);
  b.rounded = bf16(1.0f);
  const std::string sb = oracle::format_mismatch(b);
  CHECK(sb.find("[0x3f80]") != std::string::npos);
  CHECK(sb.find("0x4000  2") != std::string::npos);
}
