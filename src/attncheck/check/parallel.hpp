// attncheck: running independent checks in parallel worker processes (`gate -j N`).
//
// Why processes and not threads: RapidCheck keeps its implicit parameters (the current generator
// context) in plain static stacks (rapidcheck/detail/ImplicitParam.h), so two properties must
// never run at once in one process. A forked worker has its own copy of everything. Each check
// derives its RapidCheck seed from (run seed, test, dtype) alone (registry.hpp: derive_seed), so
// which worker runs it, and in which order, cannot change its outcome: `-j N` reports exactly
// what `-j 1` reports.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/check/registry.hpp"

namespace attncheck::check {

// The number of workers `-j` means by default: the cores this process may run on (at least 1).
int default_jobs();

// What the parent learns while checks run, and how it stops handing out work.
struct ParallelHooks {
  std::function<void(std::size_t)> on_start;                   // check i was handed to a worker
  std::function<void(std::size_t, const Outcome&)> on_done;    // check i finished (e.g. progress)
  std::function<bool()> stop;                                  // true: start no further check
  // The outcome of check i when its worker died while running it (why says how); it should
  // carry the check's identity.
  std::function<Outcome(std::size_t, const std::string&)> error_outcome;
};

// Runs task(i) for every i in [0, n) and returns the outcomes in index order; an entry stays
// empty only for a check that never started because hooks.stop() said so (an interrupted run:
// checks already running still finish). With jobs <= 1 (or n <= 1) everything runs in this
// process. Otherwise min(jobs, n) forked workers take the next index from the parent whenever
// they finish one, so long checks do not hold up a fixed share. A worker that dies (a crash
// inside a property, a kill) turns the check it was running into hooks.error_outcome and its
// remaining work goes to the other workers. Workers ignore SIGINT/SIGTERM (the parent decides
// when to stop) and are killed if the parent dies.
std::vector<std::optional<Outcome>> run_parallel(std::size_t n, int jobs, const std::function<Outcome(std::size_t)>& task,
                                                 const ParallelHooks& hooks);

// The wire form of an Outcome between a worker and the parent: every field, doubles by their
// bits, so the parent's copy is identical to the worker's. A field added to Outcome must be
// added here too (tests/parallel_test.cpp round-trips a fully populated one).
std::string encode_outcome(const Outcome& o);
std::optional<Outcome> decode_outcome(std::string_view bytes);

}  // namespace attncheck::check
