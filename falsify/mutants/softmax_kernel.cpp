// attncheck: wrong softmax and log-softmax kernels that the falsification tests must catch.
#include <cmath>
#include <limits>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

// The textbook formula without max subtraction: exp overflows for x > 88.7 (f32), inf/inf = NaN.
struct NoMaxSubtraction {
  static constexpr const char* name = "softmax_no_max_subtraction";
  static constexpr const char* description = "softmax = exp(x_i) / sum exp(x_j), no max subtraction";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-001", "FALSIFY-SM-004", "FALSIFY-ASCL-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = kernels::broken::softmax_no_max_subtraction<T>;
  }
};

// The shift skipped while |max| < 50, where exp(max) stays in range: wrong only where an entry's exp
// is subnormal unshifted at a moderate maximum (gen::shift_region_row; issue 49).
struct ShiftOnlyBeyond50 {
  static constexpr const char* name = "softmax_shift_only_beyond_50";
  static constexpr const char* description = "max subtracted only when |max| >= 50 (exp(max) in range otherwise)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = kernels::broken::softmax_shift_only_beyond_50<T>;
  }
};

// Off-by-one in the normalising sum: the last term is left out.
struct SumSkipsLast {
  static constexpr const char* name = "softmax_sum_skips_last";
  static constexpr const char* description = "the normalising sum leaves out the last entry";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-001", "FALSIFY-SM-004", "FALSIFY-ASCL-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      const T m = kernels::row_max(x, n);
      T s = lit<T>(0);
      for (std::size_t i = 0; i < n; ++i) {
        y[i] = exp(T(x[i] - m));
        if (i + 1 < n || n == 1) s = s + y[i];
      }
      for (std::size_t i = 0; i < n; ++i) y[i] = y[i] / s;
    };
  }
};

// A "denormal-free" shortcut: outputs below 2^-20 are flushed to zero.
struct FlushTiny {
  static constexpr const char* name = "softmax_flush_tiny";
  static constexpr const char* description = "outputs below 2^-20 are flushed to 0";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-002", "FALSIFY-SM-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      kernels::softmax(x, y, n);
      for (std::size_t i = 0; i < n; ++i)
        if (to_double(y[i]) < 0x1p-20) y[i] = lit<T>(0);
    };
  }
};

// Sign error: softmax(-x).
struct Negated {
  static constexpr const char* name = "softmax_negated";
  static constexpr const char* description = "computes softmax(-x) (sign error)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-003", "FALSIFY-SM-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      std::vector<T> nx(n);
      for (std::size_t i = 0; i < n; ++i) nx[i] = -x[i];
      kernels::softmax(nx.data(), y, n);
    };
  }
};

// The running sum starts at 1 instead of 0.
struct SumStartsAtOne {
  static constexpr const char* name = "softmax_sum_starts_at_one";
  static constexpr const char* description = "the normalising sum is initialised to 1";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-001", "FALSIFY-SM-005", "FALSIFY-SM-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      const T m = kernels::row_max(x, n);
      T s = lit<T>(1);
      for (std::size_t i = 0; i < n; ++i) s = s + (y[i] = exp(T(x[i] - m)));
      for (std::size_t i = 0; i < n; ++i) y[i] = y[i] / s;
    };
  }
};

// "Stable enough": subtracts max(max x, 0), so an all-negative row is not shifted and its exps
// underflow to 0/0; shifting the row changes the answer.
struct MaxClampedAtZero {
  static constexpr const char* name = "softmax_max_clamped_at_zero";
  static constexpr const char* description = "subtracts max(max x, 0) instead of max x";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-007", "FALSIFY-SM-001", "FALSIFY-SM-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      T m = kernels::row_max(x, n);
      m = select(m > lit<T>(0), m, lit<T>(0));
      T s = lit<T>(0);
      for (std::size_t i = 0; i < n; ++i) s = s + (y[i] = exp(T(x[i] - m)));
      for (std::size_t i = 0; i < n; ++i) y[i] = y[i] / s;
    };
  }
};

// Silently "sanitises" NaN inputs as -inf and returns a finite distribution.
struct NanToMinusInf {
  static constexpr const char* name = "softmax_nan_as_minus_inf";
  static constexpr const char* description = "treats NaN inputs as -inf and returns a finite row";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-008"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      std::vector<T> c(x, x + n);
      for (auto& v : c)
        if (to_double(v) != to_double(v)) v = lit<T>(-std::numeric_limits<double>::infinity());
      kernels::softmax(c.data(), y, n);
    };
  }
};

// log(softmax(x)): -inf wherever the softmax underflows.
struct LogOfSoftmax {
  static constexpr const char* name = "log_softmax_as_log_of_softmax";
  static constexpr const char* description = "log_softmax computed as log(softmax(x))";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SM-009"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.log_softmax = [](const T* x, T* y, std::size_t n) {
      kernels::softmax(x, y, n);
      for (std::size_t i = 0; i < n; ++i) y[i] = log(y[i]);
    };
  }
};

const bool registered = register_mutant<NoMaxSubtraction>() && register_mutant<ShiftOnlyBeyond50>() && register_mutant<SumSkipsLast>() &&
                        register_mutant<FlushTiny>() && register_mutant<Negated>() &&
                        register_mutant<SumStartsAtOne>() && register_mutant<MaxClampedAtZero>() &&
                        register_mutant<NanToMinusInf>() && register_mutant<LogOfSoftmax>();
}  // namespace
}  // namespace attncheck::mutants
