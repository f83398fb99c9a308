// attncheck audit tests: `--attention-shape` (audit/attention_shape.hpp): the word parses to the
// problem it names and back, every malformed word is refused with the key at fault, and the audit
// runs AUDIT-ATTB-002 at the shapes given (a correct kernel passes there, a broken one fails, the
// replay line carries the shape).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/audit/attention_shape.hpp"
#include "tests/run_rapidcheck_body.hpp"

#include "tests/audit/audit_cli.hpp"
#include "tests/test_paths.hpp"

namespace {

using attncheck::audit::attention_shape_spec;
using attncheck::audit::parse_attention_shape;
using attncheck::kernels::Alignment;
using attncheck::kernels::AttentionProblem;
using attncheck::audit::InputMagnitudes;
using attncheck::audit::SizedProblem;
using attncheck_tests::audit_cli::audit;
using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;

const std::string lib_v2 = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_V2 + "' ";

}  // namespace

TEST_CASE("--attention-shape: the issue's shape, its defaults, and the word written back parses to the same problem") {
  AttentionProblem p;
  REQUIRE(parse_attention_shape("B=1,H=32,Hkv=8,n=4096,m=4096,d=128,causal=br", p) == "");
  CHECK(p.shape.batch == 1);
  CHECK(p.shape.heads == 32);
  CHECK(p.shape.kv_heads == 8);
  CHECK(p.shape.n == 4096);
  CHECK(p.shape.m == 4096);
  CHECK(p.shape.d == 128);
  CHECK(p.shape.dv == 128);                      // dv defaults to d
  CHECK(p.scale == 1 / std::sqrt(128.0));        // scale defaults to 1/sqrt(d)
  CHECK(p.mask.causal);
  CHECK(p.mask.alignment == Alignment::bottom_right);
  CHECK(p.mask.window_left == -1);
  CHECK(p.softcap == 0);
  CHECK(p.alibi_slopes.empty());

  AttentionProblem q;
  REQUIRE(parse_attention_shape("n=1,m=32768,d=256,H=8,Hkv=1,scale=0.1,align=br,window=1000:0,softcap=50,alibi=geo", q) == "");
  CHECK(q.shape.kv_heads == 1);
  CHECK(!q.mask.causal);
  CHECK(q.mask.alignment == Alignment::bottom_right);
  CHECK(q.mask.window_left == 1000);
  CHECK(q.mask.window_right == 0);
  REQUIRE(q.alibi_slopes.size() == 8);
  CHECK(q.alibi_slopes[0] == 0.5);               // 2^(-8/8)
  CHECK(q.alibi_slopes[7] == std::exp2(-8.0));
  for (const AttentionProblem* x : {&p, &q}) {
    AttentionProblem back;
    REQUIRE(parse_attention_shape(attention_shape_spec(*x), back) == "");
    CHECK(attention_shape_spec(back) == attention_shape_spec(*x));
    CHECK(back.describe() == x->describe());
    CHECK(back.scale == x->scale);                // bit for bit
    CHECK(back.alibi_slopes == x->alibi_slopes);
  }
}

TEST_CASE("--attention-shape: every malformed word is refused with the key at fault") {
  const std::pair<const char*, const char*> bad[] = {
      {"H=4,n=8,d=16", "missing m"},
      {"n=8,m=8,d=16,heads=4", "unknown key 'heads'"},
      {"n=8,m=8,d=16,n=9", "given twice"},
      {"n=8,m=8,d=16,H=6,Hkv=4", "not a multiple"},
      {"n=0,m=8,d=16", "positive integer"},
      {"n=8,m=8,d=-3", "positive integer"},
      {"n=8,m=8,d=16,scale=0", "positive finite"},
      {"n=8,m=8,d=16,scale=nan", "positive finite"},
      {"n=8,m=8,d=16,causal=yes", "off, tl"},
      {"n=8,m=8,d=16,causal=tl,align=br", "contradicts"},
      {"n=8,m=8,d=16,window=3", "L:R"},
      {"n=8,m=8,d=16,window=-2:0", "L:R"},
      {"n=8,m=8,d=16,softcap=-1", ">= 0"},
      {"n=8,m=8,d=16,H=2,alibi=0.5", "1 slopes for H = 2"},
      {"n=8,m=8,d=16,H=2,alibi=0.5/x", "alibi slope 'x'"},
      {"n=8,m=8,d=16,window", "not key=value"},
      {"B=64,H=64,n=8192,m=8192,d=256", "2^28"},
  };
  for (auto [spec, why] : bad) {
    AttentionProblem p;
    const std::string e = parse_attention_shape(spec, p);
    INFO(std::string(spec) << " -> " << e);
    CHECK(contains(e, why));
  }
}

