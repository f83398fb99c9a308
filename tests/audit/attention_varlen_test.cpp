// attncheck audit tests: attention over a packed variable-length batch (ABI version 2,
// attention_varlen). In process, through the library backend and the audited kernel set: the
// correct kernel answers as the per-sequence dense computation in double (a sequence without
// queries, rows that see no key), each packing bug is seen in the numbers or as a fault, stray
// writes past o and lse and into cu_seqlens_k are faults with clear messages, a kernel declared
// without LSE is given NULL, a version-1 library is refused, and the exec protocol's kind 11
// round-trips every bit. Through the CLI: each kernel gives the verdict its table row says for each
// obligation (kExpected), and the NumPy example over the exec protocol passes.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
#include "tests/audit/packed_exact.hpp"
#include "tests/audit/verdict_table.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {

using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::check_masked_policy;
using attncheck_tests::audit_cli::check_verdict_table;
using attncheck_tests::audit_cli::packed_exact;
using attncheck_tests::audit_cli::sanitized_run;
using attncheck_tests::audit_cli::VerdictTable;

// `audit` alone would also name the namespace attncheck::audit.
Run cli_audit(const std::string& args) { return attncheck_tests::audit_cli::audit(args); }

const std::string lib_varlen = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_VARLEN + "' --abi 2 ";
const double ninf = -std::numeric_limits<double>::infinity();

std::string row(const std::string& id, const std::string& shown) { return id + " attention_varlen [" + shown + "]"; }
// Each obligation, and the verdict it must give on each kernel it lists (tests/audit/
// kernels_attention_varlen.c says what each kernel does); every correct kernel (kCorrect) must
// pass every obligation of the table. A broken kernel not listed under an obligation is not
// checked for it here.
const std::vector<std::string> kCorrect = {"varlen_plain_f32", "varlen_plain_f64", "varlen_plain_f16", "varlen_plain_bf16"};

const VerdictTable kExpected = {
    {"AUDIT-SAFE-001",
     {{"bug_varlen_next_visible_f32", "PASS"},  // wrong numbers, but no stray write: not this obligation's
      {"bug_varlen_max_alignment_f32", "PASS"},
      {"bug_varlen_o_overrun_f32", "FAIL"},
      {"bug_varlen_o_overrun_bf16", "FAIL"},
      {"bug_varlen_lse_dense_f32", "FAIL"},  // B × H × max_n > H × total_q once the n_b differ
      {"bug_varlen_writes_cu_k_f32", "FAIL"}}},
    {"AUDIT-DET-001", {}},
    {"AUDIT-NAN-001", {}},
    // contracts/attention-varlen-v1.yaml: each bug class fails the obligations that state what it
    // breaks (FALSIFY-VARLEN-003 needs the dense kernel beside the varlen one: its own test case below).
    {"FALSIFY-VARLEN-001",
     {{"bug_varlen_next_visible_f32", "FAIL"},
      {"bug_varlen_next_visible_bf16", "FAIL"},
      {"bug_varlen_max_alignment_f32", "FAIL"},
      {"bug_varlen_lse_dense_f32", "FAIL"},
      {"bug_varlen_last_skipped_f32", "FAIL"},
      {"bug_varlen_kv_at_q_offset_f32", "FAIL"}}},
    {"FALSIFY-VARLEN-002",
     {{"bug_varlen_next_visible_f32", "FAIL"},
      {"bug_varlen_kv_at_q_offset_f32", "FAIL"}}},
};

// ---- in process ------------------------------------------------------------------------------

