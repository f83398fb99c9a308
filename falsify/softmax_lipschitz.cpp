// attncheck: falsification tests of softmax-lipschitz-v1 (contracts/softmax-lipschitz-v1.yaml).
// Obligations: SLIP-EQV-001 JVP accuracy, SLIP-INV-001 J1 = 0, SLIP-BND-001 0 <= vᵀJv <= ‖v‖²/2,
// SLIP-BND-002 ‖softmax(x') - softmax(x)‖ <= ‖x' - x‖/2, SLIP-TGT-001 where 1/2 is (not) reached.
#include <cmath>
#include <vector>

#include "attncheck/bounds/softmax.hpp"
#include "attncheck/bounds/softmax_jvp.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

struct Slip001 {
  static constexpr const char* id = "FALSIFY-SLIP-001";
  static constexpr const char* title = "the softmax JVP is within the derived bound of (Diag(p) - ppᵀ)dx";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, dx] = draw_row_and_direction<T>();
    const auto dy = jvp(k, x, dx);
    const auto ex = oracle::certified::softmax_jvp(x, dx);
    const auto allowed = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(dx), bounds::model_of<T>());
    const long double base = baseline_error<T>([&](const KernelSet<T>& r) { return jvp(r, x, dx); }, ex);
    const double top = row_top(x);
    for (std::size_t i = 0; i < dy.size(); ++i)
      expect_close<T>(id, "softmax_jvp<" + scalar_name<T>() + ">, element " + std::to_string(i) + " of " + std::to_string(dy.size()),
                      "x", x, dy[i], ex[i], allowed[i], &ex.ref[i], base, top - to_double(x[i]));
  }
  static inline const bool registered = property::register_property<Slip001>();
};

struct Slip002 {
  static constexpr const char* id = "FALSIFY-SLIP-002";
  static constexpr const char* title = "J1 = 0: the JVP of a constant direction is zero within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto x = draw_row<T>(512);
    const T c = gen::to<T>(*gen::moderate_value(format_of<T>, 100));
    const std::vector<T> dx(x.size(), c);
    const auto dy = jvp(k, x, dx);
    const auto allowed = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(dx), bounds::model_of<T>());
    for (std::size_t i = 0; i < dy.size(); ++i)
      expect_close<T>(id, "softmax_jvp<" + scalar_name<T>() + ">(x, c·1), element " + std::to_string(i) + ", c = " + decimal(to_double(c)),
                      "x", x, dy[i], 0.0, allowed[i]);
  }
  static inline const bool registered = property::register_property<Slip002>();
};

// vᵀJv = Var_p(v) ∈ [0, (max v - min v)²/4] ⊆ [0, ‖v‖²/2] (Popoviciu); the computed vᵀ·dŷ may
// leave that interval by at most Σ|v_i|·allowed_i.
struct Slip003 {
  static constexpr const char* id = "FALSIFY-SLIP-003";
  static constexpr const char* title = "J is PSD with norm <= 1/2: 0 <= vᵀJv <= ‖v‖²/2 within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, v] = draw_row_and_direction<T>();
    const auto dy = jvp(k, x, v);
    const auto allowed = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(v), bounds::model_of<T>());
    mpfr200 q = 0, vv = 0;
    double slack = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      q += mpfr200(to_double(v[i])) * mpfr200(to_double(dy[i]));
      vv += mpfr200(to_double(v[i])) * mpfr200(to_double(v[i]));
      if (to_double(v[i]) != 0) slack += std::abs(to_double(v[i])) * allowed[i];  // 0·∞ is 0 here
    }
    const double quad = oracle::dbl(q), half = oracle::dbl(mpfr200(vv / 2));
    const double excess = std::max(-quad, quad - half);
    observe(ratio(std::max(0.0, excess), slack), "vᵀJv vs [0, ‖v‖²/2], n = " + std::to_string(x.size()));
    if (!(excess <= slack))
      Report<T>(id, "softmax_jvp<" + scalar_name<T>() + ">, n = " + std::to_string(x.size())).input("x", x).input("v", v)
          .line("vᵀJv = " + decimal(quad) + ", ‖v‖²/2 = " + decimal(half)).error(excess, slack).raise();
  }
  static inline const bool registered = property::register_property<Slip003>();
};

