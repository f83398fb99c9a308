// attncheck: runs Debian's `gappa` (1.4) on a script in a child process with a wall-clock limit.
// Gappa exits 0 when every goal is proved; otherwise it prints, per goal it could not prove,
// the best enclosure it found ("BND(|s - S|), best: [lo, hi]"), which becomes the reason.
#pragma once

#include <optional>
#include <string>

namespace attncheck::bmc {

// The gappa binary on PATH (or $ATTNCHECK_GAPPA), and its version ("gappa 1.4.1"); nullopt if absent.
std::optional<std::string> gappa_binary();
std::string gappa_version();

struct gappa_answer {
  enum class status { proved, not_proved, timeout, error } result = status::error;
  std::string reason;  // not proved: gappa's unproved goals with their best enclosures; else why
  double seconds = 0;
};

// Blocks until gappa answers or timeout_seconds pass (then it is killed).
gappa_answer run_gappa(const std::string& script, double timeout_seconds);

}  // namespace attncheck::bmc
