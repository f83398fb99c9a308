// attncheck: the generator coverage figure: the recorder (property::cover) counts every draw of a
// run and each region named, and gen::row_regions classifies rows as the reports name them.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include "attncheck/property/registry.hpp"
#include "attncheck/property/gen/regions.hpp"
#include "tests/run_rapidcheck_body.hpp"

namespace attncheck::gen {
namespace {

using testing::run_body;

TEST_CASE("coverage: the recorder counts every draw of the run, each region it names, and no shrink step") {
  int drawn = 0;
  const property::Outcome pass = run_body(
      [&] {
        property::cover("g", {{"even draw", drawn % 2 == 0}, {"never", false}});
        ++drawn;
      },
      200);
  REQUIRE(pass.verdict == property::Verdict::pass);
  REQUIRE(pass.coverage.size() == 1);
  CHECK(pass.coverage[0].generator == "g");
  CHECK(pass.coverage[0].draws == 200);
  CHECK(pass.coverage[0].regions == std::vector<std::string>{"even draw", "never"});
  CHECK(pass.coverage[0].counts == std::vector<std::uint64_t>{100, 0});

  // A failing run: the failing case is counted, the shrink steps after it are not.
  const property::Outcome fail = run_body(
      [&] {
        const int v = *rc::gen::inRange(0, 100);
        property::cover("g", {{"v >= 90", v >= 90}});
        RC_ASSERT(v < 90);
      },
      200);
  REQUIRE(fail.verdict == property::Verdict::fail);
  REQUIRE(fail.coverage.size() == 1);
  CHECK(fail.coverage[0].draws == static_cast<std::uint64_t>(fail.cases));
  CHECK(fail.coverage[0].counts == std::vector<std::uint64_t>{1});
}

TEST_CASE("coverage: row_regions classifies rows as the coverage figure names them") {
  const auto names = [](const std::vector<property::Region>& rs) {
    std::vector<std::string> out;
    for (const property::Region& r : rs)
      if (r.reached) out.emplace_back(r.name);
    return out;
  };
  using V = std::vector<float>;
  CHECK(names(row_regions(V{-50.f, -7.f, -7.f})) ==
        std::vector<std::string>{"length 2-16", "spread (30,1e3]", "max in [-104,-5] (needs max subtraction)", "tie at the max"});
  CHECK(names(row_regions(V{1e-40f})) == std::vector<std::string>{"length 1", "spread 0", "subnormal entry"});
  CHECK(names(row_regions(V{3e38f, -3e38f})) ==
        std::vector<std::string>{"length 2-16", "spread >1e3", "near overflow (max > max_finite/4)",
                                 "spans -max to +max (min < -max_finite/2, max > max_finite/4)"});
  CHECK(names(row_regions(V{3e38f, -1e38f})) ==
        std::vector<std::string>{"length 2-16", "spread >1e3", "near overflow (max > max_finite/4)"});
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(names(row_regions(V{-inf, 0.5f}, {.max_length = 101, .masked = true, .nan_or_inf = true})) ==
        std::vector<std::string>{"length 2-16", "spread 0", "masked (-inf) entry"});
  // A generator that cannot draw long rows does not name that region.
  for (const property::Region& r : row_regions(V{0.f}, {.max_length = 101})) CHECK(r.name != std::string_view("length 257-4096"));
}

}  // namespace
}  // namespace attncheck::gen
