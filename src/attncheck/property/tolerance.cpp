// attncheck: parsing and scoping of the accuracy tolerance modes (tolerance.hpp).
#include "attncheck/property/tolerance.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "attncheck/text/numbers.hpp"

namespace attncheck::property {

namespace {
const Tolerance derived_mode{};
thread_local const Tolerance* current = &derived_mode;

// A finite, non-negative number (strtod syntax), the whole of text.
bool parse_number(std::string_view text, double& out) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}
}  // namespace

std::string Tolerance::text() const {
  switch (mode) {
    case Mode::derived: return "derived";
    case Mode::ulp: return "ulp:" + decimal(ulps);
    case Mode::abs_rel: return "abs:" + decimal(abs) + ",rel:" + decimal(rel);
    case Mode::baseline: return "baseline:" + decimal(factor);
  }
  return "?";
}

std::optional<Tolerance> parse_tolerance(std::string_view text, std::string& error) {
  const std::string usage = "expected derived, ulp:N, abs:A,rel:R (either part alone is fine) or baseline:K, with "
                            "finite non-negative numbers";
  Tolerance t;
  if (text == "derived") return t;
  auto starts = [&](std::string_view p) { return text.substr(0, p.size()) == p; };
  if (starts("ulp:")) {
    t.mode = Tolerance::Mode::ulp;
    if (parse_number(text.substr(4), t.ulps)) return t;
  } else if (starts("baseline:")) {
    t.mode = Tolerance::Mode::baseline;
    if (parse_number(text.substr(9), t.factor) && t.factor > 0) return t;
  } else if (starts("abs:") || starts("rel:")) {
    t.mode = Tolerance::Mode::abs_rel;
    bool ok = true, seen_abs = false, seen_rel = false;
    std::string_view rest = text;
    while (ok && !rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view part = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (part.substr(0, 4) == "abs:" && !seen_abs) {
        seen_abs = true;
        ok = parse_number(part.substr(4), t.abs);
      } else if (part.substr(0, 4) == "rel:" && !seen_rel) {
        seen_rel = true;
        ok = parse_number(part.substr(4), t.rel);
      } else {
        ok = false;
      }
      if (ok && comma != std::string_view::npos && rest.empty()) ok = false;  // trailing comma
    }
    if (ok) return t;
  }
  error = "invalid tolerance mode '" + std::string(text) + "': " + usage;
  return std::nullopt;
}

const Tolerance& current_tolerance() { return *current; }

tolerance_scope::tolerance_scope(const Tolerance& t) : outer_(current) { current = &t; }
tolerance_scope::~tolerance_scope() { current = outer_; }

}  // namespace attncheck::property
