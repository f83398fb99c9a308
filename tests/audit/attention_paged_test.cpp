// attncheck audit tests: attention over a paged KV cache (ABI version 2, attention_paged). In
// process, through the library backend and the audited kernel set: the correct kernel answers as
// the per-sequence dense computation in double with NaN in every slot it must not read, each
// paging bug is seen in the numbers, stray writes past o and into block_table are faults with
// clear messages, a kernel declared without LSE is given NULL, a version-1 library is refused, and
// the exec protocol's kind 12 round-trips every bit. Through the CLI: each kernel gives the verdict
// its table row says for each obligation (kExpected; split-KV decoding under --splits: kSplitExpected),
// and the NumPy example over the exec protocol passes.
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

#include <unistd.h>

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

const std::string lib_paged = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_PAGED + "' --abi 2 ";
const double ninf = -std::numeric_limits<double>::infinity();

std::string row(const std::string& id, const std::string& shown) { return id + " attention_paged [" + shown + "]"; }
// Each obligation, and the verdict it must give on each kernel it lists (tests/audit/
// kernels_attention_paged.c says what each kernel does; contracts/attention-paged-v1.yaml which
// test catches which bug class); every correct kernel (kCorrect) must pass every obligation of the
// table. A broken kernel not listed under an obligation is not checked for it here.
const std::vector<std::string> kCorrect = {"paged_plain_f32", "paged_plain_f64", "paged_plain_f16", "paged_plain_bf16"};

const VerdictTable kExpected = {
    {"AUDIT-SAFE-001",
     {{"bug_paged_last_page_prev_f32", "PASS"},  // wrong numbers, but no stray write: not this obligation's
      {"bug_paged_whole_last_page_f32", "PASS"},
      {"bug_paged_o_overrun_f32", "FAIL"},
      {"bug_paged_o_overrun_bf16", "FAIL"},
      {"bug_paged_writes_block_table_f32", "FAIL"}}},
    {"AUDIT-DET-001", {}},
    {"AUDIT-NAN-001", {}},
    {"FALSIFY-PAGED-001",
     {{"bug_paged_last_page_prev_f32", "FAIL"},
      {"bug_paged_last_page_prev_bf16", "FAIL"},
      {"bug_paged_row_stride_f32", "FAIL"},
      {"bug_paged_whole_last_page_f32", "FAIL"},
      {"bug_paged_ignores_table_f32", "FAIL"},
      {"bug_paged_page_size_16_f32", "FAIL"},
      {"bug_paged_stale_times_zero_f32", "PASS"}}},  // finite stale values times 0 add exactly 0
    {"FALSIFY-PAGED-002",
     {{"bug_paged_row_stride_f32", "FAIL"},
      {"bug_paged_whole_last_page_f32", "FAIL"},
      {"bug_paged_ignores_table_f32", "FAIL"},
      {"bug_paged_stale_times_zero_f32", "PASS"}}},
    // Only NaN in the stale slots shows 0 · v: this obligation alone catches it.
    {"FALSIFY-PAGED-003",
     {{"bug_paged_stale_times_zero_f32", "FAIL"},
      {"bug_paged_whole_last_page_f32", "FAIL"}}},
    {"FALSIFY-PAGED-004",
     {{"bug_paged_row_stride_f32", "FAIL"},
      {"bug_paged_ignores_table_f32", "FAIL"},
      {"bug_paged_stale_times_zero_f32", "PASS"}}},
};

// ---- in process ------------------------------------------------------------------------------

