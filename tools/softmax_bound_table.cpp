// attncheck: measures the tightness of the softmax-filtering bound (proofs/softmax_filtering_bound.tex) and
// writes the two tables that document \input{}s. Built from the project's kernel templates
// (kernels::dot, kernels::softmax, linalg::jacobi_svd) at double; run by proofs/proofs.cmake at build time.
// Usage: softmax_bound_table OUT.tex
//
// Ratios are measured value / bound (1 = the bound is attained). All arithmetic is double; the
// quantities measured are differences of size ~1e-4 relative, against a rounding error ~1e-15
// relative, so no ratio printed (3 digits) depends on rounding. Seeds are fixed: same table on
// every run of the same binary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/linalg/svd.hpp"

namespace {

using Mat = std::vector<double>;  // row-major
namespace k = attncheck::kernels;

double frob(const Mat& a) {
  double s = 0;
  for (double x : a) s += x * x;
  return std::sqrt(s);
}

// C (r x c) = A (r x n) * B^T, B stored c x n: every entry one kernels::dot.
Mat mul_bt(const Mat& a, const Mat& b, std::size_t r, std::size_t n, std::size_t c) {
  Mat out(r * c);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) out[i * c + j] = k::dot(&a[i * n], &b[j * n], n);
  return out;
}

Mat transpose(const Mat& a, std::size_t r, std::size_t c) {
  Mat t(r * c);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) t[j * r + i] = a[i * c + j];
  return t;
}

// Singular values of an r x c matrix (descending): the project's one-sided Jacobi SVD
// (linalg/svd.hpp, whose accuracy is bounded in spectral_bounds.pdf, SPEC-EQV-003).
std::vector<double> singular_values(const Mat& a, std::size_t r, std::size_t c) {
  attncheck::linalg::Matrix<double> m(r, c);
  m.a = a;
  return attncheck::linalg::jacobi_svd(m).s;
}

double spectral(const Mat& a, std::size_t r, std::size_t c) { return singular_values(a, r, c)[0]; }

Mat softmax_rows(const Mat& s, std::size_t t) {
  Mat a(t * t);
  for (std::size_t i = 0; i < t; ++i) k::softmax(&s[i * t], &a[i * t], t);
  return a;
}

