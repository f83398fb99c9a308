// attncheck: a wrong log-softmax that the log-sum-exp-v1 tests must catch.
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {

// log_softmax = z − m − log Σe^{z−m} written as z − log Σe^{z−m}: the max is subtracted inside the
// sum and never added back, so the derived lse is lse(z) − max z, which is not convex.
struct LogSoftmaxForgetsMax {
  static constexpr const char* name = "log_softmax_forgets_max";
  static constexpr const char* description = "log_softmax(z) = z − log Σ exp(z − max z): the max is not subtracted from z";
  static std::vector<std::string> caught_by() { return {"FALSIFY-LSE-001"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.log_softmax = [](const T* x, T* y, std::size_t n) {
      kernels::log_softmax(x, y, n);
      const T m = kernels::row_max(x, n);
      for (std::size_t i = 0; i < n; ++i) y[i] = y[i] + m;
    };
  }
};

const bool registered = property::register_mutant<LogSoftmaxForgetsMax>();

}  // namespace
}  // namespace attncheck::mutants
