// attncheck audit tests: an FP8 KV cache (ABI version 2, attention_fp8kv and kv_quantize). In
// process, through the library backend and the audited kernel set: the correct reader answers as
// the attention in double of the dequantized values (and as attncheck's reference), each scale and
// decoding bug changes the answer where it should, a NaN code reaches the rows that see it; the
// correct writer gives attncheck's own code (scalar/fp8.hpp, an independent implementation) for
// every code, every midpoint between neighbours and the overflow boundaries of both formats under
// both rules, and each writing bug differs where it should; stray writes past o and codes and into
// v_scale are faults with clear messages, a version-1 library is refused, and the exec protocol's
// kinds 13 and 14 round-trip every bit. Through the CLI: each kernel gives the verdict its table
// row says for each obligation (kExpectedRead, kExpectedWrite), a kernel that supports one format
// (and one overflow rule) passes on what it accepts, and the NumPy example over the exec protocol
// passes.
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

using attncheck_tests::audit_cli::check_masked_policy;
using attncheck_tests::audit_cli::check_verdict_table;
using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::sanitized_run;
using attncheck_tests::audit_cli::VerdictTable;
using kernels::Fp8Format;
using kernels::Fp8Spec;

// `audit` alone would also name the namespace attncheck::audit.
Run cli_audit(const std::string& args) { return attncheck_tests::audit_cli::audit(args); }

const std::string lib_fp8 = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_FP8KV + "' --abi 2 ";

// Each obligation, and the verdict it must give on each kernel it lists (tests/audit/
// kernels_attention_fp8kv.c says what each kernel does; contracts/attention-fp8kv-v1.yaml which test
// catches which bug class); every correct kernel must pass every obligation of its table, the two
// that decline a format or an overflow rule included. A broken kernel not listed under an
// obligation is not checked for it here.
const std::vector<std::string> kCorrectRead = {"fp8kv_plain_f32", "fp8kv_plain_f64", "fp8kv_plain_f16", "fp8kv_plain_bf16",
                                               "fp8kv_e4m3_only_f32"};
const VerdictTable kExpectedRead = {
    {"AUDIT-SAFE-001",
     {{"bug_fp8kv_k_scale_missing_f32", "PASS"},  // wrong numbers, but no stray write: not this obligation's
      {"bug_fp8kv_o_overrun_f32", "FAIL"},
      {"bug_fp8kv_writes_v_scale_f32", "FAIL"}}},
    {"AUDIT-DET-001", {}},
    // A NaN code decoded as a finite value: only the NaN check sees it (the cache attncheck writes
    // holds finite codes). E4M3FN's NaN 0x7f read as E5M2 is NaN too: that bug is FP8-001's.
    {"AUDIT-NAN-001", {{"bug_fp8kv_nan_code_finite_f32", "FAIL"}, {"bug_fp8kv_e4m3_as_e5m2_f32", "PASS"}}},
    {"FALSIFY-FP8-001",
     {{"bug_fp8kv_k_scale_missing_f32", "FAIL"},
      {"bug_fp8kv_v_scale_twice_f32", "FAIL"},
      {"bug_fp8kv_v_scale_twice_bf16", "FAIL"},
      {"bug_fp8kv_per_head_as_tensor_f32", "FAIL"},
      {"bug_fp8kv_k_scale_for_v_f32", "FAIL"},
      {"bug_fp8kv_e4m3_as_e5m2_f32", "FAIL"},
      {"bug_fp8kv_nan_code_finite_f32", "PASS"}}},
};

const std::vector<std::string> kCorrectWrite = {"kvq_plain_f32", "kvq_plain_f64", "kvq_plain_f16", "kvq_plain_bf16",
                                                "kvq_e4m3_sat_only_f32"};
