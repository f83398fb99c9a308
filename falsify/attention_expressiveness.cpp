// attncheck: falsification tests of attention-expressiveness-v1 (contracts/attention-expressiveness-v1.yaml,
// the expressiveness exercise, problem 1). Obligations: EXPR-BND-001 copying with q = 2ln(n/ε)k_1, EXPR-BND-002 no
// copying query is shorter than 2ln((n−1)/ε) on antipodal keys, EXPR-BND-003 averaging with
// q = ln(n/ε)(k_1 + k_2), EXPR-BND-004 the least averaging query, EXPR-EQV-001 a noisy key:
// α_1/α_2 = e^{(c−1)t}, EXPR-BND-005 two heads average within (n−1)ε/n, EXPR-EQV-002 the seed's
// head 1 (q_1 = ln(n/ε)u) at c = 1/2 has α_1 = √(n/ε)/(√(n/ε) + n − 1), not ≈ 1.
//
// Every case runs the attention kernel of the kernel set (slot `attention`) on keys and queries
// built so that its scores are EXACT in T: d = 64 (the kernel divides by √64 = 8 exactly), key
// entries in {0, ±1/2, ±1, 3/2}, query entries on the grid 2^-10 (checked per case by
// exact_scores). The weights α̂ are read off the output with V = I (each output coordinate is a
// single product p̂_j·1 plus exact zeros), so the only rounding is the softmax's, and the
// allowance is its derived bound [lo_i, hi_i] at the exact scores (bounds/softmax.hpp, SM-BND-001).
// The seed writes s_i = ⟨k_i, q⟩; the kernel computes ⟨k_i, q⟩/√d, so it is given √d·q.
// A random signed permutation of the coordinates and of the key order puts every construction in
// general position of the axes (inner products are unchanged).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "attncheck/bounds/softmax.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;

constexpr std::size_t kDim = 64;       // √64 = 8: the kernel's division by √d is exact
constexpr double kSqrtDim = 8;
constexpr double kGrid = 0x1p-10;      // query entries are multiples of kGrid
constexpr double kShrink = 1 - 0x1p-6; // "just below" a least length: 1.6 % shorter
const std::vector<double> kEps = {0.5, 0.1, 0.01, 1e-3};

mpfr200 ln_ratio(double num, double eps) { return log(mpfr200(num) / mpfr200(eps)); }
// x rounded up / toward zero onto the grid (queries built from these are exact in f32 and f64).
double grid_up(const mpfr200& x) { return mpfr200(ceil(x / kGrid) * kGrid).convert_to<double>(); }
double grid_down(const mpfr200& x) { return mpfr200(trunc(x / kGrid) * kGrid).convert_to<double>(); }

// n keys (rows of kDim entries) and the queries of one construction, in exact dyadic doubles.
struct Setup {
  std::size_t n = 0;
  std::vector<double> keys;
  std::vector<std::size_t> where;  // where[i] = the row that key i of the construction was moved to
  double& at(std::size_t i, std::size_t j) { return keys[i * kDim + j]; }
};

Setup blank(std::size_t n) { return {n, std::vector<double>(n * kDim, 0.0), {}}; }

// Three distinct coordinates in 1..kDim−1 and their signs: (1/2)(s_0, ±1, ±1, ±1) on {0, a, b, c}.
struct Quad {
  std::size_t a, b, c;
  double ha, hb, hc;
};
Quad draw_quad() {
  const auto a = static_cast<std::size_t>(*rc::gen::inRange<int>(1, static_cast<int>(kDim) - 2));
  const auto b = static_cast<std::size_t>(*rc::gen::inRange<int>(static_cast<int>(a) + 1, static_cast<int>(kDim) - 1));
  const auto c = static_cast<std::size_t>(*rc::gen::inRange<int>(static_cast<int>(b) + 1, static_cast<int>(kDim)));
  const auto s = [] { return *rc::gen::element(0.5, -0.5); };
  return {a, b, c, s(), s(), s()};
}
void put_quad(Setup& st, std::size_t row, double first, const Quad& h, double sign) {
  st.at(row, 0) = first;
  st.at(row, h.a) = sign * h.ha;
  st.at(row, h.b) = sign * h.hb;
  st.at(row, h.c) = sign * h.hc;
}

