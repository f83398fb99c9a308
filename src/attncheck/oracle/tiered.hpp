// attncheck: the tiered, certifying oracle: the kernel templates evaluated with error enclosures
// at double-double, then MPFR, then MPFI, until each output's rounding to T is certified.
#pragma once

#include <cmath>
#include <limits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::oracle::tiered {

// Tier 0 "double" (f16, bf16, f32 targets only): the kernel at ball<double> (plain double
// centre, rigorous radius from IEEE's correctly rounded + - * / sqrt and glibc's documented exp
// and log error). Tier 1 "dd": ball<dd> (double-double centre, rigorous radius from the stated
// per-operation error bounds). Tier 2 "mpfr": ball<mpfr200>. Tier 3 "mpfi": outward-rounded
// intervals at 256, then 2048 bits. An element is certified by a tier iff every point of that
// tier's enclosure rounds (to nearest even) to the same T value: then it is RN_T(exact value).
enum class tier : unsigned char { dbl, dd, mpfr, mpfi };
std::string_view tier_name(tier t);  // "double", "dd", "mpfr", "mpfi"

struct options {
  // dd certifies most f64 outputs soundly too, but the issue asks for f64 to start at mpfr.
  bool dd_for_f64 = false;
  // The lowest tier to run: tiers below it are skipped (tests compare each tier's verdicts
  // with the mpfi tier's alone).
  tier first = tier::dbl;
};

// Thrown where the oracle cannot decide a comparison (no enclosure, or an error within the
// enclosure's width of its allowance): the check reports ERROR with this message, never a
// pass or a fail that the oracle's own uncertainty decided.
struct no_verdict : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
std::string decimal_dd(double hi, double lo, int digits);  // hi + lo, exactly summed, in decimal
}  // namespace detail

template <class T>
struct element {
  double exact = 0;          // the exact value (the enclosure's centre) rounded to double
  double exact_tail = 0;     // exact + exact_tail: the centre to ~106 bits
  T rounded{};               // RN_T(exact); a best guess when not certified
  bool certified = false;
  tier decided_by = tier::mpfi;  // the tier that certified it (else: whose guess is shown)
  double radius = 0;         // half-width of that tier's enclosure, absolute (inf: no enclosure)
  // The centre as a long double where it is finite but beyond double's range (exact is then
  // ±inf): an f64 result that overflows, judged against its rounding (oracle::error_in_format)
  // within an allowance that must stay finite. NaN otherwise.
  long double exact_wide = std::numeric_limits<long double>::quiet_NaN();

  double rel_radius() const { return radius == 0 ? 0 : radius / std::fabs(exact); }

  // The centre to 20 significant digits. Formatted on demand (only failure reports need it):
  // formatting every element cost more than evaluating the kernel.
  std::string exact_text() const { return detail::decimal_dd(exact, exact_tail, 20); }
};

struct tier_counts {
  std::size_t dbl = 0, dd = 0, mpfr = 0, mpfi = 0, uncertified = 0;
  std::size_t total() const { return dbl + dd + mpfr + mpfi + uncertified; }
  std::size_t certified() const { return dbl + dd + mpfr + mpfi; }
  tier_counts& operator+=(const tier_counts& o) {
    dbl += o.dbl, dd += o.dd, mpfr += o.mpfr, mpfi += o.mpfi, uncertified += o.uncertified;
    return *this;
  }
};

// While a tally is alive, every tiered evaluation on its thread adds its counts to it (and to
// the tallies it shadows, which see the sum when it ends). A gate check holds one, so the report
// says how many reference values were certified, by which tier, and how many were not.
class tally {
 public:
  tally();
  ~tally();
  tally(const tally&) = delete;
  tally& operator=(const tally&) = delete;
  tier_counts counts;

 private:
  tally* outer_;
};

template <class T>
struct result {
  std::vector<element<T>> values;
  tier_counts counts;  // certified per tier; uncertified ones are counted, never dropped
};

// The type-erased engine (tiered.cpp): inputs as doubles (exact for every T), T as its format.
// Each kernel is instantiated once per tier scalar there, not per T.
namespace detail {
using raw = result<double>;
using vec = std::vector<double>;
raw softmax(const vec& x, const format_info& f, const options& o);
raw log_softmax(const vec& x, const format_info& f, const options& o);
raw scores(const vec& q, const vec& k, std::size_t n, std::size_t m, std::size_t d,
           const format_info& f, const options& o);
raw rmsnorm(const vec& x, const vec& w, double eps, const format_info& f, const options& o);
raw entropy(const vec& p, const format_info& f, const options& o);
raw softmax_jvp(const vec& x, const vec& dx, const format_info& f, const options& o);
raw attention(const vec& q, const vec& k, const vec& v, std::size_t n, std::size_t m,
              std::size_t d, std::size_t dv, bool causal, const format_info& f, const options& o);

template <class T>
vec widen(const std::vector<T>& x) {
  vec r;
  r.reserve(x.size());
  for (const T& v : x) r.push_back(scalar_traits<T>::to_double(v));
  return r;
}
template <class T>
result<T> narrow(raw&& r) {  // rounded values lie on T's grid: the conversion is exact
  result<T> out{{}, r.counts};
  out.values.reserve(r.values.size());
  for (auto& v : r.values)
    out.values.push_back({v.exact, v.exact_tail, scalar_traits<T>::from_double(v.rounded),
                          v.certified, v.decided_by, v.radius, v.exact_wide});
  return out;
}
}  // namespace detail

// Same arguments and layouts as the kernels (kernels/*.hpp) and oracle/exact.hpp.
template <class T>
result<T> softmax(const std::vector<T>& x, const options& o = {}) {
  return detail::narrow<T>(detail::softmax(detail::widen(x), format_of<T>, o));
}
template <class T>
result<T> log_softmax(const std::vector<T>& x, const options& o = {}) {
  return detail::narrow<T>(detail::log_softmax(detail::widen(x), format_of<T>, o));
}
template <class T>
result<T> scores(const std::vector<T>& q, const std::vector<T>& k, std::size_t n, std::size_t m,
                 std::size_t d, const options& o = {}) {
  return detail::narrow<T>(
      detail::scores(detail::widen(q), detail::widen(k), n, m, d, format_of<T>, o));
}
template <class T>
result<T> rmsnorm(const std::vector<T>& x, const std::vector<T>& w, T eps, const options& o = {}) {
  return detail::narrow<T>(detail::rmsnorm(detail::widen(x), detail::widen(w),
                                           scalar_traits<T>::to_double(eps), format_of<T>, o));
}
template <class T>
result<T> entropy(const std::vector<T>& p, const options& o = {}) {  // one value
  return detail::narrow<T>(detail::entropy(detail::widen(p), format_of<T>, o));
}
template <class T>
result<T> softmax_jvp(const std::vector<T>& x, const std::vector<T>& dx, const options& o = {}) {
  return detail::narrow<T>(
      detail::softmax_jvp(detail::widen(x), detail::widen(dx), format_of<T>, o));
}
template <class T>
result<T> attention(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                    std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal,
                    const options& o = {}) {
  return detail::narrow<T>(detail::attention(detail::widen(q), detail::widen(k), detail::widen(v),
                                             n, m, d, dv, causal, format_of<T>, o));
}

}  // namespace attncheck::oracle::tiered
