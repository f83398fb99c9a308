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
// attention_shape_spec() writes a problem back in this form (every field, slopes in full), so a
// replay line reproduces the exact problem.
#pragma once

#include <string>
#include <string_view>

#include "attncheck/kernels/attention_problem.hpp"

namespace attncheck::audit {

// Parses spec into out; returns "" or the reason it is not a problem (naming the key at fault).
std::string parse_attention_shape(std::string_view spec, kernels::AttentionProblem& out);

// The spec that parses back to p, bit for bit (doubles with 17 significant digits).
std::string attention_shape_spec(const kernels::AttentionProblem& p);

}  // namespace attncheck::audit
