// attncheck: falsification tests of attention-equivariance-v1 (contracts/attention-equivariance-v1.yaml,
// the equivariance exercise). Without position encodings attention is permutation equivariant: softmax(Px) =
// P softmax(x), softmax(PAPᵀ) = P softmax(A) Pᵀ, Z(PQ, K, V) = P Z(Q, K, V), Z(Q, PK, PV) = Z(Q, K, V)
// and so Z(PX) = P Z(X) for self-attention. In floating point the statement splits in two:
// where the kernel does the same operations on the same values (a query row, a whole softmax
// row, the first two summands) the results are bit-identical; where a permutation reorders a sum
// they agree within twice the derived bound. Sinusoidal position encodings break the symmetry:
// their rows are distinct for t < 2^20 in f32 and f64 (exhaustive, with the smallest distance
// reported), but not in f16/bf16, where the position itself rounds.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "falsify/position_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;

// A uniformly random permutation of 0..n−1 (Fisher–Yates with RapidCheck's draws, so it shrinks).
std::vector<std::size_t> draw_permutation(std::size_t n) {
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, i))]);
  return p;
}

// (Px)_i = x_{π(i)}, rows of `cols` entries.
template <class T>
std::vector<T> permute_rows(const std::vector<T>& x, const std::vector<std::size_t>& pi, std::size_t cols) {
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < pi.size(); ++i) std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(pi[i] * cols), cols, y.begin() + static_cast<std::ptrdiff_t>(i * cols));
  return y;
}

std::string perm_text(const std::vector<std::size_t>& pi) {
  std::string s = "π = [";
  for (std::size_t i = 0; i < pi.size() && i < 48; ++i) s += (i ? " " : "") + std::to_string(pi[i]);
  return s + (pi.size() > 48 ? " ...]" : "]");
}

template <class T>
std::vector<T> softmax_rows(const KernelSet<T>& k, const std::vector<T>& a, std::size_t rows, std::size_t cols) {
  std::vector<T> y(a.size());
  for (std::size_t i = 0; i < rows; ++i) k.softmax(a.data() + i * cols, y.data() + i * cols, cols);
  return y;
}

// The width hi − lo of SM-BND-001's interval for each entry: two evaluations that both lie in
// the interval of the same exact value differ by at most this.
template <class T>
std::vector<real> softmax_widths(const std::vector<T>& x) {
  const auto b = bounds::softmax_bound(oracle::softmax_row(x), bounds::model_of<T>());
  std::vector<real> w(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) w[i] = (b.hi[i] - b.lo[i]) * bounds::evaluation_slack;
  return w;
}

// ---- AEQ-EQV-001: softmax(Px) = P softmax(x) ----------------------------------------------------
// The max and every e_j = exp(x_j − m) are computed from the same values in any order (bit-exact);
// only the sum ŝ changes its order. Both ŷ(Px)_i and ŷ(x)_{π(i)} lie in SM-BND-001's interval of
// the same exact value softmax(x)_{π(i)}, so they differ by at most its width.
struct Aeq001 {
  static constexpr const char* id = "FALSIFY-AEQ-001";
  static constexpr const char* title = "softmax(Px) = P softmax(x) within the width of the derived interval (the sum is reordered)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto x = draw_row<T>(256);
    const auto pi = draw_permutation(x.size());
    const auto px = permute_rows(x, pi, 1);
    std::vector<T> y(x.size()), yp(x.size());
    k.softmax(x.data(), y.data(), x.size());
    k.softmax(px.data(), yp.data(), x.size());
    const auto w = softmax_widths(x);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const real diff = std::abs(static_cast<real>(to_double(yp[i])) - static_cast<real>(to_double(y[pi[i]])));
      observe(ratio(diff, w[pi[i]]), "softmax(Px) vs P softmax(x), n = " + std::to_string(x.size()));
      if (!(diff <= w[pi[i]]))
        Report<T>(id, "softmax<" + scalar_name<T>() + ">(Px)[" + std::to_string(i) + "] vs softmax(x)[" + std::to_string(pi[i]) + "]")
            .input("x", x).line(perm_text(pi)).line("softmax(Px)_i = " + bits_of(yp[i]) + ", softmax(x)_π(i) = " + bits_of(y[pi[i]]))
            .error(diff, w[pi[i]], "derived: width of the SM-BND-001 interval").raise();
    }
  }
  static inline const bool registered = property::register_property<Aeq001>();
};