// Applies a random signed permutation to the coordinates and a random permutation to the key rows.
void shuffle(Setup& st) {
  std::vector<std::size_t> col(kDim), row(st.n);
  for (std::size_t j = 0; j < kDim; ++j) col[j] = j;
  for (std::size_t i = 0; i < st.n; ++i) row[i] = i;
  for (std::size_t j = kDim - 1; j > 0; --j) std::swap(col[j], col[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(j) + 1))]);
  for (std::size_t i = st.n - 1; i > 0; --i) std::swap(row[i], row[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(i) + 1))]);
  std::vector<double> sign(kDim);
  for (auto& s : sign) s = *rc::gen::element(1.0, -1.0);
  std::vector<double> out(st.keys.size(), 0.0);
  for (std::size_t i = 0; i < st.n; ++i)
    for (std::size_t j = 0; j < kDim; ++j) out[row[i] * kDim + col[j]] = sign[j] * st.keys[i * kDim + j];
  st.keys = std::move(out);
  st.where = row;
  // Queries are built from keys after this, so they follow the same frame.
}

std::vector<double> key(const Setup& st, std::size_t i) {
  return {st.keys.begin() + static_cast<std::ptrdiff_t>(st.where[i] * kDim), st.keys.begin() + static_cast<std::ptrdiff_t>((st.where[i] + 1) * kDim)};
}
std::vector<double> axpy(double a, const std::vector<double>& x, std::vector<double> y) {
  for (std::size_t j = 0; j < y.size(); ++j) y[j] += a * x[j];
  return y;
}
mpfr200 norm(const std::vector<double>& q) {
  mpfr200 s = 0;
  for (double v : q) s += mpfr200(v) * v;
  return sqrt(s);
}

template <class T>
std::vector<T> to_t(const std::vector<double>& x) {
  std::vector<T> r;
  for (double v : x) r.push_back(lit<T>(v));
  return r;
}

// The kernel's scores ⟨k_i, √d·q⟩/√d, exactly, as T. Every product (√d q_j)(k_ij) must be a
// multiple of 2^-8 and their absolute sum below 2^(p−8): then every partial sum, in any order, is
// exact in T, and so is the division by 8. A construction that breaks this is a bug of the test.
template <class T>
std::vector<T> exact_scores(const std::string& id, const std::vector<double>& q, const Setup& st) {
  std::vector<T> s(st.n);
  for (double x : q)
    if (to_double(lit<T>(kSqrtDim * x)) != kSqrtDim * x) fail(id + ": test construction not exact (√d·q not representable)");
  const mpfr200 cap = ldexp(mpfr200(1), format_of<T>.precision - 8);
  for (std::size_t i = 0; i < st.n; ++i) {
    mpfr200 acc = 0, abs_sum = 0;
    for (std::size_t j = 0; j < kDim; ++j) {
      const mpfr200 prod = mpfr200(kSqrtDim * q[j]) * st.keys[i * kDim + j];
      if (prod != 0 && trunc(prod * 256) != prod * 256) fail(id + ": test construction not exact (a product is not a multiple of 2^-8)");
      acc += prod;
      abs_sum += abs(prod);
    }
    if (abs_sum >= cap) fail(id + ": test construction not exact in " + scalar_name<T>() + " (scores too large for the grid)");
    s[i] = lit<T>(mpfr200(acc / kSqrtDim).convert_to<double>());
    if (mpfr200(to_double(s[i])) != acc / kSqrtDim) fail(id + ": test construction not exact (score not representable)");
  }
  return s;
}

// One run of the attention kernel: α̂ (V = I), the exact scores and the softmax bound there.
template <class T>
struct Attended {
  std::vector<T> alpha, scores;
  oracle::SoftmaxRow row;
  bounds::SoftmaxBound b;
  real down(std::size_t i) const { return row.p[i] - b.lo[i]; }  // α̂_i >= α_i − down
  real up(std::size_t i) const { return b.hi[i] - row.p[i]; }    // α̂_i <= α_i + up
  real a(std::size_t i) const { return to_double(alpha[i]); }
};

template <class T>
Attended<T> attend(const std::string& id, const KernelSet<T>& k, const std::vector<double>& q, const Setup& st) {
  Attended<T> r;
  r.scores = exact_scores<T>(id, q, st);
  std::vector<double> q8(q);
  for (double& v : q8) v *= kSqrtDim;
  const auto qt = to_t<T>(q8), kt = to_t<T>(st.keys);
  std::vector<T> v(st.n * st.n, lit<T>(0));
  for (std::size_t i = 0; i < st.n; ++i) v[i * st.n + i] = lit<T>(1);
  r.alpha.assign(st.n, lit<T>(0));
  k.attention(qt.data(), kt.data(), v.data(), 1, st.n, kDim, st.n, false, r.alpha.data());
  r.row = oracle::softmax_row(r.scores);
  r.b = bounds::softmax_bound(r.row, bounds::model_of<T>());
  return r;
}

