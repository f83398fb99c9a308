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
#include "attncheck/property/packed_rows.hpp"
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
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title =
      "every output and LSE of a packed batch is within the derived allowance of its sequence's exact attention";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto vc = gen::varlen_case<T>();
    judge_packed_accuracy<T>(
        id, vc, vc.run(ks), blocks_of(ks, vc.c.tiling), ks.attention_varlen_masked, [&](std::size_t b, std::size_t h, std::size_t i) { return where(vc, b, h, i); },
        [&](Report<T>& r) { with_inputs(r, vc); });
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
    std::vector<T> q2, k2, v2;
    redraw_sequence(vc, changed, q2, k2, v2);
    judge_untouched_sequences<T>(id, vc, vc.run(ks), vc.run(ks, q2, k2, v2), changed,
                                 "the tokens of sequence " + std::to_string(changed) + " were redrawn",
                                 [&](std::size_t b, std::size_t h, std::size_t i) { return where(vc, b, h, i); });
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
          // A kernel that claims its packed order is its dense order (the reference; an audited
          // kernel declared --packing-invariant) owes the dense kernel's bits, O and LSE.
          const auto owe_bits = [&](const std::string& what, auto packed, auto dense_value) {
            Report<T> r(id, where(vc, b, h, i) + what +
                                ": not the dense kernel's bits, although the kernel claims packing invariance (--packing-invariant)");
            with_inputs(r, vc).line("packed: " + bits_of(packed) + "  " + decimal(to_double(packed)))
                .line("dense:  " + bits_of(dense_value) + "  " + decimal(to_double(dense_value)))
                .raise();
          };
          if (ks.attention_varlen_packing_invariant && !out.lse.empty() && !dense.lse.empty()) {  // one flag asks both
            const auto l = out.lse[h * vc.pk.total_q() + q0 + i], ld = dense.lse[seq.p.shape.lse_at(0, h, i)];
            if (!(std::isnan(l) && std::isnan(ld)) && !identical_bits(l, ld)) owe_bits(", the LSE", l, ld);
          }
          for (std::size_t col = 0; col < s.dv; ++col) {
            const bool both_nan = std::isnan(to_double(o[col])) && std::isnan(to_double(od[col]));
            if (both_nan || identical_bits(o[col], od[col])) continue;
            if (ks.attention_varlen_packing_invariant) owe_bits(", column " + std::to_string(col), o[col], od[col]);
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
