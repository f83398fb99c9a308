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
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::property {

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

// The same machinery for checks whose result is not an Outcome (an audit row carries call counts
// and an applicability verdict besides): task(i) returns its result as bytes, which travel from
// the worker unchanged; valid(bytes) says whether an answer is well formed (a worker that sends
// anything else is treated as dead). run_parallel is this with encode_outcome/decode_outcome.
struct ParallelBytesHooks {
  std::function<void(std::size_t)> on_start;
  std::function<void(std::size_t, const std::string&)> on_done;
  std::function<bool()> stop;
  std::function<std::string(std::size_t, const std::string&)> error_result;  // as error_outcome
  std::function<bool(std::string_view)> valid;
  std::function<void()> worker_exit;  // called in each worker before it exits (e.g. stop its own child processes)
};
std::vector<std::optional<std::string>> run_parallel_bytes(std::size_t n, int jobs, const std::function<std::string(std::size_t)>& task,
                                                           const ParallelBytesHooks& hooks);

// Little-endian building blocks of the wire forms (doubles by their bits).
namespace wire {
void put_u64(std::string& s, std::uint64_t v);
void put_double(std::string& s, double d);
void put_string(std::string& s, const std::string& t);
// Reads what the put_* wrote; ok turns false (and stays false) on a short or malformed input.
struct Reader {
  std::string_view b;
  bool ok = true;
  std::uint64_t u64();
  double f64();
  std::string str();
};
}  // namespace wire

// The wire form of an Outcome between a worker and the parent: every field, doubles by their
// bits, so the parent's copy is identical to the worker's. A field added to Outcome must be
// added here too (tests/parallel_test.cpp round-trips a fully populated one).
std::string encode_outcome(const Outcome& o);
std::optional<Outcome> decode_outcome(std::string_view bytes);

}  // namespace attncheck::property
