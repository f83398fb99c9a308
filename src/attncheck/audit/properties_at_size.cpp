// attncheck audit: the checks at shipped sizes, once per check: AUDIT-ATTB-002, AUDIT-PAGED-001,
// AUDIT-ATTBWD-001/002 (the backward pass and its accumulator drift) and AUDIT-MERGE-001/002.
#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// AUDIT-ATTB-002: the shipped shapes of default_sized_problems() (audit/attention_at_size.hpp), or
// those of --attention-shape, once per check: every output structurally, sampled rows against the exact row.
template <class T>
void attention_v2_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  // Not shrunk: a smaller seed is not a simpler case, and each try re-runs every shape.
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());
  SizedAuditStats st;
  std::vector<SizedProblem> shapes = pol.attention_shapes;
  if (shapes.empty())
    for (auto& p : default_sized_problems()) shapes.emplace_back(std::move(p));
  for (auto sp : shapes) {
    // A kernel declared to split (--splits S) runs split at its S here, unsplit in the small cases.
    if (pol.splits > 1) sp.problem.num_splits = pol.splits;
    audit_attention_at_size<T>(ks, sp.problem, seed, [&](const T* row, std::size_t dv) { return follows_masked_policy(row, dv, pol.masked); }, st,
                               sp.inputs);
  }
  property::observe(st.worst_sampled, "sampled rows");
}

// AUDIT-PAGED-001: paged decoding at size (audit/attention_paged_at_size.hpp), once per check; a
// kernel declared to split (--splits S) runs split at its S here.
template <class T>
void attention_paged_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());  // not shrunk: as AUDIT-ATTB-002
  auto batch = default_sized_paged_batch();
  if (pol.splits > 1) batch.p.num_splits = pol.splits;
  audit_paged_at_size<T>(ks, batch, seed);
}

// AUDIT-ATTBWD-001: the backward pass at the same shapes as AUDIT-ATTB-002, once per check
// (audit/attention_backward_at_size.hpp).
template <class T>
void attention_backward_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());  // not shrunk: as AUDIT-ATTB-002
  SizedBackwardStats st;
  std::vector<SizedProblem> shapes = pol.attention_shapes;
  if (shapes.empty())
    for (auto& p : default_sized_problems()) shapes.emplace_back(std::move(p));
  for (const auto& sp : shapes) audit_attention_backward_at_size<T>(ks, sp.problem, seed, pol.deterministic, st, sp.inputs);
  property::observe(st.worst_sampled, "sampled rows and keys");
}

// AUDIT-ATTBWD-002: accumulator drift, a statistical test once per check, at f16@f32 and bf16@f32
// only (the runner marks the others N/A): audit/attention_backward_drift.hpp.
template <class T>
void attention_backward_drift(Kind, const KernelSet<T>& ks, const Policy&) {
  // At RapidCheck's nominal size every bit of the seed is drawn (as AUDIT-BIAS-001).
  const auto seed = *rc::gen::noShrink(rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<std::uint64_t>()));
  for (const auto& dir : drift_directions()) {
    const auto results = measure_drift<T>(ks, dir, seed);
    for (std::size_t t = 0; t < results.size(); ++t) {
      const DriftOutcome& r = results[t];
      const std::string name = dir.tests[t];
      property::observe(r.threshold > 0 ? std::max(0.0, r.mean) / r.threshold : 0, name);
      property::note_finding(name + ": mean error " + decimal(r.many, 3) + " over " + std::to_string(kDriftBlocks) + " blocks, " +
                             decimal(r.one, 3) + " over one (in units of 2 u_S|y|, clipped at 1; " + std::to_string(r.entries) +
                             " entries; growth " + decimal(r.mean, 3) + ", false-alarm threshold " + decimal(r.threshold, 3) + ")");
      if (r.mean > r.threshold)
        property::fail("AUDIT-ATTBWD-002 failed: attention_backward<" + std::string(dtype_name(dtype_of<T>())) + ">, " + name + ", " +
                       std::to_string(r.entries) + " batch entries of " + dir.many.describe() + " against as many of " + dir.one.describe() +
                       ", drawn from seed " + hex_u64(seed) + " (the replay line re-draws them; every sum's terms share a sign)\n" +
                       "  Mean error over " + std::to_string(kDriftBlocks) + " blocks of 64: " + decimal(r.many, 3) +
                       " of 2 u_S|y| (each element's clipped at 1)\n" + "  Mean error over one block:      " + decimal(r.one, 3) + "\n" +
                       "  Growth:  " + decimal(r.mean, 3) + " (sample variance " + decimal(r.variance, 3) + "); allowed <= " +
                       decimal(r.threshold, 3) + " (empirical Bernstein, false-alarm probability 1e-9/3 when the error does not grow)\n" +
                       "  The error grows with the number of blocks: an accumulator kept in the storage format across blocks (16-bit "
                       "atomic adds of dQ, dK or dV partials) rounds every partial sum; FlashAttention-2 accumulates in f32 and rounds once.");
    }
  }
}