const VerdictTable kExpectedWrite = {
    {"AUDIT-SAFE-001", {{"bug_kvq_truncates_f32", "PASS"}, {"bug_kvq_codes_overrun_f32", "FAIL"}}},
    {"AUDIT-DET-001", {}},
    // NaN must give a NaN code whatever the overflow rule: only the clamp turns it into -max.
    {"AUDIT-NAN-001", {{"bug_kvq_nan_clamped_f32", "FAIL"}, {"bug_kvq_never_saturates_f32", "PASS"}}},
    // In range: the rounding, the range and the direction of the scale; the overflow rule is not
    // this obligation's (its values round inside the range).
    {"FALSIFY-FP8-002",
     {{"bug_kvq_truncates_f32", "FAIL"},
      {"bug_kvq_truncates_bf16", "FAIL"},
      {"bug_kvq_e4m3_max_240_f32", "FAIL"},
      {"bug_kvq_multiplies_f32", "FAIL"},
      // Wrong only at an exact midpoint, which x / scale is exactly (a power-of-two scale): judged there
      // with no slack.
      {"bug_kvq_ties_away_f32", "FAIL"},
      {"bug_kvq_ties_away_bf16", "FAIL"},
      {"bug_kvq_ties_away_f16", "FAIL"},
      {"bug_kvq_never_saturates_f32", "PASS"},
      {"bug_kvq_always_saturates_f32", "PASS"},
      {"bug_kvq_nan_clamped_f32", "PASS"}}},
    {"FALSIFY-FP8-003",
     {{"bug_kvq_never_saturates_f32", "FAIL"},
      {"bug_kvq_always_saturates_f32", "FAIL"},
      {"bug_kvq_nan_clamped_f32", "FAIL"},
      {"bug_kvq_multiplies_f32", "FAIL"},
      // E4M3FN 464 = 448 + 16 exactly (a power-of-two scale): 448 to even, NaN away without saturation.
      {"bug_kvq_ties_away_f32", "FAIL"}}},
};

// ---- in process: the reader ---------------------------------------------------------------------

// A fixed case: B = 1, H = 4 query heads over H_kv = 2 key/value heads, n = 3 queries against m = 4
// keys, causal bottom-right (query i sees keys j <= i + 1), d = 3, dv = 2, per-head scales that
// differ (so that one read as the other, or not at all, changes the answer), E4M3FN codes of both
// signs, normal and subnormal, none NaN.
struct Fixed {
  kernels::AttentionProblem p;
  Fp8Spec spec{Fp8Format::e4m3fn, true};
  kernels::Fp8Scales sc{{0.25f, 3.0f}, {0.5f, 8.0f}};
  std::vector<float> q;
  std::vector<std::uint8_t> k8, v8;
  Fixed() {
    p.shape = {.batch = 1, .heads = 4, .kv_heads = 2, .n = 3, .m = 4, .d = 3, .dv = 2};
    p.scale = 0.5;
    p.mask.causal = true;
    p.mask.alignment = kernels::Alignment::bottom_right;
    for (std::size_t i = 0; i < p.shape.q_size(); ++i) q.push_back(static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4);
    for (std::size_t i = 0; i < p.shape.k_size(); ++i) k8.push_back(static_cast<std::uint8_t>((i * 37 % 0x5b + 2) | (i % 3 == 0 ? 0x80 : 0)));
    for (std::size_t i = 0; i < p.shape.v_size(); ++i) v8.push_back(static_cast<std::uint8_t>((i * 29 % 0x61 + 1) | (i % 4 == 1 ? 0x80 : 0)));
  }
};

// The dense attention in double of the dequantized values decode(code) · scale (exact in double):
// o (B × n × H × dv) and the LSE (B × H × n); every row of the fixed case sees a key.
std::pair<std::vector<double>, std::vector<double>> exact(const Fixed& f) {
  const auto& sh = f.p.shape;
  std::vector<double> o(sh.o_size(), 0.0), l(sh.lse_size(), 0.0);
  const auto kx = [&](std::size_t j, std::size_t g, std::size_t t) {
    return kernels::fp8_decode(f.spec.format, f.k8[sh.k_at(0, j, g) + t]) * static_cast<double>(f.sc.k[g]);
  };
  const auto vx = [&](std::size_t j, std::size_t g, std::size_t c) {
    return kernels::fp8_decode(f.spec.format, f.v8[sh.v_at(0, j, g) + c]) * static_cast<double>(f.sc.v[g]);
  };
  for (std::size_t i = 0; i < sh.n; ++i)
    for (std::size_t h = 0; h < sh.heads; ++h) {
      const std::size_t g = sh.kv_head(h);
      const auto r = f.p.mask.visible(i, sh.n, sh.m);
      std::vector<double> s;
      for (std::size_t j = r.first; j < r.last; ++j) {
        double dot = 0;
        for (std::size_t t = 0; t < sh.d; ++t) dot += static_cast<double>(f.q[sh.q_at(0, i, h) + t]) * kx(j, g, t);
        s.push_back(dot * f.p.scale);
      }
      double M = -std::numeric_limits<double>::infinity(), Z = 0;
      for (double x : s) M = std::max(M, x);
      for (double x : s) Z += std::exp(x - M);
      l[sh.lse_at(0, h, i)] = M + std::log(Z);
      for (std::size_t u = 0; u < s.size(); ++u)
        for (std::size_t c = 0; c < sh.dv; ++c) o[sh.o_at(0, i, h) + c] += std::exp(s[u] - M) / Z * vx(r.first + u, g, c);
    }
  return {o, l};
}

