// attncheck: Gappa (Debian's gappa, a prover of rounding-error bounds over input ranges) for the
// error of dot products and sums at row lengths d far beyond what bit-blasting reaches. The
// kernel templates of src/attncheck/kernels run at gappa_scalar<C>, which records every
// operation twice: as the rounded term the kernel computes (Gappa's float<p, e_min, ne> operator
// after every +, -, *, /, sqrt, in the kernel's order) and as the exact real term. The recorder
// prints both as a Gappa script with a goal |rounded - exact| <= B, so the math is not written
// twice: the script is whatever the kernel does.
//
// Gappa's float<p, d, ne> has no overflow (its exponent range is unbounded above): the script
// therefore also asks Gappa to prove every rounded intermediate within ±max_finite, which is
// exactly "no operation overflows in C" (a value rounds to at most max_finite in the unbounded
// model iff IEEE round-to-nearest gives that finite value, not infinity).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::bmc {

// The Gappa rounding operator of a format: float<p, d, ne> with p the precision (hidden bit
// included) and 2^d the smallest subnormal, e.g. binary16 = float<11,-24,ne> (Gappa 1.4 names
// only ieee_32/ieee_64/ieee_128/x86_80).
std::string gappa_rounding(const format_info& f);

// A real number exactly as a Gappa literal: integer mantissa and binary exponent ("3b-2" = 0.75).
std::string gappa_literal(double v);

// What a kernel run recorded: one definition per operation, the inputs with their ranges, and
// hints for divisions. Open one on a thread (RAII), then run a kernel at gappa_scalar<C>.
class gappa_recorder {
 public:
  explicit gappa_recorder(const format_info& f);
  ~gappa_recorder();
  gappa_recorder(const gappa_recorder&) = delete;
  gappa_recorder& operator=(const gappa_recorder&) = delete;
  static gappa_recorder& current();  // throws std::logic_error if none is open on this thread

  // A node: the name of its rounded term and of its exact term.
  struct node {
    std::string rounded, exact;
  };
  // An input of the format (a float, so rounded = exact) ranging over [lo, hi].
  node input(const std::string& name, double lo, double hi);
  node constant(double v);  // lit<T>(v): the value rounded to the format; exact: v itself
  node binary(char op, const node& a, const node& b);
  node square_root(const node& a);
  node negate(const node& a);
  // The value rounded once more to the format with fewer_bits fewer significand bits (same
  // subnormal grid, so still a value of the format): only mutants use it, to model a kernel
  // that stores a value in a narrower format; the exact term is unchanged.
  node narrowed(const node& a, int fewer_bits);

  // The script proving |out.rounded - S| <= bound and no overflow anywhere, under the input
  // ranges, where S is spec (a Gappa expression of the inputs' names: the mathematics the kernel
  // must compute) or, if spec is empty, the kernel's own exact term. claimed_bound is printed
  // exactly (round it up before, never down). relative: the goal is instead Gappa's relative
  // error out.rounded -/ S in [-bound, bound], i.e. out.rounded = S (1 + θ) with |θ| <= bound
  // (so |out.rounded - S| <= bound |S|, and out.rounded = 0 where S = 0).
  std::string script(const node& out, double claimed_bound, const std::string& spec = "", bool relative = false) const;
  std::size_t roundings() const { return rounded_names_.size(); }

 private:
  std::string fresh();
  const format_info& format_;
  std::vector<std::string> lines_, hints_, hypotheses_, rounded_names_;
  int next_ = 0;
  gappa_recorder* previous_;
};

// Comparisons of recorded values cannot be decided while recording (the kernels Gappa runs are
// straight-line arithmetic); branching on one throws, like the symbolic scalar's.
struct gappa_bool {
  operator bool() const {  // NOLINT: implicit, to satisfy the Scalar concept
    throw std::logic_error("a kernel compared values while recording a Gappa script (only +, -, *, /, sqrt are modelled)");
  }
};

template <class C>
class gappa_scalar {
 public:
  gappa_scalar() : n_(gappa_recorder::current().constant(0.0)) {}
  explicit gappa_scalar(gappa_recorder::node n) : n_(std::move(n)) {}
  const gappa_recorder::node& node() const { return n_; }

#define ATTNCHECK_GAPPA_BINARY(op)                                                   \
  friend gappa_scalar operator op(const gappa_scalar& a, const gappa_scalar& b) {    \
    return gappa_scalar(gappa_recorder::current().binary(#op[0], a.n_, b.n_));       \
  }
  ATTNCHECK_GAPPA_BINARY(+)
  ATTNCHECK_GAPPA_BINARY(-)
  ATTNCHECK_GAPPA_BINARY(*)
  ATTNCHECK_GAPPA_BINARY(/)
#undef ATTNCHECK_GAPPA_BINARY
  friend gappa_scalar operator-(const gappa_scalar& a) { return gappa_scalar(gappa_recorder::current().negate(a.n_)); }
  gappa_scalar& operator+=(const gappa_scalar& o) { return *this = *this + o; }
  friend gappa_bool operator<(const gappa_scalar&, const gappa_scalar&) { return {}; }
  friend gappa_bool operator>(const gappa_scalar&, const gappa_scalar&) { return {}; }

 private:
  gappa_recorder::node n_;
};

}  // namespace attncheck::bmc

namespace attncheck {

// exp and log have no Gappa model here (Gappa has no exp): a kernel that calls them cannot be
// recorded, and says so.
template <class C>
struct scalar_traits<bmc::gappa_scalar<C>> {
  using S = bmc::gappa_scalar<C>;
  static constexpr format_info format = scalar_traits<C>::format;
  static constexpr double exp_rel = scalar_traits<C>::exp_rel;
  static constexpr double log_rel = scalar_traits<C>::log_rel;
  static S exp(const S&) { throw std::logic_error("exp is not modelled in a Gappa script"); }
  static S log(const S&) { throw std::logic_error("log is not modelled in a Gappa script"); }
  static S sqrt(const S& x) { return S(bmc::gappa_recorder::current().square_root(x.node())); }
  static S from_double(double v) { return S(bmc::gappa_recorder::current().constant(v)); }
};

}  // namespace attncheck
