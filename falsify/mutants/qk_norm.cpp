// attncheck: wrong RMSNorm kernels that qk-norm-v1's tests must catch.
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

template <class T, class Den>
void rmsnorm_with(const T* x, const T* w, std::size_t d, T eps, T* y, Den den) {
  const T ms = kernels::dot(x, x, d) / lit<T>(static_cast<double>(d));
  const T r = den(ms, eps);
  for (std::size_t i = 0; i < d; ++i) y[i] = T(x[i] / r) * w[i];
}

struct EpsOutsideRoot {
  static constexpr const char* name = "rmsnorm_eps_outside_root";
  static constexpr const char* description = "y = x / (sqrt(mean(x^2)) + eps) * w";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-001", "FALSIFY-QKN-005"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm = [](const T* x, const T* w, std::size_t d, T eps, T* y) {
      rmsnorm_with(x, w, d, eps, y, [](T ms, T e) { return T(sqrt(ms) + e); });
    };
  }
};

struct NoEps {
  static constexpr const char* name = "rmsnorm_without_eps";
  static constexpr const char* description = "eps dropped: y = x / sqrt(mean(x^2)) * w (0/0 on zero input)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-004", "FALSIFY-QKN-005"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm = kernels::broken::rmsnorm_without_eps<T>;
  }
};

struct MeanOverDMinusOne {
  static constexpr const char* name = "rmsnorm_mean_over_d_minus_1";
  static constexpr const char* description = "mean square divides by d-1 (a variance habit)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-001", "FALSIFY-QKN-005"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm = [](const T* x, const T* w, std::size_t d, T eps, T* y) {
      const T ms = kernels::dot(x, x, d) / lit<T>(static_cast<double>(d > 1 ? d - 1 : 1));
      const T r = sqrt(T(ms + eps));
      for (std::size_t i = 0; i < d; ++i) y[i] = T(x[i] / r) * w[i];
    };
  }
};

struct GainIgnored {
  static constexpr const char* name = "rmsnorm_gain_ignored";
  static constexpr const char* description = "the gain w is not applied";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-002", "FALSIFY-QKN-005", "FALSIFY-ASCL-002"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm = [](const T* x, const T*, std::size_t d, T eps, T* y) {
      const std::vector<T> one(d, lit<T>(1));
      kernels::rmsnorm(x, one.data(), d, eps, y);
    };
  }
};

struct NoSqrt {
  static constexpr const char* name = "rmsnorm_without_sqrt";
  static constexpr const char* description = "divides by mean(x^2)+eps instead of its square root";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-001", "FALSIFY-QKN-003", "FALSIFY-QKN-005"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm = [](const T* x, const T* w, std::size_t d, T eps, T* y) {
      rmsnorm_with(x, w, d, eps, y, [](T ms, T e) { return T(ms + e); });
    };
    k.rmsnorm_heads = [rms = k.rmsnorm](const T* x, const T* w, std::size_t h, std::size_t d, T eps, T* y) {
      for (std::size_t j = 0; j < h; ++j) rms(x + j * d, w, d, eps, y + j * d);
    };
  }
};

// Normalises all heads together: the RMS is taken over h·d entries.
struct HeadsGlobal {
  static constexpr const char* name = "rmsnorm_heads_jointly";
  static constexpr const char* description = "per-head RMSNorm takes one RMS over all heads";
  static std::vector<std::string> caught_by() { return {"FALSIFY-QKN-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.rmsnorm_heads = [](const T* x, const T* w, std::size_t h, std::size_t d, T eps, T* y) {
      std::vector<T> wide(h * d);
      for (std::size_t j = 0; j < h; ++j)
        for (std::size_t i = 0; i < d; ++i) wide[j * d + i] = w[i];
      kernels::rmsnorm(x, wide.data(), h * d, eps, y);
    };
  }
};

const bool registered = register_mutant<EpsOutsideRoot>() && register_mutant<NoEps>() &&
                        register_mutant<MeanOverDMinusOne>() && register_mutant<GainIgnored>() &&
                        register_mutant<NoSqrt>() && register_mutant<HeadsGlobal>();
}  // namespace
}  // namespace attncheck::mutants