struct Attended {
  std::vector<float> o, lse;
};

// Calls the library's symbol once through LibraryBackend and audited_kernels<float>, as an audit does.
// lse_declared: Policy::returns_lse of the kernel.
Attended read_via(const std::string& symbol, const Fixed& f, bool lse_declared = true) {
  LibraryBackend b(ATTNCHECK_AUDIT_TESTLIB_FP8KV, {{Kind::attention_fp8kv, Dtype::f32, symbol}}, Limits{}, 0);
  CallStats st;
  const KernelSet<float> ks = audited_kernels<float>(b, st, true, true, true, true, lse_declared);
  Attended a{std::vector<float>(f.p.shape.o_size(), 7.0f), std::vector<float>(f.p.shape.lse_size(), 7.0f)};  // 7: not written
  ks.attention_fp8kv(f.p, f.spec, f.sc, {}, f.q.data(), f.k8.data(), f.v8.data(), a.o.data(), a.lse.data());
  return a;
}

template <class F>
std::string fault_of(const F& call) {
  try {
    call();
  } catch (const KernelFault& e) {
    return e.what();
  }
  return "";
}

// Whether every element of got is within 1e-5 (relative, or absolute near 0) of want.
bool close(const std::vector<float>& got, const std::vector<double>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(double(got[i]) - want[i]) <= 1e-5 * std::max(1.0, std::abs(want[i])))) return false;
  return true;
}

// o of the rows of query head h against the exact one.
bool head_close(const Fixed& f, const std::vector<float>& got, const std::vector<double>& o, std::size_t h) {
  const auto& sh = f.p.shape;
  for (std::size_t i = 0; i < sh.n; ++i)
    for (std::size_t c = 0; c < sh.dv; ++c) {
      const std::size_t e = sh.o_at(0, i, h) + c;
      if (!(std::abs(double(got[e]) - o[e]) <= 1e-5 * std::max(1.0, std::abs(o[e])))) return false;
    }
  return true;
}

// ---- in process: the writer ----------------------------------------------------------------------

// Every finite code of the format of both signs, every midpoint between neighbouring codes (ties:
// round half to even) and the value just below it, values around the smallest subnormal, the
// overflow boundary max + quantum/2 and just around it, far beyond, ±inf and NaN, as T holds them:
// the values a write must get exactly right.
template <class T>
std::vector<T> write_landmarks(Fp8Format fmt) {
  std::vector<T> xs;
  T prev = 0;
  for (int c = 0; c < 0x80; ++c) {
    const T v = static_cast<T>(kernels::fp8_decode(fmt, static_cast<std::uint8_t>(c)));
    if (!std::isfinite(v)) break;
    const T mid = (prev + v) / 2;  // exact: at most 5 significant bits
    for (T s : {T(1), T(-1)}) xs.insert(xs.end(), {s * v, s * mid, s * std::nextafter(mid, T(0))});
    prev = v;
  }
  const T top = static_cast<T>(kernels::fp8_max(fmt)), edge = top + (fmt == Fp8Format::e4m3fn ? T(16) : T(4096));
  const T inf = std::numeric_limits<T>::infinity();
  for (T s : {T(1), T(-1)})
    xs.insert(xs.end(), {s * edge, s * std::nextafter(edge, T(0)), s * std::nextafter(edge, inf), s * (2 * edge - top), s * top * T(1e6), s * inf,
                         s * T(0x1p-30)});
  xs.push_back(std::numeric_limits<T>::quiet_NaN());
  return xs;
}