template <class T>
Report<T> report(const std::string& id, const std::string& what, const Attended<T>& r, const std::vector<double>& q) {
  Report<T> rep(id, "attention<" + scalar_name<T>() + ">, " + what);
  rep.input("scores (exact)", r.scores).input("α̂ (kernel)", r.alpha);
  rep.line("query norm ‖q‖ = " + decimal(norm(q).convert_to<double>()));
  return rep;
}

std::string case_name(std::size_t n, double eps) { return "n = " + std::to_string(n) + ", ε = " + decimal(eps); }

// f32 and f64: at f16/bf16 the softmax's rounding (u = 2^-11, 2^-8) is as large as the margins
// 1/(1+ε) − α_1 the tightness tests must resolve (ε down to 10^-3).
const std::vector<Dtype> expr_dtypes = {Dtype::f32, Dtype::f64};

// ---- EXPR-BND-001: copying ------------------------------------------------------------------------
// k_1 = e_0 and unit distractors with ⟨k_1, k_i⟩ <= 1/2, i.e. ‖k_1 − k_i‖ >= 1: (1/2)(1, ±1, ±1, ±1)
// (exactly 1/2: the tight case), ±e_j, (1/2)(−1, ±1, ±1, ±1), −e_0 and (1/2)(±1, ±1, ±1, ±1) off e_0.
struct Expr001 {
  static constexpr const char* id = "FALSIFY-EXPR-001";
  static constexpr const char* title = "copying: unit keys with ‖k_1 − k_i‖ >= 1 and q = 2ln(n/ε)·k_1 give α_1 >= 1/(1+ε)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 65));
    const double eps = *rc::gen::elementOf(kEps);
    const bool all_tight = *rc::gen::inRange(0, 3) == 0;
    Setup st = blank(n);
    st.at(0, 0) = 1;
    for (std::size_t i = 1; i < n; ++i) {
      const int kind = all_tight ? 0 : *rc::gen::inRange(0, 5);
      const Quad h = draw_quad();
      if (kind == 0) put_quad(st, i, 0.5, h, 1);
      else if (kind == 1) st.at(i, h.a) = *rc::gen::element(1.0, -1.0);
      else if (kind == 2) put_quad(st, i, -0.5, h, 1);
      else if (kind == 3) st.at(i, 0) = -1;
      else {  // a fourth coordinate off {0, a, b, c} completes the unit vector
        put_quad(st, i, 0, h, 1);
        std::size_t d4 = 1;
        while (d4 == h.a || d4 == h.b || d4 == h.c) ++d4;
        st.at(i, d4) = *rc::gen::element(0.5, -0.5);
      }
    }
    shuffle(st);
    const std::vector<double> k1 = key(st, 0);
    for (std::size_t i = 1; i < n; ++i) {  // the hypotheses, exactly (a check of the generator)
      const auto ki = key(st, i);
      mpfr200 nn = 0, ip = 0;
      for (std::size_t j = 0; j < kDim; ++j) nn += mpfr200(ki[j]) * ki[j], ip += mpfr200(ki[j]) * k1[j];
      if (nn != 1 || ip > 0.5) fail(std::string(id) + ": generator broke ‖k_i‖ = 1, ⟨k_1,k_i⟩ <= 1/2");
    }
    const double t = grid_up(2 * ln_ratio(static_cast<double>(n), eps));
    const auto q = axpy(t, k1, std::vector<double>(kDim, 0.0));
    const auto r = attend<T>(id, k, q, st);
    const std::size_t i1 = st.where[0];
    const real target = 1.0L / (1.0L + static_cast<real>(eps));
    RC_CLASSIFY(all_tight, "every distractor at distance exactly 1");
    // Tightness: (1/α̂_1 − 1)/ε = Σ_{i≠1} e^{s_i − s_1}/ε <= (n−1)/n, reached by the tight keys.
    observe(static_cast<double>((1 / r.a(i1) - 1) / eps), all_tight ? "(1/α̂_1 − 1)/ε, all distractors tight" : "(1/α̂_1 − 1)/ε, mixed distractors");
    if (!(r.a(i1) >= target - r.down(i1)))
      report<T>(id, "copying, " + case_name(n, eps), r, q)
          .line("α̂_1 = " + decimal(static_cast<double>(r.a(i1))) + " < 1/(1+ε) = " + decimal(static_cast<double>(target)) + " with t = " + decimal(t))
          .error(target - r.a(i1), r.down(i1)).raise();
  }
  static inline const bool registered = property::register_property<Expr001>(expr_dtypes);
};

