// attncheck audit tests: `--attention-shape` (audit/attention_shape.hpp): the word parses to the
// problem it names and back, every malformed word is refused with the key at fault, and the audit
// runs AUDIT-ATTB-002 at the shapes given (a correct kernel passes there, a broken one fails, the
// replay line carries the shape).
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "attncheck/audit/attention_shape.hpp"

#include "tests/audit/audit_cli.hpp"

namespace {

using attncheck::audit::attention_shape_spec;
using attncheck::audit::parse_attention_shape;
using attncheck::kernels::Alignment;
using attncheck::kernels::AttentionProblem;
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
