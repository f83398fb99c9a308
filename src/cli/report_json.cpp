// attncheck CLI: the JSON report of `attncheck gate --json FILE` (schema "attncheck-gate/1").
// Hand-written rather than a JSON library: the shape is fixed and small, and the output must be
// byte-stable for a given seed (fixed key order, fixed number formatting).
#include <cmath>
#include <cstdio>

#include "attncheck/check/format.hpp"
#include "cli/gate.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {

namespace {
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

// JSON has no infinity: a ratio that overflowed (or a NaN seen) is written as the string "inf".
std::string number(double v) {
  if (!std::isfinite(v)) return "\"inf\"";
  return decimal(v);
}

std::string string_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + quoted(items[i]);
  return s + "]";
}

std::string result(const GateRow& row) {
  const check::Outcome& o = row.outcome;
  std::string s = "    {";
  s += "\"contract\": " + quoted(row.contract);
  s += ", \"obligations\": " + string_list(row.obligations);
  s += ", \"test\": " + quoted(o.test_id);
  s += ", \"dtype\": " + quoted(row.dtype());
  s += ", \"verdict\": " + quoted(check::verdict_name(o.verdict));
  s += ", \"cases\": " + std::to_string(o.cases);
  s += ", \"seconds\": " + number(o.seconds);
  s += ", \"seed\": " + (row.has_property ? quoted(hex_u64(o.seed)) : std::string("null"));
  s += ", \"worst_ratio\": " + number(o.worst_ratio);
  s += ", \"worst_case\": " + quoted(o.worst_case);
  s += ", \"median_ratio\": " + number(o.median_ratio);
  s += ", \"observations\": " + std::to_string(o.observations);
  s += ", \"unbounded\": " + std::to_string(o.unbounded);
  s += ", \"certified\": {\"dd\": " + std::to_string(o.certified.dd) + ", \"mpfr\": " + std::to_string(o.certified.mpfr) +
       ", \"mpfi\": " + std::to_string(o.certified.mpfi) + ", \"uncertified\": " + std::to_string(o.certified.uncertified) + "}";
  s += ", \"counterexample\": " + quoted(o.counterexample);
  s += ", \"message\": " + quoted(o.message);
  s += ", \"replay\": " + quoted(o.replay);
  return s + "}";
}
}  // namespace

std::string json_quoted(std::string_view s) { return quoted(s); }
std::string json_number(double v) { return number(v); }

std::string render_json(const GateReport& r) {
  std::string s = "{\n";
  s += "  \"schema\": \"attncheck-gate/1\",\n";
  s += "  \"version\": " + quoted(r.version) + ",\n";
  s += "  \"seed\": " + quoted(hex_u64(r.seed)) + ",\n";
  s += "  \"cases\": " + std::to_string(r.cases) + ",\n";
  s += "  \"kernels\": " + quoted(r.kernels) + ",\n";
  s += "  \"tolerance\": " + quoted(r.tolerance) + ",\n";
  s += "  \"results\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i) s += (i ? ",\n" : "\n") + result(r.rows[i]);
  s += r.rows.empty() ? "],\n" : "\n  ],\n";
  s += "  \"summary\": {\"passed\": " + std::to_string(r.passed()) + ", \"failed\": " + std::to_string(r.failed()) +
       "}\n";
  return s + "}\n";
}

}  // namespace attncheck::cli
