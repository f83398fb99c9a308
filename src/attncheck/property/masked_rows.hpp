// attncheck: what an output row that sees no input must be. A fully masked softmax row, or an
// attention row that sees no key, has no defined value (0/0); kernels declare a policy: all zeros
// (PyTorch's nested and FlashAttention kernels), all NaN (the plain formula), or either of the two
// (attncheck's default when a kernel declares none). Half zeros and half NaN is never accepted.
#pragma once

#include <cstddef>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::property {

enum class MaskedPolicy { zeros, nan, either };

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

}  // namespace attncheck::property