// ---- AEQ-EQV-001, bit-exact part: swapping the first two entries ---------------------------------
// ŝ = ((e_0 + e_1) + e_2) + ...: exchanging e_0 and e_1 exchanges the operands of one addition,
// and floating-point addition is commutative, so every operation sees the same values: the
// outputs are bit-identical. (For n <= 2 every permutation is of this kind.)
struct Aeq002 {
  static constexpr const char* id = "FALSIFY-AEQ-002";
  static constexpr const char* title = "softmax of a row with its first two entries swapped is the swapped softmax, bit for bit";
  template <class T>
  static void check(const KernelSet<T>& k) {
    auto x = draw_row<T>(256);
    if (x.size() < 2) x.push_back(gen::to<T>(*gen::moderate_value(format_of<T>, 8)));
    std::vector<T> sx = x;
    std::swap(sx[0], sx[1]);
    std::vector<T> y(x.size()), ys(x.size());
    k.softmax(x.data(), y.data(), x.size());
    k.softmax(sx.data(), ys.data(), x.size());
    std::swap(ys[0], ys[1]);
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!identical_bits(y[i], ys[i]))
        Report<T>(id, "softmax<" + scalar_name<T>() + ">, entry " + std::to_string(i) + " after swapping x_0 and x_1").input("x", x)
            .line("softmax(x)_i = " + bits_of(y[i]) + ", swap(softmax(swap x))_i = " + bits_of(ys[i]) + " (must be the same bits)").raise();
  }
  static inline const bool registered = property::register_property<Aeq002>();
};

// ---- AEQ-EQV-002: softmax(PAPᵀ) = P softmax(A) Pᵀ ------------------------------------------------
// Row-wise softmax: row i of PAPᵀ is row π(i) of A with its entries permuted by π. Permuting only
// the rows (PA) is bit-exact (each row is computed on its own, from its own values); the column
// permutation is AEQ-EQV-001 within each row.
struct Aeq003 {
  static constexpr const char* id = "FALSIFY-AEQ-003";
  static constexpr const char* title = "softmax(PA) = P softmax(A) bit for bit, softmax(PAPᵀ) = P softmax(A) Pᵀ within the derived widths";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(1, 13));
    const auto a = draw_vector<T>(n * n, 16);
    const auto pi = draw_permutation(n);
    const auto y = softmax_rows(k, a, n, n);
    // PA: rows permuted.
    const auto ypa = softmax_rows(k, permute_rows(a, pi, n), n, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (!identical_bits(ypa[i * n + j], y[pi[i] * n + j]))
          Report<T>(id, "softmax<" + scalar_name<T>() + "> of PA, entry (" + std::to_string(i) + ", " + std::to_string(j) + ")").input("A", a)
              .line(perm_text(pi)).line("softmax(PA)_ij = " + bits_of(ypa[i * n + j]) + ", softmax(A)_π(i)j = " + bits_of(y[pi[i] * n + j]) + " (must be the same bits)").raise();
    // PAPᵀ: (PAPᵀ)_ij = A_π(i)π(j).
    std::vector<T> b(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) b[i * n + j] = a[pi[i] * n + pi[j]];
    const auto yb = softmax_rows(k, b, n, n);
    for (std::size_t r = 0; r < n; ++r) {
      const std::vector<T> row(a.begin() + static_cast<std::ptrdiff_t>(r * n), a.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
      const auto w = softmax_widths(row);
      const std::size_t i = static_cast<std::size_t>(std::find(pi.begin(), pi.end(), r) - pi.begin());  // π(i) = r
      for (std::size_t j = 0; j < n; ++j) {
        const real diff = std::abs(static_cast<real>(to_double(yb[i * n + j])) - static_cast<real>(to_double(y[r * n + pi[j]])));
        observe(ratio(diff, w[pi[j]]), "softmax(PAPᵀ) vs P softmax(A) Pᵀ, n = " + std::to_string(n));
        if (!(diff <= w[pi[j]]))
          Report<T>(id, "softmax<" + scalar_name<T>() + "> of PAPᵀ, entry (" + std::to_string(i) + ", " + std::to_string(j) + ")").input("A", a)
              .line(perm_text(pi)).error(diff, w[pi[j]], "derived: width of the SM-BND-001 interval").raise();
      }
    }
  }
  static inline const bool registered = property::register_property<Aeq003>();
};

