// attncheck audit tests: the merge of split-KV partial results (ABI version 2, attention_merge).
// In process, through the library backend and the audited kernel set: the correct FA2 and vLLM
// combines answer like the reference, a kernel declared without LSE is given NULL, stray writes
// around o and lse and into lse_parts are faults with clear messages, a version-1 library is
// refused, and the exec protocol's kind 10 round-trips every bit. Through the CLI: each kernel
// gives the verdict its table row says for each obligation (kExpected), and the NumPy example over
// the exec protocol passes.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/audit/audited_kernels.hpp"
#include "attncheck/audit/library_backend.hpp"
#include "attncheck/audit/protocol.hpp"
#include "tests/audit/audit_cli.hpp"
#include "tests/audit/verdict_table.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {

using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::check_verdict_table;
using attncheck_tests::audit_cli::sanitized_run;
using attncheck_tests::audit_cli::VerdictTable;

// `audit` alone would also name the namespace attncheck::audit.
Run cli_audit(const std::string& args) { return attncheck_tests::audit_cli::audit(args); }

const std::string lib_merge = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_MERGE + "' --abi 2 ";
const double ninf = -std::numeric_limits<double>::infinity();

std::string row(const std::string& id, const std::string& shown) { return id + " attention_merge [" + shown + "]"; }
// Each obligation, and the verdict it must give on each kernel it lists (tests/audit/
// kernels_attention_merge.c says what each kernel does); every correct kernel (kCorrect) must pass
// every obligation of the table. A broken kernel not listed under an obligation is not checked for
// it here (a bug rarely breaks one thing only).
const std::vector<std::string> kCorrect = {"merge_fa2_f32", "merge_fa2_f64", "merge_fa2_f16", "merge_fa2_bf16",
                                            "merge_vllm_f32", "merge_vllm_f64", "merge_vllm_f16", "merge_vllm_bf16",
                                            // Orders the bound is not derived for (FlashInfer's running state, a
                                            // cascade of two-way merges): kept so that no false alarm on them lands.
                                            "merge_online_f32", "merge_online_f64", "merge_online_bf16",
                                            "merge_cascade_f32", "merge_cascade_f64", "merge_cascade_bf16"};

const VerdictTable kExpected = {
    {"AUDIT-SAFE-001",
     {{"bug_merge_no_max_f32", "PASS"},  // wrong numbers, but no stray write: not this obligation's
      {"bug_merge_lse_stride_f32", "PASS"},
      {"bug_merge_o_overrun_f32", "FAIL"},
      {"bug_merge_o_overrun_bf16", "FAIL"},
      {"bug_merge_lse_overrun_f32", "FAIL"},
      {"bug_merge_writes_lse_parts_f32", "FAIL"}}},
    {"AUDIT-DET-001", {}},
    {"AUDIT-NAN-001", {}},
    // Accuracy and the empty rows (contracts/attention-merge-v1.yaml, audit-v1.yaml): each bug
    // class fails the obligations that state what it breaks.
    {"FALSIFY-MERGE-001",
     {{"bug_merge_no_max_f32", "FAIL"},
      {"bug_merge_lse_log2_f32", "FAIL"},
      {"bug_merge_lse_log2_bf16", "FAIL"},
      {"bug_merge_last_split_dropped_f32", "FAIL"},
      {"bug_merge_not_normalised_f32", "FAIL"},
      {"bug_merge_not_normalised_bf16", "FAIL"},
      {"bug_merge_max_init_zero_f32", "FAIL"},
      {"bug_merge_lse_stride_f32", "FAIL"}}},
    {"FALSIFY-MERGE-002",
     {{"bug_merge_empty_nan_f32", "FAIL"},
      {"bug_merge_empty_nan_bf16", "FAIL"}}},
    {"FALSIFY-MERGE-003",
     {{"bug_merge_lse_log2_f32", "FAIL"},
      {"bug_merge_last_split_dropped_f32", "FAIL"},
      {"bug_merge_not_normalised_f32", "FAIL"}}},
    {"AUDIT-MERGE-001",
     {{"bug_merge_empty_nan_f32", "FAIL"},
      {"bug_merge_empty_nan_bf16", "FAIL"}}},
    {"AUDIT-MERGE-002",
     {{"bug_merge_last_split_dropped_f32", "FAIL"},
      {"bug_merge_not_normalised_f32", "FAIL"},
      {"bug_merge_lse_stride_f32", "FAIL"},
      {"bug_merge_lse_stride_bf16", "FAIL"}}},
};

