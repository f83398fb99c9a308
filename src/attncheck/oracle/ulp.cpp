// attncheck: ULP measures on a format's grid, rounding onto it, and the mismatch report text.
#include "attncheck/oracle/ulp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "attncheck/scalar/double_double.hpp"

namespace attncheck::oracle {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

struct mp {  // one MPFR temporary
  mpfr_t v;
  explicit mp(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~mp() { mpfr_clear(v); }
  mp(const mp&) = delete;
  mp& operator=(const mp&) = delete;
};

// Exponent of ulp_T at a value of binade 2^e: the grid stops refining at emin (subnormals).
long ulp_exponent(long e, const format_info& f) {
  return std::max<long>(e, f.min_exponent) - f.precision + 1;
}

// Shared by both ulp_error overloads: the non-finite rules; returns false if both are finite.
bool special_error(double computed, bool exact_nan, bool exact_inf, double exact_sign, double& out) {
  if (exact_nan || std::isnan(computed)) {
    out = exact_nan && std::isnan(computed) ? 0 : inf;
    return true;
  }
  if (exact_inf || std::isinf(computed)) {
    out = exact_inf && std::isinf(computed) && std::signbit(computed) == std::signbit(exact_sign)
              ? 0 : inf;
    return true;
  }
  return false;
}

}  // namespace

double ulp_of(double x, const format_info& f) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return inf;
  if (x == 0) return f.denorm_min;
  return std::ldexp(1.0, static_cast<int>(ulp_exponent(std::ilogb(x), f)));
}

double ulp_of(mpfr_srcptr x, const format_info& f) {
  if (mpfr_nan_p(x)) return std::numeric_limits<double>::quiet_NaN();
  if (mpfr_inf_p(x)) return inf;
  if (mpfr_zero_p(x)) return f.denorm_min;
  const long q = ulp_exponent(mpfr_get_exp(x) - 1, f);  // MPFR: |x| in [2^(exp-1), 2^exp)
  return q > 1100 ? inf : std::ldexp(1.0, static_cast<int>(std::max(q, -1100L)));
}

double round_to_format(mpfr_srcptr x, const format_info& f) {
  if (mpfr_nan_p(x)) return std::numeric_limits<double>::quiet_NaN();
  const double sign = mpfr_signbit(x) ? -1.0 : 1.0;
  if (mpfr_inf_p(x)) return sign * inf;
  if (mpfr_zero_p(x)) return sign * 0.0;
  const long e = mpfr_get_exp(x) - 1;
  if (e > f.max_exponent) return sign * inf;
  const long q = ulp_exponent(e, f);
  mp y(std::max<mpfr_prec_t>(mpfr_get_prec(x), f.precision + 2));
  mpfr_mul_2si(y.v, x, -q, MPFR_RNDN);  // exact: a power of two
  mpfr_rint(y.v, y.v, MPFR_RNDN);       // MPFR's RNDN is ties-to-even; sign kept for -0
  mpfr_mul_2si(y.v, y.v, q, MPFR_RNDN);
  const double r = mpfr_get_d(y.v, MPFR_RNDN);  // exact: T's grid lies in double's
  return std::fabs(r) > f.max_finite ? sign * inf : r;
}

long double overflow_threshold(const format_info& f) {
  return std::ldexp(2.0L - std::ldexp(1.0L, -f.precision), f.max_exponent);
}

namespace detail {
double round_long_double(long double exact, const format_info& f) {
  mp x(64);  // a long double's significand: exact
  mpfr_set_ld(x.v, exact, MPFR_RNDN);
  return round_to_format(x.v, f);
}

long double error_in_format(double got, long double exact, double rounded, const format_info& f) {
  if (std::isfinite(got)) return std::isnan(exact) ? std::numeric_limits<long double>::infinity()
                                                  : std::fabs(static_cast<long double>(got) - exact);
  if (std::isnan(got) ? std::isnan(rounded) : got == rounded) return 0;
  if (std::isnan(got) || std::isnan(exact)) return std::numeric_limits<long double>::infinity();
  // The other infinity, or an infinity of the sign the exact value does not have.
  if (std::isinf(exact) || (got > 0) != (exact > 0)) return std::numeric_limits<long double>::infinity();
  const long double to_threshold = overflow_threshold(f) - (got > 0 ? exact : -exact);
  return std::max<long double>(0, to_threshold);
}
}  // namespace detail

std::string decimal(mpfr_srcptr x, int digits) {
  if (mpfr_nan_p(x)) return "nan";
  if (mpfr_inf_p(x)) return mpfr_signbit(x) ? "-inf" : "inf";
  if (mpfr_zero_p(x)) return mpfr_signbit(x) ? "-0" : "0";
  std::string d(static_cast<std::size_t>(digits) + 2, '\0');
  mpfr_exp_t e;  // x = 0.d1d2... 10^e
  mpfr_get_str(d.data(), &e, 10, static_cast<std::size_t>(digits), x, MPFR_RNDN);
  d.resize(d.find('\0'));
  std::string sign;
  if (d[0] == '-') {
    sign = "-";
    d.erase(0, 1);
  }
  const long x10 = e - 1;  // the decimal exponent of the leading digit
  auto trim = [](std::string s) {  // %g drops trailing zeros and a bare point
    if (s.find('.') == std::string::npos) return s;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
  };
  if (x10 < -4 || x10 >= digits) {
    char ex[32];
    std::snprintf(ex, sizeof ex, "e%c%02ld", x10 < 0 ? '-' : '+', x10 < 0 ? -x10 : x10);
    return sign + trim(d.substr(0, 1) + "." + d.substr(1)) + ex;
  }
  if (x10 < 0) return sign + trim("0." + std::string(static_cast<std::size_t>(-x10 - 1), '0') + d);
  return sign + trim(d.substr(0, static_cast<std::size_t>(x10) + 1) + "." +
                     d.substr(static_cast<std::size_t>(x10) + 1));
}