// Shapes and inputs of one attention case: n queries, m keys, head dim d, value dim dv.
template <class T>
struct Case {
  std::size_t n, m, d, dv;
  std::vector<T> q, k, v;
};
template <class T>
Case<T> draw_case() {
  Case<T> c;
  c.n = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.m = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.d = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.dv = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  c.q = draw_vector<T>(c.n * c.d, 4);
  c.k = draw_vector<T>(c.m * c.d, 4);
  c.v = draw_vector<T>(c.m * c.dv, 4);
  return c;
}
template <class T>
std::vector<T> attend(const KernelSet<T>& ks, const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v, std::size_t n,
                      std::size_t m, std::size_t d, std::size_t dv) {
  std::vector<T> o(n * dv);
  ks.attention(q.data(), k.data(), v.data(), n, m, d, dv, false, o.data());
  return o;
}
template <class T>
void add_case(Report<T>& r, const Case<T>& c) {
  r.line("n = " + std::to_string(c.n) + ", m = " + std::to_string(c.m) + ", d = " + std::to_string(c.d) + ", dv = " + std::to_string(c.dv) + ", not causal")
      .input("q", c.q).input("k", c.k).input("v", c.v);
}

// Output bound of every query row (bounds/attention_output.hpp), from the scores the kernel set
// computes (the attention kernel computes each score by the same dot product and division).
template <class T>
std::vector<real> output_bounds(const KernelSet<T>& ks, const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                                std::size_t n, std::size_t m, std::size_t d, std::size_t dv) {
  std::vector<T> s(n * m);
  ks.scores(q.data(), k.data(), n, m, d, s.data());
  const auto vr = widen(v);
  std::vector<real> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<T> row(s.begin() + static_cast<std::ptrdiff_t>(i * m), s.begin() + static_cast<std::ptrdiff_t>((i + 1) * m));
    const auto b = bounds::attention_output_bound(oracle::softmax_row(row), vr, dv, bounds::model_of<T>());
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// ---- AEQ-EQV-003: Z(PQ, K, V) = P Z(Q, K, V), bit for bit ------------------------------------------
// Output row i is computed from q_i, K and V alone, by the same operations in the same order for
// every i (the buffers are rewritten per row): permuting the queries permutes the outputs exactly.
struct Aeq004 {
  static constexpr const char* id = "FALSIFY-AEQ-004";
  static constexpr const char* title = "permuting the queries permutes the attention outputs, bit for bit";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto c = draw_case<T>();
    const auto pi = draw_permutation(c.n);
    const auto o = attend(k, c.q, c.k, c.v, c.n, c.m, c.d, c.dv);
    const auto op = attend(k, permute_rows(c.q, pi, c.d), c.k, c.v, c.n, c.m, c.d, c.dv);
    for (std::size_t i = 0; i < c.n; ++i)
      for (std::size_t col = 0; col < c.dv; ++col)
        if (!identical_bits(op[i * c.dv + col], o[pi[i] * c.dv + col])) {
          Report<T> r(id, "attention<" + scalar_name<T>() + ">(PQ, K, V)[" + std::to_string(i) + "][" + std::to_string(col) + "]");
          add_case(r, c);
          r.line(perm_text(pi)).line("Z(PQ)_i = " + bits_of(op[i * c.dv + col]) + ", Z(Q)_π(i) = " + bits_of(o[pi[i] * c.dv + col]) + " (must be the same bits)").raise();
        }
  }
  static inline const bool registered = property::register_property<Aeq004>();
};

