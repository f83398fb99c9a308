// attncheck CLI: the JSON report of `attncheck gate --json FILE` (schema "attncheck-gate/1",
// schema_version 7, docs/report-schema.json), and the parts the audit's report shares with it.
// Hand-written rather than a JSON library: the shape is fixed and small, and the output must be
// byte-stable for a given seed (fixed key order, fixed number formatting, times only in the
// "timings" object that --no-timings leaves out).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "attncheck/text/numbers.hpp"
#include "cli/gate.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {

namespace {
// (Not `quoted`: an unqualified call with a std::string argument would also find std::quoted.)
std::string json_string(std::string_view s) {
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
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + json_string(items[i]);
  return s + "]";
}

std::string result(const GateRow& row) {
  const property::Outcome& o = row.outcome;
  std::string s = "    {";
  s += "\"contract\": " + json_string(row.contract);
  s += ", \"obligations\": " + string_list(row.obligations);
  s += ", \"test\": " + json_string(o.test_id);
  s += ", \"dtype\": " + json_string(row.dtype());
  s += ", \"verdict\": " + json_string(property::verdict_name(o.verdict));
  s += ", \"cases\": " + std::to_string(o.cases);
  s += ", \"seconds\": " + number(o.seconds);
  s += ", \"seed\": " + (row.has_property ? json_string(hex_u64(o.seed)) : std::string("null"));
  s += ", \"worst_ratio\": " + number(o.worst_ratio);
  s += ", \"worst_case\": " + json_string(o.worst_case);
  s += ", \"median_ratio\": " + number(o.median_ratio);
  s += ", \"observations\": " + std::to_string(o.observations);
  s += ", \"unbounded\": " + std::to_string(o.unbounded);
  s += ", \"certified\": {\"double\": " + std::to_string(o.certified.dbl) + ", \"dd\": " + std::to_string(o.certified.dd) + ", \"mpfr\": " + std::to_string(o.certified.mpfr) +
       ", \"mpfi\": " + std::to_string(o.certified.mpfi) + ", \"uncertified\": " + std::to_string(o.certified.uncertified) + "}";
  s += ", \"counterexample\": " + json_string(o.counterexample);
  s += ", \"message\": " + json_string(o.message);
  s += ", \"replay\": " + json_string(o.replay);
  return s;  // the caller appends the schema-2 fields and closes the object
}

std::string location(const GateReport& r, const contract::Location* where) {
  if (!where || where->file.empty()) return "null";
  return "{\"file\": " + json_string(report_path(r, where->file)) + ", \"line\": " + std::to_string(where->line) +
         ", \"column\": " + std::to_string(where->column) + "}";
}

std::string object_of(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string s = "{";
  for (std::size_t i = 0; i < kv.size(); ++i) s += (i ? ", " : "") + json_string(kv[i].first) + ": " + json_string(kv[i].second);
  return s + "}";
}

// Severity order for summarising several checks of one obligation: the worst one decides.
int severity(const std::string& verdict) {
  if (verdict == "FAIL") return 4;
  if (verdict == "ERROR") return 3;
  if (verdict == "GAVE-UP") return 2;
  if (verdict == "PASS") return 1;
  return 0;  // N/A
}
}  // namespace

// The shortest decimal that reads back as exactly this double (std::to_chars): exact, and about
// a third shorter than %.17g, which matters at a few hundred points per check. Only finite values
// are ever sampled (property::sample drops the others), so no "inf" is needed here.
std::string sample_number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string render_samples_json(const std::vector<property::SampleSeries>& samples) {
  std::string s = "[";
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const property::SampleSeries& x = samples[i];
    s += (i ? ", " : "") + std::string("{\"series\": ") + json_string(x.name) + ", \"subject\": " + json_string(x.subject) +
         ", \"columns\": " + string_list(x.columns) + ", \"offered\": " + std::to_string(x.offered) +
         ", \"nonfinite\": " + std::to_string(x.nonfinite) + ", \"points\": [";
    const std::size_t w = std::max<std::size_t>(1, x.columns.size());
    for (std::size_t k = 0; k < x.points.size(); ++k) {
      if (k % w == 0) s += k ? "], [" : "[";
      else s += ", ";
      s += sample_number(x.points[k]);
    }
    s += x.points.empty() ? "]}" : "]]}";
  }
  return s + "]";
}

std::string verdict_text(const GateRow& row) { return std::string(property::verdict_name(row.outcome.verdict)); }

std::string render_row_extras_json(const GateReport& r, const GateRow& row) {
  const auto at = r.test_locations.find(row.outcome.test_id);
  std::string s = ", \"location\": " + location(r, at == r.test_locations.end() ? nullptr : &at->second);
  s += ", \"counterexample_values\": [";
  const auto values = counterexample_values(row.outcome.counterexample, row.outcome.dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    s += (i ? ", " : "") + std::string("{\"label\": ") + json_string(v.label) + ", \"bits\": " + string_list(v.bits) +
         ", \"values\": " + string_list(v.values) + ", \"elided\": " + std::to_string(v.elided) + "}";
  }
  s += "]";
  s += ", \"samples\": " + render_samples_json(row.outcome.samples);
  s += ", \"coverage\": " + render_coverage_json(row.outcome.coverage);
  // What a failure says first (schema_version 7): the contract's likely cause and the failing cases' figures.
  const property::Outcome& o = row.outcome;
  s += ", \"likely_cause\": " + json_string(o.verdict == property::Verdict::fail ? likely_cause(r, o) : std::string());
  s += ", \"counterexample_ratio\": " + number(o.counterexample_ratio);
  s += ", \"worst_failure\": " + json_string(o.worst_failure);
  return s + ", \"worst_failure_ratio\": " + number(o.worst_failure_ratio);
}

