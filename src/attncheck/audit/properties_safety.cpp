// attncheck audit: the obligations every kind has: AUDIT-SAFE-001 (the call is safe), AUDIT-DET-001
// (deterministic) and AUDIT-NAN-001 (a NaN input reaches every output that depends on it).
#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// AUDIT-SAFE-001: the call itself; the KernelSet wrapper judges time, bounds and inputs.
template <class T>
void safe(Kind k, const KernelSet<T>& ks, const Policy&) {
  if (k == Kind::kv_quantize) {  // a row in range, or with overflow and special values
    run_write(gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>()), ks);
    return;
  }
  auto [d, run] = draw_call(k, ks);
  run();
}

// AUDIT-DET-001: two calls on the same input give the same bits.
template <class T>
void deterministic(Kind k, const KernelSet<T>& ks, const Policy&) {
  if (k == Kind::kv_quantize) {
    const auto wc = gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>());
    const auto a = run_write(wc, ks), b = run_write(wc, ks);
    if (a != b)
      Report<T>("AUDIT-DET-001", what<T>(k) + " gave different codes on the same input, " + wc.describe())
          .input("x", wc.x)
          .line("First codes:  " + code_row(a))
          .line("Second codes: " + code_row(b))
          .raise();
    return;
  }
  auto [d, run] = draw_call(k, ks);
  const auto a = run(), b = run();
  if (!same_bits(a, b)) {
    Report<T> r("AUDIT-DET-001", what<T>(k) + " gave different bits on the same input");
    with_inputs(r, d).input("First output", a).input("Second output", b).raise();
  }
}

