// attncheck: the per-case sample series of a check (registry.hpp: sample, SampleSeries).
#include <cmath>
#include <limits>

#include <doctest/doctest.h>

#include "attncheck/property/registry.hpp"

namespace attncheck::property {
namespace {

// Runs a passing body under RapidCheck with the given seed: each case offers per_case points
// (index, index²) to series "s" and one point to series "t", every third of them infinite.
Outcome run_offering(std::uint64_t seed, int per_case) {
  Outcome out;
  out.seed = seed;
  RunParams params;
  params.cases = 20;
  double next = 0;
  int t = 0;
  detail::run_rapidcheck([&] {
    for (int i = 0; i < per_case; ++i) {
      sample("s", "kernel", {"index", "square"}, {next, next * next});
      next += 1;
    }
    sample("t", "stage 1", {"ratio"}, {++t % 3 == 0 ? std::numeric_limits<double>::infinity() : 0.5});
  }, params, out);
  return out;
}

TEST_CASE("samples: a series keeps at most max_sample_points, in the order offered, the same for the same seed") {
  const Outcome a = run_offering(0x5eed, 50);
  REQUIRE(a.verdict == Verdict::pass);
  REQUIRE(a.samples.size() == 2);
  const SampleSeries& s = a.samples[0];
  CHECK(s.name == "s");
  CHECK(s.subject == "kernel");
  CHECK(s.columns == std::vector<std::string>{"index", "square"});
  CHECK(s.offered == 20 * 50);
  CHECK(s.nonfinite == 0);
  REQUIRE(s.points.size() == 2 * max_sample_points);
  for (std::size_t k = 0; k < max_sample_points; ++k) {
    CHECK(s.points[2 * k + 1] == s.points[2 * k] * s.points[2 * k]);  // points stay whole
    if (k) CHECK(s.points[2 * k] > s.points[2 * k - 2]);              // in the order offered
  }
  // Drawn from the whole run, not its first cases: the kept indices reach into the last fifth.
  CHECK(s.points[2 * (max_sample_points - 1)] >= 0.8 * 20 * 50);
  // The same seed keeps the same points; another seed keeps others.
  CHECK(run_offering(0x5eed, 50).samples[0].points == s.points);
  CHECK(run_offering(0x5eee, 50).samples[0].points != s.points);
}

TEST_CASE("samples: a short series is kept whole, and infinite points are counted, never kept") {
  const Outcome a = run_offering(1, 3);
  REQUIRE(a.samples.size() == 2);
  CHECK(a.samples[0].offered == 60);
  CHECK(a.samples[0].points.size() == 2 * 60);
  const SampleSeries& t = a.samples[1];
  CHECK(t.offered == 20);
  CHECK(t.nonfinite == 6);
  CHECK(t.points == std::vector<double>(14, 0.5));
}

TEST_CASE("samples: outside a check, sample() records nothing and does not fail") {
  CHECK_NOTHROW(sample("s", "x", {"a"}, {1.0}));
}

}  // namespace
}  // namespace attncheck::property