// A fixed paged batch of B = 3 sequences (n_b, m_b) = (2, 3), (0, 2), (3, 2) in pages of 2 tokens:
// the first sequence's last page is partly filled, the second has no query (its keys must reach no
// one), the third more queries than keys, so that under causal bottom-right alignment its first
// query sees no key (o 0, LSE -inf). H = 2 query heads share one key/value head; d = 3, dv = 2;
// ALiBi slopes. The pages are handed out shuffled (sequence 0: 3 and 0, sequence 1: 4, sequence 2:
// 1; page 2 unused), the table is 3 pages wide (one more than the longest sequence needs) and its
// spare entries name the unused page; every slot no sequence owns (token 1, after sequence 0's
// last key, and page 2) holds `stale`, NaN unless a test says otherwise.
struct Fixed {
  kernels::AttentionProblem p;
  std::vector<std::int32_t> cu_q{0, 2, 2, 5}, cu_k{0, 3, 5, 7};  // cu_k: the keys packed in logical order
  kernels::PageTable pt;
  std::vector<float> q, k, v;  // k, v logical (packed by cu_k)
  std::vector<float> k_cache, v_cache;
  explicit Fixed(float stale = std::numeric_limits<float>::quiet_NaN()) {
    p.shape.batch = 3, p.shape.heads = 2, p.shape.kv_heads = 1, p.shape.n = 3, p.shape.m = 3, p.shape.d = 3, p.shape.dv = 2;
    p.scale = 0.5;
    p.mask.causal = true;
    p.mask.alignment = kernels::Alignment::bottom_right;
    p.alibi_slopes = {0.25, 0.5};
    // Small exact values, all different, so that a key read from the wrong place changes the answer.
    for (std::size_t i = 0; i < 5 * 2 * 3; ++i) q.push_back(static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4);
    for (std::size_t i = 0; i < 7 * 1 * 3; ++i) k.push_back(static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 4);
    for (std::size_t i = 0; i < 7 * 1 * 2; ++i) v.push_back(static_cast<float>(static_cast<int>(i * 3 % 17) - 8) / 2);
    pt.page_size = 2, pt.num_pages = 5, pt.pages_per_seq = 3;
    pt.seqused_k = {3, 2, 2};
    pt.block_table = {3, 0, 2, 4, 2, 2, 1, 2, 2};
    k_cache.assign(pt.tokens() * 3, stale);
    v_cache.assign(pt.tokens() * 2, stale);
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t t = 0; t < pt.m_of(b); ++t) {
        const std::size_t from = static_cast<std::size_t>(cu_k[b]) + t, to = pt.token_at(b, t);
        std::copy_n(k.begin() + static_cast<std::ptrdiff_t>(from * 3), 3, k_cache.begin() + static_cast<std::ptrdiff_t>(to * 3));
        std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(from * 2), 2, v_cache.begin() + static_cast<std::ptrdiff_t>(to * 2));
      }
  }
  std::size_t total_q() const { return static_cast<std::size_t>(cu_q.back()); }
  std::size_t o_size() const { return total_q() * p.shape.heads * p.shape.dv; }
  std::size_t lse_size() const { return total_q() * p.shape.heads; }
};

// The per-sequence dense computation in double on the logical keys: O (total_q × H × dv) and the
// LSE (H × total_q).
std::pair<std::vector<double>, std::vector<double>> exact(const Fixed& f) {
  return packed_exact(f.p, f.cu_q, f.cu_k, f.q, f.k, f.v);
}

struct Attended {
  std::vector<float> o, lse;
};

// Calls the library's symbol once through LibraryBackend and audited_kernels<float>, as an audit
// does. lse_declared: Policy::returns_lse of the kernel; ask: whether the caller passes an lse.
Attended paged_via(const std::string& symbol, const Fixed& f, bool lse_declared = true, bool ask = true) {
  LibraryBackend b(ATTNCHECK_AUDIT_TESTLIB_PAGED, {{Kind::attention_paged, Dtype::f32, symbol}}, Limits{}, 0);
  CallStats st;
  const KernelSet<float> ks = audited_kernels<float>(b, st, true, true, true, lse_declared);
  Attended a{std::vector<float>(f.o_size(), 7.0f), std::vector<float>(f.lse_size(), 7.0f)};  // 7: not written
  ks.attention_paged(f.p, f.cu_q, f.pt, {}, f.q.data(), f.k_cache.data(), f.v_cache.data(), a.o.data(), ask ? a.lse.data() : nullptr);
  return a;
}

std::string fault_of(const std::string& symbol, const Fixed& f) {
  try {
    paged_via(symbol, f);
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

// o of sequence b of got against the exact one.
bool sequence_close(const Fixed& f, const std::vector<float>& got, const std::vector<double>& o, std::size_t b) {
  const std::size_t per = f.p.shape.heads * f.p.shape.dv;
  const auto from = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(f.cu_q[b]) * per),
             to = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(f.cu_q[b + 1]) * per);
  return close(std::vector<float>(got.begin() + from, got.begin() + to), std::vector<double>(o.begin() + from, o.begin() + to));
}

}  // namespace

