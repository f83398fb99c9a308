// attncheck: what an output row that sees no input must be. A fully masked softmax row, or an
// attention row that sees no key, has no defined value (0/0); kernels declare a policy: all zeros
// (PyTorch's nested and FlashAttention kernels), all NaN (the plain formula), or either of the two
// (attncheck's default when a kernel declares none). Half zeros and half NaN is never accepted.
#pragma once

#include <cstddef>

#include <string>

#include "attncheck/kernels/masked_policy.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::property {

using attncheck::MaskedPolicy;  // kernels/masked_policy.hpp

// Whether the n outputs at row follow policy p.
template <class T>
bool follows_masked_policy(const T* row, std::size_t n, MaskedPolicy p) {
  bool zeros = true, nans = true;
  for (std::size_t c = 0; c < n; ++c) {
    const double x = to_double(row[c]);
    zeros = zeros && x == 0;
    nans = nans && x != x;
  }
  return p == MaskedPolicy::zeros ? zeros : p == MaskedPolicy::nan ? nans : (zeros || nans);
}

// What policy p demands of such a row, for a report: "all 0", "all NaN" or "all 0 or all NaN".
inline std::string masked_policy_demand(MaskedPolicy p) {
  return p == MaskedPolicy::zeros ? "all 0" : p == MaskedPolicy::nan ? "all NaN" : "all 0 or all NaN";
}

// The words a report adds when a row broke a declared policy (zeros or nan): where it was declared.
inline std::string masked_policy_declared(MaskedPolicy p) {
  if (p == MaskedPolicy::either) return "";
  return std::string("the declared masked-row policy '") + (p == MaskedPolicy::zeros ? "zeros" : "nan") +
         "' (--masked, or masked: in the bindings file)";
}

}  // namespace attncheck::property