namespace detail {

double ulp_distance_bits(std::uint64_t a, std::uint64_t b, int bit_width, bool a_nan, bool b_nan,
                         bool a_inf, bool b_inf) {
  if (a_nan || b_nan) return a_nan && b_nan ? 0 : inf;
  if (a_inf || b_inf) return a == b ? 0 : inf;
  // Sign-magnitude bit patterns order like the values; -0 and +0 both map to 0.
  const std::uint64_t sign = std::uint64_t{1} << (bit_width - 1);
  auto ord = [&](std::uint64_t x) {
    const __int128 m = static_cast<__int128>(x & (sign - 1));
    return (x & sign) ? -m : m;
  };
  const __int128 d = ord(a) - ord(b);
  return static_cast<double>(d < 0 ? -d : d);
}

double ulp_error(double computed, double exact, double exact_tail, const format_info& f) {
  double out;
  if (special_error(computed, std::isnan(exact), std::isinf(exact), exact, out)) return out;
  if (exact == 0) return std::fabs(computed) / f.denorm_min;
  int e = std::ilogb(exact);
  int m;
  // exact + tail lies just below a power of two when the tail pulls it down a binade.
  if (std::frexp(std::fabs(exact), &m) == 0.5 && exact_tail != 0 &&
      std::signbit(exact_tail) != std::signbit(exact))
    --e;
  double s, t;
  eft::two_sum(computed, -exact, s, t);
  const dd diff = dd(s, t) - dd(exact_tail);
  return std::ldexp(std::fabs(diff.hi), -static_cast<int>(ulp_exponent(e, f)));
}

double ulp_error(double computed, mpfr_srcptr exact, const format_info& f) {
  double out;
  if (special_error(computed, mpfr_nan_p(exact), mpfr_inf_p(exact), mpfr_signbit(exact) ? -1 : 1,
                    out))
    return out;
  const long q = mpfr_zero_p(exact) ? ulp_exponent(f.min_exponent, f)
                                    : ulp_exponent(mpfr_get_exp(exact) - 1, f);
  mp d(mpfr_get_prec(exact) + 64);
  mpfr_d_sub(d.v, computed, exact, MPFR_RNDN);
  mpfr_abs(d.v, d.v, MPFR_RNDN);
  mpfr_mul_2si(d.v, d.v, -q, MPFR_RNDN);
  return mpfr_get_d(d.v, MPFR_RNDN);
}

std::string format_mismatch(const report_fields& r) {
  // Enough decimal digits to identify a T value: ceil(1 + p log10 2) (9 for f32, 17 for f64).
  const int digits = static_cast<int>(std::ceil(1 + r.format.precision * 0.30102999566398120));
  const int hex = r.bit_width / 4;
  char buf[128];
  auto bits = [&](std::uint64_t b) {
    std::snprintf(buf, sizeof buf, "0x%0*llx", hex, static_cast<unsigned long long>(b));
    return std::string(buf);
  };
  auto dec = [&](double v) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return std::string(buf);
  };
  constexpr std::size_t shown = 32;  // long rows: the first 32 entries and a count
  std::string in_bits = "[", in_dec = "[";
  for (std::size_t i = 0; i < r.input.size() && i < shown; ++i) {
    const char* sep = i ? ", " : "";
    in_bits += sep + bits(r.input[i].bits);
    in_dec += sep + dec(r.input[i].value);
  }
  if (r.input.size() > shown) {
    const std::string more = ", ... (" + std::to_string(r.input.size()) + " entries)";
    in_bits += more;
    in_dec += more;
  }
  in_bits += "]";
  in_dec += "]";
  auto num = [&](const char* fmt, double v) {
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  std::string s;
  s += std::string(r.what) + "\n";
  s += "  Input bits:  " + in_bits + "\n";
  s += "  Input:       " + in_dec + "\n";
  s += "  Kernel:      " + bits(r.computed.bits) + "  " + dec(r.computed.value) + "\n";
  s += "  Exact:       " + std::string(r.exact_text) + "  (" + std::string(r.exact_source) + ")\n";
  s += "  Rounded:     " + bits(r.rounded.bits) + "  " + dec(r.rounded.value) + "\n";
  s += "  ULP error:   " + num("%.3f", r.ulp_error) + "  (" + num("%.0f", r.ulp_distance) +
       " ULP from the rounded value" + (r.bound.empty() ? "" : "; " + std::string(r.bound)) + ")\n";
  return s;
}

}  // namespace detail
}  // namespace attncheck::oracle
