// attncheck: falsification tests of softmax-filtering-bound-v1 (contracts/softmax-filtering-bound-v1.yaml,
// its source derivation). One head: S (T×T scores), S' = S + Δ_S, A = softmax rows (the kernel under test), V (T×d_v),
// W_O (d_v×d_o), Y = A V W_O computed in T. Obligations: SFB-BND-001 stage 1 ‖ΔA‖_F <= ‖Δ_S‖_F/2,
// SFB-BND-002 stages 2 and 3, SFB-BND-003 end to end ‖ΔY‖_F <= ‖Δ_S‖_F‖V‖₂‖W_O‖₂/2
// (= ε‖QKᵀ‖_F‖V‖₂‖W_O‖₂/(2√d_k) with Δ_S = Δ/√d_k), SFB-BND-004 Weyl for every σ_i(Y),
// SFB-TGT-001 two-point rows reach the stage-1 bound within 1%, uniform rows over T > 2 do not.
// Every property observes measured/bound, so the gate's worst/median ratios are the tightness per stage.
#include <cmath>
#include <string>
#include <vector>

#include "attncheck/bounds/softmax.hpp"
#include "attncheck/property/property.hpp"
#include "falsify/svd_support.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using namespace svdcheck;  // NOLINT: the helpers of svd_support.hpp
using bounds::real;
using linalg::Matrix;

// A head, in T. Adversarial heads make every stage tight at once: two-point score rows
// (c, c, c − 30, …), Δ_S rows along e_1 − e_2, V = (e_1 − e_2)yᵀ and W_O = y zᵀ.
template <class T>
struct Head {
  Matrix<T> s, s2, v, wo;
  bool adversarial = false;
  std::size_t t() const { return s.rows; }
};

template <class T>
Head<T> draw_head(bool force_adversarial = false) {
  Head<T> h;
  const auto t = static_cast<std::size_t>(*rc::gen::inRange(2, 9)), dv = static_cast<std::size_t>(*rc::gen::inRange(1, 9)),
             dout = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  h.adversarial = force_adversarial || *rc::gen::inRange(0, 3) == 0;
  const double eps = *rc::gen::element(1e-4, 1e-3, 1e-2, 0.1);
  h.s = Matrix<T>(t, t);
  h.s2 = Matrix<T>(t, t);
  h.v = Matrix<T>(t, dv);
  h.wo = Matrix<T>(dv, dout);
  if (h.adversarial) {
    const T c = gen::to<T>(*gen::moderate_value(format_of<T>, 8));
    const auto y = draw_vector<T>(dv, 4), z = draw_vector<T>(dout, 4);
    for (std::size_t i = 0; i < t; ++i) {
      for (std::size_t j = 0; j < t; ++j) h.s(i, j) = j < 2 ? c : T(c - lit<T>(30));
      h.s2.a = h.s.a;
    }
    for (std::size_t i = 0; i < t; ++i) {
      h.s2(i, 0) = h.s(i, 0) + lit<T>(eps);
      h.s2(i, 1) = h.s(i, 1) - lit<T>(eps);
    }
    for (std::size_t j = 0; j < dv; ++j) {
      h.v(0, j) = y[j];
      h.v(1, j) = -y[j];
      for (std::size_t k = 0; k < dout; ++k) h.wo(j, k) = y[j] * z[k];
    }
  } else {
    h.s.a = draw_vector<T>(t * t, 8);
    const auto d = draw_vector<T>(t * t, 1);
    for (std::size_t i = 0; i < t * t; ++i) h.s2.a[i] = h.s.a[i] + d[i] * lit<T>(eps);
    h.v.a = draw_vector<T>(t * dv, 4);
    h.wo.a = draw_vector<T>(dv * dout, 1);
  }
  return h;
}

// Row-wise softmax by the kernel under test, and the Frobenius norm of the rows' derived widths.
template <class T>
Matrix<T> softmax_rows(const KernelSet<T>& k, const Matrix<T>& s, real& width) {
  Matrix<T> a(s.rows, s.cols);
  real w2 = 0;
  for (std::size_t i = 0; i < s.rows; ++i) {
    k.softmax(&s.a[i * s.cols], &a.a[i * s.cols], s.cols);
    const std::vector<T> row(s.a.begin() + static_cast<std::ptrdiff_t>(i * s.cols), s.a.begin() + static_cast<std::ptrdiff_t>((i + 1) * s.cols));
    const auto b = bounds::softmax_bound(oracle::softmax_row(row), bounds::model_of<T>());
    for (std::size_t j = 0; j < s.cols; ++j) w2 += (b.hi[j] - b.lo[j]) * (b.hi[j] - b.lo[j]);
  }
  width = std::sqrt(w2);
  return a;
}

