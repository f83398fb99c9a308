// attncheck audit tests, PENDING (CTest label attention-v2-pending, not `audit`): the broken
// attention kernels of ABI version 2 (tests/audit/kernels_attention_v2.c), one bug class of issue 19
// each, must fail the audit. Until the audit's attention-v2 properties exist (accuracy of O and LSE
// on sampled rows against the oracle, masks honoured exactly, ...) these fail; then each case must
// be finalized with the exact test IDs in `catches` (today descriptions of the obligation that must
// catch it) and moved to attention_v2_test.cpp. The safety obligations must pass on every one of
// them: the bugs are wrong answers, not stray writes.
#include <string>

#include <doctest/doctest.h>

#include "tests/audit/audit_cli.hpp"

namespace {

using attncheck_tests::audit_cli::audit;
using attncheck_tests::audit_cli::Run;

// Audits one broken kernel (tiled, 2 x 2 tiles of queries and keys, f32, exactly one bug): it must
// fail, and the safety obligations must pass. catches: the obligation that must fail (finalize:
// the test IDs, checked as FAIL).
void check_broken(const std::string& symbol, const std::string& catches) {
  const std::string lib = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_V2 + "' ";
  Run r = audit(lib + "--kernel attention:f32:" + symbol + " --masked zeros --cases 200");
  INFO(symbol << " must fail: " << catches << "\n" << r.output);
  CHECK(r.status == 1);
  int failed = 0;
  for (const auto& [row, verdict] : r.verdicts) failed += verdict == "FAIL";
  CHECK(failed > 0);
  CHECK(r.verdicts["AUDIT-SAFE-001 attention [f32]"] == "PASS");
  CHECK(r.verdicts["AUDIT-DET-001 attention [f32]"] == "PASS");
}

}  // namespace

// The test name is the symbol alone (doctest_discover_tests splits names at ';').
#define BROKEN(symbol, catches) \
  TEST_CASE("ABI 2 broken attention kernel " symbol " fails the audit") { check_broken(symbol, catches); }

BROKEN("bug_v2_acc_not_rescaled_f32", "accuracy of O against the oracle (rows whose maximum grows in a later key tile)")
BROKEN("bug_v2_max_starts_at_zero_f32",
       "accuracy of O and LSE on rows whose scores are all far below 0 (exp underflows: scores < -87 at f32, e.g. a large ALiBi "
       "bias or scale)")
BROKEN("bug_v2_causal_tile_skip_f32", "accuracy of O or masks honoured (causal: a query tile's last query on a key tile's first key)")
BROKEN("bug_v2_alignment_swapped_f32", "masks honoured or accuracy of O with a causal or window mask and n != m")
BROKEN("bug_v2_window_left_f32", "masks honoured or accuracy of O with window_left >= 0 (the leftmost visible key dropped)")
BROKEN("bug_v2_window_right_f32", "masks honoured or accuracy of O with window_right >= 0 (the rightmost visible key dropped)")
BROKEN("bug_v2_softcap_before_scale_f32", "accuracy of O and LSE with softcap > 0 and scale != 1")
BROKEN("bug_v2_softcap_after_mask_f32", "masks honoured or accuracy of O with softcap > 0 and masked keys in a tile with a visible one")
BROKEN("bug_v2_gqa_modulo_f32", "accuracy of O with 1 < H_kv < H (grouped-query)")
BROKEN("bug_v2_lse_log2_f32", "accuracy of the LSE (the message says log2 units)")
BROKEN("bug_v2_lse_no_scale_f32", "accuracy of the LSE with scale != 1 (the message says the scale is missing)")
BROKEN("bug_v2_last_block_undivided_f32", "accuracy of O (the rows of the last query tile are not normalised)")