// A fixed packed batch of B = 3 sequences (n_b, m_b) = (2, 3), (0, 2), (3, 2): the second has no
// query (its keys must reach no one), the third more queries than keys, so that under causal
// bottom-right alignment its first query sees no key (o 0, LSE -inf). H = 2 query heads share one
// key/value head; d = 3, dv = 2; ALiBi slopes. p.n, p.m are the maxima 3 and 3, which differ from
// the first sequence's (2, 3): an alignment taken from the maxima is wrong there.
struct Fixed {
  kernels::AttentionProblem p;
  kernels::Packing pk{{0, 2, 2, 5}, {0, 3, 5, 7}};
  std::vector<float> q, k, v;
  Fixed() {
    p.shape.batch = 3, p.shape.heads = 2, p.shape.kv_heads = 1, p.shape.n = 3, p.shape.m = 3, p.shape.d = 3, p.shape.dv = 2;
    p.scale = 0.5;
    p.mask.causal = true;
    p.mask.alignment = kernels::Alignment::bottom_right;
    p.alibi_slopes = {0.25, 0.5};
    // Small exact values, all different, so that a key read from the wrong place changes the answer.
    for (std::size_t i = 0; i < 5 * 2 * 3; ++i) q.push_back(static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4);
    for (std::size_t i = 0; i < 7 * 1 * 3; ++i) k.push_back(static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 4);
    for (std::size_t i = 0; i < 7 * 1 * 2; ++i) v.push_back(static_cast<float>(static_cast<int>(i * 3 % 17) - 8) / 2);
  }
  std::size_t o_size() const { return pk.total_q() * p.shape.heads * p.shape.dv; }
  std::size_t lse_size() const { return pk.total_q() * p.shape.heads; }
};

// The per-sequence dense computation in double: O (total_q × H × dv) and the LSE (H × total_q).
std::pair<std::vector<double>, std::vector<double>> exact(const Fixed& f) {
  return packed_exact(f.p, f.pk.cu_q, f.pk.cu_k, f.q, f.k, f.v);
}

struct Attended {
  std::vector<float> o, lse;
};

// Calls the library's symbol once through LibraryBackend and audited_kernels<float>, as an audit
// does. lse_declared: Policy::returns_lse of the kernel; ask: whether the caller passes an lse.
Attended varlen_via(const std::string& symbol, const Fixed& f, bool lse_declared = true, bool ask = true) {
  LibraryBackend b(ATTNCHECK_AUDIT_TESTLIB_VARLEN, {{Kind::attention_varlen, Dtype::f32, symbol}}, Limits{}, 0);
  CallStats st;
  const KernelSet<float> ks = audited_kernels<float>(b, st, true, true, lse_declared);
  Attended a{std::vector<float>(f.o_size(), 7.0f), std::vector<float>(f.lse_size(), 7.0f)};  // 7: not written
  ks.attention_varlen(f.p, f.pk, {}, f.q.data(), f.k.data(), f.v.data(), a.o.data(), ask ? a.lse.data() : nullptr);
  return a;
}

std::string fault_of(const std::string& symbol, const Fixed& f) {
  try {
    varlen_via(symbol, f);
  } catch (const KernelFault& e) {
    return e.what();
  }
  return "";
}

// Whether every element of got is within 1e-5 (relative, or absolute near 0) of want.
bool close(const std::vector<float>& got, const std::vector<double>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::isinf(want[i]) ? double(got[i]) == want[i] : std::abs(double(got[i]) - want[i]) <= 1e-5 * std::max(1.0, std::abs(want[i]))))
      return false;
  return true;
}

}  // namespace

TEST_CASE("attention varlen in process: the plain kernel answers as the per-sequence dense attention in double") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const Attended a = varlen_via("varlen_plain_f32", f);
  CHECK(close(a.o, o));
  CHECK(close(a.lse, l));
  // The third sequence's first query (token 2) sees no key: o 0 and LSE -inf, for both heads.
  for (std::size_t h = 0; h < 2; ++h) {
    CHECK(a.lse[h * 5 + 2] == -std::numeric_limits<float>::infinity());
    CHECK(a.o[(2 * 2 + h) * 2] == 0.0f);
    CHECK(a.o[(2 * 2 + h) * 2 + 1] == 0.0f);
  }
  // The answer is the reference's (kernels::attention_varlen, the slot of the in-process set).
  const KernelSet<float> ref = reference_kernels_in_storage<float>();
  std::vector<float> ro(f.o_size()), rl(f.lse_size());
  ref.attention_varlen(f.p, f.pk, {}, f.q.data(), f.k.data(), f.v.data(), ro.data(), rl.data());
  CHECK(close(ro, o));
  CHECK(close(rl, l));
}