// The codes the library's symbol (of storage T: its name ends in _f32 or _f64) writes for x, through
// LibraryBackend and audited_kernels<T>.
template <class T>
std::vector<std::uint8_t> write_via(const std::string& symbol, Fp8Spec spec, const std::vector<T>& x, float scale = 1) {
  LibraryBackend b(ATTNCHECK_AUDIT_TESTLIB_FP8KV, {{Kind::kv_quantize, std::is_same_v<T, double> ? Dtype::f64 : Dtype::f32, symbol}}, Limits{}, 0);
  CallStats st;
  const KernelSet<T> ks = audited_kernels<T>(b, st);
  std::vector<std::uint8_t> codes(x.size(), 0x55);
  ks.fp8_quantize(spec, x.data(), x.size(), scale, codes.data());
  return codes;
}

// The first landmark whose code from symbol differs from attncheck's correctly rounded one (by value,
// NaN equal to NaN, ±0 equal), as "x -> got (want)", or "".
template <class T>
std::string first_wrong(const std::string& symbol, Fp8Spec spec) {
  const auto x = write_landmarks<T>(spec.format);
  const auto got = write_via<T>(symbol, spec, x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double g = kernels::fp8_decode(spec.format, got[i]),
                 w = kernels::fp8_decode(spec.format, kernels::fp8_encode(spec, static_cast<double>(x[i])));
    if (!(g == w || (std::isnan(g) && std::isnan(w)))) return decimal(static_cast<double>(x[i])) + " -> " + decimal(g) + " (" + decimal(w) + ")";
  }
  return "";
}

}  // namespace

TEST_CASE("attention fp8kv in process: the plain reader answers as the attention in double of the dequantized codes, as the reference does") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const Attended a = read_via("fp8kv_plain_f32", f);
  CHECK(close(a.o, o));
  CHECK(close(a.lse, l));
  const KernelSet<float> ref = reference_kernels_in_storage<float>();
  std::vector<float> ro(f.p.shape.o_size()), rl(f.p.shape.lse_size());
  ref.attention_fp8kv(f.p, f.spec, f.sc, {}, f.q.data(), f.k8.data(), f.v8.data(), ro.data(), rl.data());
  CHECK(close(ro, o));
  CHECK(close(rl, l));
  // The partial kernel reads E4M3FN as the plain one does.
  CHECK(close(read_via("fp8kv_e4m3_only_f32", f).o, o));
}

TEST_CASE("attention fp8kv in process: a reader declared without LSE is given NULL, and the caller's lse is left as it was") {
  const Fixed f;
  const auto [o, l] = exact(f);
  const Attended a = read_via("fp8kv_plain_f32", f, /*lse_declared=*/false);
  CHECK(a.lse == std::vector<float>(f.p.shape.lse_size(), 7.0f));
  CHECK(close(a.o, o));
}

TEST_CASE("attention fp8kv in process: each scale and decoding bug changes the answer where it should") {
  const Fixed f;
  const auto [o, l] = exact(f);
  CHECK_FALSE(close(read_via("bug_fp8kv_k_scale_missing_f32", f).o, o));
  CHECK_FALSE(close(read_via("bug_fp8kv_v_scale_twice_f32", f).o, o));
  CHECK_FALSE(close(read_via("bug_fp8kv_k_scale_for_v_f32", f).o, o));
  CHECK_FALSE(close(read_via("bug_fp8kv_e4m3_as_e5m2_f32", f).o, o));
  // Head 0's scales are read for every head: query heads 0 and 1 (key/value head 0) stay right,
  // 2 and 3 (key/value head 1) do not.
  const Attended tensor = read_via("bug_fp8kv_per_head_as_tensor_f32", f);
  CHECK(head_close(f, tensor.o, o, 0));
  CHECK(head_close(f, tensor.o, o, 1));
  CHECK_FALSE(head_close(f, tensor.o, o, 2));
  CHECK_FALSE(head_close(f, tensor.o, o, 3));
  // Finite codes only: the field-wise decoder is right there.
  CHECK(close(read_via("bug_fp8kv_nan_code_finite_f32", f).o, o));
}