// ---- AEQ-EQV-004: Z(Q, PK, PV) = Z(Q, K, V) within twice the derived bound -------------------------
// The scores are the same values, permuted (each is one dot product); the softmax sum and the
// value sum are reordered. Both outputs are within B (bounds/attention_output.hpp, symmetric in
// the key order) of the same exact value Σ_j softmax(ŝ)_j v_j: they differ by at most 2B.
struct Aeq005 {
  static constexpr const char* id = "FALSIFY-AEQ-005";
  static constexpr const char* title = "permuting keys and values together leaves the attention output unchanged within twice the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto c = draw_case<T>();
    const auto pi = draw_permutation(c.m);
    const auto o = attend(k, c.q, c.k, c.v, c.n, c.m, c.d, c.dv);
    const auto op = attend(k, c.q, permute_rows(c.k, pi, c.d), permute_rows(c.v, pi, c.dv), c.n, c.m, c.d, c.dv);
    const auto b = output_bounds(k, c.q, c.k, c.v, c.n, c.m, c.d, c.dv);
    for (std::size_t e = 0; e < o.size(); ++e) {
      const real diff = std::abs(static_cast<real>(to_double(op[e])) - static_cast<real>(to_double(o[e])));
      const real allowed = 2 * b[e];
      observe(ratio(diff, allowed), "Z(Q, PK, PV) vs Z(Q, K, V), m = " + std::to_string(c.m));
      if (!(diff <= allowed)) {
        Report<T> r(id, "attention<" + scalar_name<T>() + ">(Q, PK, PV)[" + std::to_string(e / c.dv) + "][" + std::to_string(e % c.dv) + "]");
        add_case(r, c);
        r.line(perm_text(pi)).error(diff, allowed, "derived: twice the output bound").raise();
      }
    }
  }
  static inline const bool registered = property::register_property<Aeq005>();
};

// ---- AEQ-EQV-005: self-attention Z(PX) = P Z(X) --------------------------------------------------
// Q = K = V = X (a row-wise projection XW maps PX to P(XW) bit for bit: each row of XW is computed
// from its own row of X). Row i of Z(PX) is query x_π(i) (AEQ-EQV-003: same operations) against the
// permuted keys and values (AEQ-EQV-004): within twice the derived bound of Z(X)_π(i).
struct Aeq006 {
  static constexpr const char* id = "FALSIFY-AEQ-006";
  static constexpr const char* title = "self-attention is permutation equivariant: Z(PX) = P Z(X) within twice the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(1, 9)), d = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
    const auto x = draw_vector<T>(n * d, 4);
    const auto pi = draw_permutation(n);
    const auto px = permute_rows(x, pi, d);
    const auto z = attend(k, x, x, x, n, n, d, d);
    const auto zp = attend(k, px, px, px, n, n, d, d);
    const auto b = output_bounds(k, x, x, x, n, n, d, d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t col = 0; col < d; ++col) {
        const real diff = std::abs(static_cast<real>(to_double(zp[i * d + col])) - static_cast<real>(to_double(z[pi[i] * d + col])));
        const real allowed = 2 * b[pi[i] * d + col];
        observe(ratio(diff, allowed), "Z(PX) vs P Z(X), n = " + std::to_string(n));
        if (!(diff <= allowed))
          Report<T>(id, "attention<" + scalar_name<T>() + ">(PX, PX, PX)[" + std::to_string(i) + "][" + std::to_string(col) + "]")
              .line("n = " + std::to_string(n) + ", d = " + std::to_string(d) + ", Q = K = V = X").input("X", x).line(perm_text(pi))
              .error(diff, allowed, "derived: twice the output bound").raise();
      }
  }
  static inline const bool registered = property::register_property<Aeq006>();
};