M200 abs(const M200& m) {
  M200 r = m;
  for (auto& x : r.a) x = boost::multiprecision::abs(x);
  return r;
}

// Everything one head gives: the exact differences, the kernel's spectral norms and the rounding
// allowance of Y = fl(fl(A V) W_O) (Higham §3.5): |Ŷ − ÂVW_O| <= γ_T|Â||V||W_O| + Tη·1·|W_O| +
// γ_{d_v}|P̂||W_O| + d_vη, P̂ = fl(ÂV).
template <class T>
struct Chain {
  Matrix<T> a, a2, y, y2;
  real wa = 0, wa2 = 0;        // softmax widths (Frobenius) of A and A'
  real ds = 0, da = 0, dav = 0, dy_exact_chain = 0, dy = 0;
  real ey = 0, ey2 = 0;        // rounding allowances of Ŷ and Ŷ'
  Certified<T> sv, swo, sy, sy2;
  real bound = 0;              // ‖Δ_S‖_F ŝ_1(V) ŝ_1(W_O) / 2
  real bound_allowed = 0;      // the same with every kernel quantity at its derived worst
};

template <class T>
real product_rounding(const Matrix<T>& a, const Matrix<T>& v, const Matrix<T>& wo) {
  const auto md = bounds::model_of<T>();
  const Matrix<T> p = linalg::multiply(a, v);
  const M200 first = linalg::multiply(linalg::multiply(abs(exact(a)), abs(exact(v))), abs(exact(wo)));
  const M200 second = linalg::multiply(abs(exact(p)), abs(exact(wo)));
  real colsum = 0;
  for (std::size_t k = 0; k < wo.cols; ++k) {
    real c = 0;
    for (std::size_t j = 0; j < wo.rows; ++j) c += std::abs(static_cast<real>(to_double(wo(j, k))));
    colsum = std::max(colsum, c);
  }
  const real absolute = (static_cast<real>(a.cols) * md.eta * colsum + static_cast<real>(wo.rows) * md.eta) *
                        std::sqrt(static_cast<real>(a.rows * wo.cols));
  return bounds::gamma(a.cols, md.u) * frob(first) + bounds::gamma(wo.rows, md.u) * frob(second) + absolute;
}

template <class T>
Chain<T> run_chain(const char* id, const KernelSet<T>& k, const Head<T>& h) {
  const auto lk = linalg_for(k);
  Chain<T> c;
  c.a = softmax_rows(k, h.s, c.wa);
  c.a2 = softmax_rows(k, h.s2, c.wa2);
  c.y = linalg::multiply(linalg::multiply(c.a, h.v), h.wo);
  c.y2 = linalg::multiply(linalg::multiply(c.a2, h.v), h.wo);
  const M200 dS = linalg::subtract(exact(h.s2), exact(h.s)), dA = linalg::subtract(exact(c.a2), exact(c.a));
  const M200 dAV = linalg::multiply(dA, exact(h.v));
  c.ds = frob(dS);
  c.da = frob(dA);
  c.dav = frob(dAV);
  c.dy_exact_chain = frob(linalg::multiply(dAV, exact(h.wo)));
  c.dy = frob(linalg::subtract(exact(c.y2), exact(c.y)));
  c.ey = product_rounding(c.a, h.v, h.wo);
  c.ey2 = product_rounding(c.a2, h.v, h.wo);
  c.sv = certify(id, lk, h.v);
  c.swo = certify(id, lk, h.wo);
  c.sy = certify(id, lk, c.y);
  c.sy2 = certify(id, lk, c.y2);
  const real nv = to_double(c.sv.d.s[0]), nwo = to_double(c.swo.d.s[0]);
  c.bound = c.ds / 2 * nv * nwo;
  c.bound_allowed = (c.ds / 2 + c.wa + c.wa2) * (nv + c.sv.b.value) * (nwo + c.swo.b.value) + c.ey + c.ey2;
  return c;
}

template <class T>
Report<T> head_report(const char* id, const std::string& what, const Head<T>& h) {
  Report<T> r(id, what + ", T = " + std::to_string(h.t()) + (h.adversarial ? " (adversarial head)" : ""));
  r.input("S", h.s.a).input("S + Δ_S", h.s2.a).line("V: " + shape(h.v.rows, h.v.cols)).input("V", h.v.a)
      .line("W_O: " + shape(h.wo.rows, h.wo.cols)).input("W_O", h.wo.a);
  return r;
}

const char* kind(bool adversarial) { return adversarial ? "adversarial" : "random"; }

// One per-case ratio measured/bound of a stage, for the HTML report's tightness distribution.
void sample_tightness(const char* stage, double r, bool adversarial) {
  property::sample("tightness", stage, {"ratio", "adversarial"}, {r, adversarial ? 1.0 : 0.0});
}

