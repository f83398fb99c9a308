// attncheck: prints the softmax allowance of 16-bit storage with f32 arithmetic, in ulps of the
// storage format, for rows of n equal entries at every n up to 4096: the figures block
// softmax-ulps of docs/formats.md (tools/readme-figures.py runs this, CTest docs.figures
// compares). The same figures are asserted by tests/mixed_bounds_test.cpp. No randomness, no
// time: the same output on every run (~3 s: 8.4 million output bounds per format).
#include <cstdio>

#include "attncheck/bounds/softmax_allowance_in_ulps.hpp"
#include "attncheck/scalar/arithmetic.hpp"

namespace {

using namespace attncheck;

constexpr std::size_t max_n = 4096;

template <class T>
void row() {
  const arithmetic_scope f32_arithmetic(Arithmetic::f32);
  const auto md = bounds::model_of<T>();
  const auto f = format_of<T>;
  const auto worst = bounds::worst_equal_row_allowance(max_n, md, f);
  std::printf("%-6s  %5.3f at n = %-4zu  %6.3f  %8.3f  %8.3f\n", std::string(f.name).c_str(), worst.ulps, worst.n,
              bounds::equal_row_allowance_in_ulps(3, md, f), bounds::equal_row_allowance_in_ulps(2048, md, f),
              bounds::equal_row_allowance_in_ulps(max_n, md, f));
}

}  // namespace

int main() {
  std::printf("softmax allowance (bounds::softmax_bound), f32 arithmetic, rows of n equal entries (p = 1/n),\n"
              "in ulps of the storage format at p\n\n");
  std::printf("format  largest, n <= %zu  n = 3  n = 2048  n = %zu\n", max_n, max_n);
  row<bf16>();
  row<f16>();
  return 0;
}
