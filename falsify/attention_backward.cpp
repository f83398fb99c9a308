// attncheck: falsification tests of attention-backward-v1 (contracts/attention-backward-v1.yaml):
// the backward pass of batched attention (kernels/attention_backward.hpp), plain and tiled.
// Obligations: ATTBWD-BND-001 each gradient element within the derived allowance of the exact
// gradient, ATTBWD-INV-001 the softmax Jacobian's structure (Σ dK = 0, Σ dV = Σ dO, unseen keys
// exactly 0), ATTBWD-EQV-001 grouped heads are repeated heads summed, ATTBWD-EQV-002 reverse mode
// is the adjoint of forward mode.
//
// The kernel is handed the exact forward rounded to its formats: o in T, the LSE in lse_t<T>
// (as a training framework hands FlashAttention's backward the forward's own outputs, which are
// within attention-kernel-v1's allowances of these; the allowances cover either).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/property/gen/attention_backward.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;

using gen::BackwardCase;

template <class T>
BackwardCase<T> draw_backward() { return gen::backward_case<T>(); }

template <class T>
bounds::AttentionBackwardExact exact_of(const BackwardCase<T>& bc) { return bc.exact(); }

template <class T>
std::string where(const BackwardCase<T>& bc, const std::string& what) {
  return "attention_backward<" + std::string(dtype_name(dtype_of<T>())) + ">, " + what + ", " + bc.describe();
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const BackwardCase<T>& bc) {
  r.input("q", bc.c.q).input("k", bc.c.k).input("v", bc.c.v).input("dO", bc.dout).input("o (given)", bc.o);
  std::vector<double> l(bc.lse.begin(), bc.lse.end());
  std::string ls;
  for (std::size_t i = 0; i < l.size() && i < 48; ++i) ls += (i ? ", " : "") + decimal(l[i]);
  return r.line("  lse (given):  " + ls + (l.size() > 48 ? ", …" : ""));
}

// "dK[b, j, g, t]" for element e of a tensor of rows of `width` in the layout B × rows × heads.
inline std::string element_name(const char* name, std::size_t e, std::size_t rows, std::size_t heads, std::size_t width) {
  const std::size_t t = e % width, head = e / width % heads, row = e / width / heads % rows, b = e / width / heads / rows;
  return std::string(name) + "[" + std::to_string(b) + ", " + std::to_string(row) + ", " + std::to_string(head) + ", " + std::to_string(t) + "]";
}

// ---- ATTBWD-BND-001: dQ, dK, dV within the derived allowance of the exact gradient ----------------
struct Attbwd001 {
  static constexpr const char* id = "FALSIFY-ATTBWD-001";
  static constexpr const char* title = "every element of dQ, dK and dV is within the derived allowance of the exact gradient (plain and tiled)";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto bc = draw_backward<T>();
    const auto g = bc.run(ks);
    const auto ex = exact_of(bc);
    const auto& s = bc.c.p.shape;
    const auto judge = [&](const char* name, int which, const std::vector<T>& got, const std::vector<real>& exact, const std::vector<real>& allowed,
                           std::size_t rows, std::size_t heads, std::size_t width) {
      for (std::size_t e = 0; e < got.size(); ++e) {
        const long double err = format_error(got[e], exact[e]);
        observe(ratio(err, allowed[e]), std::string(name) + ", " + std::string(dtype_name(dtype_of<T>())));
        if (!(err <= allowed[e])) {
          Report<T> r(id, where(bc, element_name(name, e, rows, heads, width)));
          with_inputs(r, bc).input(std::string(name) + " (kernel)", got).kernel(got[e]).exact(exact[e]).error(err, allowed[e]);
          if (bounds::unfused_admits(bc.c.p, bc.c.q, bc.c.k, bc.c.v, bc.dout, bc.o, bc.lse, bounds::model_of<T>(), which, e, err))
            r.line(bounds::unfused_backward_note(format_of<T>.name));
          r.raise();
        }
      }
    };
    judge("dQ", 0, g.dq, ex.dq, ex.dq_allowance, s.n, s.heads, s.d);
    judge("dK", 1, g.dk, ex.dk, ex.dk_allowance, s.m, s.kv_heads, s.d);
    judge("dV", 2, g.dv, ex.dv, ex.dv_allowance, s.m, s.kv_heads, s.dv);
  }
  static inline const bool registered = property::register_property<Attbwd001>();
};

