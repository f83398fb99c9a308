// attncheck: the softmax accuracy check shared by SM-BND-001 and ASCL-INV-001 (same statement,
// stated by two contracts: max subtraction is how the kernel meets the element-wise bound).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "attncheck/bounds/softmax.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting

// Every ŷ_i of k.softmax(x) must lie within the derived bound of the exact (MPFR) softmax.
template <class T>
void expect_softmax_accurate(const std::string& id, const KernelSet<T>& k, const std::vector<T>& x) {
  std::vector<T> y(x.size());
  k.softmax(x.data(), y.data(), x.size());
  const auto ex = oracle::certified::softmax_row(x);
  const auto b = bounds::softmax_bound(ex, bounds::model_of<T>());
  const long double base = baseline_error<T>([&](const KernelSet<T>& r) {
    std::vector<T> out(x.size());
    r.softmax(x.data(), out.data(), x.size());
    return out;
  }, ex.p);
  const double top = row_top(x);
  for (std::size_t i = 0; i < y.size(); ++i)
    expect_close<T>(id, "softmax<" + scalar_name<T>() + ">, element " + std::to_string(i) + " of " + std::to_string(y.size()),
                    "Input", x, y[i], ex.p[i], std::max(b.hi[i] - ex.p[i], ex.p[i] - b.lo[i]), &ex.p_ref[i], base,
                    top - to_double(x[i]));
}

}  // namespace attncheck::falsify