TEST_CASE("attention varlen in process: each packing bug changes the answer where it should") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const auto seq_rows = [&](const std::vector<float>& got, std::size_t b) {  // o of sequence b
    const std::size_t per = f.p.shape.heads * f.p.shape.dv;
    std::vector<float> g(got.begin() + static_cast<std::ptrdiff_t>(f.pk.cu_q[b] * per), got.begin() + static_cast<std::ptrdiff_t>(f.pk.cu_q[b + 1] * per));
    std::vector<double> w(o.begin() + static_cast<std::ptrdiff_t>(f.pk.cu_q[b] * per), o.begin() + static_cast<std::ptrdiff_t>(f.pk.cu_q[b + 1] * per));
    return close(g, w);
  };
  // The next sequence's keys leak into the first (and shift its bottom-right diagonal).
  const Attended next = varlen_via("bug_varlen_next_visible_f32", f);
  CHECK_FALSE(seq_rows(next.o, 0));
  // The first sequence (n 2, m 3) aligned by the maxima (3, 3): its queries see one key less.
  // The third (n 3, m 2) shifted by 0 instead of -1: its first query sees a key it must not.
  const Attended align = varlen_via("bug_varlen_max_alignment_f32", f);
  CHECK_FALSE(seq_rows(align.o, 0));
  CHECK_FALSE(seq_rows(align.o, 2));
  {  // Top-left alignment takes no lengths: the same kernel is right there.
    Fixed tl;
    tl.p.mask.alignment = kernels::Alignment::top_left;
    const auto [tl_o, tl_l] = exact(tl);
    const Attended a = varlen_via("bug_varlen_max_alignment_f32", tl);
    CHECK(close(a.o, tl_o));
    CHECK(close(a.lse, tl_l));
  }
  // The last sequence never computed: its o left as the backend's poison (NaN), the rest right.
  const Attended last = varlen_via("bug_varlen_last_skipped_f32", f);
  CHECK(seq_rows(last.o, 0));
  CHECK(std::isnan(last.o[f.o_size() - 1]));
  // k and v of the third sequence read from token 2 (cu_q[2]) instead of 5 (cu_k[2]).
  const Attended kv = varlen_via("bug_varlen_kv_at_q_offset_f32", f);
  CHECK(seq_rows(kv.o, 0));
  CHECK_FALSE(seq_rows(kv.o, 2));
}

TEST_CASE("attention varlen in process: stray writes past o and lse and into cu_seqlens_k are faults that say where") {
  const Fixed f;
  const std::string o = fault_of("bug_varlen_o_overrun_f32", f);
  CHECK(contains(o, "attention_varlen<f32> wrote past the end of its output o (byte 0 after element 20 of 20 changed)"));
  CHECK(contains(o, "sequences (n_b, m_b): (2, 3) (0, 2) (3, 2)"));
  CHECK(contains(o, "B = 3, H = 2, H_kv = 1, n = 3, m = 3"));
  CHECK(contains(o, "cu_seqlens_q: 0 2 2 5"));
  CHECK(contains(o, "cu_seqlens_k: 0 3 5 7"));
  CHECK(contains(o, "q bits:"));
  // The dense LSE layout: the third sequence's rows (b·H + h)·max_n + i = 12 .. 17 of an LSE of
  // H × total_q = 10 elements; the first stray one, 12, is 8 bytes after the end.
  const std::string dense = fault_of("bug_varlen_lse_dense_f32", f);
  INFO(dense);
  CHECK(contains(dense, "wrote past the end of its output lse (byte 8 after element 10 of 10 changed)"));
  CHECK(contains(fault_of("bug_varlen_writes_cu_k_f32", f), "modified its input cu_seqlens_k (element 3 changed)"));
}