// Lipschitz 1/2 in the 2-norm, for the computed rows: ‖ŷ(x') - ŷ(x)‖ <= ‖x' - x‖/2 + ‖A(x)‖ + ‖A(x')‖.
struct Slip004 {
  static constexpr const char* id = "FALSIFY-SLIP-004";
  static constexpr const char* title = "‖softmax(x + δ) - softmax(x)‖₂ <= ‖δ‖₂/2 plus both rows' derived bounds";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, delta] = draw_row_and_direction<T>();
    const double scale = *rc::gen::element(1e-3, 0.1, 1.0, 10.0);
    std::vector<T> x2(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      x2[i] = scalar_traits<T>::from_double(to_double(x[i]) + scale * to_double(delta[i]));
      RC_PRE(std::isfinite(to_double(x2[i])));
    }
    std::vector<T> y(x.size()), y2(x.size());
    k.softmax(x.data(), y.data(), x.size());
    k.softmax(x2.data(), y2.data(), x.size());
    const auto md = bounds::model_of<T>();
    const auto b = bounds::softmax_bound(oracle::certified::softmax_row(x), md), b2 = bounds::softmax_bound(oracle::certified::softmax_row(x2), md);
    mpfr200 dn = 0, dd = 0;
    double a1 = 0, a2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const mpfr200 e = mpfr200(to_double(y2[i])) - mpfr200(to_double(y[i]));
      const mpfr200 s = mpfr200(to_double(x2[i])) - mpfr200(to_double(x[i]));  // the exact δ actually applied
      dn += e * e;
      dd += s * s;
      a1 += std::pow(b.hi[i] - b.lo[i], 2);
      a2 += std::pow(b2.hi[i] - b2.lo[i], 2);
    }
    const double lhs = oracle::dbl(mpfr200(sqrt(dn))), half = oracle::dbl(mpfr200(sqrt(dd) / 2));
    const double allowed = (std::sqrt(a1) + std::sqrt(a2)) * bounds::evaluation_slack;
    const double excess = lhs - half;
    observe(ratio(std::max(0.0, excess), allowed), "‖Δsoftmax‖ - ‖δ‖/2, n = " + std::to_string(x.size()));
    // The HTML report's "double cone": every point lies below the line ‖δ‖/2 (plus the allowance).
    property::sample("lipschitz", "softmax", {"delta_norm", "change_norm", "allowance"}, {2 * half, lhs, allowed});
    if (!(excess <= allowed))
      Report<T>(id, "softmax<" + scalar_name<T>() + ">, n = " + std::to_string(x.size())).input("x", x).input("x + δ", x2)
          .line("‖Δsoftmax‖₂ = " + decimal(lhs) + ", ‖δ‖₂/2 = " + decimal(half)).error(excess, allowed).raise();
  }
  static inline const bool registered = property::register_property<Slip004>();
};