TEST_CASE("attention paged in process: the plain kernel answers as the per-sequence dense attention in double, never reading a stale NaN") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const Attended a = paged_via("paged_plain_f32", f);
  CHECK(close(a.o, o));
  CHECK(close(a.lse, l));
  // The third sequence's first query (token 2) sees no key: o 0 and LSE -inf, for both heads.
  for (std::size_t h = 0; h < 2; ++h) {
    CHECK(a.lse[h * 5 + 2] == -std::numeric_limits<float>::infinity());
    CHECK(a.o[(2 * 2 + h) * 2] == 0.0f);
    CHECK(a.o[(2 * 2 + h) * 2 + 1] == 0.0f);
  }
  // The answer is the reference's (kernels::attention_paged, the slot of the in-process set).
  const KernelSet<float> ref = reference_kernels_in_storage<float>();
  std::vector<float> ro(f.o_size()), rl(f.lse_size());
  ref.attention_paged(f.p, f.cu_q, f.pt, {}, f.q.data(), f.k_cache.data(), f.v_cache.data(), ro.data(), rl.data());
  CHECK(close(ro, o));
  CHECK(close(rl, l));
}

TEST_CASE("attention paged in process: each paging bug changes the answer where it should") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const auto seq = [&](const Attended& a, std::size_t b) { return sequence_close(f, a.o, o, b); };
  // Sequence 0's partly filled last page (page 0) read from page 3: its last key is its first.
  const Attended prev = paged_via("bug_paged_last_page_prev_f32", f);
  CHECK_FALSE(seq(prev, 0));
  CHECK(seq(prev, 2));  // one full page: right
  // Rows walked with stride 2 (the pages the longest sequence uses) in a table 3 wide: sequence 2
  // reads entry 4, the unused page (NaN), instead of entry 6.
  const Attended stride = paged_via("bug_paged_row_stride_f32", f);
  CHECK(seq(stride, 0));
  CHECK_FALSE(seq(stride, 2));
  // Sequence 0 attends to the stale slot after its last key (token 1: NaN).
  const Attended whole = paged_via("bug_paged_whole_last_page_f32", f);
  CHECK_FALSE(seq(whole, 0));
  CHECK(seq(whole, 2));
  // 0 · NaN in sequence 0's P·V: NaN; with a finite stale value the same kernel is exact.
  const Attended zero = paged_via("bug_paged_stale_times_zero_f32", f);
  CHECK(std::isnan(zero.o[0]));
  CHECK(seq(zero, 2));
  {
    const Fixed finite(1000.0f);
    const Attended a = paged_via("bug_paged_stale_times_zero_f32", finite);
    CHECK(close(a.o, o));
    CHECK(close(a.lse, l));
  }
  // Pages assumed in sequence order (sequence 0 in pages 0 and 1), and pages of 16 tokens assumed.
  CHECK_FALSE(seq(paged_via("bug_paged_ignores_table_f32", f), 0));
  CHECK_FALSE(seq(paged_via("bug_paged_page_size_16_f32", f), 0));
}

TEST_CASE("attention paged in process: stray writes past o and into block_table are faults that say where, with the page table") {
  const Fixed f;
  const std::string o = fault_of("bug_paged_o_overrun_f32", f);
  INFO(o);
  CHECK(contains(o, "attention_paged<f32> wrote past the end of its output o (byte 0 after element 20 of 20 changed)"));
  CHECK(contains(o, "sequences (n_b, m_b): (2, 3) (0, 2) (3, 2)"));
  CHECK(contains(o, "B = 3, H = 2, H_kv = 1, n = 3, m = 3"));
  CHECK(contains(o, "pages of 2 tokens, 5 in the cache, block table 3 × 3: [3 0 2] [4 2 2] [1 2 2]"));
  CHECK(contains(o, "cu_seqlens_q: 0 2 2 5"));
  CHECK(contains(o, "seqused_k: 3 2 2"));
  CHECK(contains(o, "block_table: 3 0 2 4 2 2 1 2 2"));
  CHECK(contains(o, "k_cache bits:"));
  // The table's last entry (B × pages_per_sequence − 1 = 8) incremented after the call.
  CHECK(contains(fault_of("bug_paged_writes_block_table_f32", f), "modified its input block_table (element 8 changed)"));
}

