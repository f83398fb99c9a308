// attncheck: falsification tests of attention-scaling-v1 (contracts/attention-scaling-v1.yaml).
// Obligations: ASCL-STA-001 variance, ASCL-BND-001 score bound per domain, ASCL-BND-002/003
// entropy bounds, ASCL-INV-001 max subtraction, ASCL-MON-001 saturation, ASCL-INV-002 shape,
// ASCL-BND-004 entropy accuracy, ASCL-BND-005 attention output accuracy.
#include <cmath>
#include <limits>
#include <vector>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/entropy.hpp"
#include "attncheck/bounds/entropy_of_softmax.hpp"
#include "attncheck/bounds/rmsnorm.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/property/gen/normal.hpp"
#include "falsify/pooled_property.hpp"
#include "falsify/softmax_accuracy.hpp"
#include "falsify/variance_test.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using oracle::real;

// Σ_t |a_t b_t| in double, rounded up by its own evaluation error (n·2^-53 relative).
template <class T>
double abs_dot(const T* a, const T* b, std::size_t d) {
  double s = 0;
  for (std::size_t t = 0; t < d; ++t) s += std::abs(to_double(a[t]) * to_double(b[t]));
  return s * (1 + static_cast<double>(d + 2) * 0x1p-53);
}

template <class T>
double norm2(const std::vector<T>& a) {
  return std::sqrt(abs_dot(a.data(), a.data(), a.size())) * (1 + 0x1p-52);
}

template <class T>
T entropy_of_softmax(const KernelSet<T>& k, const std::vector<T>& z) {
  std::vector<T> p(z.size());
  k.softmax(z.data(), p.data(), z.size());
  return k.entropy(p.data(), p.size());
}