TEST_CASE("attention varlen in process: a kernel declared without LSE is given NULL, and the caller's lse is left as it was") {
  const Fixed f;
  // bug_varlen_lse_dense_f32 writes past the end of lse when it is given one.
  const Attended a = varlen_via("bug_varlen_lse_dense_f32", f, /*lse_declared=*/false, /*ask=*/true);
  CHECK(a.lse == std::vector<float>(f.lse_size(), 7.0f));
  CHECK(a.o[0] != 7.0f);
  CHECK_NOTHROW(varlen_via("bug_varlen_lse_dense_f32", f, true, false));
}

TEST_CASE("attention varlen in process: a version-1 library binding attention_varlen is refused with the ABI's message") {
  // The first test library has no version marker: version 1.
  CHECK_THROWS_WITH_AS(LibraryBackend(ATTNCHECK_AUDIT_TESTLIB, {{Kind::attention_varlen, Dtype::f32, "ok_softmax_f32"}}, Limits{}, 0),
                       doctest::Contains("attention_varlen is a kind of ABI version 2 (include/attncheck/abi.h)"), LoadError);
}

TEST_CASE("exec protocol kind 11: a varlen CALL and its RESULT round-trip every bit, offsets and the LSE part included") {
  const std::vector<std::int32_t> cu_q = {0, 1, 1}, cu_k = {0, 0, 2};  // B = 2: (1, 0), (0, 2)
  std::vector<unsigned char> qb(4 * 2), kb(4 * 2 * 2), vb(4 * 2), cq(12), ck(12);
  const std::vector<std::uint32_t> bits = {0x7fc12345u, 0x80000000u, 0x00000001u, 0xff800000u};
  std::memcpy(qb.data(), bits.data(), qb.size());
  std::memcpy(kb.data(), bits.data(), kb.size());
  std::memcpy(vb.data(), bits.data() + 2, vb.size());
  std::memcpy(cq.data(), cu_q.data(), 12);
  std::memcpy(ck.data(), cu_k.data(), 12);
  for (std::uint64_t asked : {0u, 1u}) {
    Call c;
    c.kind = Kind::attention_varlen;
    c.dtype = Dtype::f32;
    c.n = 1, c.m = 2, c.d = 2, c.dv = 1, c.causal = true;
    c.problem.shape = {.batch = 2, .heads = 1, .kv_heads = 1, .n = 1, .m = 2, .d = 2, .dv = 1};
    c.problem.scale = 0.125;
    c.problem.mask.causal = true;
    c.problem.mask.alignment = kernels::Alignment::bottom_right;
    c.problem.mask.window_left = 3;
    c.problem.softcap = 30;
    c.problem.alibi_slopes = {0.0625};
    c.inputs = {qb, kb, vb, cq, ck};
    c.output_count = 1;
    c.lse_count = asked;
    const auto frame = protocol::encode_call(c);
    CHECK(frame[protocol::header_bytes] == 11);
    const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
    CHECK(back.kind == Kind::attention_varlen);
    CHECK(back.problem.shape.batch == 2);
    CHECK(back.problem.shape.n == 1);
    CHECK(back.problem.shape.m == 2);
    CHECK(back.problem.mask.alignment == kernels::Alignment::bottom_right);
    CHECK(back.problem.mask.window_left == 3);
    CHECK(back.problem.softcap == 30);
    CHECK(back.problem.alibi_slopes == c.problem.alibi_slopes);
    CHECK(back.lse_count == asked);
    CHECK(back.output_count == 1);
    CHECK(back.inputs == c.inputs);  // q, k, v, then cu_seqlens_q and cu_seqlens_k
    // A frame whose offset count is not B + 1 is refused: the attention block's B (after kind,
    // dtype, causal, arithmetic, the input count and n, m, d, dv, eps, the output count) made 3.
    std::vector<unsigned char> payload(frame.begin() + protocol::header_bytes, frame.end());
    payload[4 + 4 + 6 * 8] = 3;
    CHECK_THROWS_WITH_AS(protocol::decode_call(payload), doctest::Contains("varlen block holds 3 offsets per array, B + 1 is 4"),
                         protocol::ProtocolError);
  }
  const std::vector<unsigned char> out(4, 0x11), lse(4, 0x22);
  const auto res = protocol::encode_result(0, Dtype::f32, out, &lse);
  const auto r = protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::f32, 1, 1);
  CHECK(r.output == out);
  CHECK(r.lse == lse);
}