TEST_CASE("attention paged in process: a kernel declared without LSE is given NULL, and the caller's lse is left as it was") {
  const Fixed f;
  const Attended a = paged_via("paged_plain_f32", f, /*lse_declared=*/false, /*ask=*/true);
  CHECK(a.lse == std::vector<float>(f.lse_size(), 7.0f));
  CHECK(a.o[0] != 7.0f);
  CHECK_NOTHROW(paged_via("paged_plain_f32", f, true, false));
}

TEST_CASE("attention paged in process: a version-1 library binding attention_paged is refused with the ABI's message") {
  // The first test library has no version marker: version 1.
  CHECK_THROWS_WITH_AS(LibraryBackend(ATTNCHECK_AUDIT_TESTLIB, {{Kind::attention_paged, Dtype::f32, "ok_softmax_f32"}}, Limits{}, 0),
                       doctest::Contains("attention_paged is a kind of ABI version 2 (include/attncheck/abi.h)"), LoadError);
}

TEST_CASE("exec protocol kind 12: a paged CALL and its RESULT round-trip every bit, the page table and the LSE part included") {
  // B = 2: (n_b, m_b) = (1, 0), (1, 3) in pages of 2 tokens, 3 pages, a table 2 wide.
  const std::vector<std::int32_t> cu_q = {0, 1, 2}, used = {0, 3}, table = {2, 2, 1, 0};
  const auto ints = [](const std::vector<std::int32_t>& x) {
    std::vector<unsigned char> b(4 * x.size());
    std::memcpy(b.data(), x.data(), b.size());
    return b;
  };
  const std::vector<std::uint32_t> bits = {0x7fc12345u, 0x80000000u, 0x00000001u, 0xff800000u, 0x3f800000u, 0x7f800000u};
  std::vector<unsigned char> qb(4 * 2 * 2), kb(4 * 6 * 2), vb(4 * 6);
  std::memcpy(qb.data(), bits.data(), qb.size());
  for (std::size_t i = 0; i < kb.size(); i += 4) std::memcpy(kb.data() + i, &bits[i / 4 % 6], 4);
  std::memcpy(vb.data(), bits.data(), vb.size());
  for (std::uint64_t asked : {0u, 2u}) {
    Call c;
    c.kind = Kind::attention_paged;
    c.dtype = Dtype::f32;
    c.n = 1, c.m = 3, c.d = 2, c.dv = 1, c.causal = true;
    c.problem.shape = {.batch = 2, .heads = 1, .kv_heads = 1, .n = 1, .m = 3, .d = 2, .dv = 1};
    c.problem.scale = 0.125;
    c.problem.mask.causal = true;
    c.problem.mask.alignment = kernels::Alignment::bottom_right;
    c.problem.mask.window_left = 3;
    c.problem.softcap = 30;
    c.problem.alibi_slopes = {0.0625};
    c.paging = {.page_size = 2, .num_pages = 3, .pages_per_sequence = 2};
    c.inputs = {qb, kb, vb, ints(cu_q), ints(used), ints(table)};
    c.output_count = 2;
    c.lse_count = asked;
    const auto frame = protocol::encode_call(c);
    CHECK(frame[protocol::header_bytes] == 12);
    const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
    CHECK(back.kind == Kind::attention_paged);
    CHECK(back.problem.shape.batch == 2);
    CHECK(back.problem.shape.n == 1);
    CHECK(back.problem.shape.m == 3);
    CHECK(back.problem.mask.alignment == kernels::Alignment::bottom_right);
    CHECK(back.problem.mask.window_left == 3);
    CHECK(back.problem.softcap == 30);
    CHECK(back.problem.alibi_slopes == c.problem.alibi_slopes);
    CHECK(back.paging.page_size == 2);
    CHECK(back.paging.num_pages == 3);
    CHECK(back.paging.pages_per_sequence == 2);
    CHECK(back.lse_count == asked);
    CHECK(back.output_count == 2);
    CHECK(back.inputs == c.inputs);  // q, k_cache, v_cache, then cu_seqlens_q, seqused_k and block_table
    // The paged block follows the attention block (its one slope and the LSE count): page_size,
    // num_pages, pages_per_sequence, then the counted arrays. A block table announced with 3
    // entries where B × pages_per_sequence is 4 is refused.
    std::vector<unsigned char> payload(frame.begin() + protocol::header_bytes, frame.end());
    const std::size_t paged_block = 4 + 4 + 6 * 8 + (3 * 8 + 8 + 4 + 4 + 3 * 8 + 8 + 8);
    CHECK(payload[paged_block] == 2);                            // page_size
    CHECK(payload[paged_block + 24] == 3);                       // cu_seqlens_q's count, B + 1
    const std::size_t table_count = paged_block + 24 + 8 + 12 + 8 + 8;
    CHECK(payload[table_count] == 4);
    payload[table_count] = 3;
    CHECK_THROWS_WITH_AS(protocol::decode_call(payload),
                         doctest::Contains("paged block holds 3 elements of block_table, the call's B and pages_per_sequence give 4"),
                         protocol::ProtocolError);
  }
  const std::vector<unsigned char> out(8, 0x11), lse(8, 0x22);
  const auto res = protocol::encode_result(0, Dtype::f32, out, &lse);
  const auto r = protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::f32, 2, 2);
  CHECK(r.output == out);
  CHECK(r.lse == lse);
}