// Variance preservation as an exact hypothesis test. Each case draws one key k ~ N(0, I_d) and
// N queries q_s ~ N(0, I_d), all independent, and has the kernel score them in one call (n = N,
// m = 1). Conditioning on k, the scores q_s·k/√d are i.i.d. N(0, ‖k‖²/d), so
// T = Σ_s d·S_s²/‖k‖² ~ χ²_N exactly, and the cases are independent. The kernel's rounding
// (derived score bound plus the rounding of the inputs into T) widens T to [T_lo, T_hi].
// Two tests, both rejecting only when the whole interval is outside the two-sided χ² quantiles:
//  - per case, χ²_N at α_case: a gross error (no 1/√d_k: T ≈ d_k·χ²_N) fails a case, which
//    RapidCheck shrinks to a small counterexample;
//  - pooled over the run's C cases (start_run/finish_run, falsify/pooled_property.hpp):
//    Σ T ~ χ²_{C·N} at α_pool, the test of stated power. At the default C = 200 (ν = 819,200)
//    it detects a scale error of about ±1 % with probability >= 1 − 1e-9 where rounding is
//    negligible (f32, f64), against ±7 % for the per-case tests of the same run.
// The numbers (N, d_k, α_case, α_pool) and the power formulas are in falsify/variance_test.hpp;
// the contract states them and tests/contract_numbers_test.cpp checks that it does. The run
// reports its own power as a finding, from its ν and its measured rounding widening: at 16-bit
// formats [T_lo, T_hi] stays a fixed relative width however many cases are pooled (bf16@bf16,
// every sum in bf16, γ_64 = 1/3, detects only gross errors at large d_k). d_k stops at 64: the
// runtime is ∝ N·d_k, and at bf16@bf16 γ_d makes the test vacuous long before d = 256.
struct Ascl001 {
  static constexpr const char* id = "FALSIFY-ASCL-001";
  static constexpr const char* title = "scores of i.i.d. N(0,1) q, k have variance 1 (χ² tests per case and pooled over the run, N = 4096, d_k ∈ [2, 64], α ≤ 1e-9 per run)";
  struct Pool {
    double t_lo = 0, t_hi = 0, t_mid = 0;
    int cases = 0;
  };
  template <class T>
  static Pool& pool() {
    thread_local Pool p;
    return p;
  }
  template <class T>
  static void start_run() {
    pool<T>() = {};
  }
  template <class T>
  static void finish_run(property::Outcome& out);
  template <class T>
  static void check(const KernelSet<T>& k) {
    using namespace variance_test;
    const std::size_t d = *gen::uniform_int<std::size_t>(min_d, max_d);
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint64_t>();
    gen::NormalStream g(seed);
    const auto md = bounds::model_of<T>();
    const std::size_t n = samples;
    // qd, kd: the drawn values; qr, kr: the same rounded into T (read back once: 16-bit
    // conversions are the slow part of this check). The N·d buffers are kept between cases
    // (fresh 2 MB allocations page-faulted on every case).
    thread_local std::vector<double> qd, qr;
    thread_local std::vector<T> q;
    qd.resize(n * d), qr.resize(n * d), q.resize(n * d);
    std::vector<double> kd(d), kr(d);
    std::vector<T> kk(d);
    double kn2 = 0;
    for (std::size_t t = 0; t < d; ++t) {
      kd[t] = g.next();
      kk[t] = scalar_traits<T>::from_double(kd[t]);
      kr[t] = to_double(kk[t]);
      kn2 += kd[t] * kd[t];
    }
    for (std::size_t i = 0; i < n * d; ++i) {
      qd[i] = g.next();
      q[i] = scalar_traits<T>::from_double(qd[i]);
      qr[i] = to_double(q[i]);
    }
    std::vector<T> out(n);
    k.scores(q.data(), kk.data(), n, 1, d, out.data());
    const double sd = std::sqrt(static_cast<double>(d)), w = static_cast<double>(d) / kn2;
    double t_lo = 0, t_hi = 0, t_mid = 0;
    for (std::size_t s = 0; s < n; ++s) {
      const double* qs = qd.data() + s * d;
      const double* qt = qr.data() + s * d;
      double exact = 0, input_err = 0, ad = 0;
      for (std::size_t t = 0; t < d; ++t) {
        exact += qs[t] * kd[t];
        input_err += std::abs(qt[t] * kr[t] - qs[t] * kd[t]);
        ad += std::abs(qt[t] * kr[t]);
      }
      ad *= 1 + static_cast<double>(d + 2) * 0x1p-53;  // as abs_dot: rounded up by its own evaluation error
      // Allowance: the kernel's derived bound, the rounding of q, k into T, and double evaluation.
      const double e = bounds::score_bound(exact / sd, ad, d, md) + input_err / sd +
                       static_cast<double>(d + 4) * 0x1p-52 * (ad + std::abs(exact)) / sd;
      const double v = std::abs(to_double(out[s]));
      if (!std::isfinite(v)) fail(std::string(id) + " failed: non-finite score " + decimal(to_double(out[s])) + " for d = " + std::to_string(d));
      const double v_lo = std::max(0.0, v - e), v_hi = v + e;
      t_lo += w * v_lo * v_lo;
      t_hi += w * v_hi * v_hi;
      t_mid += w * v * v;
    }
    const Acceptance acc = acceptance(samples, alpha_case);
    observe(std::max(t_lo / acc.hi, acc.lo / t_hi), "χ² statistic vs its quantiles, d = " + std::to_string(d));
    if (t_lo > acc.hi || t_hi < acc.lo) {
      std::ostringstream s;
      s << id << " failed: scores<" << scalar_name<T>() << ">, d = " << d << ", one key and N = " << samples
        << " queries from normal stream seed " << hex_u64(seed) << "\n"
        << "  Statistic:   T = Σ d·S²/‖k‖² = " << t_mid << ", with rounding in [" << t_lo << ", " << t_hi << "]\n"
        << "  Accepted:    [" << acc.lo << ", " << acc.hi << "]  (χ²_" << samples << " quantiles at α/2 = " << alpha_case / 2 << ")\n"
        << "  Implied Var(score) ≈ " << t_mid / samples << "  (1 with the 1/√d_k scaling; d_k without it)\n";
      fail(s.str());
    }
    Pool& p = pool<T>();
    p.t_lo += t_lo, p.t_hi += t_hi, p.t_mid += t_mid, ++p.cases;
  }
  static inline const bool registered = register_pooled_property<Ascl001>();
};

