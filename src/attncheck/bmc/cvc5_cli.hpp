// attncheck: cvc5 as a second solver, through its command-line interface: the formula Z3 built
// (exported as SMT-LIB2 by z3::solver::to_smt2) is run by the `cvc5` binary (Debian's cvc5 1.0.3)
// in a child process with a wall-clock limit, and the values of the declared constants are read
// back from (get-value ...). Z3 prints standard QF_FP; cvc5 needs (set-logic QF_FP) and, for
// formats other than binary32/binary64, its --fp-exp solver (it refuses 5/11 and 8/8 otherwise).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attncheck/bmc/external_tool.hpp"

namespace attncheck::bmc {

// The cvc5 binary on PATH (or $ATTNCHECK_CVC5), and its version ("cvc5 1.0.3"); nullopt if absent.
std::optional<std::string> cvc5_binary();
std::string cvc5_version();

// The SMT-LIB2 script for cvc5: Z3's to_smt2() text with the logic set, models on, and a
// (get-value ...) of the given constant names (as Z3 prints them, |x[0]| quoted) after check-sat.
std::string cvc5_script(const std::string& z3_smt2, const std::vector<std::string>& names);

struct cvc5_answer {
  enum class status { sat, unsat, unknown } result = status::unknown;
  std::string reason;                   // unknown: "timeout after S s", or cvc5's error text
  std::vector<std::string> value_text;  // sat: the value of each requested name, in order
};

// One cvc5 run in a child process; start() returns at once, so Z3 can run beside it.
class cvc5_run {
 public:
  cvc5_run() = default;
  ~cvc5_run();  // kills the child if it still runs
  cvc5_run(const cvc5_run&) = delete;
  cvc5_run& operator=(const cvc5_run&) = delete;

  // fp_exp: pass --fp-exp (needed for f16/bf16 sorts). Throws std::runtime_error if it cannot start.
  void start(const std::string& script, std::size_t n_names, bool fp_exp, double timeout_seconds);
  bool finished();          // non-blocking
  cvc5_answer wait();       // blocks until the child exits, then parses its output
  void kill();              // stops the child (portfolio: the other solver answered)

 private:
  std::unique_ptr<tool_process> proc_;  // the child, its script and its output
  std::size_t n_names_ = 0;
  double timeout_ = 0;
};

// The IEEE bits of an SMT-LIB2 floating-point value as cvc5 prints it: (fp #b.. #b.. #b..),
// (_ +zero e s), (_ -zero e s), (_ +oo e s), (_ -oo e s), (_ NaN e s); nullopt if unreadable.
std::optional<std::uint64_t> parse_fp_bits(const std::string& text, unsigned ebits, unsigned sbits);

}  // namespace attncheck::bmc
