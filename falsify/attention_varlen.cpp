// attncheck: falsification tests of attention-varlen-v1 (contracts/attention-varlen-v1.yaml):
// attention over a packed variable-length batch (kernels/attention_varlen.hpp). Obligations:
// VARLEN-BND-001 each output and LSE within the derived allowance of its sequence's exact dense
// attention (the masked-row policy where a row sees no key), VARLEN-INV-001 no token of one
// sequence reaches another's outputs (bit for bit), VARLEN-EQV-001 packed = dense: each
// sequence's outputs are the dense kernel's on that sequence alone, within both allowances.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/gen/attention_varlen.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;
using gen::blocks_of;
using gen::VarlenCase;

template <class T>
std::string where(const VarlenCase<T>& vc, std::size_t b, std::size_t h, std::size_t i) {
  return "attention_varlen<" + std::string(dtype_name(dtype_of<T>())) + ">, sequence " + std::to_string(b) + ", row (h " +
         std::to_string(h) + ", i " + std::to_string(i) + "), " + vc.describe();
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const VarlenCase<T>& vc) {
  std::string cq, ck;
  for (auto x : vc.pk.cu_q) cq += (cq.empty() ? "" : ", ") + std::to_string(x);
  for (auto x : vc.pk.cu_k) ck += (ck.empty() ? "" : ", ") + std::to_string(x);
  return r.input("q", vc.q).input("k", vc.k).input("v", vc.v).line("cu_seqlens_q: " + cq).line("cu_seqlens_k: " + ck);
}

// ---- VARLEN-BND-001: each sequence within the allowance of its exact dense attention -------------
struct Varlen001 {
  static constexpr const char* id = "FALSIFY-VARLEN-001";
  static constexpr const char* title =
      "every output and LSE of a packed batch is within the derived allowance of its sequence's exact attention";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto vc = gen::varlen_case<T>();
    const auto out = vc.run(ks);
    const auto md = bounds::model_of<T>();
    const auto kb = blocks_of(ks, vc.c.tiling);
    const auto& s = vc.c.p.shape;
    const std::size_t total_q = vc.pk.total_q();
    for (std::size_t b = 0; b < vc.pk.sequences(); ++b) {
      const auto seq = vc.sequence(b);
      const std::size_t q0 = static_cast<std::size_t>(vc.pk.cu_q[b]);
      for (std::size_t h = 0; h < s.heads; ++h)
        for (std::size_t i = 0; i < seq.p.shape.n; ++i) {
          const auto ex = bounds::attention_row_allowance(seq.p, seq.q, seq.k, seq.v, 0, h, i, kb, md);
          const T* o = out.o.data() + ((q0 + i) * s.heads + h) * s.dv;
          const double lse = out.lse.empty() ? 0 : static_cast<double>(out.lse[h * total_q + q0 + i]);
          if (ex.keys.empty()) {
            if (!follows_masked_policy(o, s.dv, MaskedPolicy::either)) {
              Report<T> r(id, where(vc, b, h, i) + ": the row sees no key");
              with_inputs(r, vc).line("output row: " + row_values(std::vector<T>(o, o + s.dv)) + " (must be all 0 or all NaN)").raise();
            }
            if (!out.lse.empty() && !(std::isinf(lse) && lse < 0)) {
              Report<T> r(id, where(vc, b, h, i) + ": the row sees no key");
              with_inputs(r, vc).line("LSE = " + decimal(lse) + " (must be −inf: the log of an empty sum)").raise();
            }
            continue;
          }
          for (std::size_t col = 0; col < s.dv; ++col) {
            const long double err = format_error(o[col], ex.o[col]);
            observe(ratio(err, ex.o_allowance[col]), "O, " + std::string(dtype_name(dtype_of<T>())));
            if (!(err <= ex.o_allowance[col])) {
              Report<T> r(id, where(vc, b, h, i) + ", column " + std::to_string(col));
              with_inputs(r, vc).kernel(o[col]).exact(ex.o[col]).error(err, ex.o_allowance[col]).raise();
            }
          }
          if (out.lse.empty()) continue;
          const long double err = std::isfinite(lse) ? std::abs(static_cast<long double>(lse) - ex.lse) : INFINITY;
          observe(ratio(err, ex.lse_allowance), "LSE, " + std::string(dtype_name(dtype_of<T>())));
          if (!(err <= ex.lse_allowance)) {
            Report<T> r(id, where(vc, b, h, i) + ", LSE");
            with_inputs(r, vc).line("Kernel LSE:  " + decimal(lse)).exact(ex.lse).error(err, ex.lse_allowance).raise();
          }
        }
    }
  }
  static inline const bool registered = property::register_property<Varlen001>();
};

