// attncheck audit -j: an audit row travels from a worker to the parent unchanged (every field),
// and a truncated or padded one is refused rather than half read.
#include <doctest/doctest.h>

#include "attncheck/audit/runner.hpp"

using namespace attncheck;
using namespace attncheck::audit;

TEST_CASE("an audit row round-trips through its wire form, every field, and a damaged one is refused") {
  AuditRow r;
  r.contract = "audit";
  r.obligations = {"AUDIT-MASK-001", "X"};
  r.kinds = {"log_softmax"};
  r.state = RowState::not_applicable;
  r.reason = "needs kind scores at f32";
  r.outcome.test_id = "AUDIT-MASK-001";
  r.outcome.dtype = Dtype::bf16;
  r.outcome.verdict = property::Verdict::fail;
  r.outcome.worst_ratio = 0.25;
  r.outcome.counterexample = "n = 3";
  r.outcome.findings = {"a", "b"};
  r.stats.calls = 41;
  r.stats.timeouts = 2;
  r.stats.declines = 3;
  r.stats.first_decline = "softmax<f32> declined the input (returned 7) on n = 270";
  r.stats.first_decline_shape = "B=1,H=1,Hkv=1,n=2,m=1,d=1";
  r.stats.out_of_memory = "attention<f32> ran out of memory";
  r.stats.timeout_budget = 9;
  r.stats.shown_elements = static_cast<std::size_t>(-1);
  r.masked_policy = "zeros";
  r.stats.not_drawn = 17;
  r.stats.not_drawn_features = {{"alibi", 9}, {"page_size=3", 8}};
  r.stats.accepted_uses = {{"causal group=1", 30}};
  r.stats.declined_uses = {{"non_causal group=2", 3}};
  const std::string wire = encode_row(r);
  const auto back = decode_row(wire);
  REQUIRE(back.has_value());
  CHECK(encode_row(*back) == wire);
  CHECK(back->contract == r.contract);
  CHECK(back->obligations == r.obligations);
  CHECK(back->kinds == r.kinds);
  CHECK(back->state == r.state);
  CHECK(back->reason == r.reason);
  CHECK(back->outcome.dtype == Dtype::bf16);
  CHECK(back->outcome.findings == r.outcome.findings);
  CHECK(back->stats.calls == 41);
  CHECK(back->stats.timeouts == 2);
  CHECK(back->stats.declines == 3);
  CHECK(back->stats.first_decline == r.stats.first_decline);
  CHECK(back->stats.first_decline_shape == r.stats.first_decline_shape);
  CHECK(back->stats.out_of_memory == r.stats.out_of_memory);
  CHECK(back->stats.timeout_budget == 9);
  CHECK(back->stats.shown_elements == r.stats.shown_elements);
  CHECK(back->masked_policy == "zeros");
  CHECK(back->stats.not_drawn == 17);
  CHECK(back->stats.not_drawn_features == r.stats.not_drawn_features);
  CHECK(back->stats.accepted_uses == r.stats.accepted_uses);
  CHECK(back->stats.declined_uses == r.stats.declined_uses);
  CHECK(!decode_row(wire.substr(0, wire.size() - 1)).has_value());
  CHECK(!decode_row(wire + "x").has_value());
  CHECK(!decode_row("").has_value());
}