std::string render_obligations_json(const GateReport& r, const std::vector<std::pair<std::string, std::string>>& na) {
  struct Entry {
    std::string id, contract, verdict = "N/A";
    std::vector<std::string> checks;
    int passed = 0, failed = 0, not_applicable = 0;
  };
  std::vector<Entry> entries;
  auto entry = [&](const std::string& id, const std::string& contract) -> Entry& {
    for (auto& e : entries)
      if (e.id == id) return e;
    Entry e;
    e.id = id;
    e.contract = contract;
    entries.push_back(std::move(e));
    return entries.back();
  };
  for (const GateRow& row : r.rows)
    for (const auto& id : row.obligations) {
      Entry& e = entry(id, row.contract);
      e.checks.push_back(row.outcome.test_id + " [" + row.dtype() + "]");
      const std::string v = verdict_text(row);
      (row.passed() ? e.passed : e.failed) += 1;
      if (severity(v) > severity(e.verdict)) e.verdict = v;
    }
  for (const auto& [id, check] : na) {
    const auto known = r.obligations.find(id);
    Entry& e = entry(id, known == r.obligations.end() ? std::string("audit") : known->second.contract);
    e.checks.push_back(check);
    ++e.not_applicable;
  }
  std::string s = "[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const auto known = r.obligations.find(e.id);
    s += (i ? ",\n" : "\n") + std::string("    {\"id\": ") + json_string(e.id) + ", \"contract\": " +
         json_string(known == r.obligations.end() ? e.contract : known->second.contract) + ", \"statement\": " +
         json_string(known == r.obligations.end() ? std::string() : known->second.statement) + ", \"location\": " +
         location(r, known == r.obligations.end() ? nullptr : &known->second.where) + ", \"verdict\": " +
         json_string(e.verdict) + ", \"passed\": " + std::to_string(e.passed) + ", \"failed\": " + std::to_string(e.failed) +
         ", \"not_applicable\": " + std::to_string(e.not_applicable) + ", \"checks\": " + string_list(e.checks) + "}";
  }
  return s + (entries.empty() ? "]" : "\n  ]");
}

std::string render_run_json(const GateReport& r) {
  std::string s = "{\n";
  s += "    \"command\": " + json_string(r.command) + ",\n";
  s += "    \"attncheck_version\": " + json_string(r.version) + ",\n";
  s += "    \"seed\": " + json_string(hex_u64(r.seed)) + ",\n";
  s += "    \"cases\": " + std::to_string(r.cases) + ",\n";
  s += "    \"kernels\": " + json_string(r.kernels) + ",\n";
  s += "    \"tolerance\": " + json_string(r.tolerance) + ",\n";
  s += "    \"contracts\": [";
  for (std::size_t i = 0; i < r.contracts.size(); ++i)
    s += (i ? ", " : "") + std::string("{\"id\": ") + json_string(r.contracts[i].id) + ", \"version\": " +
         json_string(r.contracts[i].version) + ", \"file\": " + json_string(r.contracts[i].file) + "}";
  s += "],\n";
  s += "    \"machine\": " + object_of(machine_info()) + ",\n";
  s += "    \"dependencies\": " + object_of(dependency_versions()) + "\n";
  return s + "  }";
}

std::string render_timings_json(const GateReport& r) {
  std::string s = "{\"started_utc\": " + json_string(r.started_utc) + ", \"wall_seconds\": " + number(r.wall_seconds) +
                  ", \"checks\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const GateRow& row = r.rows[i];
    s += (i ? ",\n" : "\n") + std::string("    {\"test\": ") + json_string(row.outcome.test_id) + ", \"dtype\": " +
         json_string(row.dtype()) + ", \"seconds\": " + number(row.outcome.seconds) + "}";
  }
  return s + (r.rows.empty() ? "]}" : "\n  ]}");
}

std::string json_quoted(std::string_view s) { return json_string(s); }
std::string json_number(double v) { return number(v); }

std::string render_json(const GateReport& r) {
  std::string s = "{\n";
  s += "  \"schema\": \"attncheck-gate/1\",\n";
  s += "  \"schema_version\": " + std::to_string(report_schema_version) + ",\n";
  s += "  \"version\": " + json_string(r.version) + ",\n";
  s += "  \"seed\": " + json_string(hex_u64(r.seed)) + ",\n";
  s += "  \"cases\": " + std::to_string(r.cases) + ",\n";
  s += "  \"kernels\": " + json_string(r.kernels) + ",\n";
  s += "  \"tolerance\": " + json_string(r.tolerance) + ",\n";
  s += "  \"results\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i)
    s += (i ? ",\n" : "\n") + result(r.rows[i]) + render_row_extras_json(r, r.rows[i]) + "}";
  s += r.rows.empty() ? "],\n" : "\n  ],\n";
  s += "  \"summary\": {\"passed\": " + std::to_string(r.passed()) + ", \"failed\": " + std::to_string(r.failed()) +
       ", \"skipped\": " + std::to_string(r.skipped) + "},\n";
  s += "  \"obligations\": " + render_obligations_json(r, {}) + ",\n";
  s += "  \"run\": " + render_run_json(r);
  if (r.timings) s += ",\n  \"timings\": " + render_timings_json(r);
  return s + "\n}\n";
}

}  // namespace attncheck::cli
