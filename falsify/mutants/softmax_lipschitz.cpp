// attncheck: wrong softmax JVP kernels that softmax-lipschitz-v1's tests must catch.
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

// Forgets the -ppᵀ term: dy = Diag(p) dx, so J1 = p != 0.
struct DiagOnly {
  static constexpr const char* name = "jvp_diagonal_only";
  static constexpr const char* description = "softmax JVP without the -p p^T term (dy = p * dx)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SLIP-001", "FALSIFY-SLIP-002"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      kernels::softmax(x, dy, n);
      for (std::size_t i = 0; i < n; ++i) dy[i] = dy[i] * dx[i];
    };
  }
};

// A factor 2 too much (a common slip when a temperature or symmetric form is folded in).
struct Doubled {
  static constexpr const char* name = "jvp_doubled";
  static constexpr const char* description = "softmax JVP scaled by 2";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SLIP-001", "FALSIFY-SLIP-003", "FALSIFY-SLIP-005", "FALSIFY-LSE-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      kernels::softmax_jvp(x, dx, n, dy);
      for (std::size_t i = 0; i < n; ++i) dy[i] = dy[i] + dy[i];
    };
  }
};

// Softmax at "temperature" 1/3: outputs move three times as fast as the contract allows.
struct SharpSoftmax {
  static constexpr const char* name = "softmax_temperature_one_third";
  static constexpr const char* description = "softmax(3x): a temperature folded in by mistake";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SLIP-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      std::vector<T> s(n);
      for (std::size_t i = 0; i < n; ++i) s[i] = T(x[i] * lit<T>(3));
      kernels::softmax(s.data(), y, n);
    };
  }
};

const bool registered = register_mutant<DiagOnly>() && register_mutant<Doubled>() &&
                        register_mutant<SharpSoftmax>();
}  // namespace
}  // namespace attncheck::mutants
