// attncheck audit tests: the per-sequence dense attention in double of a small packed batch, the
// expected answer of the fixed in-process cases of the varlen and paged tests (one key/value head,
// ALiBi slopes given): O (total_q × H × dv) and the LSE (H × total_q, −inf for a row that sees no
// key), with each sequence's mask and ALiBi distances counted within it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "attncheck/kernels/attention_problem.hpp"

namespace attncheck_tests::audit_cli {

inline std::pair<std::vector<double>, std::vector<double>> packed_exact(const attncheck::kernels::AttentionProblem& p,
                                                                        const std::vector<std::int32_t>& cu_q, const std::vector<std::int32_t>& cu_k,
                                                                        const std::vector<float>& q, const std::vector<float>& k,
                                                                        const std::vector<float>& v) {
  const auto& sh = p.shape;
  const double ninf = -std::numeric_limits<double>::infinity();
  const std::size_t tq = static_cast<std::size_t>(cu_q.back());
  std::vector<double> o(tq * sh.heads * sh.dv, 0.0), l(sh.heads * tq, ninf);
  for (std::size_t b = 0; b + 1 < cu_q.size(); ++b) {
    const std::size_t q0 = static_cast<std::size_t>(cu_q[b]), k0 = static_cast<std::size_t>(cu_k[b]);
    const std::size_t n = static_cast<std::size_t>(cu_q[b + 1]) - q0, m = static_cast<std::size_t>(cu_k[b + 1]) - k0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t h = 0; h < sh.heads; ++h) {
        const auto r = p.mask.visible(i, n, m);
        if (r.empty()) continue;
        const long long c = p.mask.diagonal(i, n, m);
        std::vector<double> s;
        for (std::size_t j = r.first; j < r.last; ++j) {
          double dot = 0;
          for (std::size_t t = 0; t < sh.d; ++t) dot += double(q[((q0 + i) * sh.heads + h) * sh.d + t]) * k[(k0 + j) * sh.d + t];
          s.push_back(dot * p.scale - p.alibi_slopes[h] * std::abs(c - static_cast<long long>(j)));
        }
        double M = ninf, Z = 0;
        for (double x : s) M = std::max(M, x);
        for (double x : s) Z += std::exp(x - M);
        l[h * tq + q0 + i] = M + std::log(Z);
        for (std::size_t u = 0; u < s.size(); ++u)
          for (std::size_t c2 = 0; c2 < sh.dv; ++c2)
            o[((q0 + i) * sh.heads + h) * sh.dv + c2] += std::exp(s[u] - M) / Z * v[(k0 + r.first + u) * sh.dv + c2];
      }
  }
  return {o, l};
}

}  // namespace attncheck_tests::audit_cli