const std::vector<Dtype> sfb_dtypes = {Dtype::f32, Dtype::f64};

struct Sfb001 {
  static constexpr const char* id = "FALSIFY-SFB-001";
  static constexpr const char* title = "stage 1: ‖softmax(S + Δ_S) − softmax(S)‖_F <= ‖Δ_S‖_F/2 (row-wise), measured/bound observed";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto h = draw_head<T>();
    real wa = 0, wa2 = 0;
    const auto a = softmax_rows(k, h.s, wa), a2 = softmax_rows(k, h.s2, wa2);
    const M200 dS = linalg::subtract(exact(h.s2), exact(h.s)), dA = linalg::subtract(exact(a2), exact(a));
    const real ds = frob(dS), da = frob(dA), allowed = (ds / 2 + wa + wa2) * bounds::evaluation_slack;
    observe(ratio(da, ds / 2), std::string("stage 1 ‖ΔA‖_F/(‖Δ_S‖_F/2), ") + kind(h.adversarial) + " head");
    if (ds > 0) sample_tightness("stage 1", ratio(da, ds / 2), h.adversarial);
    if (!(da <= allowed))
      head_report(id, "softmax<" + scalar_name<T>() + "> rows", h).line("‖ΔA‖_F = " + decimal(static_cast<double>(da)) + ", ‖Δ_S‖_F/2 = " + decimal(static_cast<double>(ds / 2)))
          .error(da - ds / 2, allowed - ds / 2).raise();
  }
  static inline const bool registered = property::register_property<Sfb001>(sfb_dtypes);
};

struct Sfb002 {
  static constexpr const char* id = "FALSIFY-SFB-002";
  static constexpr const char* title = "stages 2 and 3: ‖ΔA V‖_F <= ‖ΔA‖_F‖V‖₂ and ‖ΔAV W_O‖_F <= ‖ΔAV‖_F‖W_O‖₂ with the kernel's ‖·‖₂";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto h = draw_head<T>();
    const auto c = run_chain(id, k, h);
    const real nv = to_double(c.sv.d.s[0]), nwo = to_double(c.swo.d.s[0]);
    // Tightness is observed where the bound is positive (a zero ΔA or an underflowed ŝ_1 has none).
    if (c.da * nv > 0) {
      observe(ratio(c.dav, c.da * nv), std::string("stage 2 ‖ΔAV‖_F/(‖ΔA‖_F‖V‖₂), ") + kind(h.adversarial) + " head");
      sample_tightness("stage 2", ratio(c.dav, c.da * nv), h.adversarial);
    }
    if (c.dav * nwo > 0) {
      observe(ratio(c.dy_exact_chain, c.dav * nwo), std::string("stage 3 ‖ΔAVW_O‖_F/(‖ΔAV‖_F‖W_O‖₂), ") + kind(h.adversarial) + " head");
      sample_tightness("stage 3", ratio(c.dy_exact_chain, c.dav * nwo), h.adversarial);
    }
    const real a2 = c.da * (nv + c.sv.b.value) * bounds::evaluation_slack, a3 = c.dav * (nwo + c.swo.b.value) * bounds::evaluation_slack;
    if (!(c.dav <= a2) || !(c.dy_exact_chain <= a3))
      head_report(id, "svd<" + scalar_name<T>() + "> spectral norms in stages 2/3", h)
          .line("‖ΔA‖_F = " + decimal(static_cast<double>(c.da)) + ", ‖ΔAV‖_F = " + decimal(static_cast<double>(c.dav)) +
                ", ‖ΔAVW_O‖_F = " + decimal(static_cast<double>(c.dy_exact_chain)))
          .line("ŝ_1(V) = " + decimal(static_cast<double>(nv)) + ", ŝ_1(W_O) = " + decimal(static_cast<double>(nwo)))
          .raise();
  }
  static inline const bool registered = property::register_property<Sfb002>(sfb_dtypes);
};

struct Sfb003 {
  static constexpr const char* id = "FALSIFY-SFB-003";
  static constexpr const char* title = "end to end: ‖ΔY‖_F <= ε‖QKᵀ‖_F‖V‖₂‖W_O‖₂/(2√d_k) = ‖Δ_S‖_F‖V‖₂‖W_O‖₂/2 for the computed head";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto h = draw_head<T>();
    const auto c = run_chain(id, k, h);
    if (c.bound > 0) {
      observe(ratio(c.dy, c.bound), std::string("end to end ‖ΔY‖_F/bound, ") + kind(h.adversarial) + " head");
      sample_tightness("end to end", ratio(c.dy, c.bound), h.adversarial);
    }
    const real allowed = c.bound_allowed * bounds::evaluation_slack;
    if (!(c.dy <= allowed))
      head_report(id, "the head in " + scalar_name<T>(), h)
          .line("‖ΔY‖_F = " + decimal(static_cast<double>(c.dy)) + ", bound ‖Δ_S‖_F‖V‖₂‖W_O‖₂/2 = " + decimal(static_cast<double>(c.bound)))
          .error(c.dy - c.bound, allowed - c.bound).raise();
  }
  static inline const bool registered = property::register_property<Sfb003>(sfb_dtypes);
};

