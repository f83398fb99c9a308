// attncheck: meta-tests of the falsification suite itself: every test can fail.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "attncheck/property/registry.hpp"
#include <doctest/doctest.h>

namespace attncheck::falsify {

// Each FALSIFY test case (falsify_test) also runs the mutants that name it and requires them to
// fail; these cases make sure no property is left without a mutant and no mutant names a test
// that does not exist (which would silently skip it).
TEST_CASE("META: every falsification property is shown to catch at least one kept mutant") {
  REQUIRE(!property::properties().empty());
  for (const auto& p : property::properties()) {
    const bool attacked = std::any_of(property::mutants().begin(), property::mutants().end(), [&](const auto& m) {
      return std::find(m.caught_by.begin(), m.caught_by.end(), p.id) != m.caught_by.end();
    });
    CHECK_MESSAGE(attacked, p.id << " has no mutant in falsify/mutants/: nothing shows it can fail");
  }
}

TEST_CASE("META: every mutant names only registered tests, and at least one") {
  REQUIRE(!property::mutants().empty());
  for (const auto& m : property::mutants()) {
    CHECK_MESSAGE(!m.caught_by.empty(), m.name << " names no test that catches it");
    for (const auto& id : m.caught_by) CHECK_MESSAGE(property::find_property(id) != nullptr, m.name << " names unknown test " << id);
  }
}

TEST_CASE("META: the reference kernel set is not a mutant, and unknown mutants are refused") {
  CHECK(property::kernels_for<float>("").name == "reference");
  CHECK_THROWS_AS(property::kernels_for<float>("no_such_mutant"), std::invalid_argument);
}

}  // namespace attncheck::falsify