// ---- through the CLI -------------------------------------------------------------------------

TEST_CASE("attention paged: each kernel gives the verdict its row in kExpected says for each obligation") {
  check_verdict_table(lib_paged, "attention_paged", kExpected, kCorrect, {"paged_plain_f32", "paged_plain_bf16", "bug_paged_o_overrun_f32"});
}

TEST_CASE("attention paged: the declared masked-row policy holds, split or not: NaN rows pass undeclared and fail under --masked zeros") {
  // FALSIFY-PAGED-005 tells the kernel to split (--splits): it may compute unsplit, as these do.
  check_masked_policy(lib_paged + "--splits 4 ", "attention_paged", {"FALSIFY-PAGED-001", "FALSIFY-PAGED-005"}, "paged_nan_rows_bf16",
                      "paged_plain_bf16");
}

TEST_CASE("attention paged: stray writes fail AUDIT-SAFE-001 with where they landed, and under --no-lse lse is NULL") {
  const std::string t = "--test AUDIT-SAFE-001 --cases 20 ";
  Run o = cli_audit(lib_paged + "--kernel attention_paged:f32:bug_paged_o_overrun_f32 " + t);
  INFO(o.output);
  CHECK(o.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(o.json, "wrote past the end of its output o (byte 0 after element"));
  CHECK(contains(o.json, "block table"));
  Run bt = cli_audit(lib_paged + "--kernel attention_paged:f32:bug_paged_writes_block_table_f32 " + t);
  INFO(bt.output);
  CHECK(bt.verdicts[row("AUDIT-SAFE-001", "f32")] == "FAIL");
  CHECK(contains(bt.json, "modified its input block_table (element"));
  // Declared without LSE (--no-lse): lse is NULL, and the kernel runs as before.
  Run no_lse = cli_audit(lib_paged + "--kernel attention_paged:f32:paged_plain_f32 --no-lse --test AUDIT-SAFE-001 --test FALSIFY-PAGED-001 --cases 20");
  INFO(no_lse.output);
  CHECK(no_lse.status == 0);
  CHECK(no_lse.verdicts[row("AUDIT-SAFE-001", "f32")] == "PASS");
  CHECK(no_lse.verdicts[row("FALSIFY-PAGED-001", "f32")] == "PASS");
}

