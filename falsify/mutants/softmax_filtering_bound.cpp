// attncheck: softmax kernels at the wrong inverse temperature, which the softmax-filtering-bound-v1
// tests must catch: a sharper softmax (λ = 2) is only 1-Lipschitz, so the chain's 1/2 fails; a
// flatter one (λ = 1/2) satisfies every upper bound, and only the tightness test (two-point rows
// reach the stage-1 bound within 1%) can tell.
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {

template <class T>
void softmax_scaled(const T* x, T* y, std::size_t n, double lambda) {
  std::vector<T> z(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = x[i] * lit<T>(lambda);
  kernels::softmax(z.data(), y, n);
}

struct SoftmaxSharpened {
  static constexpr const char* name = "softmax_sharpened_x2";
  static constexpr const char* description = "softmax(2x): inverse temperature 2 folded into the kernel";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SFB-001", "FALSIFY-SFB-003", "FALSIFY-SFB-004", "FALSIFY-SFB-005", "FALSIFY-LSE-002", "FALSIFY-LSE-003"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) { softmax_scaled(x, y, n, 2.0); };
  }
};

struct SoftmaxFlattened {
  static constexpr const char* name = "softmax_flattened_half";
  static constexpr const char* description = "softmax(x/2): inverse temperature 1/2 folded into the kernel";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SFB-005", "FALSIFY-LSE-003"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) { softmax_scaled(x, y, n, 0.5); };
  }
};

const bool registered = property::register_mutant<SoftmaxSharpened>() && property::register_mutant<SoftmaxFlattened>();

}  // namespace
}  // namespace attncheck::mutants
