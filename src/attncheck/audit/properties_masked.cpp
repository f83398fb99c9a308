// attncheck audit: special rows and the attention structure: AUDIT-MASK-001/002 (masked rows),
// AUDIT-INF-001 (+inf), AUDIT-ATT-001..004 (range, causality, permutations) and AUDIT-ATTB-001
// (batched attention's fully masked rows).
#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// AUDIT-MASK-001: a row of -inf has no softmax; the kernel's policy says what is accepted. For
// log_softmax the same policies read in log space: `zeros` is log 0 = -inf in every entry.
template <class T>
void fully_masked(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  const std::size_t n = static_cast<std::size_t>(*rc::gen::inRange(1, 65));
  const std::vector<T> x(n, T(-std::numeric_limits<double>::infinity()));
  std::vector<T> y(n);
  const bool log_space = k == Kind::log_softmax;
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), n);
  bool all_zero = true, all_nan = true;
  for (const T& v : y) {
    all_zero &= log_space ? to_double(v) == -std::numeric_limits<double>::infinity() : to_double(v) == 0.0;
    all_nan &= is_nan(v);
  }
  const bool ok = pol.masked == MaskedPolicy::zeros ? all_zero : pol.masked == MaskedPolicy::nan ? all_nan : (all_zero || all_nan);
  const std::string zeros = log_space ? "all -inf (log 0)" : "all zeros";
  if (!ok)
    Report<T>("AUDIT-MASK-001", what<T>(k) + " of a fully masked row of " + std::to_string(n))
        .input("Output", y)
        .line("Every input is -inf. Policy '" + std::string(masked_policy_name(pol.masked)) + "' accepts " +
              (pol.masked == MaskedPolicy::zeros ? zeros : pol.masked == MaskedPolicy::nan ? "all NaN" : zeros + " or all NaN") +
              " (--masked, or masked: in the bindings file).")
        .raise();
}

// Inserts `count` copies of v at random places of x; returns the new row.
template <class T>
std::vector<T> insert_copies(std::vector<T> x, std::size_t count, double v) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, x.size() + 1);
    x.insert(x.begin() + static_cast<std::ptrdiff_t>(at), T(v));
  }
  return x;
}

// AUDIT-MASK-002: -inf entries beside finite ones give exactly 0 (log_softmax: exactly -inf),
// and the finite entries are the softmax (log_softmax) of the finite sub-row within its derived
// bound: a masked entry contributes exp(-inf) = 0 to the sum, so the rest is that of the sub-row.
template <class T>
void partly_masked(Kind k, const KernelSet<T>& ks, const Policy&) {
  const auto finite = draw_row<T>(256);
  const std::size_t masks = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  const std::vector<T> x = insert_copies(finite, masks, -std::numeric_limits<double>::infinity());
  gen::cover_row("masked row", x, {.max_length = 256 + 8, .masked = true});
  const bool log_space = k == Kind::log_softmax;
  std::vector<T> y(x.size());
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), x.size());
  const auto ex = oracle::softmax_row(finite);
  const auto b = bounds::softmax_bound(ex, bounds::model_of<T>());
  const auto lb = log_space ? bounds::log_softmax_bound(ex, bounds::model_of<T>()) : std::vector<real>{};
  const double masked_value = log_space ? -std::numeric_limits<double>::infinity() : 0.0;
  std::size_t f = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::string where = what<T>(k) + " with " + std::to_string(masks) + " masked entries, element " + std::to_string(i) + " of " +
                              std::to_string(x.size());
    if (std::isinf(to_double(x[i]))) {
      if (!(to_double(y[i]) == masked_value))
        Report<T>("AUDIT-MASK-002", where).input("Input", x).input("Output", y)
            .line(std::string("A -inf entry must give exactly ") + (log_space ? "-inf." : "0.")).raise();
      continue;
    }
    const real exact = log_space ? ex.logp[f] : ex.p[f];
    const real allowed = log_space ? lb[f] : std::max(b.hi[f] - ex.p[f], ex.p[f] - b.lo[f]);
    // The one comparison rule (property::expect_close): an exact log_softmax beyond T's range is
    // judged against its rounding, ±inf, so a kernel that returns that is right.
    property::expect_close<T>("AUDIT-MASK-002", where, "Input", x, y[i], exact, allowed);
    ++f;
  }
}

