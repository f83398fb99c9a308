// attncheck CLI: is a proved harness row non-trivial at its bound? A harness result counts as
// coverage only at a bound where its assertion can fail: shown by a mutant the harness catches
// (its registration's caught_by, which `coverage --registry` keeps equal to the YAML's catches:)
// that the harness refutes at that very bound through the asserted bound itself, with every value
// it compares with a derived bound (h.widen) finite. Only those values: a value the assertion
// compares in the format itself (y_i in [0, 1]) may be NaN, and an intermediate may overflow
// (KANI-SM-002's f16 d = 2 witness goes through inf/inf = NaN). A Gappa row's "witness" is weaker:
// gappa cannot prove the bound for the mutant; no input breaking the bound is exhibited.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attncheck/bmc/engine.hpp"
#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/regression.hpp"

namespace attncheck::cli {

struct Witness {
  bool nontrivial = false;
  std::string text;  // "non-trivial at d=2: mutant ... refutes '...' with finite values" or "trivial at d = 1: ..."
  double seconds = 0;
};

// Witnesses found by earlier searches (`attncheck bmc --witnesses DIR`: DIR/*.case, the regression
// case format, one per row, tests/bmc/witnesses/ for CI): a recorded witness that still fails its
// mutant at that format and bound, with every value compared with a derived bound finite, is a
// witness (a concrete input is all non-triviality asks for): the row needs no solver query. Only
// when no recorded witness replays so is the row searched again, and the text says the record went
// stale. With record, each witness a search finds is written to dir.
struct WitnessRecord {
  std::vector<bmc::regression_case> cases;
  std::string dir;
  bool record = false;
};

// SMT harness h at format f and bound: a recorded witness replayed (record, when given), else each mutant it catches, in registration order, asked for a
// counterexample whose compared values are finite (run_options::finite_witness), until one is
// found and replayed on the concrete mutant with finite values. A row enumerated on the concrete
// kernel (enumerate: the 8-bit formats) enumerates each mutant instead, up to the first input that
// fails it with finite compared values.
Witness smt_witness(const bmc::harness_def& h, Dtype f, std::size_t bound, bool enumerate,
                    bmc::solver_choice solver, double timeout_seconds, const WitnessRecord* record = nullptr);

// Gappa harness g at format f and row length d: a Gappa mutant it catches that gappa cannot prove
// the asserted bound for (its enclosure of the error exceeds it), not one caught by the
// specification check (a kernel computing another expression) or by a timeout.
Witness gappa_witness(const bmc::gappa_harness_def& g, Dtype f, std::size_t d, double timeout_seconds);

}  // namespace attncheck::cli