// Page-size invariance where the kernel claims it (--page-size-invariant): the plain kernel walks
// the keys in logical order whatever the pages, and keeps its bits under a new page size; the one
// that sums page by page is correct (it passes without the claim) and fails with it.
TEST_CASE("attention paged: --page-size-invariant redraws the page size in FALSIFY-PAGED-002, and a page-ordered sum claiming it fails") {
  const std::string t = "--test FALSIFY-PAGED-001 --test FALSIFY-PAGED-002 --cases 60 ";
  Run plain = cli_audit(lib_paged + "--kernel attention_paged:f32:paged_plain_f32 --page-size-invariant " + t);
  INFO(plain.output);
  CHECK(plain.status == 0);
  CHECK(plain.verdicts[row("FALSIFY-PAGED-002", "f32")] == "PASS");
  Run unclaimed = cli_audit(lib_paged + "--kernel attention_paged:f32:bug_paged_blocks_follow_pages_f32 " + t);
  INFO(unclaimed.output);
  CHECK(unclaimed.status == 0);
  CHECK(unclaimed.verdicts[row("FALSIFY-PAGED-001", "f32")] == "PASS");
  CHECK(unclaimed.verdicts[row("FALSIFY-PAGED-002", "f32")] == "PASS");
  Run claimed = cli_audit(lib_paged + "--kernel attention_paged:f32:bug_paged_blocks_follow_pages_f32 --page-size-invariant " + t);
  INFO(claimed.output);
  CHECK(claimed.verdicts[row("FALSIFY-PAGED-001", "f32")] == "PASS");
  CHECK(claimed.verdicts[row("FALSIFY-PAGED-002", "f32")] == "FAIL");
  CHECK(contains(claimed.output, "--page-size-invariant"));  // the replay line keeps the claim
}

TEST_CASE("attention paged in a bindings file: page_size_invariant and splits declare what the flags do, a bad value is refused") {
  const std::string path = std::filesystem::temp_directory_path() / ("attncheck-paged-" + std::to_string(::getpid()) + ".yaml");
  const auto write = [&](const std::string& top, const std::string& symbol) {
    std::ofstream(path) << "library: " << ATTNCHECK_AUDIT_TESTLIB_PAGED << "\nabi: 2\n" << top
                        << "kernels:\n  - {kind: attention_paged, dtype: f32, symbol: " << symbol << "}\n";
  };
  write("page_size_invariant: true\n", "bug_paged_blocks_follow_pages_f32");
  Run claimed = cli_audit("--bindings '" + path + "' --test FALSIFY-PAGED-002 --cases 60");
  INFO(claimed.output);
  CHECK(claimed.verdicts[row("FALSIFY-PAGED-002", "f32")] == "FAIL");
  write("splits: 4\n", "bug_paged_split_empty_nan_f32");
  Run split = cli_audit("--bindings '" + path + "' --test FALSIFY-PAGED-005 --cases 40");
  INFO(split.output);
  CHECK(split.verdicts[row("FALSIFY-PAGED-005", "f32")] == "FAIL");
  write("page_size_invariant: sometimes\n", "paged_plain_f32");
  Run bad = cli_audit("--bindings '" + path + "' --test FALSIFY-PAGED-002 --cases 5");
  INFO(bad.output);
  CHECK(bad.status == 2);
  CHECK(contains(bad.output, "page_size_invariant: 'sometimes' is not true or false"));
  std::filesystem::remove(path);
}

// Split-KV decoding over the pages (--splits S; FALSIFY-PAGED-005): the kernels that cut each
// sequence's pages into partitions (vLLM's paged_attention_v2 shape) are judged split; the one that
// returns 0/0 for an empty partition fails there, and without --splits it is never told to split:
// the paged checks pass it and FALSIFY-PAGED-005 is not applicable.
const std::vector<std::string> kSplitCorrect = {"paged_split_f32", "paged_split_bf16"};
const VerdictTable kSplitExpected = {
    {"FALSIFY-PAGED-001", {{"bug_paged_split_empty_nan_f32", "PASS"}}},  // unsplit there: num_splits 0
    // vLLM's 512-token partitions counted with floor(m_b / 512): no small case has 512 keys.
    {"FALSIFY-PAGED-005", {{"bug_paged_split_empty_nan_f32", "FAIL"}, {"bug_paged_partition_floor_f32", "PASS"}}},
};
// At size, split at S = 16 (partitions of up to 17 pages): the sized batch shows the floor.
const VerdictTable kSplitAtSizeExpected = {
    {"AUDIT-PAGED-001", {{"bug_paged_partition_floor_f32", "FAIL"}}},
};

