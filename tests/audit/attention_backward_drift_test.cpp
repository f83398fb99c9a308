// attncheck audit tests: AUDIT-ATTBWD-002, accumulator drift in the backward pass
// (audit/attention_backward_drift.hpp), through --lib: the FlashAttention-2-style kernels that
// accumulate in f32 pass, and each kernel that keeps dQ across key blocks or dK across query
// blocks in 16 bits fails, at f16@f32 and bf16@f32 (tests/audit/kernels_attention_backward_drift.c;
// bug_bwd_fa2_gqa_dk_acc_bf16 of kernels_attention_backward.c: FlashAttention-2's grouped-query
// recipe with each head's dK accumulator rounded to bf16 after every query row). The check costs
// seconds a kernel (a failing one is run again for its report), so each kernel is audited with it
// alone; the verdicts are exact.
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "tests/audit/audit_cli.hpp"
#include "tests/test_paths.hpp"

namespace {

using attncheck_tests::audit_cli::audit;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::sanitized_run;

const std::string lib_bwd = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_BWD + "' ";

// "bf16" -> "bf16@f32", as the report shows the 16-bit formats with f32 arithmetic.
std::string shown(const std::string& dt) { return dt == "f32" || dt == "f64" ? dt : dt + "@f32"; }

// The verdict of AUDIT-ATTBWD-002 on kernel `sym` at `dt`, and the exit status.
std::pair<std::string, int> drift_verdict(const std::string& sym, const std::string& dt) {
  Run r = audit(lib_bwd + "--kernel attention_backward:" + dt + ":" + sym + " --test AUDIT-ATTBWD-002");
  INFO(sym << "\n" << r.output);
  return {r.verdicts["AUDIT-ATTBWD-002 attention_backward [" + shown(dt) + "]"], r.status};
}

}  // namespace

TEST_CASE("AUDIT-ATTBWD-002: FlashAttention-2-style kernels that accumulate in f32 pass, and the check is N/A at f32") {
  if (sanitized_run()) return;  // the verdicts are the plain build's to check
  for (const auto& [sym, dt] : std::vector<std::pair<std::string, std::string>>{{"bwd_fa2_b64_bf16", "bf16"}, {"bwd_fa2_b64_f16", "f16"}}) {
    const auto [verdict, status] = drift_verdict(sym, dt);
    CHECK_MESSAGE(verdict == "PASS", sym);
    CHECK_MESSAGE(status == 0, sym);
  }
  // At f32 with one cheap check beside it (an audit with nothing applicable exits 2).
  Run f32 = audit(lib_bwd + "--kernel attention_backward:f32:bwd_tiled_f32 --test AUDIT-ATTBWD-002 --test FALSIFY-ATTBWD-002 --cases 10");
  INFO(f32.output);
  CHECK(f32.verdicts["AUDIT-ATTBWD-002 attention_backward [f32]"] == "N/A");
  CHECK(f32.status == 0);
}

TEST_CASE("AUDIT-ATTBWD-002: dQ kept in 16 bits across key blocks fails at bf16@f32 and f16@f32") {
  if (sanitized_run()) return;
  for (const auto& [sym, dt] : std::vector<std::pair<std::string, std::string>>{{"bug_bwd_dq_acc16_bf16", "bf16"}, {"bug_bwd_dq_acc16_f16", "f16"}}) {
    const auto [verdict, status] = drift_verdict(sym, dt);
    CHECK_MESSAGE(verdict == "FAIL", sym);
    CHECK_MESSAGE(status == 1, sym);
  }
}

TEST_CASE("AUDIT-ATTBWD-002: dK kept in 16 bits across query blocks fails at bf16@f32 and f16@f32, FlashAttention-2's grouped recipe too") {
  if (sanitized_run()) return;
  for (const auto& [sym, dt] : std::vector<std::pair<std::string, std::string>>{
           {"bug_bwd_dk_acc16_bf16", "bf16"}, {"bug_bwd_dk_acc16_f16", "f16"}, {"bug_bwd_fa2_gqa_dk_acc_bf16", "bf16"}}) {
    const auto [verdict, status] = drift_verdict(sym, dt);
    CHECK_MESSAGE(verdict == "FAIL", sym);
    CHECK_MESSAGE(status == 1, sym);
  }
}