// ---- EXPR-BND-002: no shorter copying query on antipodal keys ------------------------------------
// n odd; the n − 1 distractors come in pairs (1/2)(1, ±h) (k_i + k_i' = k_1, ‖k_1 − k_i‖ = 1). For
// every q: Σ_{i≠1} e^{s_i − s_1} = Σ_pairs e^{−⟨q,k_1⟩/2}·2cosh(·) >= (n−1)e^{−‖q‖/2}, so
// α_1 >= 1/(1+ε) needs ‖q‖ >= t* = 2ln((n−1)/ε); q = t*·k_1 attains it. Checked: t* (rounded up)
// copies; (1 − 2^-6)t*·k_1 and random queries no longer than that do not.
struct Expr002 {
  static constexpr const char* id = "FALSIFY-EXPR-002";
  static constexpr const char* title = "copying needs ‖q‖ >= 2ln((n−1)/ε) on antipodal keys: t* copies, every shorter query fails";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto pairs = static_cast<std::size_t>(*rc::gen::inRange(1, 32));
    const std::size_t n = 2 * pairs + 1;
    const double eps = *rc::gen::elementOf(kEps);
    Setup st = blank(n);
    st.at(0, 0) = 1;
    for (std::size_t p = 0; p < pairs; ++p) {
      const Quad h = draw_quad();
      put_quad(st, 1 + 2 * p, 0.5, h, 1);
      put_quad(st, 2 + 2 * p, 0.5, h, -1);
    }
    shuffle(st);
    const std::vector<double> k1 = key(st, 0);
    const std::size_t i1 = st.where[0];
    const mpfr200 tstar = 2 * ln_ratio(static_cast<double>(n - 1), eps);
    const real target = 1.0L / (1.0L + static_cast<real>(eps));
    // t* copies (the least length is attained).
    {
      const auto q = axpy(grid_up(tstar), k1, std::vector<double>(kDim, 0.0));
      const auto r = attend<T>(id, k, q, st);
      observe(static_cast<double>((1 / r.a(i1) - 1) / eps), "(1/α̂_1 − 1)/ε at the least length t*");
      if (!(r.a(i1) >= target - r.down(i1)))
        report<T>(id, "least copying query t*·k_1, " + case_name(n, eps), r, q)
            .line("α̂_1 = " + decimal(static_cast<double>(r.a(i1))) + " < 1/(1+ε) = " + decimal(static_cast<double>(target)))
            .error(target - r.a(i1), r.down(i1)).raise();
    }
    // Shorter queries fail: along k_1, or a random direction, with ‖q‖ <= (1 − 2^-6)t*.
    const bool random_dir = *rc::gen::arbitrary<bool>();
    std::vector<double> q(kDim, 0.0);
    if (!random_dir) {
      q = axpy(grid_down(kShrink * tstar), k1, q);
    } else {
      const auto dir = *rc::gen::container<std::vector<int>>(kDim, rc::gen::inRange(-64, 65));
      mpfr200 dn = 0;
      for (int v : dir) dn += mpfr200(v) * v;
      RC_PRE(dn > 0);
      const mpfr200 scale = kShrink * tstar * (*rc::gen::inRange(1, 65) / 64.0) / sqrt(dn);
      for (std::size_t j = 0; j < kDim; ++j) q[j] = grid_down(scale * dir[j]);
    }
    if (!(norm(q) <= kShrink * tstar)) fail(std::string(id) + ": generator made a query longer than (1 − 2^-6)t*");
    const auto r = attend<T>(id, k, q, st);
    RC_CLASSIFY(random_dir, "random direction");
    const std::string what = std::string(random_dir ? "random" : "k_1-direction") + " query shorter than t*, " + case_name(n, eps);
    if (!(r.row.p[i1] < target))  // the obligation itself, at the exact scores
      report<T>(id, what, r, q).line("exact α_1 = " + decimal(static_cast<double>(r.row.p[i1])) + " >= 1/(1+ε): the least-length claim is false").raise();
    if (!(r.a(i1) < target + r.up(i1)))
      report<T>(id, what, r, q)
          .line("α̂_1 = " + decimal(static_cast<double>(r.a(i1))) + " >= 1/(1+ε) = " + decimal(static_cast<double>(target)) +
                " although ‖q‖ < 2ln((n−1)/ε) = " + decimal(tstar.convert_to<double>()))
          .error(r.a(i1) - target, r.up(i1)).raise();
  }
  static inline const bool registered = property::register_property<Expr002>(expr_dtypes);
};

// ---- EXPR-BND-003: averaging ----------------------------------------------------------------------
// Orthonormal keys (signed unit vectors on distinct axes), q = t(k_1 + k_2), t = ln(n/ε):
// ‖q‖ = √2 t <= 2√2 ln(n/ε), α_1 = α_2 = 1/(2 + (n−2)e^{−t}) >= 1/(2+ε).
Setup orthonormal(std::size_t n) {
  Setup st = blank(n);
  for (std::size_t i = 0; i < n; ++i) st.at(i, i) = 1;
  shuffle(st);
  return st;
}