TEST_CASE("--attention-shape: AUDIT-ATTB-002 runs at the shapes given, a correct kernel passes, a window off by one fails, the replay keeps the shape") {
  const std::string shape = " --attention-shape B=2,H=4,Hkv=2,n=150,m=333,d=32,causal=br,window=40:0,softcap=20,alibi=geo";
  Run ok = audit(lib_v2 + "--kernel attention:f32:v2_tiled_f32 --masked zeros --test AUDIT-ATTB-002" + shape);
  INFO(ok.output);
  CHECK(ok.status == 0);
  CHECK(ok.verdicts["AUDIT-ATTB-002 attention [f32]"] == "PASS");

  Run bug = audit(lib_v2 + "--kernel attention:f32:bug_v2_window_left_f32 --masked zeros --test AUDIT-ATTB-002" + shape);
  INFO(bug.output);
  CHECK(bug.status == 1);
  CHECK(bug.verdicts["AUDIT-ATTB-002 attention [f32]"] == "FAIL");
  CHECK(contains(bug.output, "--attention-shape B=2,H=4,Hkv=2,n=150,m=333,d=32,dv=32,scale=0.17677669529663687,causal=br,align=br,window=40:0"));

  Run usage = audit(lib_v2 + "--kernel attention:f32:v2_tiled_f32 --attention-shape n=8,m=8");
  INFO(usage.output);
  CHECK(usage.status == 2);
  CHECK(contains(usage.output, "--attention-shape 'n=8,m=8': missing d"));
}

TEST_CASE("--attention-shape: qk=LO:HI and shift=S parse, and are written back bit for bit") {
  SizedProblem p;
  REQUIRE(parse_attention_shape("n=3,m=300,d=8,qk=0.1:900,shift=-1e5", p) == "");
  CHECK(p.problem.shape.m == 300);
  CHECK(p.inputs.qk_lo == 0.1);
  CHECK(p.inputs.qk_hi == 900);
  CHECK(p.inputs.shift == -1e5);
  SizedProblem q;
  REQUIRE(parse_attention_shape("n=1,m=2048,d=128,H=8,Hkv=2,causal=br,shift=0.30000000000000004", q) == "");
  CHECK(q.inputs.qk_hi == 0);  // not given: the default normal draw
  CHECK(q.inputs.shift == 0.30000000000000004);
  SizedProblem r;
  REQUIRE(parse_attention_shape("n=2,m=2,d=2,qk=3:3", r) == "");
  CHECK(r.inputs == InputMagnitudes{3, 3, 0});
  for (const SizedProblem* x : {&p, &q, &r}) {
    const std::string spec = attention_shape_spec(*x);
    INFO(spec);
    SizedProblem back;
    REQUIRE(parse_attention_shape(spec, back) == "");
    CHECK(attention_shape_spec(back) == spec);
    CHECK(back.inputs == x->inputs);  // bit for bit
    CHECK(back.problem.describe() == x->problem.describe());
  }
  CHECK(contains(attention_shape_spec(p), ",qk=0.10000000000000001:900,shift=-100000"));
  // Without magnitudes the word is the problem's alone, as before.
  SizedProblem plain;
  REQUIRE(parse_attention_shape("n=8,m=8,d=16", plain) == "");
  CHECK(attention_shape_spec(plain) == attention_shape_spec(plain.problem));
  // A caller that keeps the problem alone takes the word without magnitudes, and refuses them.
  AttentionProblem alone;
  CHECK(parse_attention_shape("n=8,m=8,d=16", alone) == "");
  CHECK(contains(parse_attention_shape("n=8,m=8,d=16,qk=1:2", alone), "qk"));
  CHECK(contains(parse_attention_shape("n=8,m=8,d=16,shift=-1e5", alone), "shift"));
}