struct Sfb004 {
  static constexpr const char* id = "FALSIFY-SFB-004";
  static constexpr const char* title = "Weyl corollary: every |σ_i(Y') − σ_i(Y)| is within the end-to-end bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto h = draw_head<T>();
    const auto c = run_chain(id, k, h);
    real worst = 0;
    for (std::size_t i = 0; i < c.sy.d.s.size(); ++i) {
      const real d = std::abs(val(mpfr200(mp(c.sy2.d.s[i]) - mp(c.sy.d.s[i]))));
      worst = std::max(worst, d);
      const real allowed = (c.bound_allowed + c.sy.b.value + c.sy2.b.value) * bounds::evaluation_slack;
      if (!(d <= allowed))
        head_report(id, "svd<" + scalar_name<T>() + "> of Y and Y', σ_" + std::to_string(i + 1), h)
            .line("s(Y) = " + values(c.sy.d.s) + ", s(Y') = " + values(c.sy2.d.s))
            .line("end-to-end bound " + decimal(static_cast<double>(c.bound)))
            .error(d, allowed).raise();
    }
    if (c.bound > 0) {
      observe(ratio(worst, c.bound), std::string("Weyl max|Δσ_i|/bound, ") + kind(h.adversarial) + " head");
      sample_tightness("Weyl", ratio(worst, c.bound), h.adversarial);
    }
  }
  static inline const bool registered = property::register_property<Sfb004>(sfb_dtypes);
};

// The source derivation calls the stage-1 bound tight for uniform attention. Two-point rows reach it; uniform
// rows over T keys reach only 2/T of it (‖J‖₂ = 1/T). Measured on single rows with ‖δ‖ = ε√2.
struct Sfb005 {
  static constexpr const char* id = "FALSIFY-SFB-005";
  static constexpr const char* title = "stage-1 tightness: two-point rows reach >= 99% of ‖δ‖/2, uniform rows over T > 2 at most 2/T of it";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto t = static_cast<std::size_t>(*rc::gen::inRange(3, 65));
    const T c = gen::to<T>(*gen::moderate_value(format_of<T>, 8));
    // ε small enough that the second-order term (relative O(ε)) stays below 1/2 % and large enough
    // that the rounding of the difference (O(u/ε)) does too.
    const double eps = std::sqrt(format_of<T>.unit_roundoff);
    for (const bool uniform : {false, true}) {
      std::vector<T> x(t), x2(t);
      for (std::size_t j = 0; j < t; ++j) x[j] = (uniform || j < 2) ? c : T(c - lit<T>(30));
      x2 = x;
      x2[0] = x[0] + lit<T>(eps);
      x2[1] = x[1] - lit<T>(eps);
      Matrix<T> s(1, t), s2(1, t);
      s.a = x;
      s2.a = x2;
      real w = 0, w2 = 0;
      const auto a = softmax_rows(k, s, w), a2 = softmax_rows(k, s2, w2);
      const real ds = frob(linalg::subtract(exact(s2), exact(s))), da = frob(linalg::subtract(exact(a2), exact(a)));
      const real r = da / (ds / 2), rw = (w + w2) / (ds / 2);
      if (!uniform) {
        observe(r, "stage-1 ratio, two-point row, T = " + std::to_string(t));
        if (!(r >= 0.99 - rw) || !(r <= 1 + rw))
          Report<T>(id, "softmax<" + scalar_name<T>() + "> on the two-point row, T = " + std::to_string(t)).input("x", x).input("x + δ", x2)
              .line("ratio ‖Δsoftmax‖/(‖δ‖/2) = " + decimal(static_cast<double>(r)) + ", must be in [0.99, 1] (rounding allowance " +
                    decimal(static_cast<double>(rw)) + ")").raise();
      } else {
        observe(r, "stage-1 ratio, uniform row, T = " + std::to_string(t));
        const real cap = 2.0L / static_cast<real>(t);
        if (!(r <= cap + rw) || !(cap + rw < 0.99))
          Report<T>(id, "softmax<" + scalar_name<T>() + "> on the uniform row, T = " + std::to_string(t)).input("x", x).input("x + δ", x2)
              .line("ratio = " + decimal(static_cast<double>(r)) + ", 2/T = " + decimal(static_cast<double>(cap))).raise();
      }
    }
  }
  static inline const bool registered = property::register_property<Sfb005>(sfb_dtypes);
};

}  // namespace

}  // namespace attncheck::falsify