struct Expr003 {
  static constexpr const char* id = "FALSIFY-EXPR-003";
  static constexpr const char* title = "averaging: orthonormal keys and q = ln(n/ε)(k_1 + k_2), ‖q‖ <= 2√2 ln(n/ε), give α_1, α_2 >= 1/(2+ε)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 65));
    const double eps = *rc::gen::elementOf(kEps);
    const Setup st = orthonormal(n);
    const mpfr200 L = ln_ratio(static_cast<double>(n), eps);
    const double t = grid_up(L);
    const auto q = axpy(t, key(st, 1), axpy(t, key(st, 0), std::vector<double>(kDim, 0.0)));
    if (!(norm(q) <= 2 * sqrt(mpfr200(2)) * L)) fail(std::string(id) + ": ‖q‖ > 2√2 ln(n/ε)");
    const auto r = attend<T>(id, k, q, st);
    const real target = 1.0L / (2.0L + static_cast<real>(eps));
    for (std::size_t h = 0; h < 2; ++h) {
      const std::size_t i = st.where[h];
      observe(static_cast<double>((1 / r.a(i) - 2) / eps), "(1/α̂ − 2)/ε");
      if (!(r.a(i) >= target - r.down(i)))
        report<T>(id, "averaging, " + case_name(n, eps), r, q)
            .line("α̂_" + std::to_string(h + 1) + " = " + decimal(static_cast<double>(r.a(i))) + " < 1/(2+ε) = " + decimal(static_cast<double>(target)))
            .error(target - r.a(i), r.down(i)).raise();
    }
  }
  static inline const bool registered = property::register_property<Expr003>(expr_dtypes);
};

// ---- EXPR-BND-004: the least averaging query ------------------------------------------------------
// With orthonormal keys only q's coordinates along the keys matter (s_i = q_i). The constraints
// are convex and symmetric, so a least q has s_1 = s_2 = a, s_i = −b (i >= 3), and needs
// a + b >= g = ln((n−2)/ε); the least norm is g√(2(n−2)/n), at a = (n−2)g/n, b = 2g/n — shorter
// than the seed's √2 ln(n/ε), which the exercise allows to be 2√2 ln(n/ε). Along the seed's
// direction k_1 + k_2 the least t is g. Checked: the optimum averages; (1 − 2^-6) of it, (1 − 2^-6)g
// along k_1 + k_2, and random queries no longer than (1 − 2^-6) of the optimum do not.
struct Expr004 {
  static constexpr const char* id = "FALSIFY-EXPR-004";
  static constexpr const char* title = "averaging needs ‖q‖ >= √(2(n−2)/n)·ln((n−2)/ε) (< √2 ln(n/ε)): the optimum averages, shorter queries fail";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(3, 65));
    const double eps = *rc::gen::elementOf(kEps);
    const Setup st = orthonormal(n);
    const std::size_t i1 = st.where[0], i2 = st.where[1];
    const mpfr200 g = ln_ratio(static_cast<double>(n - 2), eps), nn = static_cast<double>(n);
    const mpfr200 least = g * sqrt(2 * (nn - 2) / nn);
    const real target = 1.0L / (2.0L + static_cast<real>(eps));
    const auto build = [&](double a, double b) {
      std::vector<double> q(kDim, 0.0);
      for (std::size_t i = 0; i < n; ++i) q = axpy(i < 2 ? a : -b, key(st, i), q);
      return q;
    };
    {
      const auto q = build(grid_up((nn - 2) * g / nn), grid_up(2 * g / nn));
      if (!(norm(q) < sqrt(mpfr200(2)) * ln_ratio(static_cast<double>(n), eps)))
        fail(std::string(id) + ": the least query is not shorter than the seed's √2 ln(n/ε)");
      const auto r = attend<T>(id, k, q, st);
      observe(static_cast<double>((1 / r.a(i1) - 2) / eps), "(1/α̂_1 − 2)/ε at the least averaging query");
      for (const std::size_t i : {i1, i2})
        if (!(r.a(i) >= target - r.down(i)))
          report<T>(id, "least averaging query, " + case_name(n, eps), r, q)
              .line("α̂ = " + decimal(static_cast<double>(r.a(i))) + " < 1/(2+ε) = " + decimal(static_cast<double>(target)))
              .error(target - r.a(i), r.down(i)).raise();
    }
    const int kind = *rc::gen::inRange(0, 3);
    std::vector<double> q;
    if (kind == 0) q = build(grid_down(kShrink * (nn - 2) * g / nn), grid_down(kShrink * 2 * g / nn));
    else if (kind == 1) q = build(grid_down(kShrink * g), 0);
    else {
      const auto dir = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(-64, 65));
      mpfr200 dn = 0;
      for (int v : dir) dn += mpfr200(v) * v;
      RC_PRE(dn > 0);
      const mpfr200 scale = kShrink * least * (*rc::gen::inRange(1, 65) / 64.0) / sqrt(dn);
      q.assign(kDim, 0.0);
      for (std::size_t i = 0; i < n; ++i) q = axpy(grid_down(scale * dir[i]), key(st, i), q);
      if (!(norm(q) <= kShrink * least)) fail(std::string(id) + ": generator made a query longer than (1 − 2^-6) of the least");
    }
    RC_CLASSIFY(kind == 0, "optimum shortened");
    RC_CLASSIFY(kind == 1, "seed's direction, t below ln((n−2)/ε)");
    RC_CLASSIFY(kind == 2, "random direction");
    const auto r = attend<T>(id, k, q, st);
    const std::string what = "query shorter than the least averaging one, " + case_name(n, eps);
    if (!(std::min(r.row.p[i1], r.row.p[i2]) < target))
      report<T>(id, what, r, q).line("exact α_1, α_2 >= 1/(2+ε): the least-length claim is false").raise();
    if (r.a(i1) >= target + r.up(i1) && r.a(i2) >= target + r.up(i2))
      report<T>(id, what, r, q)
          .line("α̂_1 = " + decimal(static_cast<double>(r.a(i1))) + ", α̂_2 = " + decimal(static_cast<double>(r.a(i2))) + " both >= 1/(2+ε) = " +
                decimal(static_cast<double>(target)) + " with ‖q‖ < " + decimal(least.convert_to<double>()))
          .raise();
  }
  static inline const bool registered = property::register_property<Expr004>(expr_dtypes);
};