// ---- in process ------------------------------------------------------------------------------

// A fixed merge of 3 splits, 3 rows, dv 2: row 0 with an empty split (lse -inf, O 0), row 1 with
// LSEs far below 0 (a running max started at 0 underflows there), row 2 with every split empty.
struct Fixed {
  std::size_t splits = 3, rows = 3, dv = 2;
  std::vector<float> o_parts = {0.5f, -1.0f, 2.0f, 3.0f, 0.0f, 0.0f,  // split 0: rows 0, 1, 2
                                0.0f, 0.0f,  -2.0f, 1.5f, 0.0f, 0.0f,  // split 1
                                4.0f, 0.25f, 1.0f, -3.0f, 0.0f, 0.0f};  // split 2
  std::vector<float> lse_parts = {1.5f, -120.0f, float(ninf),  // split 0: rows 0, 1, 2
                                  float(ninf), -118.5f, float(ninf),  // split 1
                                  -0.75f, -121.0f, float(ninf)};  // split 2
};

// The merge in double, for comparison.
std::pair<std::vector<double>, std::vector<double>> exact(const Fixed& f) {
  std::vector<double> o(f.rows * f.dv, 0.0), l(f.rows, ninf);
  for (std::size_t r = 0; r < f.rows; ++r) {
    double M = ninf;
    for (std::size_t s = 0; s < f.splits; ++s) M = std::max(M, double(f.lse_parts[s * f.rows + r]));
    if (M == ninf) continue;
    double Z = 0;
    for (std::size_t s = 0; s < f.splits; ++s) Z += std::exp(double(f.lse_parts[s * f.rows + r]) - M);
    l[r] = M + std::log(Z);
    for (std::size_t s = 0; s < f.splits; ++s)
      for (std::size_t c = 0; c < f.dv; ++c)
        o[r * f.dv + c] += std::exp(double(f.lse_parts[s * f.rows + r]) - l[r]) * f.o_parts[(s * f.rows + r) * f.dv + c];
  }
  return {o, l};
}

struct Merged {
  std::vector<float> o, lse;
};

// Calls the library's symbol once through LibraryBackend and audited_kernels<float>, as an audit
// does. lse_declared: Policy::returns_lse of the kernel; ask: whether the caller passes an lse.
Merged merge_via(const std::string& symbol, const Fixed& f, bool lse_declared = true, bool ask = true) {
  LibraryBackend b(ATTNCHECK_AUDIT_TESTLIB_MERGE, {{Kind::attention_merge, Dtype::f32, symbol}}, Limits{}, 0);
  CallStats st;
  const KernelSet<float> ks = audited_kernels<float>(b, st, true, lse_declared);
  Merged m{std::vector<float>(f.rows * f.dv, 7.0f), std::vector<float>(f.rows, 7.0f)};  // 7: not written
  ks.attention_merge(f.splits, f.rows, f.dv, f.o_parts.data(), f.lse_parts.data(), m.o.data(), ask ? m.lse.data() : nullptr);
  return m;
}