// ---- VARLEN-INV-001: no leakage between sequences, bit for bit ------------------------------------
struct Varlen002 {
  static constexpr const char* id = "FALSIFY-VARLEN-002";
  static constexpr const char* title = "redrawing every token of one sequence leaves every output of the other sequences bit for bit unchanged";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto vc = gen::varlen_case<T>();
    RC_PRE(vc.pk.sequences() >= 2);
    const std::size_t changed = *rc::gen::inRange<std::size_t>(0, vc.pk.sequences());
    const auto& s = vc.c.p.shape;
    auto q2 = vc.q, k2 = vc.k, v2 = vc.v;
    const auto redraw = [](std::vector<T>& x, std::size_t from, std::size_t count, double sigma) {
      const auto fresh = draw_vector<T>(count, sigma);
      std::copy(fresh.begin(), fresh.end(), x.begin() + static_cast<std::ptrdiff_t>(from));
    };
    redraw(q2, static_cast<std::size_t>(vc.pk.cu_q[changed]) * s.heads * s.d, vc.pk.n_of(changed) * s.heads * s.d, 2);
    redraw(k2, static_cast<std::size_t>(vc.pk.cu_k[changed]) * s.kv_heads * s.d, vc.pk.m_of(changed) * s.kv_heads * s.d, 2);
    redraw(v2, static_cast<std::size_t>(vc.pk.cu_k[changed]) * s.kv_heads * s.dv, vc.pk.m_of(changed) * s.kv_heads * s.dv, 8);
    const auto a = vc.run(ks), c = vc.run(ks, q2, k2, v2);
    const std::size_t total_q = vc.pk.total_q();
    for (std::size_t b = 0; b < vc.pk.sequences(); ++b) {
      if (b == changed) continue;
      for (std::size_t t = static_cast<std::size_t>(vc.pk.cu_q[b]); t < static_cast<std::size_t>(vc.pk.cu_q[b + 1]); ++t)
        for (std::size_t h = 0; h < s.heads; ++h) {
          for (std::size_t col = 0; col < s.dv; ++col) {
            const std::size_t e = (t * s.heads + h) * s.dv + col;
            if (!identical_bits(a.o[e], c.o[e]))
              Report<T>(id, where(vc, b, h, t - static_cast<std::size_t>(vc.pk.cu_q[b])) + ", column " + std::to_string(col) +
                                ": changed when the tokens of sequence " + std::to_string(changed) + " were redrawn")
                  .line("before: " + bits_of(a.o[e]) + "  " + decimal(to_double(a.o[e])))
                  .line("after:  " + bits_of(c.o[e]) + "  " + decimal(to_double(c.o[e])))
                  .raise();
          }
          if (!a.lse.empty() && a.lse[h * total_q + t] != c.lse[h * total_q + t] &&
              !(std::isnan(a.lse[h * total_q + t]) && std::isnan(c.lse[h * total_q + t])))
            Report<T>(id, where(vc, b, h, t - static_cast<std::size_t>(vc.pk.cu_q[b])) + ", LSE: changed when the tokens of sequence " +
                              std::to_string(changed) + " were redrawn")
                .line("before: " + decimal(static_cast<double>(a.lse[h * total_q + t])) +
                      "  after: " + decimal(static_cast<double>(c.lse[h * total_q + t])))
                .raise();
        }
    }
  }
  static inline const bool registered = property::register_property<Varlen002>();
};

// ---- VARLEN-EQV-001: packed = dense -----------------------------------------------------------------
struct Varlen003 {
  static constexpr const char* id = "FALSIFY-VARLEN-003";
  static constexpr const char* title =
      "each sequence's packed outputs equal the dense kernel's on that sequence alone, within the sum of both allowances";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto vc = gen::varlen_case<T>();
    const auto out = vc.run(ks);
    const auto md = bounds::model_of<T>();
    const auto kb = blocks_of(ks, vc.c.tiling);
    const auto& s = vc.c.p.shape;
    for (std::size_t b = 0; b < vc.pk.sequences(); ++b) {
      const auto seq = vc.sequence(b);
      if (seq.p.shape.n == 0) continue;
      const auto dense = seq.run(ks);
      const std::size_t q0 = static_cast<std::size_t>(vc.pk.cu_q[b]);
      for (std::size_t h = 0; h < s.heads; ++h)
        for (std::size_t i = 0; i < seq.p.shape.n; ++i) {
          const auto ex = bounds::attention_row_allowance(seq.p, seq.q, seq.k, seq.v, 0, h, i, kb, md);
          const T* o = out.o.data() + ((q0 + i) * s.heads + h) * s.dv;
          const T* od = dense.o.data() + seq.p.shape.o_at(0, i, h);
          for (std::size_t col = 0; col < s.dv; ++col) {
            const bool both_nan = std::isnan(to_double(o[col])) && std::isnan(to_double(od[col]));
            if (both_nan || identical_bits(o[col], od[col])) continue;
            const long double diff = std::abs(static_cast<long double>(to_double(o[col])) - to_double(od[col]));
            const long double allowed = ex.keys.empty() ? 0 : 2 * ex.o_allowance[col];
            observe(ratio(diff, allowed), "packed − dense, " + std::string(dtype_name(dtype_of<T>())));
            if (!(diff <= allowed)) {
              Report<T> r(id, where(vc, b, h, i) + ", column " + std::to_string(col));
              with_inputs(r, vc).line("packed: " + bits_of(o[col]) + "  " + decimal(to_double(o[col])))
                  .line("dense:  " + bits_of(od[col]) + "  " + decimal(to_double(od[col])))
                  .error(diff, allowed, "twice the derived allowance")
                  .raise();
            }
          }
        }
    }
  }
  static inline const bool registered = property::register_property<Varlen003>();
};

}  // namespace
}  // namespace attncheck::falsify
