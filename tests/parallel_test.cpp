// attncheck: the worker processes behind `gate -j N` (src/attncheck/property/parallel.hpp).
#include <cmath>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <limits>
#include <set>

#include <doctest/doctest.h>

#include "attncheck/property/parallel.hpp"

namespace attncheck::property {
namespace {

Outcome sample(std::size_t i) {
  Outcome o;
  o.test_id = "FALSIFY-X-" + std::to_string(i);
  o.dtype = i % 2 ? Dtype::f16 : Dtype::f64;
  o.verdict = i % 3 ? Verdict::pass : Verdict::fail;
  o.cases = static_cast<int>(i) * 7;
  o.seconds = 0.1 * static_cast<double>(i);
  o.seed = 0x5eed0000u + i;
  o.counterexample = std::string("x = [\0, 1]\n", 11);  // embedded NUL and newline survive
  o.worst_ratio = -0.0;
  o.median_ratio = std::numeric_limits<double>::quiet_NaN();
  o.observations = i;
  o.certified.dbl = 5, o.certified.dd = 1, o.certified.mpfr = 2, o.certified.mpfi = 3, o.certified.uncertified = 4;
  o.replay = "attncheck gate --test " + o.test_id;
  o.worst_case = "element " + std::to_string(i);
  o.counterexample_ratio = 1.0 + static_cast<double>(i);
  o.worst_failure_ratio = 1e4 * static_cast<double>(i + 1);
  o.worst_failure = "the worst failing case " + std::to_string(i);
  o.findings = {"smallest distance 2.8e-6", "at (12919, 325608)"};
  // Variable-length series, one of them empty, values that only survive by their bits.
  SampleSeries a{"error-vs-gap", "softmax", {"gap", "error", "allowance"}, {}, 1000 + i, i};
  for (std::size_t k = 0; k < 3 * (i + 1); ++k) a.points.push_back(k % 3 ? 0x1.fffffffffffffp-1 * static_cast<double>(k) : -0.0);
  o.samples = {a, SampleSeries{"tightness", "stage 1", {"ratio"}, {}, 0, 0}};
  // Coverage: a series with a region never reached (count 0) and one that names none.
  o.coverage = {CoverageSeries{"row", 200 + i, {"length 1", "spread >1e3"}, {17, 0}}, CoverageSeries{"masked row", 0, {}, {}}};
  return o;
}

bool same(const Outcome& a, const Outcome& b) { return encode_outcome(a) == encode_outcome(b); }

TEST_CASE("parallel: an outcome survives the wire bit for bit, and a truncated one is refused") {
  const Outcome o = sample(5);
  const std::string wire = encode_outcome(o);
  const auto back = decode_outcome(wire);
  REQUIRE(back);
  CHECK(same(*back, o));
  CHECK(std::signbit(back->worst_ratio));
  CHECK(std::isnan(back->median_ratio));
  CHECK(back->counterexample.size() == 11);
  CHECK(back->findings == o.findings);
  CHECK(back->counterexample_ratio == 6.0);
  CHECK(back->worst_failure_ratio == 6e4);
  CHECK(back->worst_failure == o.worst_failure);
  REQUIRE(back->samples.size() == 2);
  CHECK(back->samples[0].points == o.samples[0].points);
  CHECK(std::signbit(back->samples[0].points[0]));
  CHECK(back->samples[0].columns == o.samples[0].columns);
  CHECK(back->samples[1].subject == "stage 1");
  CHECK(back->samples[0].offered == 1005);
  REQUIRE(back->coverage.size() == 2);
  CHECK(back->coverage[0].regions == o.coverage[0].regions);
  CHECK(back->coverage[0].counts == o.coverage[0].counts);
  CHECK(back->coverage[0].draws == 205);
  CHECK(back->coverage[1].generator == "masked row");
  CHECK_FALSE(decode_outcome(wire.substr(0, wire.size() - 1)));
  CHECK_FALSE(decode_outcome(wire + "x"));
}

TEST_CASE("parallel: N workers return every outcome in index order, the same as one process") {
  const auto task = [](std::size_t i) { return sample(i); };
  const auto err = [](std::size_t, const std::string& why) {
    Outcome o;
    o.message = why;
    return o;
  };
  std::set<std::size_t> seen, started;
  const auto serial = run_parallel(23, 1, task, {nullptr, nullptr, nullptr, err});
  ParallelHooks hooks;
  hooks.on_start = [&](std::size_t i) { CHECK(started.insert(i).second); };
  hooks.on_done = [&](std::size_t i, const Outcome&) { CHECK(seen.insert(i).second); };
  hooks.error_outcome = err;
  const auto forked = run_parallel(23, 4, task, hooks);
  REQUIRE(forked.size() == 23);
  CHECK(seen.size() == 23);
  CHECK(started.size() == 23);
  for (std::size_t i = 0; i < 23; ++i) {
    REQUIRE(serial[i]);
    REQUIRE(forked[i]);
    CHECK(same(*serial[i], *forked[i]));
  }
}

TEST_CASE("parallel: once stop() says so no further check starts, and the running ones finish") {
  std::size_t done = 0;
  ParallelHooks hooks;
  hooks.on_done = [&](std::size_t, const Outcome&) { ++done; };
  hooks.stop = [&] { return done >= 5; };
  for (int jobs : {1, 3}) {
    done = 0;
    const auto out = run_parallel(40, jobs, [](std::size_t i) { return sample(i); }, hooks);
    std::size_t ran = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i]) {
        ++ran;
        CHECK(same(*out[i], sample(i)));
      }
    CHECK(ran >= 5);
    CHECK(ran <= 5 + static_cast<std::size_t>(jobs));  // at most the checks in flight at the stop
    CHECK(ran == done);
  }
}

TEST_CASE("parallel: a worker that crashes turns its check into an ERROR and the rest still run") {
  const auto task = [](std::size_t i) {
    // A property that brings its process down (SIGKILL: doctest's own crash handlers cannot
    // catch it and print a spurious failure from the worker).
    if (i == 3) ::kill(::getpid(), SIGKILL);
    return sample(i);
  };
  const auto err = [](std::size_t i, const std::string& why) {
    Outcome o;
    o.test_id = "crashed-" + std::to_string(i);
    o.verdict = Verdict::error;
    o.message = why;
    return o;
  };
  ParallelHooks hooks;
  hooks.error_outcome = err;
  const auto out = run_parallel(8, 2, task, hooks);
  REQUIRE(out.size() == 8);
  for (const auto& o : out) REQUIRE(o);
  CHECK(out[3]->verdict == Verdict::error);
  CHECK(out[3]->test_id == "crashed-3");
  CHECK(out[3]->message.find("signal 9") != std::string::npos);
  for (std::size_t i = 0; i < 8; ++i)
    if (i != 3) CHECK(same(*out[i], sample(i)));
}

}  // namespace
}  // namespace attncheck::property