// ---- EXPR-EQV-001: a noisy key --------------------------------------------------------------------
// k_1 = c·u, c ∈ {1/2, 3/2}, k_2.. orthonormal and ⊥ u, q = t(u + k_2), t = ln(n/ε): s_1 = ct,
// s_2 = t, so α_1/α_2 = e^{(c−1)t} = (n/ε)^{±1/2}. The kernel's ratio must lie in
// [lo_1/hi_2, hi_1/lo_2]. (t on the 2^-10 grid keeps c·√d·t exact.)
Setup noisy(std::size_t n, double c) {
  Setup st = blank(n);
  st.at(0, 0) = c;
  for (std::size_t i = 1; i < n; ++i) st.at(i, i) = 1;
  shuffle(st);
  return st;
}

struct Expr005 {
  static constexpr const char* id = "FALSIFY-EXPR-005";
  static constexpr const char* title = "noisy key k_1 = c·u, c ∈ {1/2, 3/2}, q = ln(n/ε)(u + k_2): α_1/α_2 = e^{(c−1)t}, the head does not average";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 65));
    const double eps = *rc::gen::elementOf(kEps), c = *rc::gen::element(0.5, 1.5);
    const Setup st = noisy(n, c);
    const double t = grid_up(ln_ratio(static_cast<double>(n), eps));
    std::vector<double> u = key(st, 0);
    for (double& v : u) v /= c;  // exact: c is 1/2 or 3/2 and the entry c·(±1)
    const auto q = axpy(t, key(st, 1), axpy(t, u, std::vector<double>(kDim, 0.0)));
    const auto r = attend<T>(id, k, q, st);
    const std::size_t i1 = st.where[0], i2 = st.where[1];
    const real expected = oracle::dbl(mpfr200(exp(mpfr200(c - 1) * t)));
    const real lo = r.b.lo[i1] / r.b.hi[i2], hi = r.b.hi[i1] / r.b.lo[i2];
    const real got = r.a(i1) / r.a(i2);
    const real half = std::max(hi - expected, expected - lo);
    observe(ratio(std::abs(got - expected), half), "|α̂_1/α̂_2 − e^{(c−1)t}| / allowance");
    // The share of the larger of α_1, α_2 is e^{|c−1|t}/(1 + e^{|c−1|t}) > √2/(1+√2): never 1/2.
    const real share = std::max(got, 1 / got) / (1 + std::max(got, 1 / got));
    RC_CLASSIFY(share > 0.9, "the head collapses (> 90 % on one of v_1, v_2)");
    if (!(lo / bounds::evaluation_slack <= got && got <= hi * bounds::evaluation_slack))
      report<T>(id, "noisy key, c = " + decimal(c) + ", " + case_name(n, eps), r, q)
          .line("α̂_1/α̂_2 = " + decimal(static_cast<double>(got)) + ", e^{(c−1)t} = " + decimal(static_cast<double>(expected)) + ", allowed [" +
                decimal(static_cast<double>(lo)) + ", " + decimal(static_cast<double>(hi)) + "]")
          .raise();
  }
  static inline const bool registered = property::register_property<Expr005>(expr_dtypes);
};

