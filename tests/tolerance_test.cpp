// attncheck: the accuracy tolerance modes (property/tolerance.hpp): parsing, spelling, scoping.
#include <doctest/doctest.h>

#include <string>

#include "attncheck/property/tolerance.hpp"

using attncheck::property::parse_tolerance;
using attncheck::property::Tolerance;

TEST_CASE("Tolerance: every mode parses and spells itself back") {
  std::string why;
  for (const char* text : {"derived", "ulp:4", "ulp:0.5", "abs:1e-06,rel:1e-05", "baseline:2"}) {
    const auto t = parse_tolerance(text, why);
    REQUIRE_MESSAGE(t.has_value(), text << ": " << why);
    const auto again = parse_tolerance(t->text(), why);
    REQUIRE(again.has_value());
    CHECK(again->text() == t->text());
  }
  const auto ar = parse_tolerance("rel:0.25", why);
  REQUIRE(ar.has_value());
  CHECK(ar->mode == Tolerance::Mode::abs_rel);
  CHECK(ar->abs == 0);
  CHECK(ar->rel == 0.25);
  CHECK(parse_tolerance("ulp:4", why)->ulps == 4);
  CHECK(parse_tolerance("baseline:3", why)->factor == 3);
}

TEST_CASE("Tolerance: malformed modes are refused with the accepted spellings") {
  for (const char* text : {"", "ulp", "ulp:", "ulp:-1", "ulp:nan", "ulp:inf", "ulp:4x", "abs:1,abs:2", "abs:1,",
                           "abs:1,foo:2", "baseline:0", "baseline:", "relative:1", "Derived"}) {
    std::string why;
    CHECK_MESSAGE(!parse_tolerance(text, why).has_value(), text);
    CHECK(why.find("expected derived, ulp:N") != std::string::npos);
  }
}

TEST_CASE("Tolerance: a scope installs a mode for the current thread and restores the outer one") {
  std::string why;
  const Tolerance ulp = *parse_tolerance("ulp:2", why), base = *parse_tolerance("baseline:2", why);
  CHECK(attncheck::property::current_tolerance().mode == Tolerance::Mode::derived);
  {
    attncheck::property::tolerance_scope a(ulp);
    CHECK(attncheck::property::current_tolerance().mode == Tolerance::Mode::ulp);
    {
      attncheck::property::tolerance_scope b(base);
      CHECK(attncheck::property::current_tolerance().mode == Tolerance::Mode::baseline);
    }
    CHECK(attncheck::property::current_tolerance().mode == Tolerance::Mode::ulp);
  }
  CHECK(attncheck::property::current_tolerance().mode == Tolerance::Mode::derived);
}