// The pooled test over the run's cases, and the run's power (a finding, printed under the row).
template <class T>
void Ascl001::finish_run(property::Outcome& out) {
  using namespace variance_test;
  const Pool p = pool<T>();
  if (p.cases == 0) return;
  const double nu = static_cast<double>(p.cases) * samples;
  const Acceptance acc = acceptance(nu, alpha_pool);
  const Power sure = power(nu, alpha_pool, miss, p.t_lo / p.t_mid, p.t_hi / p.t_mid);
  const Power even = power(nu, alpha_pool, 0.5, p.t_lo / p.t_mid, p.t_hi / p.t_mid);
  std::ostringstream f;
  f << "pooled χ² test over " << p.cases << " cases (ν = " << static_cast<long long>(nu) << "): T/ν = " << fixed_digits(p.t_mid / nu, 5)
    << ", with rounding in [" << fixed_digits(p.t_lo / nu, 5) << ", " << fixed_digits(p.t_hi / nu, 5) << "]; accepts T/ν in ["
    << fixed_digits(acc.lo / nu, 5) << ", " << fixed_digits(acc.hi / nu, 5) << "] (α = " << alpha_pool << "); detects a scale error of "
    << percent(sure.up) << " / " << percent(sure.down) << " or beyond with probability >= 1 − " << miss << " ("
    << percent(even.up) << " / " << percent(even.down) << " with probability >= 1/2), this run's rounding widening included";
  out.findings.push_back(f.str());
  if (p.t_lo > acc.hi || p.t_hi < acc.lo) {
    std::ostringstream s;
    s << id << " failed: scores<" << scalar_name<T>() << ">, the pooled test over all " << p.cases << " cases of the run\n"
      << "  Statistic:   Σ T = " << p.t_mid << ", with rounding in [" << p.t_lo << ", " << p.t_hi << "]\n"
      << "  Accepted:    [" << acc.lo << ", " << acc.hi << "]  (χ²_" << static_cast<long long>(nu) << " quantiles at α/2 = " << alpha_pool / 2 << ")\n"
      << "  Implied Var(score) ≈ " << p.t_mid / nu << " (scale ≈ " << std::sqrt(p.t_mid / nu) << ")\n";
    out.verdict = property::Verdict::fail;
    out.counterexample = s.str();
  }
}
// The three domains of the score bound, each with its own statement (the Rust rendering of this contract mixed them).
struct Ascl002 {
  static constexpr const char* id = "FALSIFY-ASCL-002";
  static constexpr const char* title = "|score| <= 1/√d (unit norm), √d (RMSNorm, unit gain), √d·max|γq|·max|γk| (gains)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto md = bounds::model_of<T>();
    const std::size_t d = static_cast<std::size_t>(*rc::gen::inRange(1, 129));
    const double mag = std::min(std::sqrt(format_of<T>.max_finite / static_cast<double>(d)) / 4, 1e3);
    std::vector<T> q = draw_vector<T>(d, mag);
    const int relation = *rc::gen::inRange(0, 3);  // 0: independent k, 1: k = q, 2: k = -q (tight cases)
    std::vector<T> kv = relation == 0 ? draw_vector<T>(d, mag) : q;
    if (relation == 2) for (auto& v : kv) v = -v;
    const int domain = *rc::gen::inRange(0, 3);
    std::string what = "scores<" + scalar_name<T>() + ">, d = " + std::to_string(d);
    double bound = 0;
    if (domain == 0) {
      // (a) unit norm: normalise in double, round into T; the bound uses the rounded norms.
      const double nq = norm2(q), nk = norm2(kv);
      RC_PRE(nq > 0 && nk > 0 && std::isfinite(nq) && std::isfinite(nk));
      for (auto& v : q) v = scalar_traits<T>::from_double(to_double(v) / nq);
      for (auto& v : kv) v = scalar_traits<T>::from_double(to_double(v) / nk);
      bound = norm2(q) * norm2(kv) / std::sqrt(static_cast<double>(d));
      what += ", domain (a) unit-norm q, k: bound ‖q‖‖k‖/√d ≈ 1/√d";
    } else {
      // (b) RMSNorm with unit gain, (c) with gains γ, both by the rmsnorm kernel under test.
      std::vector<T> gq(d, lit<T>(1)), gk(d, lit<T>(1));
      double gmax_q = 1, gmax_k = 1;
      if (domain == 2) {
        const double gain_scale = *rc::gen::element(0.1, 0.5, 2.0);  // learned gains: small and large
        gq = draw_vector<T>(d, gain_scale);
        gk = draw_vector<T>(d, gain_scale);
        gmax_q = gmax_k = 0;
        for (std::size_t t = 0; t < d; ++t) {
          gmax_q = std::max(gmax_q, std::abs(to_double(gq[t])));
          gmax_k = std::max(gmax_k, std::abs(to_double(gk[t])));
        }
      }
      const T eps = scalar_traits<T>::from_double(*rc::gen::element(0.0, 1e-6, 1e-2, 1.0));
      std::vector<T> qn(d), kn(d);
      k.rmsnorm(q.data(), gq.data(), d, eps, qn.data());
      k.rmsnorm(kv.data(), gk.data(), d, eps, kn.data());
      const auto ms_eps = [&](const std::vector<T>& x) { return abs_dot(x.data(), x.data(), d) / static_cast<double>(d) + to_double(eps); };
      const double mq = ms_eps(q), mk = ms_eps(kv);
      RC_PRE(mq > 0 && mk > 0 && std::isfinite(mq) && std::isfinite(mk) && mq < format_of<T>.max_finite / 4);
      const auto bq = bounds::rmsnorm_bound(d, mq, md), bk = bounds::rmsnorm_bound(d, mk, md);
      // ‖q̂‖ <= √d·max|γ|·(1 + φ) + √d·a(max|γ|): the exact norm is at most √d·max|γ|, plus the
      // kernel's error, a(w) = ((1+u)|w| + 1)η/2 the absolute part of its element bound.
      const double sd = std::sqrt(static_cast<double>(d));
      bound = (sd * gmax_q * (1 + bq.phi) + bq.absolute(gmax_q) * sd) * (sd * gmax_k * (1 + bk.phi) + bk.absolute(gmax_k) * sd) / sd;
      what += domain == 1 ? ", domain (b) RMSNorm unit gain: bound √d" : ", domain (c) RMSNorm with gains: bound √d·max|γq|·max|γk|";
      q = qn;
      kv = kn;
    }
    if (domain == 1) {
      // Tightness of (b): q = k = 1_d has ms = 1, so the exact score is √d/(1+ε) → √d.
      const std::vector<T> ones(d, lit<T>(1));
      const T eps = scalar_traits<T>::from_double(*rc::gen::element(0.0, 1e-6));
      std::vector<T> u(d);
      k.rmsnorm(ones.data(), ones.data(), d, eps, u.data());
      T st;
      k.scores(u.data(), u.data(), 1, 1, d, &st);
      const double sd = std::sqrt(static_cast<double>(d)), exact = sd / (1 + to_double(eps));
      const auto bu = bounds::rmsnorm_bound(d, 1 + to_double(eps), md);
      // û_i >= y(1 - φ) - a(1) with y = 1/√(1+ε) <= 1, so Σû_i²/√d >= exact(1 - φ)² - 2a(1)√d.
      const double slack = exact * (2 * bu.phi + bu.phi * bu.phi) + 2 * bu.absolute(1) * sd +
                           bounds::score_bound(exact, static_cast<double>(d) * (1 + bu.phi) * (1 + bu.phi), d, md);
      observe(ratio(std::max(0.0, exact - to_double(st)), slack), "tightness of √d, d = " + std::to_string(d));
      if (!(to_double(st) >= exact - slack))
        Report<T>(id, "scores<" + scalar_name<T>() + ">(RMSNorm(1_d), RMSNorm(1_d)), d = " + std::to_string(d)).kernel(st)
            .exact(exact, "√d/(1+ε)").error(exact - to_double(st), slack).line("The √d bound is attained here; the kernels fall short of it.").raise();
    }
    T s;
    k.scores(q.data(), kv.data(), 1, 1, d, &s);
    const double allowed = bound * bounds::evaluation_slack + bounds::score_bound(bound, abs_dot(q.data(), kv.data(), d), d, md);
    if (!(allowed < std::numeric_limits<double>::infinity())) {
      // ε = 0 and a mean square that underflows in T (e.g. k = [smallest subnormal, -0] in f16):
      // the RMSNorm bound is infinite (ρ >= 1), the normalised vector may hold inf or NaN (0/0),
      // and the derived analysis says nothing here. Counted like every unbounded comparison
      // (the gate's "checked nothing" note), not judged: found by tools/gate-seeds.sh at seed 38.
      property::note_unbounded();
      return;
    }
    const double v = std::abs(to_double(s));
    observe(ratio(v, allowed), what);
    if (!(v <= allowed))
      Report<T>(id, what).input("q", q).input("k", kv).kernel(s).error(v, allowed)
          .line("|score| exceeds the domain's bound plus its derived rounding allowance.").raise();
  }
  static inline const bool registered = property::register_property<Ascl002>();
};

