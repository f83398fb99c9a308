// attncheck: every comparison with an exact value starts from the exact value's rounding to the
// target format, overflow included (oracle::error_in_format, property::expect_close). A correct
// kernel whose exact result lies beyond the format's range returns ±inf, and that is no error;
// a finite or NaN output there is one. Tested on the inputs that exposed the false alarm
// (log_softmax of [-inf, -max, max/2], issue "Sharp falsification", part 1) and the like for
// every kind whose result can overflow, at f16, bf16, f32 and f64, with the reference kernel
// (arithmetic in T) and with a kernel that computes in long double and rounds once.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/rmsnorm.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/oracle/certified.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck {
namespace {

using oracle::real;
constexpr double inf = std::numeric_limits<double>::infinity();

template <class T>
T t(double v) { return scalar_traits<T>::from_double(v); }

template <class T>
double maxf() { return format_of<T>.max_finite; }

// True when expect_close passes got against exact within allowed (it throws on a failure).
template <class T>
bool accepted(T got, real exact, real allowed, const oracle::tiered::element<T>* ref = nullptr) {
  const std::vector<T> none;
  try {
    property::expect_close<T>("TEST", "element", "Input", none, got, exact, allowed, ref);
    return true;
  } catch (...) {
    return false;
  }
}

// log_softmax computed in long double and rounded once to T: the correct kernel of the issue,
// y_i = (x_i - m) - log Σ exp(x_j - m).
template <class T>
std::vector<T> wide_log_softmax(const std::vector<T>& x) {
  long double m = -INFINITY, s = 0;
  for (const T& v : x) m = std::max<long double>(m, to_double(v));
  for (const T& v : x) s += std::exp(static_cast<long double>(to_double(v)) - m);
  std::vector<T> y;
  for (const T& v : x) y.push_back(t<T>(static_cast<double>((static_cast<long double>(to_double(v)) - m) - std::log(s))));
  return y;
}

TEST_CASE_TEMPLATE("Format error: the exact value beyond the range is judged against its rounding, ±inf", T, f16, bf16, float,
                   double) {
  const format_info& f = format_of<T>;
  const long double thr = oracle::overflow_threshold(f);
  CHECK(thr > f.max_finite);
  const long double beyond = -1.5L * static_cast<long double>(f.max_finite);  // RN_T = -inf
  CHECK(oracle::error_in_format<T>(t<T>(-inf), beyond) == 0);
  CHECK(oracle::error_in_format<T>(t<T>(inf), beyond) == inf);
  CHECK(oracle::error_in_format<T>(t<T>(std::nan("")), beyond) == inf);
  // The largest finite value is a finite answer where none is right: its real distance.
  CHECK(oracle::error_in_format<T>(t<T>(-f.max_finite), beyond) == doctest::Approx(0.5 * f.max_finite).epsilon(1e-12));
  // An exact value just inside the range: an infinite output errs by the distance to the threshold.
  const long double inside = static_cast<long double>(f.max_finite);
  CHECK(oracle::error_in_format<T>(t<T>(inf), inside) == thr - inside);
  CHECK(oracle::error_in_format<T>(t<T>(-inf), inside) > thr);
  // Finite results are measured as they always were.
  CHECK(oracle::error_in_format<T>(t<T>(1.0), 1.25L) == 0.25L);
  // And the verdicts: RN_T(exact) passes with any allowance, even 0; nothing else does.
  CHECK(accepted<T>(t<T>(-inf), beyond, 0));
  CHECK_FALSE(accepted<T>(t<T>(-f.max_finite), beyond, 1e-3L * f.max_finite));
  CHECK_FALSE(accepted<T>(t<T>(inf), beyond, 1e300L));
  CHECK_FALSE(accepted<T>(t<T>(std::nan("")), beyond, 1e300L));
  CHECK(accepted<T>(t<T>(inf), inside, (thr - inside)));
  CHECK_FALSE(accepted<T>(t<T>(inf), inside, (thr - inside) / 2));
  CHECK(accepted<T>(t<T>(1.0), 1.0L + 0x1p-80L, 0));  // RN_T(exact) = 1, allowance 0
}

TEST_CASE_TEMPLATE("Format error: log_softmax of [-inf, -max, max/2] (AUDIT-MASK-002, FALSIFY-SM-009)", T, f16, bf16, float,
                   double) {
  const std::vector<T> finite = {t<T>(-maxf<T>()), t<T>(maxf<T>() / 2)};
  const std::vector<T> x = {t<T>(-inf), finite[0], finite[1]};
  const auto ex = oracle::certified::softmax_row(finite);
  const auto lb = bounds::log_softmax_bound(ex, bounds::model_of<T>());
  CHECK(ex.logp[0] < -static_cast<real>(maxf<T>()));  // beyond the range: RN_T is -inf
  std::vector<T> ref(x.size());
  kernels::log_softmax(x.data(), ref.data(), x.size());
  for (const auto& y : {ref, wide_log_softmax(x)}) {
    CHECK(to_double(y[0]) == -inf);
    for (std::size_t i = 1; i < x.size(); ++i) {
      INFO("element ", i, " of ", format_of<T>.name, ": ", to_double(y[i]), " against ", static_cast<double>(ex.logp[i - 1]));
      CHECK(accepted<T>(y[i], ex.logp[i - 1], lb[i - 1], &ex.logp_ref[i - 1]));
    }
  }
  // A kernel that saturates to -max where the exact value overflows is wrong by half the range.
  CHECK_FALSE(accepted<T>(t<T>(-maxf<T>()), ex.logp[0], lb[0], &ex.logp_ref[0]));
  // softmax of the same row: exactly [0, 0, 1] after rounding.
  std::vector<T> p(x.size());
  kernels::softmax(x.data(), p.data(), x.size());
  const auto b = bounds::softmax_bound(ex, bounds::model_of<T>());
  for (std::size_t i = 1; i < x.size(); ++i)
    CHECK(accepted<T>(p[i], ex.p[i - 1], std::max(b.hi[i - 1] - ex.p[i - 1], ex.p[i - 1] - b.lo[i - 1]), &ex.p_ref[i - 1]));
}

TEST_CASE_TEMPLATE("Format error: scores whose exact value overflows, or whose sum overflows on the way", T, f16, bf16, float,
                   double) {
  const auto md = bounds::model_of<T>();
  // d = 1: q·k/√1 = 2 max: RN_T = inf, and the kernel returns inf.
  {
    const std::vector<T> q = {t<T>(maxf<T>() / 2)}, k = {t<T>(4)};
    const auto ex = oracle::certified::scores(q, k, 1, 1, 1);
    T s{};
    kernels::scores(q.data(), k.data(), 1, 1, 1, &s);
    CHECK(to_double(s) == inf);
    CHECK(accepted<T>(s, ex[0], bounds::score_bound(ex[0], 2 * static_cast<real>(maxf<T>()), 1, md), &ex.ref[0]));
  }
  // d = 4: the exact q·k/2 = max/2·4·... = max is finite, but the running sum passes 2 max: the
  // kernel's inf is within its allowance of a value that overflows, so it is accepted.
  {
    const std::vector<T> q(4, t<T>(maxf<T>() / 2)), k(4, t<T>(1));
    const auto ex = oracle::certified::scores(q, k, 1, 1, 4);
    T s{};
    kernels::scores(q.data(), k.data(), 1, 1, 4, &s);
    CHECK(to_double(s) == inf);
    CHECK(ex[0] == doctest::Approx(maxf<T>()));
    CHECK(accepted<T>(s, ex[0], bounds::score_bound(ex[0], 2 * static_cast<real>(maxf<T>()), 4, md), &ex.ref[0]));
  }
}

TEST_CASE_TEMPLATE("Format error: rmsnorm whose gain carries the output beyond the range", T, f16, bf16, float, double) {
  const std::vector<T> x = {t<T>(1), t<T>(0), t<T>(0), t<T>(0)}, w(4, t<T>(maxf<T>()));
  const T eps = t<T>(0);
  const auto ex = oracle::certified::rmsnorm(x, w, eps);  // y_0 = 1/√(1/4)·max = 2 max
  std::vector<T> y(4);
  kernels::rmsnorm(x.data(), w.data(), 4, eps, y.data());
  const auto b = bounds::rmsnorm_bound(4, 0.25L, bounds::model_of<T>());
  CHECK(to_double(y[0]) == inf);
  for (std::size_t i = 0; i < 4; ++i) CHECK(accepted<T>(y[i], ex[i], b.allowed(ex[i], to_double(w[i])), &ex.ref[i]));
  CHECK_FALSE(accepted<T>(t<T>(maxf<T>()), ex[0], b.allowed(ex[0], to_double(w[0])), &ex.ref[0]));
}

TEST_CASE_TEMPLATE("Format error: attention over values at the largest finite value", T, f16, bf16, float, double) {
  // Three equal weights of 1/3 over v = max: the exact output is max; a kernel whose rounded
  // weights sum above 1 overflows to inf, which lies within the derived allowance of the
  // threshold; the reference kernel's answer is accepted whatever it is.
  const std::size_t n = 1, m = 3, d = 1, dv = 1;
  const std::vector<T> q = {t<T>(1)}, k(3, t<T>(1)), v(3, t<T>(maxf<T>()));
  const auto ex = oracle::certified::attention(q, k, v, n, m, d, dv, false);
  const auto allowed = bounds::attention_output_allowance(q, k, v, n, m, d, dv, false, bounds::model_of<T>());
  std::vector<T> o(1);
  kernels::attention(q.data(), k.data(), v.data(), n, m, d, dv, false, o.data());
  CHECK(accepted<T>(o[0], ex[0], allowed[0], &ex.ref[0]));
  CHECK(accepted<T>(t<T>(inf), ex[0], allowed[0], &ex.ref[0]));
  CHECK_FALSE(accepted<T>(t<T>(-inf), ex[0], allowed[0], &ex.ref[0]));
}

}  // namespace
}  // namespace attncheck