// ---- ATTBWD-INV-001: the softmax Jacobian's structure -----------------------------------------------
struct Attbwd002 {
  static constexpr const char* id = "FALSIFY-ATTBWD-002";
  static constexpr const char* title = "Σ_j dK_j = 0 (no soft-cap) and Σ_j dV_j = Σ_i dO_i within the summed allowances, and unseen keys get exactly 0";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto bc = draw_backward<T>();
    const auto g = bc.run(ks);
    const auto ex = exact_of(bc);
    const auto& s = bc.c.p.shape;
    for (std::size_t b = 0; b < s.batch; ++b)
      for (std::size_t kvh = 0; kvh < s.kv_heads; ++kvh) {
        // Unseen keys: no term reaches them.
        for (std::size_t j = 0; j < s.m; ++j) {
          if (ex.key_seen[(b * s.m + j) * s.kv_heads + kvh]) continue;
          for (std::size_t t = 0; t < s.d + s.dv; ++t) {
            const bool is_k = t < s.d;
            const T got = is_k ? g.dk[s.k_at(b, j, kvh) + t] : g.dv[s.v_at(b, j, kvh) + t - s.d];
            if (to_double(got) != 0.0) {
              Report<T> r(id, where(bc, std::string(is_k ? "dK" : "dV") + " of key " + std::to_string(j) + " (batch " + std::to_string(b) +
                                            ", key/value head " + std::to_string(kvh) + "), which no query sees"));
              with_inputs(r, bc).kernel(got).line("A key no query sees gets no gradient: must be exactly 0.").raise();
            }
          }
        }
        // Σ_j dV_j = Σ_{h in the group, i sees a key} dO_i. The sums in long double err by about
        // (m + 1)·2^-64 relative to Σ|x|: inside bounds::evaluation_slack of the allowances.
        for (std::size_t c = 0; c < s.dv; ++c) {
          real sum = 0, want = 0, allowed = 0;
          for (std::size_t j = 0; j < s.m; ++j) {
            sum += static_cast<real>(to_double(g.dv[s.v_at(b, j, kvh) + c]));
            allowed += ex.dv_allowance[s.v_at(b, j, kvh) + c];
          }
          for (std::size_t h = 0; h < s.heads; ++h) {
            if (s.kv_head(h) != kvh) continue;
            for (std::size_t i = 0; i < s.n; ++i)
              if (!bc.c.p.mask.visible(i, s.n, s.m).empty()) want += static_cast<real>(to_double(bc.dout[s.o_at(b, i, h) + c]));
          }
          allowed = allowed * bounds::evaluation_slack;
          const real err = std::abs(sum - want);
          observe(ratio(err, allowed), "Σ dV");
          if (!(err <= allowed)) {
            Report<T> r(id, where(bc, "Σ_j dV_j[" + std::to_string(c) + "] of batch " + std::to_string(b) + ", key/value head " + std::to_string(kvh)));
            with_inputs(r, bc).input("dV (kernel)", g.dv)
                .line("Σ_j dV_j = " + decimal(static_cast<double>(sum)) + ", Σ_i dO_i over the rows that see a key = " + decimal(static_cast<double>(want)) +
                      " (Σ_j P_ij = 1)")
                .error(err, allowed, "the sum of the elements' ATTBWD-BND-001 allowances").raise();
          }
        }
        // Σ_j dK_j = 0 without a soft-cap (each row of dS sums to 0).
        if (bc.c.p.softcap > 0) continue;
        for (std::size_t t = 0; t < s.d; ++t) {
          real sum = 0, allowed = 0;
          for (std::size_t j = 0; j < s.m; ++j) {
            sum += static_cast<real>(to_double(g.dk[s.k_at(b, j, kvh) + t]));
            allowed += ex.dk_allowance[s.k_at(b, j, kvh) + t];
          }
          allowed = allowed * bounds::evaluation_slack;
          observe(ratio(std::abs(sum), allowed), "Σ dK");
          if (!(std::abs(sum) <= allowed)) {
            Report<T> r(id, where(bc, "Σ_j dK_j[" + std::to_string(t) + "] of batch " + std::to_string(b) + ", key/value head " + std::to_string(kvh)));
            with_inputs(r, bc).input("dK (kernel)", g.dk)
                .line("Σ_j dK_j = " + decimal(static_cast<double>(sum)) + ", must be 0: each row of dS sums to 0 (J1 = 0)")
                .error(std::abs(sum), allowed, "the sum of the elements' ATTBWD-BND-001 allowances").raise();
          }
        }
      }
  }
  static inline const bool registered = property::register_property<Attbwd002>();
};