// AUDIT-NAN-001: a NaN in the input reaches every output that depends on it, so no NaN input
// comes back as a valid answer. softmax, log_softmax, rmsnorm, entropy, softmax_jvp: every output
// depends on every input (through the row's sum or mean). scores: a NaN in q_i reaches row i.
// attention (not causal): a NaN in k_j reaches every score column j, hence every output.
template <class T>
void nan_propagates(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  const auto nan_at = [&](std::vector<T>& v) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, v.size());
    v[at] = nan;
    return at;
  };
  std::vector<std::pair<std::string, std::vector<T>>> inputs;
  std::vector<T> y;
  std::vector<std::size_t> must;  // indices of y that must be NaN
  std::string why;
  std::vector<std::string> notes;  // inputs that are not of T (FP8 codes), as report lines
  switch (k) {
    case Kind::softmax:
    case Kind::log_softmax: {
      auto x = draw_row<T>(64);
      why = "x[" + std::to_string(nan_at(x)) + "] is NaN";
      y.resize(x.size());
      (k == Kind::softmax ? ks.softmax : ks.log_softmax)(x.data(), y.data(), x.size());
      inputs = {{"x", x}};
      break;
    }
    case Kind::rmsnorm: {
      auto x = draw_vector<T>(static_cast<std::size_t>(*rc::gen::inRange(1, 65)), 100);
      const auto w = draw_vector<T>(x.size(), 4);
      why = "x[" + std::to_string(nan_at(x)) + "] is NaN";
      y.resize(x.size());
      ks.rmsnorm(x.data(), w.data(), x.size(), T(1e-5), y.data());
      inputs = {{"x", x}, {"w", w}};
      break;
    }
    case Kind::entropy: {
      const auto x = draw_row<T>(64);
      std::vector<T> p(x.size());
      kernels::softmax(x.data(), p.data(), x.size());
      why = "p[" + std::to_string(nan_at(p)) + "] is NaN";
      y = {ks.entropy(p.data(), p.size())};
      inputs = {{"p", p}};
      break;
    }
    case Kind::softmax_jvp: {
      auto [x, dx] = property::draw_row_and_direction<T>();
      const bool in_x = *rc::gen::arbitrary<bool>();
      why = (in_x ? "x[" + std::to_string(nan_at(x)) : "dx[" + std::to_string(nan_at(dx))) + "] is NaN";
      y.resize(x.size());
      ks.softmax_jvp(x.data(), dx.data(), x.size(), y.data());
      inputs = {{"x", x}, {"dx", dx}};
      break;
    }
    case Kind::scores: {
      const std::size_t n = *rc::gen::inRange<std::size_t>(1, 5), m = *rc::gen::inRange<std::size_t>(1, 5),
                        d = *rc::gen::inRange<std::size_t>(1, 9);
      auto q = draw_vector<T>(n * d, 4);
      const auto kk = draw_vector<T>(m * d, 4);
      const std::size_t at = nan_at(q), i = at / d;
      why = "q[" + std::to_string(i) + "][" + std::to_string(at % d) + "] is NaN (n = " + std::to_string(n) + ", m = " +
            std::to_string(m) + ", d = " + std::to_string(d) + ")";
      y.resize(n * m);
      ks.scores(q.data(), kk.data(), n, m, d, y.data());
      for (std::size_t j = 0; j < m; ++j) must.push_back(i * m + j);
      inputs = {{"q", q}, {"k", kk}};
      break;
    }
    case Kind::attention: {
      auto c = draw_attention<T>();
      const std::size_t at = nan_at(c.k);
      why = "k[" + std::to_string(at / c.d) + "][" + std::to_string(at % c.d) + "] is NaN, not causal (" + c.shape() + ")";
      y = c.run(ks, false);
      inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      break;
    }
    case Kind::attention_v2: {  // unmasked: a NaN in q[b,i,h,:] reaches every output of row (b,i,h), and its LSE
      auto c = draw_batched<T>(true);
      const auto& sh = c.p.shape;
      const std::size_t at = nan_at(c.q), row = at / sh.d, h = row % sh.heads, i = row / sh.heads % sh.n, b = row / sh.heads / sh.n;
      why = "q[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(at % sh.d) +
            "] is NaN (" + c.p.describe() + ")";
      y.resize(sh.o_size());
      std::vector<lse_t<T>> l(ks.attention_batched_lse ? sh.lse_size() : 0);
      ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), y.data(), l.empty() ? nullptr : l.data());
      for (std::size_t e = 0; e < sh.dv; ++e) must.push_back(sh.o_at(b, i, h) + e);
      inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      if (!l.empty() && !std::isnan(l[sh.lse_at(b, h, i)])) {
        Report<T> r("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]");
        for (const auto& [name, v] : inputs) r.input(name, v);
        r.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[sh.lse_at(b, h, i)])) + ".").raise();
      }
      break;
    }
    case Kind::attention_backward: break;  // below
    case Kind::kv_quantize: {
      // The write of a NaN gives a NaN code (E4M3FN S.1111.111, E5M2 S.11111.xx with xx != 0),
      // whatever the overflow rule: saturation clamps overflow, never NaN.
      auto wc = gen::fp8_write_case<T>(false);
      const std::size_t at = nan_at(wc.x);
      const auto codes = run_write(wc, ks);
      if (!std::isnan(kernels::fp8_decode(wc.spec.format, codes[at])))
        Report<T>("AUDIT-NAN-001", what<T>(k) + ", code " + std::to_string(at) + " of " + std::to_string(codes.size()) + ", " + wc.describe())
            .input("x", wc.x)
            .line("Codes: " + code_row(codes))
            .line("x[" + std::to_string(at) + "] is NaN and its code " + code_row({codes[at]}) + " decodes to " +
                  decimal(kernels::fp8_decode(wc.spec.format, codes[at])) + " (" + wc.spec.describe() +
                  "): expected a NaN code (" + (wc.spec.format == kernels::Fp8Format::e4m3fn ? "0x7f or 0xff" : "0x7d..0x7f or 0xfd..0xff") +
                  ").")
            .raise();
      return;
    }
    case Kind::attention_fp8kv: {
      // Unmasked, so every row (b, i, h) whose head reads key/value head g sees every key of batch
      // b: a NaN code (E4M3FN 0x7f, E5M2 0x7e, either sign) in k[b][j][g][:] reaches every output
      // of those rows and their LSE; one in v[b][j][g][c] reaches column c of those rows whose
      // weight of key j is at least 2^-10 (a kernel may skip a key whose weight underflows).
      auto fc = draw_fp8kv<T>(true);
      const auto& sh = fc.c.p.shape;
      const std::uint8_t code =
          static_cast<std::uint8_t>((fc.spec.format == kernels::Fp8Format::e4m3fn ? 0x7f : 0x7e) | (*rc::gen::arbitrary<bool>() ? 0x80 : 0));
      const std::size_t b = *rc::gen::inRange<std::size_t>(0, sh.batch), j = *rc::gen::inRange<std::size_t>(0, sh.m),
                        g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads);
      const bool in_k = *rc::gen::arbitrary<bool>();
      const std::size_t e = *rc::gen::inRange<std::size_t>(0, in_k ? sh.d : sh.dv);
      (in_k ? fc.k8[sh.k_at(b, j, g) + e] : fc.v8[sh.v_at(b, j, g) + e]) = code;
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", code);
      why = std::string(in_k ? "k" : "v") + "[" + std::to_string(b) + "][" + std::to_string(j) + "][" + std::to_string(g) + "][" +
            std::to_string(e) + "] is the NaN code " + hex + " (" + fc.describe() + ")";
      std::vector<lse_t<T>> l;
      y = run_fp8kv(fc, ks, pol.returns_lse ? &l : nullptr);
      inputs = {{"q", fc.c.q}};
      notes = fp8_lines(fc);
      for (std::size_t h = 0; h < sh.heads; ++h) {
        if (sh.kv_head(h) != g) continue;
        for (std::size_t i = 0; i < sh.n; ++i) {
          if (in_k) {
            for (std::size_t c = 0; c < sh.dv; ++c) must.push_back(sh.o_at(b, i, h) + c);
            if (!l.empty() && !std::isnan(static_cast<double>(l[sh.lse_at(b, h, i)]))) {
              Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]");
              rep.input("q", fc.c.q);
              for (const auto& line : notes) rep.line(line);
              rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[sh.lse_at(b, h, i)])) + ".").raise();
            }
            continue;
          }
          // The weight of key j in row (b, i, h), from the dequantized keys in double (no mask,
          // soft-cap or ALiBi in an unmasked case).
          std::vector<double> sc(sh.m);
          double top = -std::numeric_limits<double>::infinity();
          for (std::size_t jj = 0; jj < sh.m; ++jj) {
            double dot = 0;
            for (std::size_t t = 0; t < sh.d; ++t) dot += to_double(fc.c.q[sh.q_at(b, i, h) + t]) * fc.kx[sh.k_at(b, jj, g) + t];
            sc[jj] = fc.c.p.scale * dot;
            top = std::max(top, sc[jj]);
          }
          double z = 0;
          for (double x : sc) z += std::exp(x - top);
          if (std::exp(sc[j] - top) / z >= 0x1p-10) must.push_back(sh.o_at(b, i, h) + e);
        }
      }
      RC_PRE(!must.empty());  // every row's weight of key j underflows: nothing a NaN value must reach
      break;
    }
    case Kind::attention_merge: {
      // A NaN partial LSE l[s][r] reaches every o[r][c] and lse[r] (through the row's max or sum).
      // A NaN in o_parts[s][r][c] of a split with a key reaches o[r][c] when its weight is at least
      // 2^-10 (a kernel may skip a split whose weight underflows: 0 · NaN is never computed then);
      // a split whose LSE is -inf has weight exactly 0, and its O is not read.
      auto c = draw_merge<T>();
      std::vector<std::size_t> lse_must;
      if (*rc::gen::arbitrary<bool>()) {
        const std::size_t at = *rc::gen::inRange<std::size_t>(0, c.lse_parts.size()), s = at / c.rows, r = at % c.rows;
        c.lse_parts[at] = std::numeric_limits<lse_t<T>>::quiet_NaN();
        why = "lse_parts[" + std::to_string(s) + "][" + std::to_string(r) + "] is NaN (" + c.shape() + ")";
        for (std::size_t e = 0; e < c.dv; ++e) must.push_back(r * c.dv + e);
        lse_must.push_back(r);
      } else {
        // A split with a key: its LSE finite and its weight at least 2^-10 (in double).
        std::vector<std::size_t> live;
        for (std::size_t i = 0; i < c.lse_parts.size(); ++i) {
          const std::size_t r = i % c.rows;
          double M = -std::numeric_limits<double>::infinity(), Z = 0;
          for (std::size_t s = 0; s < c.splits; ++s) M = std::max(M, static_cast<double>(c.lse_parts[s * c.rows + r]));
          for (std::size_t s = 0; s < c.splits; ++s) Z += std::exp(static_cast<double>(c.lse_parts[s * c.rows + r]) - M);
          if (std::isfinite(static_cast<double>(c.lse_parts[i])) && std::exp(static_cast<double>(c.lse_parts[i]) - M) / Z >= 0x1p-10) live.push_back(i);
        }
        RC_PRE(!live.empty());  // every split empty: nothing a NaN in O could reach
        const std::size_t i = *rc::gen::elementOf(live), col = *rc::gen::inRange<std::size_t>(0, c.dv), s = i / c.rows, r = i % c.rows;
        c.o_parts[i * c.dv + col] = nan;
        why = "o_parts[" + std::to_string(s) + "][" + std::to_string(r) + "][" + std::to_string(col) + "] is NaN (" + c.shape() + ")";
        must.push_back(r * c.dv + col);
      }
      std::vector<lse_t<T>> l;
      y = c.run(ks, pol.returns_lse ? &l : nullptr);
      inputs = {{"o_parts", c.o_parts}, {"lse_parts", lse_as_t<T>(c.lse_parts)}};
      for (std::size_t r : lse_must)
        if (!l.empty() && !std::isnan(static_cast<double>(l[r]))) {
          Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(r) + "]");
          for (const auto& [name, v] : inputs) rep.input(name, v);
          rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[r])) + ".").raise();
        }
      break;
    }
    case Kind::attention_varlen:
    case Kind::attention_paged: {
      // Unmasked, so every query of a sequence sees every key of it (and of no other): a NaN in
      // q[t][h][:] of a sequence with a key reaches every output of row (t, h) and its LSE; a NaN in
      // k[j][g][:] of sequence b reaches every output and LSE of every query of b whose head reads
      // g. A sequence without queries or keys has no row to reach. attention_paged: the same batch
      // with the NaN in place, then scattered over pages (the key's page slot holds the NaN).
      auto c = draw_varlen<T>(true);
      // A kernel declared without unmasked problems (--supports non_causal=no) is given a causal
      // mask of an alignment it declared, so that it is judged here too: a NaN then reaches the rows
      // that see its key (a row that sees none is the masked-row policy's, not demanded).
      if (declared_unsupported(k, "non_causal")) {
        c.p.mask.causal = true;
        const bool br = declared_unsupported(k, "top_left") || (!declared_unsupported(k, "bottom_right") && *rc::gen::arbitrary<bool>());
        c.p.mask.alignment = br ? kernels::Alignment::bottom_right : kernels::Alignment::top_left;
      }
      const auto& sh = c.p.shape;
      std::vector<std::size_t> live;  // sequences with a query and a key
      for (std::size_t b = 0; b < c.pk.sequences(); ++b)
        if (c.pk.n_of(b) > 0 && c.pk.m_of(b) > 0) live.push_back(b);
      RC_PRE(!live.empty());
      const std::size_t b = *rc::gen::elementOf(live);
      const std::size_t q0 = static_cast<std::size_t>(c.pk.cu_q[b]), k0 = static_cast<std::size_t>(c.pk.cu_k[b]);
      std::vector<std::pair<std::size_t, std::size_t>> rows;  // (token, head) whose outputs must be NaN
      std::size_t nan_key = c.pk.m_of(b);                      // the NaN key's index within its sequence (none: m_b)
      const auto sees = [&](std::size_t t, std::size_t j) { return c.p.mask.sees(t - q0, j, c.pk.n_of(b), c.pk.m_of(b)); };
      std::vector<std::size_t> seeing;  // the queries of b that see a key (all of them, unmasked)
      for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
        if (!c.p.mask.visible(t - q0, c.pk.n_of(b), c.pk.m_of(b)).empty()) seeing.push_back(t);
      if (*rc::gen::arbitrary<bool>()) {
        RC_PRE(!seeing.empty());
        const std::size_t t = c.p.mask.causal ? *rc::gen::elementOf(seeing) : q0 + *rc::gen::inRange<std::size_t>(0, c.pk.n_of(b)),
                          h = *rc::gen::inRange<std::size_t>(0, sh.heads), e = *rc::gen::inRange<std::size_t>(0, sh.d);
        c.q[(t * sh.heads + h) * sh.d + e] = nan;
        why = "q[" + std::to_string(t) + "][" + std::to_string(h) + "][" + std::to_string(e) + "] is NaN (a query of sequence " +
              std::to_string(b) + "; " + c.shape() + ")";
        rows.emplace_back(t, h);
      } else {
        const std::size_t j = k0 + *rc::gen::inRange<std::size_t>(0, c.pk.m_of(b)), g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads),
                          e = *rc::gen::inRange<std::size_t>(0, sh.d);
        c.k[(j * sh.kv_heads + g) * sh.d + e] = nan;
        nan_key = j - k0;
        why = "k[" + std::to_string(j) + "][" + std::to_string(g) + "][" + std::to_string(e) + "] is NaN (a key of sequence " +
              std::to_string(b) + "; " + c.shape() + ")";
        for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
          for (std::size_t h = 0; h < sh.heads; ++h)
            if (sh.kv_head(h) == g && sees(t, j - k0)) rows.emplace_back(t, h);
        RC_PRE(!rows.empty());  // a key no row sees (masked) reaches nothing: no case (never unmasked)
      }
      std::vector<lse_t<T>> l;
      if (k == Kind::attention_paged) {
        const auto pc = paged_from(c);
        why += (nan_key < c.pk.m_of(b) ? "; that key is cache token " + std::to_string(pc.pt.token_at(b, nan_key)) : std::string()) + "; " +
               pc.pt.describe();
        y = run_paged(pc, ks, pol.returns_lse ? &l : nullptr);
        inputs = {{"q", pc.vc.q}, {"k_cache", pc.k_cache}, {"v_cache", pc.v_cache}};
      } else {
        y = c.run(ks, pol.returns_lse ? &l : nullptr);
        inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      }
      for (const auto& [t, h] : rows) {
        for (std::size_t e = 0; e < sh.dv; ++e) must.push_back((t * sh.heads + h) * sh.dv + e);
        const std::size_t at = h * c.pk.total_q() + t;  // the LSE is H × total_q
        if (!l.empty() && !std::isnan(static_cast<double>(l[at]))) {
          Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(h) + "][" + std::to_string(t) + "]");
          for (const auto& [name, v] : inputs) rep.input(name, v);
          rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[at])) + ".").raise();
        }
      }
      break;
    }
  }
  if (k == Kind::attention_backward) {
    // Unmasked, no soft-cap: a NaN in dO[b,i,h,c] makes D_i NaN, hence every dS_ij of the row: all
    // of dQ[b,i,h,:] (the row's largest weight is about 1), and dK[b,j,g,:] and dV[b,j,g,c] of
    // every key j whose weight P_ij is at least 2^-10. A key whose weight underflows may be
    // skipped by a kernel (0 · NaN is never computed): no NaN is demanded there.
    auto c = draw_batched<T>(true);
    auto bc = gen::backward_case(c);
    const auto& sh = bc.c.p.shape;
    const std::size_t at = nan_at(bc.dout), col = at % sh.dv, row = at / sh.dv, h = row % sh.heads, i = row / sh.heads % sh.n,
                      b = row / sh.heads / sh.n, g = sh.kv_head(h);
    why = "dO[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(col) + "] is NaN (" +
          bc.c.p.describe() + ")";
    const auto gr = bc.run(ks);
    y = gr.dq;
    y.insert(y.end(), gr.dk.begin(), gr.dk.end());
    y.insert(y.end(), gr.dv.begin(), gr.dv.end());
    for (std::size_t t = 0; t < sh.d; ++t) must.push_back(sh.q_at(b, i, h) + t);
    const auto rs = bounds::row_scores(bc.c.p, bc.c.q, bc.c.k, b, h, i, bounds::model_of<T>());
    const auto weights = oracle::softmax_row_exact(rs.s);
    for (std::size_t jj = 0; jj < rs.keys.size(); ++jj) {
      if (!(weights.p[jj] >= 0x1p-10L)) continue;
      const std::size_t j = rs.keys.first + jj;
      for (std::size_t t = 0; t < sh.d; ++t) must.push_back(sh.q_size() + sh.k_at(b, j, g) + t);
      must.push_back(sh.q_size() + sh.k_size() + sh.v_at(b, j, g) + col);
    }
    inputs = {{"q", bc.c.q}, {"k", bc.c.k}, {"v", bc.c.v}, {"o", bc.o}, {"dO", bc.dout}};
  }
  if (must.empty())
    for (std::size_t i = 0; i < y.size(); ++i) must.push_back(i);
  for (std::size_t i : must)
    if (!is_nan(y[i])) {
      Report<T> r("AUDIT-NAN-001", what<T>(k) + ", output " + std::to_string(i) + " of " + std::to_string(y.size()));
      for (const auto& [name, v] : inputs) r.input(name, v);
      for (const auto& line : notes) r.line(line);
      r.input("Output", y).line(why + " and output " + std::to_string(i) + " depends on it: expected NaN there.").raise();
    }
}

ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(safe);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(deterministic);
ATTNCHECK_AUDIT_OBLIGATION_AT_EVERY_FORMAT(nan_propagates);

}  // namespace attncheck::audit::obligations
