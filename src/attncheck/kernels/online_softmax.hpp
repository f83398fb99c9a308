// attncheck: the online softmax of one attention row (Milakov & Gimelshein 2018; FlashAttention's
// inner loop): the keys arrive in blocks, and a running maximum, a running normaliser and an
// output accumulator are rescaled whenever the maximum grows. The plain kernel is this with one
// block of every key; a tiled kernel calls the same update once per key tile. One source for both.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// The state of one row after some blocks: with M the maximum score seen,
//   sum   = Σ_j exp(s_j − M),   acc_c = Σ_j exp(s_j − M) v_jc,
// over the keys seen so far. Before any key: M = −inf, sum = acc = 0.
template <Scalar T>
struct OnlineRow {
  T max;
  T sum;
  std::vector<T> acc;
  std::size_t keys = 0;  // visible keys seen: a row with none is fully masked (policy, not 0/0)

  explicit OnlineRow(std::size_t dv)
      : max(lit<T>(-std::numeric_limits<double>::infinity())), sum(lit<T>(0)), acc(dv, lit<T>(0)) {}
};

// One block: the scores s[0..len) of visible keys whose value rows are v_row(t) (dv entries each).
// With M' = max(M, max_t s_t) and α = exp(M − M') (0 for the first block: exp(−inf) = 0),
//   sum ← sum·α + Σ_t exp(s_t − M'),   acc_c ← acc_c·α + Σ_t exp(s_t − M') v_tc.
// The exps go through e[] so that the block's sum is softmax's row_sum, bit for bit. A NaN score
// gives a NaN exp and so a NaN row; so does a row whose visible scores are all −inf (−inf − −inf).
// acc_factor(α, M, M') is the accumulator's rescaling factor, α: a parameter only so that a broken
// kernel (broken_attention.hpp) can rescale the accumulator wrongly without a copy of this loop.
struct RescaleByAlpha {
  template <Scalar T>
  T operator()(T alpha, T /*m_old*/, T /*m_new*/) const { return alpha; }
};

template <Scalar T, class ValueRow, class AccFactor = RescaleByAlpha>
void online_update(OnlineRow<T>& st, const T* s, std::size_t len, ValueRow v_row, std::vector<T>& e, AccFactor acc_factor = {}) {
  if (len == 0) return;
  const T m_new = max_step(st.max, row_max(s, len));
  const T alpha = shifted_exp_step(st.max, m_new);
  const T acc_alpha = acc_factor(alpha, st.max, m_new);
  e.resize(len);
  for (std::size_t t = 0; t < len; ++t) e[t] = shifted_exp_step(s[t], m_new);
  st.sum = T(st.sum * alpha) + row_sum(e.data(), len);
  // acc_c ← acc_c·α' + Σ_t e_t v_tc, the sum in the order of t for each c. The loop over t is the
  // outer one so that the dv sums advance side by side, reading each value row once (the same
  // operations in the same order per c as one chain per column, many times faster in double).
  // (__restrict, a GCC and Clang extension: the accumulator is never a value row, so the compiler
  // may keep the sums in registers and vectorise over c.)
  T* __restrict acc = st.acc.data();
  const std::size_t dv = st.acc.size();
  for (std::size_t c = 0; c < dv; ++c) acc[c] = T(acc[c] * acc_alpha);
  for (std::size_t t = 0; t < len; ++t) {
    const T* __restrict vt = v_row(t);
    const T et = e[t];
    for (std::size_t c = 0; c < dv; ++c) acc[c] = dot_step(acc[c], et, vt[c]);
  }
  st.max = m_new;
  st.keys += len;
}

// The row's output o_c = acc_c / sum and its log-sum-exp M + log(sum). A row that saw no key gets
// zeros and −inf (log of an empty sum), as FlashAttention and PyTorch's fused kernels return; the
// audit asks a third party's kernel for its own policy instead.
template <Scalar T>
void online_finish(const OnlineRow<T>& st, T* o, T* lse) {
  const bool none = st.keys == 0;
  for (std::size_t c = 0; c < st.acc.size(); ++c) o[c] = select(none, lit<T>(0), T(st.acc[c] / st.sum));
  if (lse) *lse = select(none, lit<T>(-std::numeric_limits<double>::infinity()), T(st.max + log(st.sum)));
}

}  // namespace attncheck::kernels