// Where the constant 1/2 is reached, and where it is not (the softmax-filtering-bound derivation claims uniform attention):
// a two-point row p = (1/2, 1/2) with v = (1, -1) gives ‖Jv‖/‖v‖ = 1/2 exactly; a uniform row over
// n entries has J = (I - 11ᵀ/n)/n, so ‖Jv‖ <= ‖v‖/n, far below 1/2 for n >= 3.
struct Slip005 {
  static constexpr const char* id = "FALSIFY-SLIP-005";
  static constexpr const char* title = "‖J‖₂ reaches 1/2 on two-point rows and is 1/n on uniform rows over n entries";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto md = bounds::model_of<T>();
    const T c = gen::to<T>(*gen::moderate_value(format_of<T>, 50));
    const int n = *rc::gen::inRange(2, 65);
    // Two-point rows: the two equal entries c, all others pushed far below (exp underflows to 0).
    const std::vector<T> two{c, c};
    const std::vector<T> v2{lit<T>(1), lit<T>(-1)};
    const auto dy2 = jvp(k, two, v2);
    const auto a2 = bounds::softmax_jvp_bound(oracle::certified::softmax_row(two), widen(v2), md);
    // ‖Jv‖/‖v‖ = sqrt((ŷ_0² + ŷ_1²)/2), evaluated in MPFR from the kernel's outputs (exact as
    // doubles): the sum of squares errs by ≤ 3·2^-200 relative (two squares, one +, all terms ≥ 0),
    // /2 is exact, sqrt halves that and adds 2^-200, the − 1/2 adds 2^-200·|r − 1/2|: in all at most
    // 3.5·2^-200·max(r, 1/2), taken as 5·2^-200·max(r(1 + 2^-52), 1/2) (r rounded to double) beside the kernel's derived allowance.
    // The comparison is made in MPFR. (A double evaluation here added a bare 2^-50, which dominated
    // the allowance at f64.)
    const mpfr200 d0 = mpfr200(to_double(dy2[0])), d1 = mpfr200(to_double(dy2[1]));
    const mpfr200 r2m = sqrt((d0 * d0 + d1 * d1) / 2), devm = abs(r2m - mpfr200(0.5));
    const double r2 = static_cast<double>(oracle::dbl(r2m));
    const double tol2 = std::hypot(a2[0], a2[1]) / std::sqrt(2.0) * bounds::evaluation_slack + 5 * 0x1p-200 * std::max(r2 * (1 + 0x1p-52), 0.5);
    const double dev = static_cast<double>(oracle::dbl(devm));
    observe(ratio(dev, tol2), "two-point ‖Jv‖/‖v‖ vs 1/2");
    if (!(devm <= mpfr200(tol2)))
      Report<T>(id, "softmax_jvp<" + scalar_name<T>() + "> at the two-point row (c, c), v = (1, -1)")
          .input("x", two).line("‖Jv‖/‖v‖ = " + decimal(r2) + ", expected 1/2").error(dev, tol2).raise();
    // Uniform rows: any v.
    const std::vector<T> uni(static_cast<std::size_t>(n), c);
    const auto v = draw_vector<T>(uni.size(), 4);
    const auto dy = jvp(k, uni, v);
    const auto a = bounds::softmax_jvp_bound(oracle::certified::softmax_row(uni), widen(v), md);
    // ‖Jv‖ and ‖v‖/n in MPFR from exact doubles: each sum of n squares errs by ≤ (n + 1)·2^-200
    // relative, sqrt and /n add 2^-200 each, the difference one more: the computed excess errs by at
    // most (n + 3)·2^-200·(‖Jv‖ + ‖v‖/n), taken as (n + 4)·2^-200 of the double roundings of both
    // norms, added to the kernel's derived allowance. (A double
    // evaluation here added 8·2^-52·(‖Jv‖ + ‖v‖/n), short of γ_n for n > 8 and underived.)
    mpfr200 jvm = 0, vnm = 0;
    double an = 0;
    for (std::size_t i = 0; i < uni.size(); ++i) {
      jvm += mpfr200(to_double(dy[i])) * mpfr200(to_double(dy[i]));
      vnm += mpfr200(to_double(v[i])) * mpfr200(to_double(v[i]));
      an += a[i] * a[i];
    }
    const mpfr200 lhsm = sqrt(jvm), boundm = sqrt(vnm) / n, excessm = lhsm - boundm;
    const double lhs = static_cast<double>(oracle::dbl(lhsm)), bound = static_cast<double>(oracle::dbl(boundm));
    const double vn = static_cast<double>(oracle::dbl(vnm));
    const double allowed = std::sqrt(an) * bounds::evaluation_slack + (n + 4) * 0x1p-200 * (lhs + bound);
    observe(ratio(std::max(0.0, lhs - bound), allowed), "uniform ‖Jv‖ vs ‖v‖/n, n = " + std::to_string(n));
    if (!(excessm <= mpfr200(allowed)))
      Report<T>(id, "softmax_jvp<" + scalar_name<T>() + "> at a uniform row of " + std::to_string(n) + " entries")
          .input("v", v).line("‖Jv‖ = " + decimal(lhs) + ", ‖v‖/n = " + decimal(bound) + " (1/2·‖v‖ = " + decimal(std::sqrt(vn) / 2) + ")")
          .error(lhs - bound, allowed).raise();
  }
  static inline const bool registered = property::register_property<Slip005>();
};

}  // namespace

}  // namespace attncheck::falsify
