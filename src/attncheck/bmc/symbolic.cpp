// attncheck: the Z3 session behind the symbolic scalar (thread-local, one per query).
#include "attncheck/bmc/symbolic.hpp"

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {
thread_local session* current_session = nullptr;
}

session::session() : previous_(current_session) { current_session = this; }
session::~session() { current_session = previous_; }

session& session::current() {
  if (!current_session)
    throw std::logic_error("a symbolic scalar was used outside a bmc::session");
  return *current_session;
}

// Each application gets a fresh constant for its result rather than a term f(arg) of an
// uninterpreted function: the formula stays pure QF_FP (bit-blasted directly; Z3 4.8.12 has no
// QF_UFFP solver). This only drops functional consistency (equal arguments, equal results), which
// makes the model an over-approximation - sound for proofs - and the axioms' monotonicity
// restores it anyway for arguments that compare equal. Counterexamples are replayed concretely.
z3::expr session::apply(uf_application::fn f, unsigned ebits, unsigned sbits, const z3::expr& arg) {
  const std::string name =
      fmt::format("{}{}_e{}s{}", f == uf_application::fn::exp ? "exp" : "log", apps_.size(), ebits, sbits);
  z3::expr r = ctx_.constant(name.c_str(), sort(ebits, sbits));
  apps_.push_back({f, ebits, sbits, arg, r});
  return r;
}

}  // namespace attncheck::bmc