// ---- AEQ-INV-001: sinusoidal position encodings have distinct rows for t < 2^20 -------------------
// Exhaustive over all pairs (falsify/position_rows.hpp), once per kernel set and format; the
// smallest distance and where it is attained are reported as a finding. Dimensions: d = 2 is the
// first pair (sin t, cos t) of every d (ω_0 = 1 exactly; checked: the first pairs of the d = 4 and
// d = 8 rows are the d = 2 rows, bit for bit), so its minimum is a lower bound for the rows of
// every d_model; d = 4 and 8 are searched in full as well (~1 s each per format).
constexpr std::size_t pe_rows = std::size_t{1} << 20;
constexpr std::size_t pe_dims[] = {2, 4, 8};

template <class T>
const std::vector<RowMinimum>& pe_minima(const KernelSet<T>& k) {
  static std::mutex mu;
  static std::map<std::string, std::vector<RowMinimum>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& v = cache[k.name];
  if (v.empty())
    for (const std::size_t d : pe_dims) v.push_back(smallest_row_distance<T>(k.position_encoding, d, pe_rows));
  return v;
}

std::string minimum_text(const RowMinimum& r) {
  return "d = " + std::to_string(r.d) + ": " + decimal(static_cast<double>(r.min), 6) + " at (t, t') = (" + std::to_string(r.t1) + ", " +
         std::to_string(r.t2) + ")";
}

struct Aeq007 {
  static constexpr const char* id = "FALSIFY-AEQ-007";
  static constexpr const char* title = "sinusoidal position encodings have distinct rows for all integer positions t < t' < 2^20 (exhaustive)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto& minima = pe_minima(k);
    std::string found = "smallest distance between rows t < t' < 2^20 (exhaustive):";
    for (const RowMinimum& r : minima) {
      if (!r.finite) Report<T>(id, "position_encoding<" + scalar_name<T>() + ">, d = " + std::to_string(r.d)).line("a row has a non-finite entry").raise();
      if (!r.complete)
        Report<T>(id, "position_encoding<" + scalar_name<T>() + ">, d = " + std::to_string(r.d))
            .line("the rows are too far from the exact encoding (ε up to " + decimal(static_cast<double>(r.eps_max), 3) +
                  ") for the search to finish within its budget; distinctness is not established").raise();
      if (!(r.min > 0)) {
        std::vector<T> a(r.d), b(r.d);
        k.position_encoding(r.t1, r.d, a.data());
        k.position_encoding(r.t2, r.d, b.data());
        Report<T>(id, "position_encoding<" + scalar_name<T>() + ">, d = " + std::to_string(r.d) + ": rows " + std::to_string(r.t1) + " and " +
                          std::to_string(r.t2) + " are identical")
            .input("Φ[t]", a).input("Φ[t']", b).raise();
      }
      found += " " + minimum_text(r) + ";";
      if (r.first_pair != minima.front().first_pair)
        Report<T>(id, "position_encoding<" + scalar_name<T>() + ">, d = " + std::to_string(r.d))
            .line("the first pair of the rows is not the d = 2 row (ω_0 = 1 must hold exactly): the d = 2 minimum is no lower bound").raise();
    }
    property::note_finding(found + " every d_model: >= " + decimal(static_cast<double>(minima.front().min), 6) +
                        " (the first pair (sin t, cos t) is the d = 2 row)");
  }
  static inline const bool registered = property::register_property<Aeq007>({Dtype::f32, Dtype::f64});
};

}  // namespace

}  // namespace attncheck::falsify