// ---- through the CLI -------------------------------------------------------------------------

TEST_CASE("attention varlen: each kernel gives the verdict its row in kExpected says for each obligation") {
  check_verdict_table(lib_varlen, "attention_varlen", kExpected, kCorrect, {"varlen_plain_f32", "varlen_plain_bf16", "bug_varlen_o_overrun_f32"});
}

TEST_CASE("attention varlen: the declared masked-row policy holds: NaN rows pass undeclared and fail under --masked zeros, zeros pass it") {
  check_masked_policy(lib_varlen, "attention_varlen", {"FALSIFY-VARLEN-001"}, "varlen_nan_rows_f32", "varlen_plain_f32");
}

TEST_CASE("attention varlen: stray writes fail AUDIT-SAFE-001 with where they landed, and under --no-lse lse is NULL") {
  const std::string t = "--test AUDIT-SAFE-001 --cases 20 ";
  Run o = cli_audit(lib_varlen + "--kernel attention_varlen:f32:bug_varlen_o_overrun_f32 " + t);
  INFO(o.output);
  CHECK(o.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(o.json, "wrote past the end of its output o (byte 0 after element"));
  CHECK(contains(o.json, "sequences (n_b, m_b):"));
  Run cu = cli_audit(lib_varlen + "--kernel attention_varlen:f32:bug_varlen_writes_cu_k_f32 " + t);
  INFO(cu.output);
  CHECK(cu.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(cu.json, "modified its input cu_seqlens_k (element"));
  // Declared without LSE (--no-lse) lse is NULL: the dense-layout kernel writes nothing stray.
  Run no_lse = cli_audit(lib_varlen + "--kernel attention_varlen:f32:bug_varlen_lse_dense_f32 --no-lse " + t);
  INFO(no_lse.output);
  CHECK(no_lse.status == 0);
  CHECK(no_lse.verdicts[row("AUDIT-SAFE-001", "f32")] == "PASS");
}

// Packed = dense bit for bit where the kernel claims it (--packing-invariant): this library's dense
// kernel is its varlen kernel on equal-length sequences, so the plain pair keeps its bits; the
// reversed sum is correct within the bound (it passes unclaimed) and fails FALSIFY-VARLEN-003 when
// it claims the dense order.
TEST_CASE("attention varlen: --packing-invariant holds FALSIFY-VARLEN-003 to the dense kernel's bits, and a reversed sum claiming it fails") {
  // FALSIFY-VARLEN-003 runs two kinds; the report lists them "attention", "attention_varlen".
  const auto dense_row = [](const std::string& id, const std::string& shown) { return id + " attention [" + shown + "]"; };
  const auto run = [](const std::string& varlen, const std::string& dense, const std::string& d, bool claim) {
    return cli_audit(lib_varlen + "--kernel attention_varlen:" + d + ":" + varlen + " --kernel attention:" + d + ":" + dense +
                     (claim ? " --packing-invariant" : "") + " --test FALSIFY-VARLEN-001 --test FALSIFY-VARLEN-003 --cases 60");
  };
  for (const char* d : {"f32", "bf16"}) {
    Run plain = run(std::string("varlen_plain_") + d, std::string("dense_plain_") + d, d, true);
    INFO(plain.output);
    CHECK(plain.status == 0);
    CHECK(plain.verdicts[dense_row("FALSIFY-VARLEN-003", std::string(d) == "f32" ? "f32" : "bf16@f32")] == "PASS");
  }
  Run unclaimed = run("bug_varlen_reversed_order_f32", "dense_plain_f32", "f32", false);
  INFO(unclaimed.output);
  CHECK(unclaimed.status == 0);
  CHECK(unclaimed.verdicts[dense_row("FALSIFY-VARLEN-003", "f32")] == "PASS");
  Run claimed = run("bug_varlen_reversed_order_f32", "dense_plain_f32", "f32", true);
  INFO(claimed.output);
  CHECK(claimed.verdicts[row("FALSIFY-VARLEN-001", "f32")] == "PASS");
  CHECK(claimed.verdicts[dense_row("FALSIFY-VARLEN-003", "f32")] == "FAIL");
  CHECK(contains(claimed.output, "--packing-invariant"));  // the replay line keeps the claim
}

