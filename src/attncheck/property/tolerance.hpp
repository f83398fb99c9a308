// attncheck: the tolerance mode of accuracy comparisons: what "close enough to the exact value"
// means when a kernel's output element is judged against the oracle.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attncheck::property {

// derived      |ŷ - y| <= the a-priori rounding-error bound of the operation (bounds/*.hpp) —
//              the default, and the only mode in which every reference kernel must pass;
// ulp:N        |ŷ - y| <= N ulp_T(y): the ULP error against the exact value (LLVM libc's
//              conventions, oracle/ulp.hpp) at most N;
// abs:A,rel:R  |ŷ - y| <= A + R |y| (either part may be given alone);
// baseline:K   max_i |ŷ_i - y_i| <= K max_i |b_i - y_i| over one output, where b is the plain
//              same-precision reference computation (attncheck's reference kernels at T) on
//              the same input: FlashAttention's acceptance rule.
// Only element-wise accuracy comparisons against the oracle follow the mode; structural
// obligations (normalisation, monotonicity, exact identities) keep their derived allowances.
struct Tolerance {
  enum class Mode { derived, ulp, abs_rel, baseline };
  Mode mode = Mode::derived;
  double ulps = 0;      // ulp:N
  double abs = 0, rel = 0;  // abs:A,rel:R
  double factor = 0;    // baseline:K

  std::string text() const;  // the spelling parse() accepts, e.g. "ulp:4"
};

// Parses a mode; on failure returns nullopt and says why in error.
std::optional<Tolerance> parse_tolerance(std::string_view text, std::string& error);

// The mode of the check running on this thread (the runner installs it; derived otherwise).
const Tolerance& current_tolerance();

class tolerance_scope {
 public:
  explicit tolerance_scope(const Tolerance& t);
  ~tolerance_scope();
  tolerance_scope(const tolerance_scope&) = delete;
  tolerance_scope& operator=(const tolerance_scope&) = delete;

 private:
  const Tolerance* outer_;
};

}  // namespace attncheck::property