TEST_CASE("attention fp8kv in process: a NaN code in k reaches every row that sees it, and decoded from its fields it gives 480") {
  Fixed f;
  const auto& sh = f.p.shape;
  f.k8[sh.k_at(0, 0, 1) + 2] = 0x7f;  // key 0 of key/value head 1: seen by every row of query heads 2 and 3
  const Attended a = read_via("fp8kv_plain_f32", f);
  for (std::size_t i = 0; i < sh.n; ++i)
    for (std::size_t h = 0; h < sh.heads; ++h) {
      const bool nan = std::isnan(a.o[sh.o_at(0, i, h)]) && std::isnan(a.lse[sh.lse_at(0, h, i)]);
      CHECK(nan == (h >= 2));
    }
  const Attended bug = read_via("bug_fp8kv_nan_code_finite_f32", f);
  for (float x : bug.o) CHECK(std::isfinite(x));
}

TEST_CASE("attention fp8kv in process: stray writes past o and into v_scale are faults that say where, with the scales") {
  const Fixed f;
  const std::string o = fault_of([&] { read_via("bug_fp8kv_o_overrun_f32", f); });
  INFO(o);
  CHECK(contains(o, "attention_fp8kv<f32> wrote past the end of its output o (byte 0 after element 24 of 24 changed)"));
  CHECK(contains(o, "B = 1, H = 4, H_kv = 2, n = 3, m = 4"));
  CHECK(contains(o, "E4M3FN codes, per-head scales k [0.250000, 3.000000], v [0.500000, 8.000000]"));
  CHECK(contains(o, "k codes: [0x82, 0x27"));
  CHECK(contains(fault_of([&] { read_via("bug_fp8kv_writes_v_scale_f32", f); }), "modified its input v_scale (element 0 changed)"));
  const std::string codes = fault_of([] { write_via<float>("bug_kvq_codes_overrun_f32", {Fp8Format::e5m2, false}, {1.0f, 2.0f, 3.0f}); });
  INFO(codes);
  CHECK(contains(codes, "kv_quantize<f32> wrote past the end of its output codes (byte 0 after element 3 of 3 changed)"));
  CHECK(contains(codes, "n = 3, E5M2 non-saturating, scale 0x3f800000 (1)"));
}

TEST_CASE("kv_quantize in process: the plain writer gives attncheck's correctly rounded code at every landmark of both formats and rules") {
  for (Fp8Format fmt : {Fp8Format::e4m3fn, Fp8Format::e5m2})
    for (bool sat : {true, false}) {
      const Fp8Spec spec{fmt, sat};
      INFO(spec.describe());
      CHECK(first_wrong<double>("kvq_plain_f64", spec) == "");
      CHECK(first_wrong<float>("kvq_plain_f32", spec) == "");
    }
  // The boundaries ONNX Runtime's CPU Cast gets wrong (docs/research/served-attention.md): E4M3FN 480
  // is NaN without saturation (it rounds to 480, beyond 448), E5M2 61440 rounds to 2^16 (the tie goes
  // to the even code, 0x7c): +inf without saturation; both are the largest finite with it.
  const auto e4 = write_via<double>("kvq_plain_f64", {Fp8Format::e4m3fn, false}, {480, 464, -480});
  CHECK(e4 == std::vector<std::uint8_t>{0x7f, 0x7e, 0xff});
  CHECK(write_via<double>("kvq_plain_f64", {Fp8Format::e4m3fn, true}, {480})[0] == 0x7e);
  CHECK(write_via<double>("kvq_plain_f64", {Fp8Format::e5m2, false}, {61440, -61440})[1] == 0xfc);
  CHECK(write_via<double>("kvq_plain_f64", {Fp8Format::e5m2, false}, {61440})[0] == 0x7c);
  CHECK(write_via<double>("kvq_plain_f64", {Fp8Format::e5m2, true}, {61440})[0] == 0x7b);
  // The scale divides: 3 at scale 0.5 is 6 (E4M3FN 0x4c).
  CHECK(write_via<double>("kvq_plain_f64", {Fp8Format::e4m3fn, true}, {3.0}, 0.5f)[0] == 0x4c);
}