// AUDIT-INF-001: a row with +inf entries has no finite softmax. Accepted: all NaN, or the limit
// (1/k on each of the k +inf entries, 0 elsewhere) within the derived bound of softmax of k ties.
// log_softmax: all NaN, or the log of that limit: -ln k on each +inf entry, within the derived
// bound of log_softmax of k ties, and exactly -inf elsewhere.
template <class T>
void plus_infinity(Kind kind, const KernelSet<T>& ks, const Policy&) {
  const std::size_t k = static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  const std::vector<T> x = insert_copies(draw_row<T>(64), k, std::numeric_limits<double>::infinity());
  const bool log_space = kind == Kind::log_softmax;
  std::vector<T> y(x.size());
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), x.size());
  bool all_nan = true;
  for (const T& v : y) all_nan &= is_nan(v);
  if (all_nan) return;
  const auto ties = oracle::softmax_row(std::vector<T>(k, T(0)));
  const auto md = bounds::model_of<T>();
  real lo, hi;
  if (log_space) {
    const real w = bounds::log_softmax_bound(ties, md)[0];
    lo = ties.logp[0] - w, hi = ties.logp[0] + w;
  } else {
    const auto b = bounds::softmax_bound(ties, md);
    lo = b.lo[0], hi = b.hi[0];
  }
  const double elsewhere = log_space ? -std::numeric_limits<double>::infinity() : 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = to_double(y[i]);
    const bool inf = std::isinf(to_double(x[i]));
    const bool ok = inf ? (v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) : v == elsewhere;
    if (!ok)
      Report<T>("AUDIT-INF-001", what<T>(kind) + " with " + std::to_string(k) + " +inf entries, element " + std::to_string(i))
          .input("Input", x).input("Output", y)
          .line("Accepted: all NaN, or " + std::string(log_space ? "-ln " : "1/") + std::to_string(k) + " on each +inf entry (within [" +
                decimal(static_cast<double>(lo), 6) + ", " + decimal(static_cast<double>(hi), 6) + "], derived) and exactly " +
                (log_space ? "-inf" : "0") + " elsewhere.")
          .raise();
  }
}

// AUDIT-ATT-001: each output is a convex combination of the visible values, so it lies in their
// per-column range up to rounding. With p̂ the kernel's weights (p̂ >= 0, |Σp̂ - 1| <= η_N, the
// derived normalisation bound) and the sum of m products accumulated in T (γ_m):
// dist(ô_c, [min_j v_jc, max_j v_jc]) <= (η_N + γ_m (1 + η_N)) max_j |v_jc| + 2 m η.
template <class T>
void attention_range(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>();
  const bool causal = *rc::gen::arbitrary<bool>();
  const auto o = c.run(ks, causal);
  const auto md = bounds::model_of<T>();
  for (std::size_t i = 0; i < c.n; ++i) {
    const std::size_t visible = causal ? std::min(i + 1, c.m) : c.m;
    const long double eta_n = bounds::normalisation_bound(visible, md);
    for (std::size_t col = 0; col < c.dv; ++col) {
      long double lo = INFINITY, hi = -INFINITY, mag = 0;
      for (std::size_t j = 0; j < visible; ++j) {
        const long double vj = to_double(c.v[j * c.dv + col]);
        lo = std::min(lo, vj), hi = std::max(hi, vj), mag = std::max(mag, std::abs(vj));
      }
      // Mixed precision: the output rounded once more, to storage (round_out, |ô| <= mag).
      const long double allowed =
          md.round_out(mag, (eta_n + bounds::gamma(visible, md.u) * (1 + eta_n)) * mag + 2 * static_cast<long double>(visible) * md.eta) *
          bounds::evaluation_slack;
      const long double got = to_double(o[i * c.dv + col]);
      const long double outside = got < lo ? lo - got : got > hi ? got - hi : (got == got ? 0 : INFINITY);
      const std::string where = what<T>(Kind::attention) + (causal ? " causal" : "") + ", output [" + std::to_string(i) + "][" +
                                std::to_string(col) + "], " + c.shape();
      property::observe(property::ratio(outside, allowed), where);
      if (!(outside <= allowed))
        Report<T>("AUDIT-ATT-001", where).input("q", c.q).input("k", c.k).input("v", c.v).kernel(o[i * c.dv + col])
            .line("Visible values of this column lie in [" + decimal(static_cast<double>(lo)) + ", " + decimal(static_cast<double>(hi)) + "]")
            .error(outside, allowed).raise();
    }
  }
}

