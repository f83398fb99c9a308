// Broken kernel templates, one per harness family, to show that each harness finds a
// counterexample that is real (it fails on the concrete broken kernel too). They are templates
// over the scalar, like the reference kernels, so they run symbolically and concretely. Those the
// gate's mutants also use are written once, in attncheck/kernels/broken.hpp; the ones left here
// break a step slot the gate's KernelSet does not have (max_step, shifted_exp_step,
// normalise_row), or a kernel in a way no gate mutant does (entropy_normalised, softmax_drops_last).
#include "attncheck/kernels/broken.hpp"
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

struct SoftmaxNoMax {
  static constexpr const char* name = "softmax_no_max_subtraction";
  static constexpr const char* description = "softmax = exp(x_i) / sum exp(x_j) (overflows)";
  // (Not BMC-ASCL-003: its NaN outputs fail the entropy term's p > 0 guard and contribute 0.)
  static std::vector<std::string> caught_by() { return {"KANI-SM-001", "KANI-SM-002"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.softmax = kernels::broken::softmax_no_max_subtraction<T>; }
};

// The running "max" keeps the smaller value.
template <class T> T min_step(T m, T xi) { return select(xi < m, xi, m); }
template <class T> T row_min(const T* x, std::size_t n) {
  T m = x[0];
  for (std::size_t i = 1; i < n; ++i) m = min_step(m, x[i]);
  return m;
}
struct RowMaxIsMin {
  static constexpr const char* name = "row_max_is_min";
  static constexpr const char* description = "max_step keeps the smaller value";
  static std::vector<std::string> caught_by() { return {"KANI-ASCL-002", "LEM-ASCL-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) {
    k.max_step = min_step<T>;
    k.row_max = row_min<T>;
  }
};

// The exp step forgets the shift.
template <class T> T exp_unshifted(T xi, T) { return exp(xi); }
struct ExpUnshifted {
  static constexpr const char* name = "exp_step_unshifted";
  static constexpr const char* description = "shifted_exp_step computes exp(x), not exp(x - m)";
  static std::vector<std::string> caught_by() { return {"LEM-SM-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.shifted_exp_step = exp_unshifted<T>; }
};

// The denominator misses the last exp (an off-by-one loop bound in the sum), so the outputs sum to
// more than 1 whenever the last exp is not negligible.
template <class T> void normalise_sum_skips_last(T* e, std::size_t n) {
  const T s = kernels::row_sum(e, n > 1 ? n - 1 : n);
  for (std::size_t i = 0; i < n; ++i) e[i] = e[i] / s;
}
struct NormaliseSkipsLast {
  static constexpr const char* name = "normalise_sum_skips_last";
  static constexpr const char* description = "normalise_row divides by the sum of all exps but the last";
  static std::vector<std::string> caught_by() { return {"KANI-SM-004"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.normalise_row = normalise_sum_skips_last<T>; }
};

struct ScoresUnscaled {
  static constexpr const char* name = "scores_unscaled";
  static constexpr const char* description = "scores = q.k without the 1/sqrt(d) scaling";
  static std::vector<std::string> caught_by() { return {"KANI-ASCL-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.scores = kernels::broken::scores_unscaled<T>; }
};

struct EntropyUnguarded {
  static constexpr const char* name = "entropy_log_zero";
  static constexpr const char* description = "entropy takes 0 * log 0 = NaN (no p = 0 guard)";
  // (BMC-ASCL-003 needs an underflowing softmax entry to see it: the solver times out on that
  // at d = 2, so the lemma is the harness that shows the guard matters.)
  static std::vector<std::string> caught_by() { return {"LEM-ASCL-003"}; }
  template <class T> static void apply(kernel_slots<T>& k) {
    k.entropy_term = kernels::broken::entropy_term_unguarded<T>;
    k.entropy = kernels::broken::entropy_unguarded<T>;
  }
};

struct EntropyFlipped {
  static constexpr const char* name = "entropy_sign_flipped";
  static constexpr const char* description = "entropy returns sum p log p (sign error)";
  static std::vector<std::string> caught_by() { return {"BMC-ASCL-003", "LEM-ASCL-003"}; }
  template <class T> static void apply(kernel_slots<T>& k) {
    k.entropy_term = kernels::broken::entropy_term_sign_flipped<T>;
    k.entropy = kernels::broken::entropy_sign_flipped<T>;
  }
};

// The normalised entropy H / ln d (in [0, 1]) returned where the entropy in nats is meant: at
// d = 1 it is 0/0 = NaN; for d >= 2 it exceeds ln d on near-uniform rows (a violation the
// solvers do not reach within 60 s at d = 2, see bench/bmc_scaling.md).
template <class T> T entropy_normalised(const T* p, std::size_t n) {
  return kernels::entropy(p, n) / lit<T>(std::log(static_cast<double>(n)));
}
struct EntropyNormalised {
  static constexpr const char* name = "entropy_normalised";
  static constexpr const char* description = "entropy returns H / ln d (the normalised entropy; NaN at d = 1)";
  static std::vector<std::string> caught_by() { return {"BMC-ASCL-004"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.entropy = entropy_normalised<T>; }
};

struct RmsnormNoEps {
  static constexpr const char* name = "rmsnorm_no_eps";
  static constexpr const char* description = "RMSNorm divides by sqrt(mean(x^2)) (eps dropped)";
  static std::vector<std::string> caught_by() { return {"KANI-QKN-001", "KANI-QKN-002", "KANI-ASCL-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.rmsnorm = kernels::broken::rmsnorm_without_eps<T>; }
};

struct JvpUncentred {
  static constexpr const char* name = "jvp_uncentred";
  static constexpr const char* description = "softmax JVP without the centring: dy = p * dx";
  static std::vector<std::string> caught_by() { return {"BMC-SLIP-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.softmax_jvp = kernels::broken::softmax_jvp_missing_mean<T>; }
};

// Off by one: the last entry is treated as padding (the loops stop at n - 1) and gets 0. Sums,
// ranges and finiteness still hold; only the dependence on the position shows it.
template <class T>
void softmax_drops_last(const T* x, T* y, std::size_t n) {
  const std::size_t k = n > 1 ? n - 1 : n;
  kernels::softmax(x, y, k);
  for (std::size_t i = k; i < n; ++i) y[i] = lit<T>(0);
}
struct SoftmaxDropsLast {
  static constexpr const char* name = "softmax_drops_last";
  static constexpr const char* description = "softmax over x_0..x_{n-2} only, y_{n-1} = 0 (an off-by-one loop bound)";
  static std::vector<std::string> caught_by() { return {"KANI-AEQ-001"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.softmax = softmax_drops_last<T>; }
};

struct AttentionAlwaysCausal {
  static constexpr const char* name = "attention_always_causal";
  static constexpr const char* description = "attention applies the causal mask even when not asked to";
  static std::vector<std::string> caught_by() { return {"KANI-AEQ-002"}; }
  template <class T> static void apply(kernel_slots<T>& k) { k.attention = kernels::broken::attention_always_causal<T>; }
};

const bool registered = register_mutant(make_mutant<SoftmaxNoMax>()) && register_mutant(make_mutant<RowMaxIsMin>()) &&
                        register_mutant(make_mutant<ExpUnshifted>()) &&
                        register_mutant(make_mutant<NormaliseSkipsLast>()) &&
                        register_mutant(make_mutant<ScoresUnscaled>()) &&
                        register_mutant(make_mutant<EntropyUnguarded>()) && register_mutant(make_mutant<EntropyFlipped>()) &&
                        register_mutant(make_mutant<EntropyNormalised>()) &&
                        register_mutant(make_mutant<RmsnormNoEps>()) && register_mutant(make_mutant<JvpUncentred>()) &&
                        register_mutant(make_mutant<SoftmaxDropsLast>()) &&
                        register_mutant(make_mutant<AttentionAlwaysCausal>());

}  // namespace
}  // namespace attncheck::harnesses