TEST_CASE("kv_quantize in process: each writing bug gives a wrong code where it should, and only there") {
  const Fp8Spec e4sat{Fp8Format::e4m3fn, true}, e4{Fp8Format::e4m3fn, false}, e5sat{Fp8Format::e5m2, true}, e5{Fp8Format::e5m2, false};
  // The overflow rule confused: right under the rule it does follow, wrong under the other.
  CHECK(first_wrong<float>("bug_kvq_never_saturates_f32", e4) == "");
  CHECK(first_wrong<float>("bug_kvq_never_saturates_f32", e4sat) != "");
  CHECK(first_wrong<float>("bug_kvq_always_saturates_f32", e5sat) == "");
  CHECK(first_wrong<float>("bug_kvq_always_saturates_f32", e5) != "");
  // NaN clamped to -max: under saturation only.
  CHECK(first_wrong<float>("bug_kvq_nan_clamped_f32", e5) == "");
  CHECK(contains(first_wrong<float>("bug_kvq_nan_clamped_f32", e5sat), "nan -> -57344"));
  // Truncation: every format and rule.
  for (const auto& s : {e4sat, e4, e5sat, e5}) CHECK(first_wrong<float>("bug_kvq_truncates_f32", s) != "");
  // E4M3FN clamped at 240: saturating E4M3FN only.
  CHECK(first_wrong<float>("bug_kvq_e4m3_max_240_f32", e5sat) == "");
  CHECK(first_wrong<float>("bug_kvq_e4m3_max_240_f32", e4) == "");
  CHECK(first_wrong<float>("bug_kvq_e4m3_max_240_f32", e4sat) != "");
  // Ties away from zero: only at a midpoint whose even neighbour is the one nearer zero. E4M3FN has
  // spacing 1 in [8, 16): 8.5 (between 8 = 1.000·2³ and 9 = 1.001·2³) is 8 to even, 9 away; 10.5 is 10
  // or 11; 9.5 is 10 either way; 9.25 is no tie.
  for (const auto& s : {e4sat, e4}) {
    CHECK(write_via<float>("bug_kvq_ties_away_f32", s, {8.5f, 10.5f, 9.5f, 9.25f, -8.5f}) ==
          write_via<float>("kvq_plain_f32", s, {9.0f, 11.0f, 10.0f, 9.0f, -9.0f}));
    CHECK(write_via<float>("kvq_plain_f32", s, {8.5f})[0] == write_via<float>("kvq_plain_f32", s, {8.0f})[0]);
  }
  // E4M3FN 464 (between 448 and the first value past the range): 448 to even, the overflow rule away.
  CHECK(write_via<float>("bug_kvq_ties_away_f32", e4, {464.0f})[0] == 0x7f);
  CHECK(write_via<float>("kvq_plain_f32", e4, {464.0f})[0] == 0x7e);
}

TEST_CASE("attention fp8kv and kv_quantize in process: a version-1 library binding them is refused with the ABI's message") {
  CHECK_THROWS_WITH_AS(LibraryBackend(ATTNCHECK_AUDIT_TESTLIB, {{Kind::attention_fp8kv, Dtype::f32, "ok_softmax_f32"}}, Limits{}, 0),
                       doctest::Contains("attention_fp8kv is a kind of ABI version 2 (include/attncheck/abi.h)"), LoadError);
  CHECK_THROWS_WITH_AS(LibraryBackend(ATTNCHECK_AUDIT_TESTLIB, {{Kind::kv_quantize, Dtype::f32, "ok_softmax_f32"}}, Limits{}, 0),
                       doctest::Contains("kv_quantize is a kind of ABI version 2 (include/attncheck/abi.h)"), LoadError);
}