// AUDIT-ATT-002: under the causal mask, query i's output does not depend on keys or values j > i.
// Bit equality is demanded: a masked weight is exactly exp(-inf) = 0 and 0 * v = 0 for finite v,
// so future rows cannot change a single rounding of a visible query.
template <class T>
void attention_causal(Kind, const KernelSet<T>& ks, const Policy&) {
  auto c = draw_attention<T>(2);
  const std::size_t t = *rc::gen::inRange<std::size_t>(0, std::min(c.n, c.m - 1));  // rows 0..t see keys 0..t
  const auto before = c.run(ks, true);
  auto changed = c;
  const auto k2 = draw_vector<T>((c.m - t - 1) * c.d, 2), v2 = draw_vector<T>((c.m - t - 1) * c.dv, 8);
  std::copy(k2.begin(), k2.end(), changed.k.begin() + static_cast<std::ptrdiff_t>((t + 1) * c.d));
  std::copy(v2.begin(), v2.end(), changed.v.begin() + static_cast<std::ptrdiff_t>((t + 1) * c.dv));
  const auto after = changed.run(ks, true);
  for (std::size_t i = 0; i <= t && i < c.n; ++i)
    for (std::size_t col = 0; col < c.dv; ++col)
      if (scalar_traits<T>::bits(before[i * c.dv + col]) != scalar_traits<T>::bits(after[i * c.dv + col]))
        Report<T>("AUDIT-ATT-002", what<T>(Kind::attention) + " causal, output [" + std::to_string(i) + "][" + std::to_string(col) + "], " + c.shape())
            .input("q", c.q).input("k", c.k).input("v", c.v).input("k with rows > " + std::to_string(t) + " changed", changed.k)
            .input("v with rows > " + std::to_string(t) + " changed", changed.v).input("Output", before).input("Output after the change", after)
            .line("Query " + std::to_string(i) + " may only see keys 0.." + std::to_string(i) + ", yet its output changed.").raise();
}

// A random permutation of 0..n-1 (shrinks towards the identity).
inline std::vector<std::size_t> draw_perm(std::size_t n) {
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  if (n == 0) return perm;
  const auto order = *rc::gen::container<std::vector<std::size_t>>(n, rc::gen::inRange<std::size_t>(0, n));
  for (std::size_t i = 0; i < n; ++i) std::swap(perm[i], perm[order[i]]);
  return perm;
}

// AUDIT-ATT-003: permuting the queries permutes the output rows, bit for bit (each query's row is
// computed from the same keys in the same order; nothing else changes).
template <class T>
void attention_query_permutation(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>();
  const auto perm = draw_perm(c.n);
  auto permuted = c;
  for (std::size_t i = 0; i < c.n; ++i)
    std::copy_n(c.q.begin() + static_cast<std::ptrdiff_t>(perm[i] * c.d), c.d, permuted.q.begin() + static_cast<std::ptrdiff_t>(i * c.d));
  const auto o = c.run(ks, false), op = permuted.run(ks, false);
  for (std::size_t i = 0; i < c.n; ++i)
    for (std::size_t col = 0; col < c.dv; ++col)
      if (scalar_traits<T>::bits(op[i * c.dv + col]) != scalar_traits<T>::bits(o[perm[i] * c.dv + col]))
        Report<T>("AUDIT-ATT-003", what<T>(Kind::attention) + ", row " + std::to_string(i) + " of the permuted queries (query " +
                                       std::to_string(perm[i]) + "), column " + std::to_string(col) + ", " + c.shape())
            .input("q", c.q).input("k", c.k).input("v", c.v).input("Output", o).input("Output for permuted queries", op)
            .raise();
}

// The derived allowance of every output of an attention call against the exact attention
// (bounds/attention_output.hpp, attention_output_allowance; proofs/bounds/attention_output.md,
// "Whole row, scores unknown"); symmetric in the keys.
template <class T>
std::vector<real> attention_allowance(const AttentionCase<T>& c, bool causal = false) {
  return bounds::attention_output_allowance(c.q, c.k, c.v, c.n, c.m, c.d, c.dv, causal, bounds::model_of<T>());
}