std::string fault_of(const std::string& symbol, const Fixed& f) {
  try {
    merge_via(symbol, f);
  } catch (const KernelFault& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("attention merge in process: the FA2 and vLLM combines answer as the merge in double, empty rows give 0 and -inf") {
  const Fixed f;
  const auto [o, l] = exact(f);
  for (const char* symbol : {"merge_fa2_f32", "merge_vllm_f32"}) {
    INFO(symbol);
    const Merged m = merge_via(symbol, f);
    for (std::size_t i = 0; i < o.size(); ++i) CHECK(m.o[i] == doctest::Approx(o[i]).epsilon(1e-4));
    for (std::size_t r = 0; r < 2; ++r) CHECK(m.lse[r] == doctest::Approx(l[r]).epsilon(1e-6));
    CHECK(m.o[4] == 0.0f);
    CHECK(m.o[5] == 0.0f);
    CHECK(m.lse[2] == -std::numeric_limits<float>::infinity());
  }
  // The broken kernels really are: a running max started at 0 loses row 1 (every LSE near -120).
  const Merged z = merge_via("bug_merge_max_init_zero_f32", f);
  CHECK_FALSE(std::isfinite(z.lse[1]));
}

TEST_CASE("attention merge in process: a kernel declared without LSE is given NULL, and the caller's lse is left as it was") {
  const Fixed f;
  // bug_merge_lse_overrun_f32 writes one element past lse when it is given one.
  const Merged m = merge_via("bug_merge_lse_overrun_f32", f, /*lse_declared=*/false, /*ask=*/true);
  CHECK(m.lse == std::vector<float>(f.rows, 7.0f));
  CHECK(m.o[0] != 7.0f);
  // Declared with LSE but not asked (lse NULL): NULL as well.
  CHECK_NOTHROW(merge_via("bug_merge_lse_overrun_f32", f, true, false));
  CHECK(contains(fault_of("bug_merge_lse_overrun_f32", f), "wrote past the end of its output lse (byte 0 after element 3 of 3 changed)"));
}

TEST_CASE("attention merge in process: stray writes past o and into lse_parts are faults that say where") {
  const Fixed f;
  const std::string o = fault_of("bug_merge_o_overrun_f32", f);
  CHECK(contains(o, "attention_merge<f32> wrote past the end of its output o (byte 0 after element 6 of 6 changed)"));
  CHECK(contains(o, "splits = 3, rows = 3, dv = 2"));
  CHECK(contains(o, "lse_parts bits:"));
  CHECK(contains(fault_of("bug_merge_writes_lse_parts_f32", f), "modified its input lse_parts (element 0 changed)"));
}

TEST_CASE("attention merge in process: a version-1 library binding attention_merge is refused with the ABI's message") {
  // The first test library has no version marker: version 1.
  CHECK_THROWS_WITH_AS(LibraryBackend(ATTNCHECK_AUDIT_TESTLIB, {{Kind::attention_merge, Dtype::f32, "ok_softmax_f32"}}, Limits{}, 0),
                       doctest::Contains("attention_merge is a kind of ABI version 2 (include/attncheck/abi.h)"), LoadError);
}

TEST_CASE("exec protocol kind 10: a merge CALL and its RESULT round-trip every bit, the LSE part included") {
  const std::vector<std::uint32_t> o_parts = {0x7fc12345u, 0x80000000u, 0x00000001u, 0x3f800000u};  // 2 splits, 1 row, dv 2
  const std::vector<std::uint32_t> lse_parts = {0xff800000u, 0x7f800001u};                           // -inf, a signalling NaN
  std::vector<unsigned char> ob(o_parts.size() * 4), lb(lse_parts.size() * 4);
  std::memcpy(ob.data(), o_parts.data(), ob.size());
  std::memcpy(lb.data(), lse_parts.data(), lb.size());
  for (std::uint64_t asked : {0u, 1u}) {
    Call c;
    c.kind = Kind::attention_merge;
    c.dtype = Dtype::f32;
    c.n = 2, c.m = 1, c.dv = 2;
    c.inputs = {ob, lb};
    c.output_count = 2;
    c.lse_count = asked;
    const auto frame = protocol::encode_call(c);
    const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
    CHECK(back.kind == Kind::attention_merge);
    CHECK(back.n == 2);
    CHECK(back.m == 1);
    CHECK(back.dv == 2);
    CHECK(back.lse_count == asked);
    CHECK(back.inputs == c.inputs);
  }
  const std::vector<unsigned char> out(8, 0x11), lse(4, 0x22);
  const auto res = protocol::encode_result(0, Dtype::f32, out, &lse);
  const auto r = protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::f32, 2, 1);
  CHECK(r.output == out);
  CHECK(r.lse == lse);
  CHECK_THROWS_AS(protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::f32, 2, 0), protocol::ProtocolError);
}