Mat gaussian(std::mt19937_64& rng, std::size_t n, double sigma) {
  std::normal_distribution<double> g(0.0, sigma);
  Mat m(n);
  for (double& x : m) x = g(rng);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Stage 1 on single rows of length T: ‖softmax(s + δ) − softmax(s)‖ / (‖δ‖/2), δ = ε·dir.
double stage1_row(const std::vector<double>& s, const std::vector<double>& dir, double eps) {
  const std::size_t t = s.size();
  std::vector<double> sp(t), p(t), pp(t);
  double nd = 0, np = 0;
  for (std::size_t j = 0; j < t; ++j) sp[j] = s[j] + eps * dir[j], nd += (eps * dir[j]) * (eps * dir[j]);
  k::softmax(s.data(), p.data(), t);
  k::softmax(sp.data(), pp.data(), t);
  for (std::size_t j = 0; j < t; ++j) np += (pp[j] - p[j]) * (pp[j] - p[j]);
  return std::sqrt(np) / (std::sqrt(nd) / 2);
}

struct EndToEnd {
  std::vector<double> r1, r2, r3, total, weyl;
};

// One configuration of the chain QKᵀ → S → A → AV → AVW_Oᵀ with a random perturbation Δ of QKᵀ,
// ‖Δ‖_F = ε‖QKᵀ‖_F. σ_qk scales Q and K (larger σ_qk: more peaked attention rows).
EndToEnd end_to_end(std::size_t t, std::size_t d, double sigma_qk, double eps, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  EndToEnd e;
  const double rd = std::sqrt(static_cast<double>(d));
  for (int trial = 0; trial < trials; ++trial) {
    const Mat q = gaussian(rng, t * d, sigma_qk), kk = gaussian(rng, t * d, sigma_qk);
    const Mat v = gaussian(rng, t * d, 1.0), wo = gaussian(rng, d * d, 1.0 / rd);
    const Mat qk = mul_bt(q, kk, t, d, t);  // QKᵀ
    Mat delta = gaussian(rng, t * t, 1.0);
    const double scale = eps * frob(qk) / frob(delta);
    for (double& x : delta) x *= scale;
    Mat s(t * t), sp(t * t), ds(t * t);
    for (std::size_t i = 0; i < t * t; ++i) s[i] = qk[i] / rd, sp[i] = (qk[i] + delta[i]) / rd, ds[i] = sp[i] - s[i];
    const Mat a = softmax_rows(s, t), ap = softmax_rows(sp, t);
    Mat da(t * t);
    for (std::size_t i = 0; i < t * t; ++i) da[i] = ap[i] - a[i];
    const Mat vt = transpose(v, t, d);
    const Mat dav = mul_bt(da, vt, t, t, d);        // ΔA·V
    const Mat y = mul_bt(mul_bt(a, vt, t, t, d), wo, t, d, d), yp = mul_bt(mul_bt(ap, vt, t, t, d), wo, t, d, d);
    Mat dy(t * d);
    for (std::size_t i = 0; i < t * d; ++i) dy[i] = yp[i] - y[i];
    const double nv = spectral(v, t, d), nwo = spectral(wo, d, d);
    const double bound = eps * frob(qk) * nv * nwo / (2 * rd);
    e.r1.push_back(frob(da) / (frob(ds) / 2));
    e.r2.push_back(frob(dav) / (frob(da) * nv));
    e.r3.push_back(frob(mul_bt(dav, wo, t, d, d)) / (frob(dav) * nwo));
    e.total.push_back(frob(dy) / bound);
    const auto sy = singular_values(y, t, d), syp = singular_values(yp, t, d);
    double w = 0;
    for (std::size_t i = 0; i < sy.size(); ++i) w = std::max(w, std::abs(syp[i] - sy[i]));
    e.weyl.push_back(w / bound);
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.tex\n", argv[0]);
    return 2;
  }
  std::FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  const double eps = 1e-4;
  const int trials = 200;
  std::fprintf(out, "%% Generated by tools/softmax_bound_table.cpp (proofs/proofs.cmake); do not edit.\n");
  std::fprintf(out, "%% epsilon = %g, %d trials per row, fixed seeds, double precision.\n", eps, trials);

  // Table 1: stage 1 on single rows. Two-point rows (c, c, -30, ..., -30) with δ along e_1 − e_2;
  // uniform rows with the worst of `trials` random directions; the exact norm of J there is 1/T.
  std::fprintf(out, "\\newcommand{\\stageonetable}{%%\n\\begin{tabular}{rcccc}\n\\toprule\n");
  std::fprintf(out, "$T$ & two-point & uniform & $2/T$ & Gaussian \\\\\n\\midrule\n");
  std::mt19937_64 rng(0x5eed2026);
  for (std::size_t t : {2u, 4u, 16u, 64u}) {
    std::vector<double> s(t, -30.0), dir(t, 0.0);
    s[0] = s[1] = 0.5;
    dir[0] = 1, dir[1] = -1;
    const double two = stage1_row(s, dir, eps);
    double uni = 0, gau = 0;
    for (int i = 0; i < trials; ++i) {
      const Mat d = gaussian(rng, t, 1.0);
      uni = std::max(uni, stage1_row(std::vector<double>(t, 0.0), d, eps));
      gau = std::max(gau, stage1_row(gaussian(rng, t, 3.0), d, eps));
    }
    std::fprintf(out, "%zu & %.4f & %.4f & %.4f & %.4f \\\\\n", t, two, uni, 2.0 / t, gau);
  }
  std::fprintf(out, "\\bottomrule\n\\end{tabular}}\n");

  // Table 2: the whole chain on random heads, per stage and end to end (median / max).
  std::fprintf(out, "\\newcommand{\\chaintable}{%%\n\\begin{tabular}{rrrccccc}\n\\toprule\n");
  std::fprintf(out, "$T$ & $d_k$ & $\\sigma_{QK}$ & stage 1 & stage 2 & stage 3 & end to end & Weyl \\\\\n\\midrule\n");
  struct Config { std::size_t t, d; double sigma; };
  std::uint64_t seed = 0x5eed2026;
  for (Config c : {Config{16, 16, 0.3}, Config{16, 16, 1.0}, Config{16, 16, 3.0}, Config{64, 32, 1.0}}) {
    const EndToEnd e = end_to_end(c.t, c.d, c.sigma, eps, trials, ++seed);
    auto cell = [](const std::vector<double>& v) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f / %.3f", median(v), *std::max_element(v.begin(), v.end()));
      return std::string(buf);
    };
    std::fprintf(out, "%zu & %zu & %.1f & %s & %s & %s & %s & %s \\\\\n", c.t, c.d, c.sigma, cell(e.r1).c_str(),
                 cell(e.r2).c_str(), cell(e.r3).c_str(), cell(e.total).c_str(), cell(e.weyl).c_str());
  }
  std::fprintf(out, "\\bottomrule\n\\end{tabular}}\n");
  return std::fclose(out) == 0 ? 0 : 1;
}