struct Ascl003 {
  static constexpr const char* id = "FALSIFY-ASCL-003";
  static constexpr const char* title = "the entropy of every attention row is >= 0 (exactly, in floating point)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto z = draw_row<T>();
    const T h = entropy_of_softmax(k, z);
    if (!(to_double(h) >= 0))
      Report<T>(id, "entropy<" + scalar_name<T>() + ">(softmax(z)), m = " + std::to_string(z.size()))
          .input("Scores", z).kernel(h).line("Entropy must be >= 0: every term -p ln p is >= 0 for p in [0, 1].").raise();
  }
  static inline const bool registered = property::register_property<Ascl003>();
};

struct Ascl004 {
  static constexpr const char* id = "FALSIFY-ASCL-004";
  static constexpr const char* title = "softmax with max subtraction matches the exact softmax, also where exp(max) overflows or underflows";
  template <class T>
  static void check(const KernelSet<T>& k) {
    // A third of the rows are rows where the formula without max subtraction breaks: exp(max x)
    // overflows or underflows unshifted, with |max x| from every decade of the format, not only
    // near overflow (gen::max_subtraction_row); a third where the shift matters at a moderate
    // maximum (gen::shift_region_row: entries whose exp is subnormal unshifted); a third any row
    // (gen::row).
    const int pick = *rc::gen::noShrink(gen::uniform_int(0, 2));
    const auto x = pick == 0   ? gen::to_row<T>(*gen::max_subtraction_row(format_of<T>, gen::arithmetic_format<T>()))
                   : pick == 1 ? gen::to_row<T>(*gen::shift_region_row(gen::arithmetic_format<T>()))
                               : draw_row<T>();
    property::cover("max subtraction", gen::max_subtraction_regions(x));
    property::cover("max subtraction at a moderate max", gen::shift_regions(x));
    expect_softmax_accurate(id, k, x);
  }
  static inline const bool registered = property::register_property<Ascl004>();
};

