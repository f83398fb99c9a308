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
// One exception, which keeps consistency where it costs nothing: an application to the very same
// term (Z3 hash-conses terms, so the same id) reuses the earlier result. Sound, since exp and log
// are functions; it lets a harness that recomputes a value from the same operands (KANI-AEQ-002's
// permuted query rows) compare a term with itself.
z3::expr session::apply(uf_application::fn f, unsigned ebits, unsigned sbits, const z3::expr& arg) {
  for (const uf_application& a : apps_)
    if (a.which == f && a.ebits == ebits && a.sbits == sbits && a.arg.id() == arg.id()) return a.result;
  const std::string name =
      fmt::format("{}{}_e{}s{}", f == uf_application::fn::exp ? "exp" : "log", apps_.size(), ebits, sbits);
  z3::expr r = ctx_.constant(name.c_str(), sort(ebits, sbits));
  apps_.push_back({f, ebits, sbits, arg, r});
  return r;
}

}  // namespace attncheck::bmc