TEST_CASE("exec protocol kinds 13 and 14: FP8 CALLs and their RESULTs round-trip every bit, format, rule, scales and codes included") {
  const std::vector<std::uint32_t> bits = {0x7fc12345u, 0x80000000u, 0x00000001u, 0xff800000u};
  std::vector<unsigned char> qb(4 * 4);
  std::memcpy(qb.data(), bits.data(), qb.size());
  const auto floats = [](std::vector<float> x) {
    std::vector<unsigned char> b(4 * x.size());
    std::memcpy(b.data(), x.data(), b.size());
    return b;
  };
  for (std::uint64_t asked : {0u, 4u}) {
    // B = 1, H = 4, H_kv = 2, n = 1, m = 2, d = 1, dv = 1: k and v hold m · H_kv = 4 codes each.
    Call c;
    c.kind = Kind::attention_fp8kv;
    c.dtype = Dtype::f32;
    c.n = 1, c.m = 2, c.d = 1, c.dv = 1, c.causal = false;
    c.problem.shape = {.batch = 1, .heads = 4, .kv_heads = 2, .n = 1, .m = 2, .d = 1, .dv = 1};
    c.problem.scale = 0.125;
    c.problem.mask.window_left = 1;
    c.fp8.format = 1;
    c.inputs = {qb, {0x7f, 0x80, 0x01, 0xfe}, {0x00, 0x7c, 0xff, 0x3a}, floats({0.5f, 1e-40f}), floats({3.0f, 65504.0f})};
    c.output_count = 4;
    c.lse_count = asked;
    const auto frame = protocol::encode_call(c);
    CHECK(frame[protocol::header_bytes] == 13);
    const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
    CHECK(back.kind == Kind::attention_fp8kv);
    CHECK(back.problem.shape.heads == 4);
    CHECK(back.problem.shape.kv_heads == 2);
    CHECK(back.problem.mask.window_left == 1);
    CHECK(back.fp8.format == 1);
    CHECK_FALSE(back.fp8.saturating);
    CHECK(back.lse_count == asked);
    CHECK(back.inputs == c.inputs);  // q, the codes k and v (one byte each), then k_scale and v_scale
    // The fp8 block follows the attention block (no slopes, the LSE count): format, saturating,
    // reserved, the scale count, k_scale, v_scale; then the inputs, the codes counted in bytes.
    std::vector<unsigned char> payload(frame.begin() + protocol::header_bytes, frame.end());
    const std::size_t fp8_block = 4 + 4 + 6 * 8 + (3 * 8 + 8 + 4 + 4 + 3 * 8 + 8);
    CHECK(payload[fp8_block] == 1);      // E5M2
    CHECK(payload[fp8_block + 4] == 2);  // scale count: per head
    CHECK(payload[fp8_block + 8 + 16 + 8 + 16] == 4);  // k's count: 4 codes
    CHECK(payload.size() == fp8_block + 8 + 16 + 3 * 8 + 16 + 4 + 4);
    payload[fp8_block + 4] = 3;  // neither 1 nor H_kv
    CHECK_THROWS_WITH_AS(protocol::decode_call(payload), doctest::Contains("holds 3 scales per cache (1 or kv_heads = 2 allowed)"),
                         protocol::ProtocolError);
  }
  // Kind 14: n values, the format, the rule and the one scale; RESULT of n one-byte codes.
  Call w;
  w.kind = Kind::kv_quantize;
  w.dtype = Dtype::bf16_f32;
  w.n = 3;
  w.fp8 = {.format = 0, .saturating = true, .scale = 0.375f};
  w.inputs = {{0x80, 0x7f, 0xc0, 0x7f, 0x80, 0xff}};  // bf16 +inf (bits 0x7f80), NaN (0x7fc0), -inf
  w.output_count = 3;
  const auto frame = protocol::encode_call(w);
  CHECK(frame[protocol::header_bytes] == 14);
  const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
  CHECK(back.kind == Kind::kv_quantize);
  CHECK(back.dtype == Dtype::bf16_f32);
  CHECK(back.n == 3);
  CHECK(back.fp8.format == 0);
  CHECK(back.fp8.saturating);
  CHECK(back.fp8.scale == 0.375f);
  CHECK(back.inputs == w.inputs);
  const std::vector<unsigned char> codes = {0x7e, 0x7f, 0xfe};
  const auto res = protocol::encode_result(0, Dtype::bf16_f32, codes, nullptr, output_size(Kind::kv_quantize, Dtype::bf16_f32));
  const auto r = protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::bf16_f32, 3, std::nullopt, 1);
  CHECK(r.output == codes);
  // Read as bf16 elements (two bytes each), three codes are a short frame.
  CHECK_THROWS_AS(protocol::decode_result({res.begin() + protocol::header_bytes, res.end()}, Dtype::bf16_f32, 3), protocol::ProtocolError);
}

// ---- through the CLI -------------------------------------------------------------------------

TEST_CASE("attention fp8kv: each reader gives the verdict its row in kExpectedRead says for each obligation") {
  check_verdict_table(lib_fp8, "attention_fp8kv", kExpectedRead, kCorrectRead, {"fp8kv_plain_f32", "fp8kv_plain_bf16", "bug_fp8kv_o_overrun_f32"});
}