// AUDIT-MERGE-001: a row that no split saw a key of (every partial LSE −inf, its partial outputs
// 0) gives what the kernel's masked-row policy accepts, and an LSE of exactly −inf.
template <class T>
void attention_merge_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  auto mc = gen::merge_case<T>();
  const std::size_t r0 = *rc::gen::inRange<std::size_t>(0, mc.rows);
  for (std::size_t s = 0; s < mc.splits; ++s) {
    mc.lse_parts[s * mc.rows + r0] = -std::numeric_limits<lse_t<T>>::infinity();
    for (std::size_t c = 0; c < mc.dv; ++c) mc.o_parts[(s * mc.rows + r0) * mc.dv + c] = lit<T>(0);
  }
  const auto got = mc.run(ks);
  std::vector<T> lse_shown(mc.lse_parts.size());
  for (std::size_t i = 0; i < lse_shown.size(); ++i) lse_shown[i] = scalar_traits<T>::from_double(static_cast<double>(mc.lse_parts[i]));
  for (std::size_t r = 0; r < mc.rows; ++r) {
    bool seen = false;
    for (std::size_t s = 0; s < mc.splits; ++s) seen = seen || std::isfinite(static_cast<double>(mc.lse_parts[s * mc.rows + r]));
    if (seen) continue;
    const std::string at = what<T>(k) + ", row " + std::to_string(r) + " (no split saw a key of it), " + mc.describe();
    const T* row = got.o.data() + r * mc.dv;
    if (!follows_masked_policy(row, mc.dv, pol.masked))
      Report<T>("AUDIT-MERGE-001", at).input("o_parts", mc.o_parts).input("lse_parts (rounded for display)", lse_shown)
          .input("Output row", std::vector<T>(row, row + mc.dv))
          .line("Policy '" + std::string(masked_policy_name(pol.masked)) + "' (--masked, or masked: in the bindings file).").raise();
    const double lse = got.lse.empty() ? -INFINITY : static_cast<double>(got.lse[r]);
    if (!(std::isinf(lse) && lse < 0)) {
      auto rep = Report<T>("AUDIT-MERGE-001", at + ", LSE");
      rep.input("o_parts", mc.o_parts).input("lse_parts (rounded for display)", lse_shown)
          .line("LSE = " + decimal(lse) + " (must be −inf: the log of an empty sum)");
      if (lse > 0) rep.line("FlashAttention 2 stores +inf there; the ABI's LSE is the log of the normaliser: convert +inf to −inf.");
      rep.raise();
    }
  }
}

// AUDIT-MERGE-002: the merge at decode sizes, once per check: rows = 64 (token, head) pairs,
// dv = 128, S = 16 and 128 splits (FlashAttention's combine supports up to 128), partial LSEs
// a drawn offset (gen::draw_lse_offset) plus 10·N(0, 1), a quarter of the partials empty; every output and LSE
// against the exact merge. A kernel with a fixed split buffer, or one that reads a split at the
// wrong stride, fails here if not on the small cases.
template <class T>
void attention_merge_at_size(Kind k, const KernelSet<T>& ks, const Policy&) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());
  gen::NormalStream z(seed);
  for (const std::size_t S : {std::size_t{16}, std::size_t{128}}) {
    gen::MergeCase<T> mc;
    mc.splits = S, mc.rows = 64, mc.dv = 128;
    mc.o_parts.resize(S * mc.rows * mc.dv);
    for (auto& x : mc.o_parts) x = scalar_traits<T>::from_double(2 * z.next());
    mc.lse_parts.resize(S * mc.rows);
    const double offset = gen::draw_lse_offset<T>();
    for (std::size_t i = 0; i < mc.lse_parts.size(); ++i) {
      const bool empty = z.next() > 0.6745;  // P = 1/4
      mc.lse_parts[i] = empty ? -std::numeric_limits<lse_t<T>>::infinity() : static_cast<lse_t<T>>(offset + 10 * z.next());
      if (empty)
        for (std::size_t c = 0; c < mc.dv; ++c) mc.o_parts[i * mc.dv + c] = lit<T>(0);
    }
    mc.origin = "decode size, seed " + hex_u64(seed) + ", partial LSEs about " + std::to_string(static_cast<long long>(offset));
    const auto got = mc.run(ks);
    const auto ex = mc.exact();
    for (std::size_t r = 0; r < mc.rows; ++r) {
      if (ex.empty[r]) continue;
      for (std::size_t c = 0; c < mc.dv; ++c) {
        const std::size_t e = r * mc.dv + c;
        const long double err = property::format_error(got.o[e], ex.o[e]);
        property::observe(property::ratio(err, ex.o_allowance[e]), "o at decode size");
        if (!(err <= ex.o_allowance[e]))
          Report<T>("AUDIT-MERGE-002", what<T>(k) + ", o[" + std::to_string(r) + ", " + std::to_string(c) + "], " + mc.describe())
              .kernel(got.o[e]).exact(ex.o[e]).error(err, ex.o_allowance[e]).raise();
      }
      if (got.lse.empty()) continue;
      const double l = static_cast<double>(got.lse[r]);
      const long double err = std::isfinite(l) ? std::abs(static_cast<long double>(l) - ex.lse[r]) : INFINITY;
      property::observe(property::ratio(err, ex.lse_allowance[r]), "lse at decode size");
      if (!(err <= ex.lse_allowance[r]))
        Report<T>("AUDIT-MERGE-002", what<T>(k) + ", lse[" + std::to_string(r) + "], " + mc.describe())
            .line("Kernel lse:  " + decimal(l)).exact(ex.lse[r]).error(err, ex.lse_allowance[r]).raise();
    }
  }
}

ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_v2_at_size);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_paged_at_size);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_backward_at_size);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_backward_drift);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_merge_masked_rows);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(attention_merge_at_size);

}  // namespace attncheck::audit::obligations