// ---- through the CLI -------------------------------------------------------------------------

TEST_CASE("attention merge: each kernel gives the verdict its row in kExpected says for each obligation") {
  check_verdict_table(lib_merge, "attention_merge", kExpected, kCorrect, {"merge_fa2_f32", "merge_fa2_bf16", "bug_merge_o_overrun_f32"});
}

TEST_CASE("attention merge: a correct kernel passes the whole audit, every row judged or not applicable") {
  Run r = cli_audit(lib_merge + "--kernel attention_merge:f32:merge_fa2_f32 --cases 40");
  INFO(r.output);
  CHECK(r.status == 0);
  for (const auto& id : {"AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001"}) CHECK_MESSAGE(r.verdicts[row(id, "f32")] == "PASS", id);
}

TEST_CASE("attention merge: stray writes past o and lse and into lse_parts fail AUDIT-SAFE-001 with where they landed") {
  const std::string t = "--test AUDIT-SAFE-001 --cases 20 ";
  Run o = cli_audit(lib_merge + "--kernel attention_merge:f32:bug_merge_o_overrun_f32 " + t);
  INFO(o.output);
  CHECK(o.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(o.json, "wrote past the end of its output o (byte 0 after element"));
  Run lse = cli_audit(lib_merge + "--kernel attention_merge:f32:bug_merge_lse_overrun_f32 " + t);
  INFO(lse.output);
  CHECK(lse.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(lse.json, "wrote past the end of its output lse (byte 0 after element"));
  // Declared without LSE (--no-lse) lse is NULL: the overrunning kernel writes nothing stray.
  Run no_lse = cli_audit(lib_merge + "--kernel attention_merge:f32:bug_merge_lse_overrun_f32 --no-lse " + t);
  INFO(no_lse.output);
  CHECK(no_lse.status == 0);
  CHECK(no_lse.verdicts[row("AUDIT-SAFE-001", "f32")] == "PASS");
  Run parts = cli_audit(lib_merge + "--kernel attention_merge:f32:bug_merge_writes_lse_parts_f32 " + t);
  INFO(parts.output);
  CHECK(parts.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(parts.json, "modified its input lse_parts (element 0 changed)"));
}

TEST_CASE("attention merge: a kind of ABI version 2 only") {
  Run v1 = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_MERGE + "' --kernel attention_merge:f32:merge_fa2_f32 --abi 1");
  INFO(v1.output);
  CHECK(v1.status == 2);
  // A library without the marker (version 1) is refused for the kind itself.
  Run unmarked = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB + "' --kernel attention_merge:f32:ok_softmax_f32");
  INFO(unmarked.output);
  CHECK(unmarked.status == 2);
  CHECK(contains(unmarked.output, "attention_merge is a kind of ABI version 2"));
}

// The NumPy reference merge over the exec protocol (CALL kind 10, examples/python/).
TEST_CASE("python example: the NumPy merge (kind 10) passes SAFE, DET and NAN at f32, f64 and bf16") {
  const std::string py =
      std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR + "/python/numpy_attention_merge.py'\" --abi 2 ";
  Run r = cli_audit(py + (sanitized_run() ? "--kernel attention_merge:f32 --cases 20 -j 1"
                                      : "--kernel attention_merge:f32 --kernel attention_merge:f64 --kernel attention_merge:bf16 --cases 40 -j 1"));
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* d : {"f32", "f64", "bf16@f32"})
    if (!sanitized_run() || std::string(d) == "f32")
      for (const auto& id : {"AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001"}) CHECK_MESSAGE(r.verdicts[row(id, d)] == "PASS", id << " " << d);
}
