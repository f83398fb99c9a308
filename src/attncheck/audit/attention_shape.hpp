// attncheck audit: a batched-attention problem written as one command-line word, for
// `attncheck audit --attention-shape SPEC` (the shapes AUDIT-ATTB-002 audits) and its replay line.
//
//   B=1,H=32,Hkv=8,n=4096,m=4096,d=128,causal=br
//
// Keys (comma-separated key=value, any order; n, m and d are required):
//   B, H, Hkv      batch, query heads, key/value heads (defaults 1, 1, H); H % Hkv == 0
//   n, m, d, dv    queries, keys, head dimension of q and k, of v (dv defaults to d)
//   scale          any positive finite value (default 1/sqrt(d))
//   causal         off (default), tl (top-left: j <= i) or br (bottom-right: j <= i + m - n)
//   align          tl or br: where a window without causal sits (default: causal's, else tl)
//   window         L:R, each -1 (unbounded) or >= 0 (default -1:-1)
//   softcap        c >= 0 (0: off)
//   alibi          geo (slopes 2^(-8(h+1)/H), the ALiBi paper's) or H slopes separated by '/'
// and two keys for the values drawn, not the problem (InputMagnitudes, beside it in SizedProblem):
//   qk             LO:HI, 0 <= LO <= HI, HI > 0: every element of q and of k has its magnitude
//                  uniform in [LO, HI] and a random sign (default: normal, standard deviation 1.5);
//                  |q·k| is then about sqrt(d)·HI² and at most d·HI². Values beyond the storage
//                  format's range are clamped to its largest finite value.
//   shift          S (finite; default 0, none): coordinate 0 of every q and k row is set to ±a,
//                  a = sqrt(|S|/scale), so every score moves by about S (the gate's generator
//                  does the same, property/gen/attention_batched.hpp: draw_shift)
// attention_shape_spec() writes a problem back in this form (every field, slopes in full, qk and
// shift when given), so a replay line reproduces the exact problem and its inputs.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "attncheck/kernels/attention_problem.hpp"

namespace attncheck::audit {

// The magnitudes of the inputs AUDIT-ATTB-002 draws for a shape (the keys qk and shift).
struct InputMagnitudes {
  double qk_lo = 0, qk_hi = 0;  // |q_t|, |k_t| uniform in [qk_lo, qk_hi]; qk_hi == 0: the default normal draw
  double shift = 0;             // every score shifted by about this; 0: none
  bool operator==(const InputMagnitudes&) const = default;
};

// One --attention-shape: the problem and the magnitudes of its inputs. Converts from a problem
// alone (default magnitudes), so that a list of shapes can be filled with problems.
struct SizedProblem {
  kernels::AttentionProblem problem;
  InputMagnitudes inputs;
  SizedProblem() = default;
  SizedProblem(kernels::AttentionProblem p) : problem(std::move(p)) {}  // NOLINT: implicit on purpose
};

// Parses spec into out; returns "" or the reason it is not a problem (naming the key at fault).
std::string parse_attention_shape(std::string_view spec, SizedProblem& out);
// The same for a caller that keeps the problem alone: a spec with qk or shift is refused (their
// values would be lost), naming the key.
std::string parse_attention_shape(std::string_view spec, kernels::AttentionProblem& out);

// The spec that parses back to p, bit for bit (doubles with 17 significant digits).
std::string attention_shape_spec(const SizedProblem& p);
std::string attention_shape_spec(const kernels::AttentionProblem& p);

}  // namespace attncheck::audit