// ---- ATTBWD-EQV-001: grouped heads = repeated heads, dK and dV summed over each group ---------------
struct Attbwd003 {
  static constexpr const char* id = "FALSIFY-ATTBWD-003";
  static constexpr const char* title = "the gradients of grouped-query attention are those of the repeated heads, dK and dV summed over each group";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto bc = draw_backward<T>();
    const auto& s = bc.c.p.shape;
    RC_PRE(s.kv_heads < s.heads);
    const auto mha = gen::repeated_kv_heads(bc.c);
    const auto& t = mha.p.shape;
    const auto gg = bc.run(ks), gm = bc.run(ks, mha);
    const auto eg = exact_of(bc);
    BackwardCase<T> bm = bc;
    bm.c = mha;
    const auto em = exact_of(bm);
    const auto judge = [&](const std::string& name, real grouped, real summed, real allowed) {
      allowed *= bounds::evaluation_slack;
      const real diff = std::abs(grouped - summed);
      observe(ratio(diff, allowed), "GQA vs MHA");
      if (!(diff <= allowed)) {
        Report<T> r(id, where(bc, name));
        with_inputs(r, bc).line("grouped: " + decimal(static_cast<double>(grouped)) + ", repeated heads (summed over the group): " +
                                decimal(static_cast<double>(summed)))
            .error(diff, allowed, "the grouped allowance plus the repeated ones'").raise();
      }
    };
    for (std::size_t e = 0; e < s.q_size(); ++e)
      judge(element_name("dQ", e, s.n, s.heads, s.d), to_double(gg.dq[e]), to_double(gm.dq[e]), eg.dq_allowance[e] + em.dq_allowance[e]);
    for (std::size_t b = 0; b < s.batch; ++b)
      for (std::size_t j = 0; j < s.m; ++j)
        for (std::size_t kvh = 0; kvh < s.kv_heads; ++kvh) {
          for (std::size_t x = 0; x < s.d; ++x) {
            real summed = 0, allowed = eg.dk_allowance[s.k_at(b, j, kvh) + x];
            for (std::size_t h = 0; h < s.heads; ++h)
              if (s.kv_head(h) == kvh) summed += to_double(gm.dk[t.k_at(b, j, h) + x]), allowed += em.dk_allowance[t.k_at(b, j, h) + x];
            judge(element_name("dK", s.k_at(b, j, kvh) + x, s.m, s.kv_heads, s.d), to_double(gg.dk[s.k_at(b, j, kvh) + x]), summed, allowed);
          }
          for (std::size_t x = 0; x < s.dv; ++x) {
            real summed = 0, allowed = eg.dv_allowance[s.v_at(b, j, kvh) + x];
            for (std::size_t h = 0; h < s.heads; ++h)
              if (s.kv_head(h) == kvh) summed += to_double(gm.dv[t.v_at(b, j, h) + x]), allowed += em.dv_allowance[t.v_at(b, j, h) + x];
            judge(element_name("dV", s.v_at(b, j, kvh) + x, s.m, s.kv_heads, s.dv), to_double(gg.dv[s.v_at(b, j, kvh) + x]), summed, allowed);
          }
        }
  }
  static inline const bool registered = property::register_property<Attbwd003>();
};