// H(softmax(βz)) is non-increasing in β. β = 2^j makes the scaled row exact in T, so the exact
// entropies are ordered and only the two rows' derived allowances separate the computed ones.
// With z = S = QKᵀ/√d_k and d_k = 4^j, 2^j·z is the unscaled row: scaling never lowers entropy.
struct Ascl005 {
  static constexpr const char* id = "FALSIFY-ASCL-005";
  static constexpr const char* title = "entropy never increases with inverse temperature: H(softmax(2^j z)) <= H(softmax(z))";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto z = draw_row<T>(512);
    const int j = *rc::gen::inRange(1, 6);
    std::vector<T> b(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
      b[i] = T(z[i] * lit<T>(std::ldexp(1.0, j)));
      RC_PRE(std::isfinite(to_double(b[i])) && std::ldexp(to_double(b[i]), -j) == to_double(z[i]));
    }
    const T hz = entropy_of_softmax(k, z), hb = entropy_of_softmax(k, b);
    const auto md = bounds::model_of<T>();
    const double allowed = bounds::entropy_of_softmax_allowance(oracle::certified::softmax_row(z), md) +
                           bounds::entropy_of_softmax_allowance(oracle::certified::softmax_row(b), md);
    const double excess = to_double(hb) - to_double(hz);
    observe(ratio(std::max(0.0, excess), allowed), "H(2^j z) - H(z), m = " + std::to_string(z.size()));
    // The HTML report's entropy against inverse temperature: H at β = 1 and at β = 2^j, within [0, ln m].
    property::sample("entropy-vs-beta", "softmax+entropy", {"beta", "entropy_at_beta", "entropy_at_1", "ln_n"},
                  {std::ldexp(1.0, j), to_double(hb), to_double(hz), std::log(static_cast<double>(z.size()))});
    if (!(excess <= allowed))
      Report<T>(id, "entropy<" + scalar_name<T>() + ">(softmax(2^" + std::to_string(j) + "·z)) vs (softmax(z)), m = " + std::to_string(z.size()))
          .input("z", z).line("H(softmax(z)) = " + decimal(to_double(hz)) + ", H(softmax(2^j z)) = " + decimal(to_double(hb)))
          .error(excess, allowed).line("Raising the inverse temperature (removing the 1/√d_k scaling, d_k = 4^j) raised the entropy.").raise();
  }
  static inline const bool registered = property::register_property<Ascl005>();
};

