// Harnesses of qk-norm-v1 (QKN-BND-001 finite output, QKN-INV-004 RMSNorm(0) = 0) on the
// reference RMSNorm at the symbolic scalar. No stubs: sqrt is the SMT theory's correctly rounded
// IEEE square root, as glibc's. Formats f16, bf16, f32, f64. Bound: the vector length d.
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

/// KANI-QKN-001: for finite x, gains |w_i| <= 1 and a finite eps > 0, every output is finite.
struct bmc_qkn_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    const std::vector<T> x = h.any_vector("x", d), w = h.any_vector("w", d);
    const T eps = h.any("eps");
    for (std::size_t i = 0; i < d; ++i) h.assume(is_finite(x[i]) && abs_of(w[i]) <= lit<T>(1));
    h.assume(eps > lit<T>(0) && is_finite(eps));
    std::vector<T> y(d);
    h.k().rmsnorm(x.data(), w.data(), d, eps, y.data());
    for (const T& yi : y) h.check(is_finite(yi), "RMSNorm(x)_i finite");
  }
};

/// KANI-QKN-002: RMSNorm(0) = 0 for every finite gain and finite eps > 0.
struct bmc_qkn_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    const std::vector<T> x = h.any_vector("x", d), w = h.any_vector("w", d);
    const T eps = h.any("eps");
    for (std::size_t i = 0; i < d; ++i) h.assume(x[i] == lit<T>(0) && is_finite(w[i]));
    h.assume(eps > lit<T>(0) && is_finite(eps));
    std::vector<T> y(d);
    h.k().rmsnorm(x.data(), w.data(), d, eps, y.data());
    for (const T& yi : y) h.check(yi == lit<T>(0), "RMSNorm(0)_i = 0");
  }
};

const bool registered =
    register_harness({"KANI-QKN-001", "qk-norm-v1", "RMSNorm output finite for finite x, |w| <= 1, eps > 0", false,
                      false, 1, {}, "", make_body<bmc_qkn_001>()}) &&
    register_harness({"KANI-QKN-002", "qk-norm-v1", "RMSNorm(0) = 0 for eps > 0", false, false, 1, {}, "",
                      make_body<bmc_qkn_002>()});

}  // namespace
}  // namespace attncheck::harnesses