TEST_CASE("--attention-shape: malformed qk and shift are refused with the key at fault") {
  const std::pair<const char*, const char*> bad[] = {
      {"n=8,m=8,d=16,qk=5", "qk = '5'"},           {"n=8,m=8,d=16,qk=3:1", "qk = '3:1'"},
      {"n=8,m=8,d=16,qk=-1:2", "qk = '-1:2'"},     {"n=8,m=8,d=16,qk=0:0", "qk = '0:0'"},
      {"n=8,m=8,d=16,qk=1:inf", "qk = '1:inf'"},   {"n=8,m=8,d=16,qk=a:b", "qk = 'a:b'"},
      {"n=8,m=8,d=16,shift=inf", "shift = 'inf'"}, {"n=8,m=8,d=16,shift=x", "shift = 'x'"},
      {"n=8,m=8,d=16,shift=1,shift=2", "given twice"},
  };
  for (auto [spec, why] : bad) {
    SizedProblem p;
    const std::string e = parse_attention_shape(spec, p);
    INFO(std::string(spec) << " -> " << e);
    CHECK(contains(e, why));
  }
}

namespace {

// An f32 attention that starts its running maximum at a finite sentinel (-5e4) instead of -inf:
// a row whose every visible score is below it gets exp(s - (-5e4)) = 0 for every key and 0/0.
void sentinel_attention(const AttentionProblem& p, attncheck::kernels::Tiling, const float* q, const float* k, const float* v, float* o, float* lse) {
  const auto& s = p.shape;
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < s.n; ++i) {
        const auto vis = p.mask.visible(i, s.n, s.m);
        std::vector<float> sc;
        float mx = -5e4f;
        for (std::size_t j = vis.first; j < vis.last; ++j) {
          float acc = 0;
          for (std::size_t t = 0; t < s.d; ++t) acc += q[s.q_at(b, i, h) + t] * k[s.k_at(b, j, s.kv_head(h)) + t];
          sc.push_back(acc * static_cast<float>(p.scale));
          mx = std::max(mx, sc.back());
        }
        float l = 0;
        for (float x : sc) l += std::exp(x - mx);
        for (std::size_t c = 0; c < s.dv; ++c) {
          float acc = 0;
          for (std::size_t jj = 0; jj < sc.size(); ++jj) acc += std::exp(sc[jj] - mx) * v[s.v_at(b, vis.first + jj, s.kv_head(h)) + c];
          o[s.o_at(b, i, h) + c] = sc.empty() ? 0 : acc / l;
        }
        if (lse) lse[s.lse_at(b, h, i)] = sc.empty() ? -std::numeric_limits<float>::infinity() : mx + std::log(l);
      }
}

}  // namespace

TEST_CASE("--attention-shape: AUDIT-ATTB-002 draws the magnitudes asked for, shift=-1e5 catches a running maximum started at -5e4") {
  using namespace attncheck;
  // The drawing: magnitudes in [LO, HI] with both signs, clamped to the storage format's range.
  std::mt19937_64 rng(7);
  const auto x = audit::detail::magnitude_tensor<float>(rng, 1000, 2, 3);
  CHECK(std::all_of(x.begin(), x.end(), [](float e) { return std::abs(e) >= 2 && std::abs(e) <= 3; }));
  CHECK(std::any_of(x.begin(), x.end(), [](float e) { return e < 0; }));
  CHECK(std::any_of(x.begin(), x.end(), [](float e) { return e > 0; }));
  const auto h = audit::detail::magnitude_tensor<f16>(rng, 100, 1e5, 1e5);
  CHECK(std::all_of(h.begin(), h.end(), [](f16 e) { return std::abs(static_cast<double>(e)) == 65504; }));

  SizedProblem sp;
  REQUIRE(parse_attention_shape("B=1,H=2,Hkv=1,n=3,m=200,d=8,causal=br,shift=-1e5", sp) == "");
  const auto run = [&](const KernelSet<float>& ks) {
    return testing::run_body(
        [&] {
          audit::SizedAuditStats st;
          audit::audit_attention_at_size<float>(ks, sp.problem, 0x5eed, [](const float*, std::size_t) { return true; }, st, sp.inputs);
        },
        1);
  };
  const KernelSet<float> ref = reference_kernels<float>();
  const property::Outcome ok = run(ref);
  INFO(ok.counterexample);
  CHECK(ok.verdict == property::Verdict::pass);
  KernelSet<float> bug = ref;
  bug.attention_batched = sentinel_attention;
  const property::Outcome caught = run(bug);
  INFO(caught.counterexample);
  CHECK(caught.verdict == property::Verdict::fail);
  CHECK(contains(caught.counterexample, "scores shifted by about -100000"));
  // Without the shift the same kernel passes: every score is moderate.
  sp.inputs.shift = 0;
  CHECK(run(bug).verdict == property::Verdict::pass);
}
