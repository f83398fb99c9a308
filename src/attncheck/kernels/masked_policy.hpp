// attncheck: the masked-row policy a kernel declares: what an output row that sees no input must
// be. A fully masked softmax row, or an attention row that sees no key, has no defined value
// (0/0): all zeros (PyTorch's nested and FlashAttention kernels), all NaN (the plain formula), or
// either of the two (attncheck's default when a kernel declares none). Here, below the kernel set
// (kernel_set.hpp), because a kernel set carries the policy of each attention kind it holds;
// judged by property/masked_rows.hpp.
#pragma once

namespace attncheck {

enum class MaskedPolicy { zeros, nan, either };

}  // namespace attncheck