// At size (AUDIT-PAGED-001): a page index kept in 8 bits (wrong past 256 pages, which a small case
// reaches only rarely, with pages of one token) and a bf16 accumulator fail in every sized batch.
const std::vector<std::string> kAtSizeCorrect = {"paged_plain_f32", "paged_plain_bf16"};
const VerdictTable kAtSizeExpected = {
    {"AUDIT-PAGED-001", {{"bug_paged_page_index_u8_f32", "FAIL"}, {"bug_paged_acc16_bf16", "FAIL"}}},
};

TEST_CASE("attention paged: each split kernel told --splits 4 gives the verdict its row says") {
  check_verdict_table(lib_paged + "--splits 4 ", "attention_paged", kSplitExpected, kSplitCorrect,
                      {"paged_split_f32", "bug_paged_split_empty_nan_f32"});
}

TEST_CASE("attention paged at size: AUDIT-PAGED-001 passes the correct kernels and catches a narrow page index and a bf16 accumulator") {
  check_verdict_table(lib_paged, "attention_paged", kAtSizeExpected, kAtSizeCorrect, {"bug_paged_page_index_u8_f32"});
}

TEST_CASE("attention paged at size, split (--splits 16): AUDIT-PAGED-001 passes the split kernels and catches partitions counted with floor") {
  check_verdict_table(lib_paged + "--splits 16 ", "attention_paged", kSplitAtSizeExpected, kSplitCorrect, {"bug_paged_partition_floor_f32"});
}

TEST_CASE("attention paged: without --splits FALSIFY-PAGED-005 is not applicable and a split bug stays unseen") {
  Run r = cli_audit(lib_paged + "--kernel attention_paged:f32:bug_paged_split_empty_nan_f32 --test FALSIFY-PAGED-001 "
                                "--test FALSIFY-PAGED-005 --cases 40");
  INFO(r.output);
  CHECK(r.verdicts[row("FALSIFY-PAGED-001", "f32")] == "PASS");
  CHECK(contains(r.output, "FALSIFY-PAGED-005 [f32]: needs a kernel kind that was not provided"));
  CHECK(r.status == 0);
}

TEST_CASE("attention paged: a kind of ABI version 2 only") {
  Run v1 = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_PAGED + "' --kernel attention_paged:f32:paged_plain_f32 --abi 1");
  INFO(v1.output);
  CHECK(v1.status == 2);
  // A library without the marker (version 1) is refused for the kind itself.
  Run unmarked = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB + "' --kernel attention_paged:f32:ok_softmax_f32");
  INFO(unmarked.output);
  CHECK(unmarked.status == 2);
  CHECK(contains(unmarked.output, "attention_paged is a kind of ABI version 2"));
}

// The NumPy reference over the exec protocol (CALL kind 12, examples/python/).
// Declared --splits 4 (it splits each sequence's keys as numpy_attention.py does when told) and
// --page-size-invariant (it gathers, then attends): FALSIFY-PAGED-005 judges it split, and
// FALSIFY-PAGED-002 redraws the page size.
TEST_CASE("python example: the NumPy paged attention (kind 12) passes SAFE, DET, NAN, FALSIFY-PAGED-* and AUDIT-PAGED-001 at f32, f64 and bf16") {
  const std::string py = std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR +
                         "/python/numpy_attention_paged.py'\" --abi 2 --splits 4 --page-size-invariant ";
  std::vector<std::string> ids = {"AUDIT-SAFE-001",    "AUDIT-DET-001",     "AUDIT-NAN-001",     "FALSIFY-PAGED-001",
                                  "FALSIFY-PAGED-002", "FALSIFY-PAGED-003", "FALSIFY-PAGED-004", "FALSIFY-PAGED-005"};
  if (!sanitized_run()) ids.push_back("AUDIT-PAGED-001");  // at size: the oracle's 200-bit rows are slow under the sanitizers
  std::string tests;
  for (const auto& id : ids) tests += "--test " + id + " ";
  Run r = cli_audit(py + tests +
                    (sanitized_run() ? "--kernel attention_paged:f32 --cases 10 -j 1"
                                     : "--kernel attention_paged:f32 --kernel attention_paged:f64 --kernel attention_paged:bf16 --cases 20 -j 2"));
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* d : {"f32", "f64", "bf16@f32"})
    if (!sanitized_run() || std::string(d) == "f32")
      for (const auto& id : ids) CHECK_MESSAGE(r.verdicts[row(id, d)] == "PASS", id << " " << d);
}