TEST_CASE("attention fp8kv: the declared masked-row policy holds: NaN rows pass undeclared and fail under --masked zeros, zeros pass it") {
  check_masked_policy(lib_fp8, "attention_fp8kv", {"FALSIFY-FP8-001"}, "fp8kv_nan_rows_f32", "fp8kv_plain_f32");
}

TEST_CASE("kv_quantize: each writer gives the verdict its row in kExpectedWrite says for each obligation") {
  check_verdict_table(lib_fp8, "kv_quantize", kExpectedWrite, kCorrectWrite, {"kvq_plain_f32", "kvq_plain_bf16", "bug_kvq_codes_overrun_f32"});
}

TEST_CASE("fp8: a kernel that supports one format and one overflow rule passes on what it accepts and says what it declined") {
  Run r = cli_audit(lib_fp8 + "--kernel kv_quantize:f32:kvq_e4m3_sat_only_f32 --kernel attention_fp8kv:f32:fp8kv_e4m3_only_f32 "
                              "--test FALSIFY-FP8-001 --test FALSIFY-FP8-003 --cases 20");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.verdicts["FALSIFY-FP8-001 attention_fp8kv [f32]"] == "PASS");
  CHECK(r.verdicts["FALSIFY-FP8-003 kv_quantize [f32]"] == "PASS");
  CHECK(contains(r.json, "declined the input (returned 5) on n = "));
  CHECK(contains(r.json, "declined the input (returned 5) on B = "));
  CHECK(contains(r.json, "E5M2 codes"));
}

TEST_CASE("fp8: kinds of ABI version 2 only, and FALSIFY-FP8-* not applicable without them") {
  Run unmarked = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB + "' --kernel kv_quantize:f32:ok_softmax_f32");
  INFO(unmarked.output);
  CHECK(unmarked.status == 2);
  CHECK(contains(unmarked.output, "kv_quantize is a kind of ABI version 2"));
  // The writer alone: the read's check needs attention_fp8kv.
  Run w = cli_audit(lib_fp8 + "--kernel kv_quantize:f32:kvq_plain_f32 --test FALSIFY-FP8-001 --test FALSIFY-FP8-002 --cases 10");
  INFO(w.output);
  CHECK(w.status == 0);
  CHECK(w.verdicts["FALSIFY-FP8-001 attention_fp8kv [f32]"] == "N/A");
  CHECK(w.verdicts["FALSIFY-FP8-002 kv_quantize [f32]"] == "PASS");
  CHECK(contains(w.json, "needs kind attention_fp8kv at f32"));
}

// The NumPy reference over the exec protocol (CALL kinds 13 and 14, examples/python/).
TEST_CASE("python example: the NumPy FP8 cache (kinds 13 and 14) passes SAFE, DET, NAN and FALSIFY-FP8-* at f32, f64 and bf16") {
  const std::string py =
      std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR + "/python/numpy_attention_fp8kv.py'\" --abi 2 ";
  const std::vector<std::string> ids = {"AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001", "FALSIFY-FP8-001", "FALSIFY-FP8-002",
                                        "FALSIFY-FP8-003"};
  std::string tests;
  for (const auto& id : ids) tests += "--test " + id + " ";
  std::string kernels;
  for (const char* d : {"f32", "f64", "bf16"})
    if (!sanitized_run() || std::string(d) == "f32") kernels += std::string("--kernel attention_fp8kv:") + d + " --kernel kv_quantize:" + d + " ";
  Run r = cli_audit(py + tests + kernels + (sanitized_run() ? "--cases 10 -j 1" : "--cases 20 -j 2"));
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* d : {"f32", "f64", "bf16@f32"}) {
    if (sanitized_run() && std::string(d) != "f32") continue;
    for (const auto& id : ids) {
      const bool write = id == "FALSIFY-FP8-002" || id == "FALSIFY-FP8-003";
      const bool both = id.rfind("AUDIT-", 0) == 0;
      for (const char* kind : {"attention_fp8kv", "kv_quantize"}) {
        if (!both && write != (std::string(kind) == "kv_quantize")) continue;
        CHECK_MESSAGE(r.verdicts[id + " " + kind + " [" + d + "]"] == "PASS", id << " " << kind << " " << d);
      }
    }
  }
}