struct Ascl006 {
  static constexpr const char* id = "FALSIFY-ASCL-006";
  static constexpr const char* title = "scores have shape [n, m] with S[i*m+j] = q_i·k_j/√d and nothing written outside";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const std::size_t n = static_cast<std::size_t>(*rc::gen::inRange(1, 7)), m = static_cast<std::size_t>(*rc::gen::inRange(1, 7));
    const std::size_t d = static_cast<std::size_t>(*rc::gen::inRange(1, 41));
    const double mag = std::min(std::sqrt(format_of<T>.max_finite / static_cast<double>(d)) / 4, 100.0);
    const auto q = draw_vector<T>(n * d, mag), kv = draw_vector<T>(m * d, mag);
    const T guard = lit<T>(12345);
    std::vector<T> buf(n * m + 8, guard);
    k.scores(q.data(), kv.data(), n, m, d, buf.data() + 4);
    const std::string shape = "scores<" + scalar_name<T>() + ">, n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d);
    for (std::size_t g = 0; g < 4; ++g)
      if (!(buf[g] == guard && buf[buf.size() - 1 - g] == guard))
        Report<T>(id, shape).input("Q", q).input("K", kv).line("Wrote outside the n·m output.").raise();
    const auto ex = oracle::certified::scores(q, kv, n, m, d);
    const auto md = bounds::model_of<T>();
    const long double base = baseline_error<T>([&](const KernelSet<T>& r) {
      std::vector<T> out(n * m);
      r.scores(q.data(), kv.data(), n, m, d, out.data());
      return out;
    }, ex);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        const double allowed = bounds::score_bound(ex[i * m + j], abs_dot(q.data() + i * d, kv.data() + j * d, d), d, md);
        expect_close<T>(id, shape + ", S[" + std::to_string(i) + "][" + std::to_string(j) + "]", "Q", q, buf[4 + i * m + j], ex[i * m + j], allowed, &ex.ref[i * m + j], base);
      }
  }
  static inline const bool registered = property::register_property<Ascl006>();
};

struct Ascl007 {
  static constexpr const char* id = "FALSIFY-ASCL-007";
  static constexpr const char* title = "the entropy of an attention row over m keys is <= ln m plus the derived allowance";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto z = draw_row<T>();
    const T h = entropy_of_softmax(k, z);
    const double lnm = std::log(static_cast<double>(z.size()));
    const double allowed = bounds::entropy_of_softmax_allowance(oracle::certified::softmax_row(z), bounds::model_of<T>());
    const double excess = to_double(h) - lnm;
    observe(ratio(std::max(0.0, excess), allowed), "H - ln m, m = " + std::to_string(z.size()));
    if (!(excess <= allowed))
      Report<T>(id, "entropy<" + scalar_name<T>() + ">(softmax(z)), m = " + std::to_string(z.size()))
          .input("Scores", z).kernel(h).exact(lnm, "ln m").error(excess, allowed).raise();
  }
  static inline const bool registered = property::register_property<Ascl007>();
};

// The entropy kernel against the tiered oracle: |Ĥ(p) − H(p)| <= ρ_H·H(p) + a_H, the derived bound
// of bounds/entropy.hpp (proofs/bounds/entropy.md) for the very row p the kernel was given. p is
// the reference softmax at T of a drawn score row z, so the check calls the entropy kernel alone
// (an audit of an entropy kernel runs it without a softmax). Rows of at most 200 entries keep
// γ_{n-1} finite in bf16 (n·u < 1), where the bound would say nothing.
// The report plots the error against H(p) itself (series "error-vs-entropy"), not against a gap:
// an entropy is one output per row, and the derived allowance ρ_H·H + a_H is then a line (per n)
// that the errors must stay under. The row's largest gap max z − min z was the other candidate;
// past exp's underflow (a gap of about 17 in f16, 745 in f64) it only adds one-hot rows with
// H = 0, and the generators' spreads up to 1e300 squeezed every informative row into one column.
struct Ascl008 {
  static constexpr const char* id = "FALSIFY-ASCL-008";
  static constexpr const char* title = "the entropy kernel is within the derived bound of the exact entropy of its input row";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto z = draw_row<T>(200);
    std::vector<T> p(z.size());
    kernels::softmax(z.data(), p.data(), z.size());
    const T h = k.entropy(p.data(), p.size());
    const auto ex = oracle::certified::entropy_values(p);
    const auto eb = bounds::entropy_bound(p.size(), bounds::model_of<T>());
    // ρ_H infinite (n·u >= 1) would give inf·0 = NaN for a one-hot row: no bound, not judged.
    const real derived = std::isfinite(static_cast<double>(eb.rel)) ? eb.allowed(ex[0]) : std::numeric_limits<real>::infinity();
    const long double base = baseline_error<T>([&](const KernelSet<T>& r) { return std::vector<T>{r.entropy(p.data(), p.size())}; }, ex);
    const long double allowed = mode_allowance<T>(derived, ex[0], base);
    property::sample("error-vs-entropy", "entropy", {"entropy", "error", "allowance"},
                  {static_cast<double>(ex[0]), static_cast<double>(std::abs(static_cast<long double>(to_double(h)) - ex[0])),
                   static_cast<double>(allowed)});
    expect_close<T>(id, "entropy<" + scalar_name<T>() + ">(p), n = " + std::to_string(p.size()) + ", p = softmax(z)",
                    {{"p", &p}, {"z", &z}}, h, ex[0], derived, &ex.ref[0], base);
  }
  static inline const bool registered = property::register_property<Ascl008>();
};

