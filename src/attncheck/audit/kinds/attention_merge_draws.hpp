// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call attention_merge (attention_merge.cpp), registered in draws_registry.hpp.
#pragma once

#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// A merge of split-KV partial results (attention_merge) for the obligations every kind has: splits
// 1..8, rows 1..4, dv 1..16, o_parts of magnitude at most 4, partial LSEs of magnitude at most 15
// of which about one in six is -inf (a split that saw no key of that row; its o_parts row is then
// 0, as abi.h says).
template <class T>
struct MergeCase {
  std::size_t splits = 0, rows = 0, dv = 0;
  std::vector<T> o_parts;
  std::vector<lse_t<T>> lse_parts;
  std::string shape() const {
    return "splits = " + std::to_string(splits) + ", rows = " + std::to_string(rows) + ", dv = " + std::to_string(dv);
  }
  // The kernel's o; its LSE into *lse when lse is not null (rows elements).
  std::vector<T> run(const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) const {
    std::vector<T> o(rows * dv);
    if (lse) lse->assign(rows, lse_t<T>(0));
    ks.attention_merge(splits, rows, dv, o_parts.data(), lse_parts.data(), o.data(), lse ? lse->data() : nullptr);
    return o;
  }
};

template <class T>
MergeCase<T> draw_merge() {
  MergeCase<T> c;
  c.splits = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.rows = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  c.dv = static_cast<std::size_t>(*rc::gen::inRange(1, 17));
  c.o_parts = draw_vector<T>(c.splits * c.rows * c.dv, 4);
  c.lse_parts = gen::moderate_vector<lse_t<T>>(c.splits * c.rows, 15);
  for (std::size_t i = 0; i < c.lse_parts.size(); ++i)
    if (*rc::gen::inRange(0, 6) == 0) {
      c.lse_parts[i] = -std::numeric_limits<lse_t<T>>::infinity();
      std::fill_n(c.o_parts.begin() + static_cast<std::ptrdiff_t>(i * c.dv), c.dv, T(0));  // i = s·rows + r
    }
  return c;
}

// The partial LSEs as T for a report (Report<T> shows rows of T; exact for f32 and f64, rounded
// to the storage format for 16-bit: the report's bits of lse_parts are then T's).
template <class T>
std::vector<T> lse_as_t(const std::vector<lse_t<T>>& l) {
  std::vector<T> v;
  for (const auto& x : l) v.push_back(T(static_cast<double>(x)));
  return v;
}

template <class T>
DrawnCall<T> attention_merge_call(Kind, const KernelSet<T>& ks) {  // o (the LSE is asked too, so a stray write past it is seen)
  Drawn<T> d;
  const auto c = draw_merge<T>();
  d.inputs = {{"o_parts", c.o_parts}, {"lse_parts", lse_as_t<T>(c.lse_parts)}};
  d.shape = c.shape();
  return {d, [c, &ks] {
            std::vector<lse_t<T>> l;
            return c.run(ks, &l);
          }};
}

// A NaN partial LSE l[s][r] reaches every o[r][c] and lse[r] (through the row's max or sum). A NaN
// in o_parts[s][r][c] of a split with a key reaches o[r][c] when its weight is at least 2^-10 (a
// kernel may skip a split whose weight underflows: 0 · NaN is never computed then); a split whose
// LSE is -inf has weight exactly 0, and its O is not read.
template <class T>
NanCase<T> attention_merge_nan(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  NanCase<T> r;
  auto c = draw_merge<T>();
  std::vector<std::size_t> lse_must;
  if (*rc::gen::arbitrary<bool>()) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, c.lse_parts.size()), s = at / c.rows, row = at % c.rows;
    c.lse_parts[at] = std::numeric_limits<lse_t<T>>::quiet_NaN();
    r.why = "lse_parts[" + std::to_string(s) + "][" + std::to_string(row) + "] is NaN (" + c.shape() + ")";
    for (std::size_t e = 0; e < c.dv; ++e) r.must.push_back(row * c.dv + e);
    lse_must.push_back(row);
  } else {
    // A split with a key: its LSE finite and its weight at least 2^-10 (in double).
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < c.lse_parts.size(); ++i) {
      const std::size_t row = i % c.rows;
      double M = -std::numeric_limits<double>::infinity(), Z = 0;
      for (std::size_t s = 0; s < c.splits; ++s) M = std::max(M, static_cast<double>(c.lse_parts[s * c.rows + row]));
      for (std::size_t s = 0; s < c.splits; ++s) Z += std::exp(static_cast<double>(c.lse_parts[s * c.rows + row]) - M);
      if (std::isfinite(static_cast<double>(c.lse_parts[i])) && std::exp(static_cast<double>(c.lse_parts[i]) - M) / Z >= 0x1p-10)
        live.push_back(i);
    }
    RC_PRE(!live.empty());  // every split empty: nothing a NaN in O could reach
    const std::size_t i = *rc::gen::elementOf(live), col = *rc::gen::inRange<std::size_t>(0, c.dv), s = i / c.rows, row = i % c.rows;
    c.o_parts[i * c.dv + col] = nan_value<T>();
    r.why = "o_parts[" + std::to_string(s) + "][" + std::to_string(row) + "][" + std::to_string(col) + "] is NaN (" + c.shape() + ")";
    r.must.push_back(row * c.dv + col);
  }
  std::vector<lse_t<T>> l;
  r.y = c.run(ks, pol.returns_lse ? &l : nullptr);
  r.inputs = {{"o_parts", c.o_parts}, {"lse_parts", lse_as_t<T>(c.lse_parts)}};
  if (!l.empty())
    for (std::size_t row : lse_must) lse_must_be_nan(k, "lse[" + std::to_string(row) + "]", static_cast<double>(l[row]), r);
  return r;
}

}  // namespace attncheck::audit::obligations
