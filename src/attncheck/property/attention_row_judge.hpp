// attncheck: judging one attention output row (b, h, i) against its exact row and allowance
// (bounds::attention_row_allowance), the same for every kind that returns rows of attention: the
// dense and split kernels (FALSIFY-MERGE-004), the FP8 cache (FALSIFY-FP8-001) and the packed and
// paged batches (packed_rows.hpp). A row that sees no key follows the kernel's masked-row policy
// (KernelSet::attention_*_masked: either, unless declared) and has an LSE of −inf; every other
// element and the LSE are within their allowances.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::property {

// o: the row's dv outputs; lse: the kernel's LSE of the row, or null when it returned none.
// masked: the kind's masked-row policy. where: how the row is named in a report; series: appended
// to the dtype in the observed ratios' series (e.g. ", split"); inputs: adds the case's inputs to a
// report.
template <class T>
void judge_attention_row(const char* id, const bounds::AttentionRowAllowance& ex, const T* o, std::size_t dv, const double* lse,
                         MaskedPolicy masked, const std::string& where, const std::string& series,
                         const std::function<void(Report<T>&)>& inputs) {
  const std::string dt(dtype_name(dtype_of<T>()));
  const auto fail = [&](const std::string& what) {
    Report<T> r(id, where + what);
    inputs(r);
    return r;
  };
  if (ex.keys.empty()) {
    if (!follows_masked_policy(o, dv, masked)) {
      auto r = fail(": the row sees no key");
      r.line("output row: " + row_values(std::vector<T>(o, o + dv)) + " (must be " + masked_policy_demand(masked) + ")");
      if (masked != MaskedPolicy::either) r.line("Policy: " + masked_policy_declared(masked) + ".");
      r.raise();
    }
    if (lse && !(std::isinf(*lse) && *lse < 0)) fail(": the row sees no key").line("LSE = " + decimal(*lse) + " (must be −inf: the log of an empty sum)").raise();
    return;
  }
  for (std::size_t col = 0; col < dv; ++col) {
    const long double err = format_error(o[col], ex.o[col]);
    observe(ratio(err, ex.o_allowance[col]), "O, " + dt + series);
    if (!(err <= ex.o_allowance[col])) fail(", column " + std::to_string(col)).kernel(o[col]).exact(ex.o[col]).error(err, ex.o_allowance[col]).raise();
  }
  if (!lse) return;
  const long double err = std::isfinite(*lse) ? std::abs(static_cast<long double>(*lse) - ex.lse) : INFINITY;
  observe(ratio(err, ex.lse_allowance), "LSE, " + dt + series);
  if (!(err <= ex.lse_allowance)) fail(", LSE").line("Kernel LSE:  " + decimal(*lse)).exact(ex.lse).error(err, ex.lse_allowance).raise();
}

}  // namespace attncheck::property