// Attention against the tiered oracle: every output o_ic within the derived whole-row bound
// (bounds/attention_output.hpp, attention_output_allowance; proofs/bounds/attention_output.md,
// "Whole row, scores unknown") of the exact Σ_j softmax(q_i·k_j/√d)_j v_jc over the visible keys,
// causal and not. Magnitudes of q, k up to 8 put f16 scores past exp's overflow, where a kernel
// without max subtraction breaks.
// The report's x axis for output (i, c) is query i's score spread max_j s_ij − min_j s_ij over its
// visible keys (exact scores). An output mixes every key of its row, so no single |s_j − max s|
// belongs to it (the output index would say nothing about difficulty); the spread is the largest
// such gap, what the weights' error grows with, and at spread 0 the weights are uniform whatever the
// scale, so a wrong scaling (1/d for 1/√d) shows as errors rising above the allowance with it.
struct Ascl009 {
  static constexpr const char* id = "FALSIFY-ASCL-009";
  static constexpr const char* title = "every attention output is within the derived bound of the exact softmax(QKᵀ/√d)V, causal and not";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto sz = [](int lo, int hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); };
    const std::size_t n = sz(1, 6), m = sz(1, 6), d = sz(1, 16), dv = sz(1, 8);
    const bool causal = *rc::gen::arbitrary<bool>();
    const double mag = *rc::gen::element(0.5, 2.0, 8.0);
    const auto q = draw_vector<T>(n * d, mag), kk = draw_vector<T>(m * d, mag), v = draw_vector<T>(m * dv, 8);
    std::vector<T> o(n * dv);
    k.attention(q.data(), kk.data(), v.data(), n, m, d, dv, causal, o.data());
    const auto ex = oracle::certified::attention(q, kk, v, n, m, d, dv, causal);
    const auto allowed = bounds::attention_output_allowance(q, kk, v, n, m, d, dv, causal, bounds::model_of<T>());
    const long double base = baseline_error<T>([&](const KernelSet<T>& r) {
      std::vector<T> out(n * dv);
      r.attention(q.data(), kk.data(), v.data(), n, m, d, dv, causal, out.data());
      return out;
    }, ex);
    const auto s = oracle::scores(q, kk, n, m, d);
    const std::string shape = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
                              ", dv = " + std::to_string(dv) + (causal ? ", causal" : ", not causal");
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t visible = causal ? std::min(i + 1, m) : m;
      real top = -std::numeric_limits<real>::infinity(), bottom = std::numeric_limits<real>::infinity();
      for (std::size_t j = 0; j < visible; ++j) top = std::max(top, s[i * m + j]), bottom = std::min(bottom, s[i * m + j]);
      const double spread = static_cast<double>(top - bottom);
      for (std::size_t c = 0; c < dv; ++c) {
        const std::size_t e = i * dv + c;
        expect_close<T>(id, "attention<" + scalar_name<T>() + ">, output [" + std::to_string(i) + "][" + std::to_string(c) + "], " + shape,
                        {{"q", &q}, {"k", &kk}, {"v", &v}}, o[e], ex[e], allowed[e], &ex.ref[e], base, spread);
      }
    }
  }
  static inline const bool registered = property::register_property<Ascl009>();
};

}  // namespace

}  // namespace attncheck::falsify
