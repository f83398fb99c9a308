// attncheck audit tests: a verdict table (obligation -> the kernels it must judge, and how) run
// through the real CLI, one audit per kernel, for the kinds whose tests keep one (attention_merge,
// attention_varlen, attention_paged). Kernels named `correct` must PASS every obligation of the
// table; the others must give the verdict of their row. The test kernels' symbols end in their
// dtype (..._f32, ..._bf16); 16-bit storage is audited with f32 arithmetic.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "tests/audit/audit_cli.hpp"

namespace attncheck_tests::audit_cli {

using VerdictTable = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

// symbol -> (obligation -> verdict): the table turned per kernel, the correct kernels PASS throughout.
inline std::map<std::string, std::map<std::string, std::string>> by_kernel(const VerdictTable& table, const std::vector<std::string>& correct) {
  std::map<std::string, std::map<std::string, std::string>> k;
  for (const auto& [id, rows] : table) {
    for (const auto& symbol : correct) k[symbol][id] = "PASS";
    for (const auto& [symbol, verdict] : rows) k[symbol][id] = verdict;
  }
  return k;
}

// The dtype a kernel's rows are reported under: its symbol's suffix, 16-bit with f32 arithmetic.
inline std::string shown_dtype(const std::string& symbol) {
  const std::string d = symbol.substr(symbol.rfind('_') + 1);
  return d == "bf16" ? "bf16@f32" : d == "f16" ? "f16@f32" : d;
}

// Audits every kernel of the table (`lib` the --lib and --abi arguments) as KIND:DTYPE:SYMBOL with
// its obligations and checks each verdict and the exit status. Under the sanitizers only the
// kernels in `sanitized` run (the plain ones and one stray write: the verdicts are the plain
// build's to check), with fewer cases.
inline void check_verdict_table(const std::string& lib, const std::string& kind, const VerdictTable& table,
                                const std::vector<std::string>& correct, const std::set<std::string>& sanitized) {
  for (const auto& [symbol, want] : by_kernel(table, correct)) {
    if (sanitized_run() && !sanitized.count(symbol)) continue;
    std::string tests;
    for (const auto& [id, verdict] : want) tests += " --test " + id;
    const std::string d = symbol.substr(symbol.rfind('_') + 1);
    Run r = audit(lib + "--kernel " + kind + ":" + d + ":" + symbol + tests + (sanitized_run() ? " --cases 20" : " --cases 60"));
    INFO(symbol << "\n" << r.output);
    bool any_fail = false;
    for (const auto& [id, verdict] : want) {
      CHECK_MESSAGE(r.verdicts[id + " " + kind + " [" + shown_dtype(symbol) + "]"] == verdict, id);
      any_fail |= verdict == "FAIL";
    }
    CHECK(r.status == (any_fail ? 1 : 0));
  }
}

// The declared masked-row policy reaches every check of `tests` (those of kind KIND that judge a row
// that sees no key): nan_kernel, which gives all NaN there, PASSes undeclared (either) and FAILs
// under --masked zeros, naming the policy; zeros_kernel, which gives zeros, PASSes under --masked
// zeros. Each result of the JSON names the policy it judged. cases: enough for the default seed to
// draw a row with no key in every check (the same under the sanitizers: fewer would not see one).
inline void check_masked_policy(const std::string& lib, const std::string& kind, const std::vector<std::string>& tests,
                                const std::string& nan_kernel, const std::string& zeros_kernel, int cases = 60) {
  struct Case {
    std::string symbol, masked, verdict;
  };
  for (const Case& c : {Case{nan_kernel, "", "PASS"}, Case{nan_kernel, "zeros", "FAIL"}, Case{zeros_kernel, "zeros", "PASS"}}) {
    std::string args = lib + "--kernel " + kind + ":" + c.symbol.substr(c.symbol.rfind('_') + 1) + ":" + c.symbol;
    for (const auto& id : tests) args += " --test " + id;
    if (!c.masked.empty()) args += " --masked " + c.masked;
    Run r = audit(args + " --cases " + std::to_string(cases));
    INFO(c.symbol << " --masked " << (c.masked.empty() ? "(none)" : c.masked) << "\n" << r.output);
    for (const auto& id : tests) CHECK_MESSAGE(r.verdicts[id + " " + kind + " [" + shown_dtype(c.symbol) + "]"] == c.verdict, id);
    CHECK(r.status == (c.verdict == "FAIL" ? 1 : 0));
    CHECK(contains(r.json, ", \"masked_policy\": \"" + (c.masked.empty() ? std::string("either") : c.masked) + "\""));  // a result's
    if (c.verdict == "FAIL") CHECK(contains(r.output, "the declared masked-row policy 'zeros'"));
  }
}

}  // namespace attncheck_tests::audit_cli