// AUDIT-ATT-004: permuting the keys and values together leaves every output unchanged within twice
// the derived allowance: both calls are within B of the same exact value (B symmetric in the keys,
// see attention_allowance), so they differ by at most 2B. A reordered sum is not bit-identical.
template <class T>
void attention_key_permutation(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>(2);
  const auto perm = draw_perm(c.m);
  auto permuted = c;
  for (std::size_t j = 0; j < c.m; ++j) {
    std::copy_n(c.k.begin() + static_cast<std::ptrdiff_t>(perm[j] * c.d), c.d, permuted.k.begin() + static_cast<std::ptrdiff_t>(j * c.d));
    std::copy_n(c.v.begin() + static_cast<std::ptrdiff_t>(perm[j] * c.dv), c.dv, permuted.v.begin() + static_cast<std::ptrdiff_t>(j * c.dv));
  }
  const auto o = c.run(ks, false), op = permuted.run(ks, false);
  const auto b = attention_allowance(c);
  std::string order;
  for (std::size_t j = 0; j < c.m; ++j) order += (j ? ", " : "") + std::to_string(perm[j]);
  for (std::size_t e = 0; e < o.size(); ++e) {
    const real diff = std::abs(static_cast<real>(to_double(op[e])) - static_cast<real>(to_double(o[e])));
    const real allowed = 2 * b[e];
    const std::string where = what<T>(Kind::attention) + ", output [" + std::to_string(e / c.dv) + "][" + std::to_string(e % c.dv) +
                              "] after permuting keys and values, " + c.shape();
    property::observe(property::ratio(diff, allowed), where);
    if (!(diff <= allowed))
      Report<T>("AUDIT-ATT-004", where).input("q", c.q).input("k", c.k).input("v", c.v)
          .line("Permutation: key j of the second call is key " + std::string("[") + order + "][j] of the first")
          .input("Output", o).input("Output with permuted keys and values", op)
          .error(diff, allowed, "derived: twice the whole-row bound (both calls within it of the same exact value)").raise();
  }
}


// AUDIT-ATTB-001: rows that see no key (bottom-right alignment with n > m, a window past the
// keys) give what the masked-row policy accepts, and LSE −inf (the log of an empty sum).
template <class T>
void attention_v2_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  auto c = draw_batched<T>();
  auto& sh = c.p.shape;
  // Make the first rows see nothing: causal bottom-right with n > m (rows i < n − m).
  c.p.mask.causal = true;
  c.p.mask.alignment = kernels::Alignment::bottom_right;
  sh.n = sh.m + static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  c.q = draw_vector<T>(sh.q_size(), 2);
  std::vector<T> o(sh.o_size());
  std::vector<lse_t<T>> l(ks.attention_batched_lse ? sh.lse_size() : 0);
  ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), o.data(), l.empty() ? nullptr : l.data());
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h)
      for (std::size_t i = 0; i < sh.n; ++i) {
        if (!c.p.mask.visible(i, sh.n, sh.m).empty()) continue;
        const std::string at = what<T>(k) + ", row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " + std::to_string(i) +
                               ") sees no key, " + c.p.describe();
        const T* row = o.data() + sh.o_at(b, i, h);
        if (!follows_masked_policy(row, sh.dv, pol.masked))
          Report<T>("AUDIT-ATTB-001", at).input("q", c.q).input("k", c.k).input("v", c.v).input("Output row", std::vector<T>(row, row + sh.dv))
              .line("Policy '" + std::string(masked_policy_name(pol.masked)) + "' (--masked, or masked: in the bindings file).").raise();
        const double lse = l.empty() ? -INFINITY : static_cast<double>(l[sh.lse_at(b, h, i)]);
        if (!(std::isinf(lse) && lse < 0)) {
          auto r = Report<T>("AUDIT-ATTB-001", at + ", LSE");
          r.input("q", c.q).input("k", c.k).input("v", c.v).line("LSE = " + decimal(lse) + " (must be −inf: the log of an empty sum)");
          if (lse > 0)  // FlashAttention 2's convention, so that its backward's exp(s − LSE) is 0
            r.line("FlashAttention 2 stores +inf there for its backward pass; the ABI's LSE is the log of the normaliser: convert +inf to −inf.");
          r.raise();
        }
      }
}

ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(fully_masked);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(partly_masked);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(plus_infinity);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_range);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_causal);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_query_permutation);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_key_permutation);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_v2_masked_rows);

}  // namespace attncheck::audit::obligations