// ---- EXPR-BND-005: two heads ----------------------------------------------------------------------
// Head 1: q_1 = t_1·u, t_1 = 2ln(n/ε) (so c·t_1 >= ln(n/ε) for c >= 1/2); head 2: q_2 = t_2·k_2,
// t_2 = ln(n/ε) (s_1 = 0: k_1 ⊥ k_2). All other scores are 0, so 1 − α_1^(1), 1 − α_2^(2) <=
// (n−1)ε/n and, per output coordinate c, |(O_1 + O_2)/2 − (v_1 + v_2)/2|_c <= (n−1)ε/n · D_c,
// D_c = max_{i,j} |v_ic − v_jc|. Here V is real (random, adversarial v_1 = v_2 = 1 and the rest 0,
// which nearly reaches the bound at c = 1/2, or I), so the allowance adds, per head, the output
// accumulation γ_n Σ_j hi_j|v_jc| + nη (Higham §3.1) and Σ_j |v_jc|·max(hi_j − p_j, p_j − lo_j).
struct Expr006 {
  static constexpr const char* id = "FALSIFY-EXPR-006";
  static constexpr const char* title = "two heads q_1 = 2ln(n/ε)u, q_2 = ln(n/ε)k_2 output (v_1 + v_2)/2 within (n−1)ε/n·max|v_i − v_j| per coordinate";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 65));
    const double eps = *rc::gen::elementOf(kEps), c = *rc::gen::element(0.5, 1.5);
    const Setup st = noisy(n, c);
    const int vkind = *rc::gen::inRange(0, 3);
    const std::size_t dv = vkind == 0 ? static_cast<std::size_t>(*rc::gen::inRange(1, 5)) : vkind == 1 ? 1 : n;
    std::vector<T> v(n * dv, lit<T>(0));
    if (vkind == 0) v = draw_vector<T>(n * dv, 4);
    else if (vkind == 1) v[st.where[0]] = v[st.where[1]] = lit<T>(1);
    else for (std::size_t i = 0; i < n; ++i) v[i * dv + i] = lit<T>(1);
    std::vector<double> u = key(st, 0);
    for (double& x : u) x /= c;
    const mpfr200 L = ln_ratio(static_cast<double>(n), eps);
    const auto q1 = axpy(grid_up(2 * L), u, std::vector<double>(kDim, 0.0));
    const auto q2 = axpy(grid_up(L), key(st, 1), std::vector<double>(kDim, 0.0));
    const auto kt = to_t<T>(st.keys);
    std::vector<mpfr200> e1(dv), e2(dv);
    std::vector<real> w1(dv), w2(dv);
    // One head: its output (e, exactly as MPFR) and its allowance per column (w).
    const auto head = [&](const std::vector<double>& q, std::vector<mpfr200>& e, std::vector<real>& w) {
      std::vector<T> o(dv);
      std::vector<double> q8(q);
      for (double& x : q8) x *= kSqrtDim;
      const auto qt = to_t<T>(q8);
      k.attention(qt.data(), kt.data(), v.data(), 1, n, kDim, dv, false, o.data());
      const auto s = exact_scores<T>(id, q, st);
      const auto row = oracle::softmax_row(s);
      const auto b = bounds::softmax_bound(row, bounds::model_of<T>());
      const auto md = bounds::model_of<T>();
      for (std::size_t col = 0; col < dv; ++col) {
        real acc = 0, mix = 0;
        for (std::size_t j = 0; j < n; ++j) {
          const real a = std::abs(static_cast<real>(to_double(v[j * dv + col])));
          acc += b.hi[j] * a;
          mix += a * std::max(b.hi[j] - row.p[j], row.p[j] - b.lo[j]);
        }
        w[col] = (bounds::gamma(n, md.u) * acc + static_cast<real>(n) * md.eta + mix) * bounds::evaluation_slack;
        e[col] = mpfr200(to_double(o[col]));
      }
    };
    head(q1, e1, w1);
    head(q2, e2, w2);
    const real cap = static_cast<real>(n - 1) * static_cast<real>(eps) / static_cast<real>(n);
    RC_CLASSIFY(vkind == 1, "adversarial values v_1 = v_2 = 1, others 0");
    for (std::size_t col = 0; col < dv; ++col) {
      mpfr200 vmax = to_double(v[col]), vmin = vmax;
      for (std::size_t j = 0; j < n; ++j) {
        const mpfr200 x = to_double(v[j * dv + col]);
        if (x > vmax) vmax = x;
        if (x < vmin) vmin = x;
      }
      const real D = oracle::dbl(mpfr200(vmax - vmin));
      const mpfr200 mid = (mpfr200(to_double(v[st.where[0] * dv + col])) + to_double(v[st.where[1] * dv + col])) / 2;
      const real dist = oracle::dbl(mpfr200(abs((e1[col] + e2[col]) / 2 - mid)));
      const real allowed = (cap * D + (w1[col] + w2[col]) / 2) * bounds::evaluation_slack;
      if (D > 0) observe(static_cast<double>(dist / (cap * D)), std::string("two-head distance / ((n−1)ε/n·D)") + (vkind == 1 ? ", adversarial V" : ""));
      if (!(dist <= allowed))
        Report<T>(id, "attention<" + scalar_name<T>() + ">, two heads, c = " + decimal(c) + ", " + case_name(n, eps) + ", output column " + std::to_string(col))
            .input("V", v)
            .line("(O_1 + O_2)/2 = " + decimal(oracle::dbl(mpfr200((e1[col] + e2[col]) / 2))) + ", (v_1 + v_2)/2 = " + decimal(oracle::dbl(mid)) +
                  ", bound (n−1)ε/n·D = " + decimal(static_cast<double>(cap * D)))
            .error(dist, allowed).raise();
    }
  }
  static inline const bool registered = property::register_property<Expr006>(expr_dtypes);
};