TEST_CASE("attention varlen in a bindings file: packing_invariant declares what --packing-invariant does, a bad value is refused") {
  const std::string path = std::filesystem::temp_directory_path() / ("attncheck-varlen-" + std::to_string(::getpid()) + ".yaml");
  const auto write = [&](const std::string& top) {
    std::ofstream(path) << "library: " << ATTNCHECK_AUDIT_TESTLIB_VARLEN << "\nabi: 2\n" << top
                        << "kernels:\n  - {kind: attention_varlen, dtype: f32, symbol: bug_varlen_reversed_order_f32}\n"
                        << "  - {kind: attention, dtype: f32, symbol: dense_plain_f32}\n";
  };
  write("packing_invariant: true\n");
  Run claimed = cli_audit("--bindings '" + path + "' --test FALSIFY-VARLEN-003 --cases 60");
  INFO(claimed.output);
  CHECK(claimed.verdicts["FALSIFY-VARLEN-003 attention [f32]"] == "FAIL");
  write("packing_invariant: maybe\n");
  Run bad = cli_audit("--bindings '" + path + "' --test FALSIFY-VARLEN-003 --cases 5");
  INFO(bad.output);
  CHECK(bad.status == 2);
  CHECK(contains(bad.output, "packing_invariant: 'maybe' is not true or false"));
  std::filesystem::remove(path);
}

TEST_CASE("attention varlen: a kind of ABI version 2 only") {
  Run v1 = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_VARLEN + "' --kernel attention_varlen:f32:varlen_plain_f32 --abi 1");
  INFO(v1.output);
  CHECK(v1.status == 2);
  // A library without the marker (version 1) is refused for the kind itself.
  Run unmarked = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB + "' --kernel attention_varlen:f32:ok_softmax_f32");
  INFO(unmarked.output);
  CHECK(unmarked.status == 2);
  CHECK(contains(unmarked.output, "attention_varlen is a kind of ABI version 2"));
}

// The NumPy reference over the exec protocol (CALL kind 11, examples/python/).
TEST_CASE("python example: the NumPy varlen attention (kind 11) passes SAFE, DET and NAN at f32, f64 and bf16") {
  const std::string py =
      std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR + "/python/numpy_attention_varlen.py'\" --abi 2 ";
  const std::string tests = "--test AUDIT-SAFE-001 --test AUDIT-DET-001 --test AUDIT-NAN-001 ";
  Run r = cli_audit(py + tests +
                    (sanitized_run() ? "--kernel attention_varlen:f32 --cases 20 -j 1"
                                     : "--kernel attention_varlen:f32 --kernel attention_varlen:f64 --kernel attention_varlen:bf16 --cases 40 -j 1"));
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* d : {"f32", "f64", "bf16@f32"})
    if (!sanitized_run() || std::string(d) == "f32")
      for (const auto& id : {"AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001"}) CHECK_MESSAGE(r.verdicts[row(id, d)] == "PASS", id << " " << d);
}