// ---- ATTBWD-EQV-002: reverse mode is the adjoint of forward mode --------------------------------------
// ⟨dO, J[δ]⟩ with J[δ] the exact JVP of attention (its own formula, not the backward's): per row,
// ṡ_ij = scale(⟨δq_i, k_j⟩ + ⟨q_i, δk_j⟩)(1 − τ_ij²), Ṗ_ij = P_ij(ṡ_ij − Σ_l P_il ṡ_il),
// J[δ]_i = Σ_j Ṗ_ij v_j + P_ij δv_j. Evaluated in long double from the 200-bit P and τ: its error,
// about (terms)·2^-64 relative to the magnitudes, is inside bounds::evaluation_slack of the
// allowance Σ|δ|·allowance (each allowance >= u_T >= 2^-53 relative to its gradient's magnitudes).
struct Attbwd004 {
  static constexpr const char* id = "FALSIFY-ATTBWD-004";
  static constexpr const char* title = "⟨(dQ, dK, dV), δ⟩ = ⟨dO, J[δ]⟩ for a random direction δ, J the exact attention JVP, within Σ|δ|·allowance";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto bc = draw_backward<T>();
    const auto& p = bc.c.p;
    const auto& s = p.shape;
    const auto dq = draw_vector<T>(s.q_size(), 1), dk = draw_vector<T>(s.k_size(), 1), dv = draw_vector<T>(s.v_size(), 1);
    const auto g = bc.run(ks);
    const auto ex = exact_of(bc);
    const auto val = [](const auto& x) { return static_cast<real>(to_double(x)); };
    // ⟨dO, J[δ]⟩, exactly (up to long double).
    real want = 0;
    const real scale = static_cast<real>(p.scale);
    for (std::size_t b = 0; b < s.batch; ++b)
      for (std::size_t h = 0; h < s.heads; ++h)
        for (std::size_t i = 0; i < s.n; ++i) {
          const auto rs = bounds::row_scores(p, bc.c.q, bc.c.k, b, h, i, bounds::model_of<T>());
          const std::size_t K = rs.keys.size(), kh = s.kv_head(h);
          if (K == 0) continue;
          const auto row = oracle::softmax_row_exact(rs.s);
          std::vector<real> sdot(K);
          real mean = 0;
          for (std::size_t jj = 0; jj < K; ++jj) {
            const std::size_t j = rs.keys.first + jj;
            real a = 0;
            for (std::size_t t = 0; t < s.d; ++t)
              a += val(dq[s.q_at(b, i, h) + t]) * val(bc.c.k[s.k_at(b, j, kh) + t]) + val(bc.c.q[s.q_at(b, i, h) + t]) * val(dk[s.k_at(b, j, kh) + t]);
            sdot[jj] = scale * a * (p.softcap > 0 ? 1 - rs.tanh[jj] * rs.tanh[jj] : 1);
            mean += row.p[jj] * sdot[jj];
          }
          for (std::size_t c = 0; c < s.dv; ++c) {
            real jc = 0;
            for (std::size_t jj = 0; jj < K; ++jj) {
              const std::size_t j = rs.keys.first + jj;
              jc += row.p[jj] * (sdot[jj] - mean) * val(bc.c.v[s.v_at(b, j, kh) + c]) + row.p[jj] * val(dv[s.v_at(b, j, kh) + c]);
            }
            want += val(bc.dout[s.o_at(b, i, h) + c]) * jc;
          }
        }
    real got = 0, allowed = 0;
    // A zero direction element adds nothing, even where its allowance is infinite (0·inf).
    const auto add = [&](const T& grad, const T& dir, real allowance) {
      if (val(dir) == 0) return;
      got += val(grad) * val(dir);
      allowed += std::abs(val(dir)) * allowance;
    };
    for (std::size_t e = 0; e < s.q_size(); ++e) add(g.dq[e], dq[e], ex.dq_allowance[e]);
    for (std::size_t e = 0; e < s.k_size(); ++e) add(g.dk[e], dk[e], ex.dk_allowance[e]);
    for (std::size_t e = 0; e < s.v_size(); ++e) add(g.dv[e], dv[e], ex.dv_allowance[e]);
    allowed *= bounds::evaluation_slack;
    const real err = std::isfinite(got) ? std::abs(got - want) : std::numeric_limits<real>::infinity();
    observe(ratio(err, allowed), "adjoint, " + std::string(dtype_name(dtype_of<T>())));
    if (!(err <= allowed)) {
      Report<T> r(id, where(bc, "⟨gradient, δ⟩ against ⟨dO, J[δ]⟩"));
      with_inputs(r, bc).input("δq", dq).input("δk", dk).input("δv", dv)
          .line("⟨(dQ, dK, dV), δ⟩ = " + decimal(static_cast<double>(got)) + ", ⟨dO, J[δ]⟩ = " + decimal(static_cast<double>(want)))
          .error(err, allowed, "Σ|δ|·allowance (ATTBWD-BND-001)").raise();
    }
  }
  static inline const bool registered = property::register_property<Attbwd004>();
};

}  // namespace
}  // namespace attncheck::falsify
