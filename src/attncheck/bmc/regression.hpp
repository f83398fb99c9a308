// attncheck: BMC counterexamples kept as regression cases. A case file holds the concrete input
// bits of a counterexample with the harness, format and bound it came from (and the mutant, when
// it was found on a broken kernel); replaying it runs the concrete kernel on those bits and
// re-checks the harness's assertions, without a solver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attncheck/bmc/engine.hpp"

namespace attncheck::bmc {

struct regression_case {
  std::string harness;
  Dtype format = Dtype::f32;
  std::size_t bound = 1;
  std::string mutant;                  // empty: found on the reference kernel
  std::vector<std::uint64_t> bits;     // the inputs, in any() order
  std::vector<std::string> failed;     // the assertions it failed when found (for the reader)
  std::string source;                  // the file it was read from
};

// The case of a counterexample (a run_result with verdict counterexample).
regression_case case_of(const run_result& r, const mutant_def* mutant);
// Text of a case file (line-oriented "key: value", '#' comments).
std::string render_case(const regression_case& c);
// File name of a case: <harness>-<format>-d<bound>[-<mutant>]-<hash of the bits>.case
std::string case_file_name(const regression_case& c);

// Reads one case; on a malformed file returns nullopt and says why in *error.
std::optional<regression_case> parse_case(const std::string& text, std::string* error);
// Every *.case file of a directory, sorted by name; a malformed file is an error, not skipped.
struct corpus_result {
  std::vector<regression_case> cases;
  std::vector<std::string> errors;
};
corpus_result read_corpus(const std::string& dir);

// Replays a case on the reference kernel and, if it names one, on its mutant.
struct case_replay {
  bool known_harness = false, known_mutant = true, has_mutant = false;
  replay_result on_reference, on_mutant;
  // The regression passes when the reference kernel passes and the mutant (if any) still fails:
  // a case that no longer shows its bug on the mutant has gone stale.
  bool passed() const;
};
case_replay replay_case(const regression_case& c);

}  // namespace attncheck::bmc