// ---- EXPR-EQV-002: the seed's head 1 ---------------------------------------------------------------
// The exercise (d) takes q_1 = t·u with t = ln(n/ε) and says α_1^(1) ≈ 1 "even in the worst case c = 1/2".
// There s_1 = t/2 and every other score is 0: α_1^(1) = e^{t/2}/(e^{t/2} + n − 1) =
// √(n/ε)/(√(n/ε) + n − 1), below 1/2 as soon as (n−1)²ε > n (n = 16, ε = 1/2: 0.27). The kernel
// must match this value within [lo_1, hi_1]; cases where it is below 1/2 are counted.
struct Expr007 {
  static constexpr const char* id = "FALSIFY-EXPR-007";
  static constexpr const char* title = "the seed's head q_1 = ln(n/ε)u at c = 1/2 gives α_1 = √(n/ε)/(√(n/ε) + n − 1), not ≈ 1";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 65));
    const double eps = *rc::gen::elementOf(kEps);
    const Setup st = noisy(n, 0.5);
    std::vector<double> u = key(st, 0);
    for (double& x : u) x *= 2;
    const double t = grid_up(ln_ratio(static_cast<double>(n), eps));
    const auto q = axpy(t, u, std::vector<double>(kDim, 0.0));
    const auto r = attend<T>(id, k, q, st);
    const std::size_t i1 = st.where[0];
    const mpfr200 h = exp(mpfr200(t) / 2);
    const real formula = oracle::dbl(mpfr200(h / (h + static_cast<double>(n - 1))));
    if (!(std::abs(formula - r.row.p[i1]) <= 0x1p-60L * formula))
      report<T>(id, "seed's head 1, " + case_name(n, eps), r, q).line("exact α_1 = " + decimal(static_cast<double>(r.row.p[i1])) + " ≠ √(n/ε)/(√(n/ε) + n − 1)").raise();
    const bool below_half = formula < 0.5L;
    RC_CLASSIFY(below_half, "α_1^(1) < 1/2: head 1 does not retrieve v_1");
    observe(ratio(std::abs(r.a(i1) - formula), std::max(r.up(i1), r.down(i1))), "|α̂_1 − √(n/ε)/(√(n/ε) + n − 1)| / allowance");
    if (!(r.a(i1) >= formula - r.down(i1) && r.a(i1) <= formula + r.up(i1)))
      report<T>(id, "seed's head 1 at c = 1/2, " + case_name(n, eps), r, q)
          .line("α̂_1 = " + decimal(static_cast<double>(r.a(i1))) + ", √(n/ε)/(√(n/ε) + n − 1) = " + decimal(static_cast<double>(formula)))
          .error(std::abs(r.a(i1) - formula), std::max(r.up(i1), r.down(i1)))
          .raise();
  }
  static inline const bool registered = property::register_property<Expr007>(expr_dtypes);
};

}  // namespace

}  // namespace attncheck::falsify
