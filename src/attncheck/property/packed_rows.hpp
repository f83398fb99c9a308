// attncheck: judging the outputs of a packed variable-length batch row by row, for every kind that
// returns one (attention_varlen, attention_paged): each sequence's rows against the exact dense
// attention of that sequence alone, and the rows of untouched sequences bit for bit. The caller
// says how a row is named (where) and which inputs a report shows (inputs).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/attention_row_judge.hpp"
#include "attncheck/property/gen/attention_varlen.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::property {

// Names sequence b's row (head h, query i): "attention_varlen<f32>, sequence 1, row (h 0, i 2), …".
using PackedWhere = std::function<std::string(std::size_t b, std::size_t h, std::size_t i)>;

// Every output and LSE of every sequence within the derived allowance of the sequence's exact
// dense attention (the masked-row policy `masked`, and an LSE of −inf, where a row sees no key).
// out.lse empty: the kernel returned none.
template <class T>
void judge_packed_accuracy(const char* id, const gen::VarlenCase<T>& vc, const typename gen::VarlenCase<T>::Output& out,
                           const bounds::KeyBlocks& kb, MaskedPolicy masked, const PackedWhere& where,
                           const std::function<void(Report<T>&)>& inputs) {
  const auto md = bounds::model_of<T>();
  const auto& s = vc.c.p.shape;
  const std::size_t total_q = vc.pk.total_q();
  for (std::size_t b = 0; b < vc.pk.sequences(); ++b) {
    const auto seq = vc.sequence(b);
    const std::size_t q0 = static_cast<std::size_t>(vc.pk.cu_q[b]);
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < seq.p.shape.n; ++i) {
        const auto ex = bounds::attention_row_allowance(seq.p, seq.q, seq.k, seq.v, 0, h, i, kb, md);
        const double lse = out.lse.empty() ? 0 : static_cast<double>(out.lse[h * total_q + q0 + i]);
        judge_attention_row<T>(id, ex, out.o.data() + ((q0 + i) * s.heads + h) * s.dv, s.dv, out.lse.empty() ? nullptr : &lse, masked, where(b, h, i), "",
                               inputs);
      }
  }
}

// Every output and LSE of every sequence but `changed` the same bits in a and c (two runs whose
// inputs differ only in that sequence's tokens, or not at all); `why` says what changed.
template <class T>
void judge_untouched_sequences(const char* id, const gen::VarlenCase<T>& vc, const typename gen::VarlenCase<T>::Output& a,
                               const typename gen::VarlenCase<T>::Output& c, std::size_t changed, const std::string& why,
                               const PackedWhere& where) {
  const auto& s = vc.c.p.shape;
  const std::size_t total_q = vc.pk.total_q();
  for (std::size_t b = 0; b < vc.pk.sequences(); ++b) {
    if (b == changed) continue;
    const std::size_t q0 = static_cast<std::size_t>(vc.pk.cu_q[b]);
    for (std::size_t t = q0; t < static_cast<std::size_t>(vc.pk.cu_q[b + 1]); ++t)
      for (std::size_t h = 0; h < s.heads; ++h) {
        for (std::size_t col = 0; col < s.dv; ++col) {
          const std::size_t e = (t * s.heads + h) * s.dv + col;
          if (!identical_bits(a.o[e], c.o[e]))
            Report<T>(id, where(b, h, t - q0) + ", column " + std::to_string(col) + ": changed when " + why)
                .line("before: " + bits_of(a.o[e]) + "  " + decimal(to_double(a.o[e])))
                .line("after:  " + bits_of(c.o[e]) + "  " + decimal(to_double(c.o[e])))
                .raise();
        }
        if (a.lse.empty()) continue;
        const auto la = a.lse[h * total_q + t], lc = c.lse[h * total_q + t];
        if (la != lc && !(std::isnan(la) && std::isnan(lc)))
          Report<T>(id, where(b, h, t - q0) + ", LSE: changed when " + why)
              .line("before: " + decimal(static_cast<double>(la)) + "  after: " + decimal(static_cast<double>(lc)))
              .raise();
      }
  }
}

// The tokens of sequence b of vc redrawn (q, k and v), the other sequences' left as they are.
template <class T>
void redraw_sequence(const gen::VarlenCase<T>& vc, std::size_t b, std::vector<T>& q, std::vector<T>& k, std::vector<T>& v) {
  const auto& s = vc.c.p.shape;
  q = vc.q, k = vc.k, v = vc.v;
  const auto redraw = [](std::vector<T>& x, std::size_t from, std::size_t count, double sigma) {
    const auto fresh = draw_vector<T>(count, sigma);
    std::copy(fresh.begin(), fresh.end(), x.begin() + static_cast<std::ptrdiff_t>(from));
  };
  redraw(q, static_cast<std::size_t>(vc.pk.cu_q[b]) * s.heads * s.d, vc.pk.n_of(b) * s.heads * s.d, 2);
  redraw(k, static_cast<std::size_t>(vc.pk.cu_k[b]) * s.kv_heads * s.d, vc.pk.m_of(b) * s.kv_heads * s.d, 2);
  redraw(v, static_cast<std::size_t>(vc.pk.cu_k[b]) * s.kv_heads * s.dv, vc.pk.m_of(b) * s.kv_heads * s.dv, 8);
}

}  // namespace attncheck::property
