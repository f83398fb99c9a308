// attncheck audit: the runner. A registered property runs unchanged against the audited kernels,
// which travel on property::RunParams::kernels in place of the reference, so seeds, shrinking budget
// and reports are the gate's own.
#include "attncheck/audit/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "attncheck/property/parallel.hpp"
#include "attncheck/text/numbers.hpp"

namespace attncheck::audit {

namespace {

constexpr int probe_cases = 10;  // cases used to see which kernel kinds a property calls

// Runs a registered property at T against ks, handed over on RunParams (property/registry.hpp), so
// seeds, shrinking budget and reports are the gate's own.
template <class T>
property::Outcome run_with(const property::PropertyInfo& p, KernelSet<T> ks, property::RunParams params) {
  auto sets = std::make_shared<KernelSets>();
  sets->name = ks.name;
  sets->set<T>(std::move(ks));
  params.kernels = std::move(sets);
  return property::run_property(p, dtype_of<T>(), params);
}

// Bit i: Kind with value i (1..14, attention_v2 = KernelSet::attention_batched, kv_quantize =
// KernelSet::fp8_quantize); bit 16:
// rmsnorm_heads, bit 17: attention_hvp, bit 18: position_encoding (no ABI kinds).
constexpr unsigned heads_bit = 1u << 16;
constexpr unsigned hvp_bit = 1u << 17;
constexpr unsigned pe_bit = 1u << 18;
constexpr unsigned no_abi_bits = heads_bit | hvp_bit | pe_bit;
unsigned bit(Kind k) { return 1u << static_cast<unsigned>(k); }

// Thrown by the probe at the first call of a kernel that no ABI kind computes: a property that
// needs one is not applicable whatever else it calls, so the rest of its run would learn nothing.
// Stopping there is what keeps the probe brief: FALSIFY-AEQ-007's body is an exhaustive scan of
// 2^20 position encodings (5 s of every `attncheck audit` at -O2, 80 s under the sanitizers,
// measured 2026-11-28 with perf on `audit --list`), for a check an audit never runs.
struct NoAbiKind : std::runtime_error {
  NoAbiKind() : std::runtime_error("the probe stopped at a kernel with no ABI kind") {}
};

template <class F>
F recorded(F f, unsigned& used, unsigned b) {
  return [f, &used, b](auto... a) {
    used |= b;
    if (b & no_abi_bits) throw NoAbiKind();
    return f(a...);
  };
}

// Which kernel kinds p calls: run it briefly on the reference kernels with a recorder, with the
// capabilities the audited kernels declared (lse: whether attention_v2 returns the LSE), so that a
// check whose subject the kernel declared absent is seen to call nothing.
template <class T>
unsigned probe(const property::PropertyInfo& p, property::RunParams params, bool lse) {
  unsigned used = 0;
  KernelSet<T> k = current_reference_kernels<T>();
  k.attention_batched_lse = k.attention_batched_lse && lse;
  k.attention_merge_lse = k.attention_merge_lse && lse;
  k.softmax = recorded(k.softmax, used, bit(Kind::softmax));
  k.log_softmax = recorded(k.log_softmax, used, bit(Kind::log_softmax));
  k.scores = recorded(k.scores, used, bit(Kind::scores));
  k.rmsnorm = recorded(k.rmsnorm, used, bit(Kind::rmsnorm));
  k.rmsnorm_heads = recorded(k.rmsnorm_heads, used, heads_bit);
  k.entropy = recorded(k.entropy, used, bit(Kind::entropy));
  k.attention = recorded(k.attention, used, bit(Kind::attention));
  k.softmax_jvp = recorded(k.softmax_jvp, used, bit(Kind::softmax_jvp));
  k.attention_hvp = recorded(k.attention_hvp, used, hvp_bit);
  k.position_encoding = recorded(k.position_encoding, used, pe_bit);
  k.attention_batched = recorded(k.attention_batched, used, bit(Kind::attention_v2));
  k.attention_backward = recorded(k.attention_backward, used, bit(Kind::attention_backward));
  k.attention_merge = recorded(k.attention_merge, used, bit(Kind::attention_merge));
  k.attention_varlen = recorded(k.attention_varlen, used, bit(Kind::attention_varlen));
  k.attention_paged = recorded(k.attention_paged, used, bit(Kind::attention_paged));
  k.attention_fp8kv = recorded(k.attention_fp8kv, used, bit(Kind::attention_fp8kv));
  k.fp8_quantize = recorded(k.fp8_quantize, used, bit(Kind::kv_quantize));
  params.cases = probe_cases;
  run_with<T>(p, k, params);
  return used;
}

std::vector<std::string> used_names(unsigned used) {
  std::vector<std::string> v;
  for (Kind k : registered_kinds())
    if (used & bit(k)) v.emplace_back(kind_name(k));
  if (used & heads_bit) v.emplace_back("rmsnorm_heads");
  if (used & hvp_bit) v.emplace_back("attention_hvp");
  if (used & pe_bit) v.emplace_back("position_encoding");
  return v;
}

bool mentions_absent(const property::Outcome& o) {
  return o.counterexample.find(KindAbsent::marker) != std::string::npos || o.message.find(KindAbsent::marker) != std::string::npos;
}

// KernelSet::attention_batched_lse, which attention_v2, attention_varlen, attention_paged and
// attention_fp8kv share: whether the attention kernels provided at T return the LSE. One of them
// declared without it (--no-lse, lse: false) makes it false for all, so a check of the LSE is not
// applicable rather than failed on a NULL it was never given; with none provided, attention's
// declaration (as before varlen).
constexpr Kind batched_lse_kinds[] = {Kind::attention_v2, Kind::attention_varlen, Kind::attention_paged, Kind::attention_fp8kv};

template <class T>
bool batched_lse(const Backend& b, const AuditRequest& req) {
  const Dtype d = dtype_of<T>();
  bool any = false, lse = true;
  for (Kind k : batched_lse_kinds)
    if (b.has(k, d)) any = true, lse = lse && req.policy_for(k, d).returns_lse;
  return any ? lse : req.policy_for(Kind::attention_v2, d).returns_lse;
}

template <class T>
bool has_batched_attention(const Backend& b) {
  for (Kind k : batched_lse_kinds)
    if (b.has(k, dtype_of<T>())) return true;
  return false;
}

template <class T>
KernelSet<T> audited_set(Backend& b, const AuditRequest& req, CallStats& st) {
  const Dtype d = dtype_of<T>();
  KernelSet<T> k = audited_kernels<T>(b, st, batched_lse<T>(b, req), req.policy_for(Kind::attention_merge, d).returns_lse,
                                      req.policy_for(Kind::attention_varlen, d).returns_lse, req.policy_for(Kind::attention_paged, d).returns_lse,
                                      req.policy_for(Kind::attention_fp8kv, d).returns_lse, req.policy_for(Kind::attention_v2, d).splits);
  k.attention_paged_page_size_invariant = req.policy_for(Kind::attention_paged, d).page_size_invariant;
  k.attention_varlen_packing_invariant = req.policy_for(Kind::attention_varlen, d).packing_invariant;
  // The masked-row policy of each attention kind (--masked, masked:), which every judge of a row
  // with no key applies (property/attention_row_judge.hpp): the dense kernel's also split.
  k.attention_batched_masked = req.policy_for(Kind::attention_v2, d).masked;
  k.attention_merge_masked = req.policy_for(Kind::attention_merge, d).masked;
  k.attention_varlen_masked = req.policy_for(Kind::attention_varlen, d).masked;
  k.attention_paged_masked = req.policy_for(Kind::attention_paged, d).masked;
  k.attention_fp8kv_masked = req.policy_for(Kind::attention_fp8kv, d).masked;
  return k;
}

// The capabilities each provided kind declared at T (capabilities.hpp); empty: nothing declared.
template <class T>
DeclaredKinds declared_at(const Backend& b, const AuditRequest& req) {
  DeclaredKinds d;
  for (Kind k : registered_kinds())
    if (b.has(k, dtype_of<T>()))
      if (Capabilities c = capabilities_for(req.policy_for(k, dtype_of<T>()).supports, k); c.any()) d[k] = std::move(c);
  return d;
}

// A declared kernel's draws outside its declaration are discarded, not sent: RapidCheck may then
// discard this many per case asked before it gives up (a check with no input inside ends N/A at
// nothing_inside_after draws, audited_kernels.hpp); undeclared, its own limit of 10.
constexpr int declared_discard_ratio = 100;

template <class T>
void run_contract_test(Backend& b, const property::PropertyInfo& p, const AuditRequest& req, AuditRow& row) {
  const bool lse = batched_lse<T>(b, req);
  const unsigned used = probe<T>(p, req.params, lse);
  if (used == 0 && !lse && has_batched_attention<T>(b)) {
    // It calls a kernel only when the LSE is returned: the LSE is its subject, and the kernel
    // declared it absent (--no-lse, lse: false). Not applicable, never a failure.
    if (const unsigned with_lse = probe<T>(p, req.params, true); with_lse != 0) {
      row.kinds = used_names(with_lse);
      row.state = RowState::not_applicable;
      row.reason = "checks the LSE, which the attention kernel at " + std::string(dtype_name(dtype_of<T>())) +
                   " is declared not to return (--no-lse or lse: false)";
      return;
    }
  }
  row.kinds = used_names(used);
  std::vector<std::string> missing;
  for (Kind k : registered_kinds())
    if ((used & bit(k)) && !b.has(k, dtype_of<T>())) missing.emplace_back(kind_label(k));
  if (used & heads_bit) missing.emplace_back("rmsnorm_heads (no ABI kind: several heads in one call)");
  if (used & hvp_bit) missing.emplace_back("attention_hvp (no ABI kind)");
  if (used & pe_bit) missing.emplace_back("position_encoding (no ABI kind)");
  if (used == 0 || !missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    row.state = RowState::not_applicable;
    row.reason = used == 0 ? "calls no kernel"
                           : std::string(missing.size() > 1 ? "needs kinds " : "needs kind ") + names + " at " +
                                 std::string(dtype_name(dtype_of<T>()));
    return;
  }
  if (p.judges_masked_policy) {
    // The policy it judges: that of the attention kind it calls (the split dense kernel's is the
    // dense kernel's).
    for (Kind k : {Kind::attention_varlen, Kind::attention_paged, Kind::attention_fp8kv, Kind::attention_merge, Kind::attention_v2})
      if (used & bit(k)) {
        row.masked_policy = std::string(masked_policy_name(req.policy_for(k, dtype_of<T>()).masked));
        break;
      }
  }
  if (req.plan_only) return;
  if (req.full_inputs) row.stats.shown_elements = static_cast<std::size_t>(-1);
  // The stored intermediates of the attention kernel it calls (the backward's own declaration when
  // it calls the backward pass).
  const Policy att = req.policy_for((used & bit(Kind::attention_backward)) ? Kind::attention_backward : Kind::attention_v2, dtype_of<T>());
  const intermediates_scope stores(att.stores);
  const subnormals_scope subnormals(req.policy.subnormals);
  const KernelSet<T> ks = audited_set<T>(b, req, row.stats);
  const DeclaredKinds declared = declared_at<T>(b, req);
  const declared_scope in_declaration(declared.empty() ? nullptr : &declared);
  property::RunParams params = req.params;
  if (!declared.empty()) params.max_discard_ratio = declared_discard_ratio;
  row.outcome = run_with<T>(p, ks, params);
  if (row.outcome.verdict != property::Verdict::pass && mentions_absent(row.outcome)) {
    row.state = RowState::not_applicable;
    row.reason = "needs a kernel kind that was not provided (seen while running)";
    return;
  }
  settle_row((used & bit(Kind::attention_v2))         ? Kind::attention_v2
             : (used & bit(Kind::attention_backward)) ? Kind::attention_backward
             : (used & bit(Kind::attention_varlen))   ? Kind::attention_varlen
             : (used & bit(Kind::attention_paged))    ? Kind::attention_paged
             : (used & bit(Kind::attention_fp8kv))    ? Kind::attention_fp8kv
             : (used & bit(Kind::kv_quantize))        ? Kind::kv_quantize
                                                      : Kind::softmax,
             row);
}

template <class T>
void run_audit_property(Backend& b, const AuditProperty& ap, Kind kind, const AuditRequest& req, AuditRow& row) {
  if (req.full_inputs) row.stats.shown_elements = static_cast<std::size_t>(-1);
  const Policy att = req.policy_for(kind == Kind::attention_backward ? kind : Kind::attention_v2, dtype_of<T>());
  const intermediates_scope stores(att.stores);
  const subnormals_scope subnormals(req.policy.subnormals);
  const KernelSet<T> ks = audited_set<T>(b, req, row.stats);
  const auto& body = [&]() -> const std::function<void(Kind, const KernelSet<T>&, const Policy&)>& {
    if constexpr (std::is_same_v<T, f16>) return ap.f16;
    else if constexpr (std::is_same_v<T, bf16>) return ap.bf16;
    else if constexpr (std::is_same_v<T, float>) return ap.f32;
    else return ap.f64;
  }();
  const Policy policy = req.policy_for(kind, dtype_of<T>());
  const DeclaredKinds declared = declared_at<T>(b, req);
  const declared_scope in_declaration(declared.empty() ? nullptr : &declared);
  property::RunParams params = req.params;
  if (!declared.empty()) params.max_discard_ratio = declared_discard_ratio;
  if (ap.one_shot) params.cases = 1;
  property::detail::run_rapidcheck([&] { body(kind, ks, policy); }, params, row.outcome);
  settle_row(kind, row);
}

bool selected(const std::vector<std::string>& only, const std::string& id) {
  return only.empty() || std::find(only.begin(), only.end(), id) != only.end();
}

}  // namespace

// After a run: a check in which the kernel answered no call (it declined every input) judged
// nothing, whatever RapidCheck made of the discards (GAVE-UP; or PASS on cases that call no
// kernel): not judged, with the count, the first declined call and, for attention, how to aim
// --attention-shape. A check that ran out of memory under --memory is an ERROR naming the limit.
// A check whose cases were all discarded for another reason (a property's own precondition) keeps
// its GAVE-UP: it judged nothing and says so.
void settle_row(Kind kind, AuditRow& row) {
  property::Outcome& o = row.outcome;
  const CallStats& st = row.stats;
  if (!st.out_of_memory.empty()) {
    o.verdict = property::Verdict::error;
    o.message = "not judged: the kernel process ran out of memory under the limit attncheck set: " + st.out_of_memory +
                "\nRaise the limit with --memory MIB (an allocation failure at attncheck's limit is not a finding against the kernel)";
    o.counterexample.clear();
    return;
  }
  // Declared capabilities: a check none of whose draws was inside the declaration judged nothing
  // and could not: N/A, with what was not drawn and why (never GAVE-UP).
  const bool nothing_inside = o.message.find(NothingDeclared::marker) != std::string::npos ||
                              o.counterexample.find(NothingDeclared::marker) != std::string::npos;
  if (st.not_drawn > 0 && (st.calls == 0 || nothing_inside) && o.verdict != property::Verdict::pass) {
    row.state = RowState::not_applicable;
    row.reason = "no input inside the declared capabilities: " + std::to_string(st.not_drawn) +
                 " drawn inputs not sent, each with a feature declared unsupported (" + tally_text(st.not_drawn_features) + ")";
    return;
  }
  if (st.not_drawn > 0 && st.calls == 0) {  // passed on cases that call no kernel
    row.state = RowState::not_applicable;
    row.reason = "no input inside the declared capabilities reached the kernel: " + std::to_string(st.not_drawn) +
                 " drawn inputs not sent (" + tally_text(st.not_drawn_features) + ")";
    return;
  }
  const bool answered_none = st.declines > 0 && st.declines == st.calls;
  const bool attention = takes_problem(kind);
  // Which features the declined calls had, and the declaration that would exclude them.
  const std::string hint = decline_hint(st.accepted_uses, st.declined_uses);
  const bool suggests = hint.find("--supports") != std::string::npos;
  std::string aim;
  if (kind == Kind::attention_paged && st.declines > 0 && !suggests) {
    // A paged kernel commonly supports only some page sizes (FlashAttention's a multiple of 256,
    // many vLLM kernels 8, 16 or 32): the declined cases are not judged, the others are.
    aim = "the paged checks draw pages of 1, 2, 3, 4, 8 and 16 tokens (and their own small problems): a kernel that declines some "
          "page sizes is judged on the cases it accepts, one that supports none of them (FlashAttention 2 takes multiples of 256) "
          "cannot be judged by these checks; the first declined call names its page size";
  } else if (kind == Kind::attention_fp8kv && st.declines > 0) {
    // An FP8 reader commonly supports one format (or one scale granularity): the declined cases are
    // not judged, the others are.
    aim = "the FP8 checks draw E4M3FN and E5M2 codes, per-tensor and per-head scales (and their own small problems): a kernel that "
          "declines a format or a scale granularity is judged on the cases it accepts, one that declines nearly all cannot be "
          "judged by these checks; the first declined call names its format and scales";
  } else if (kind == Kind::kv_quantize && st.declines > 0) {
    // A cache writer commonly implements one format and one overflow rule (saturating, as vLLM's
    // and PyTorch's scaled conversions): the others are declined, not judged.
    aim = "the FP8 write checks draw E4M3FN and E5M2, saturating and non-saturating, in equal shares: a kernel that declines a "
          "format or an overflow rule is judged on the calls it accepts (raise --cases to judge more), one that declines every "
          "call cannot be judged by these checks; the first declined call names its format and rule";
  } else if (kind == Kind::attention_varlen && st.declines > 0 && !suggests) {
    // No sized check exists for packed batches: --attention-shape does not reach these checks.
    aim = "the varlen checks draw their own small packed batches (every mask, alignment, window, soft-cap and ALiBi, "
          "sequences with n_b > m_b and empty ones): a kernel that declines some of them is judged on the cases it accepts "
          "(raise --cases to judge more); one that declines nearly all cannot be judged by these checks";
  } else if (attention && st.declines > 0 && (!suggests || row.outcome.test_id == "AUDIT-ATTB-002")) {
    aim = row.outcome.test_id == "AUDIT-ATTB-002"
              ? "give the shapes the kernel supports with --attention-shape SPEC (repeatable; keys B H Hkv n m d dv scale "
                "causal=off|tl|br align window=L:R softcap alibi, docs/audit.md); the first declined shape was --attention-shape " +
                    st.first_decline_shape
              : "this check draws its own small problems (every mask, alignment, window, soft-cap and ALiBi), so the "
                "kernel's limits cannot be aimed at here; AUDIT-ATTB-002 audits the shapes you give with --attention-shape "
                "SPEC (docs/audit.md): give it the shapes the kernel supports";
  }
  if (!hint.empty()) aim = aim.empty() ? hint : hint + "\n" + aim;
  if (answered_none && (o.verdict == property::Verdict::gave_up || o.verdict == property::Verdict::pass)) {
    row.state = RowState::not_judged;
    row.reason = "every input declined (" + std::to_string(st.declines) + "); the first: " + st.first_decline +
                 (aim.empty() ? std::string() : "\n" + aim);
    return;
  }
  if (o.verdict == property::Verdict::gave_up && st.declines > 0)
    o.message += "\nThe kernel declined " + std::to_string(st.declines) + " of " + std::to_string(st.calls) +
                 " calls (not judged); the first: " + st.first_decline + (aim.empty() ? std::string() : "\n" + aim);
}

const std::vector<std::pair<std::string, std::string>>& replaced_tests() {
  static const std::vector<std::pair<std::string, std::string>> v = {
      {"FALSIFY-SM-008",
       "replaced by AUDIT-NAN-001, AUDIT-MASK-001/002 and AUDIT-INF-001: the gate demands NaN for +inf and fully "
       "masked rows, an audited kernel may follow either documented policy"},
      {"FALSIFY-AEQ-002",
       "states the reference kernel's left-to-right summation (swapping the first two summands only exchanges the "
       "operands of one addition, so its bits cannot change); an audited kernel may sum in any order (NumPy sums "
       "pairwise), and FALSIFY-AEQ-001 checks every permutation of its rows within the derived bound"},
  };
  return v;
}

std::vector<AuditRow> run_audit(Backend& backend, const AuditRequest& req, const Progress& progress) {
  std::vector<Dtype> dtypes;
  for (Dtype d : all_dtypes) {
    bool any = false;
    for (Kind k : registered_kinds()) any |= backend.has(k, d);
    if (any && (req.only_dtypes.empty() || std::find(req.only_dtypes.begin(), req.only_dtypes.end(), d) != req.only_dtypes.end()))
      dtypes.push_back(d);
  }
  // Plan first, so progress can say "i of n".
  struct Item {
    AuditRow row;
    const property::PropertyInfo* prop = nullptr;
    const AuditProperty* audit = nullptr;
    Kind kind = Kind::softmax;
  };
  std::vector<Item> plan;
  for (Dtype d : dtypes) {
    for (const ContractTest& t : req.tests) {
      if (!selected(req.only_tests, t.test_id)) continue;
      Item it;
      it.row.contract = t.contract;
      it.row.obligations = t.obligations;
      it.row.outcome.test_id = t.test_id;
      it.row.outcome.dtype = d;
      const auto rep = std::find_if(replaced_tests().begin(), replaced_tests().end(), [&](const auto& r) { return r.first == t.test_id; });
      it.prop = property::find_property(t.test_id);
      if (rep != replaced_tests().end()) {
        it.row.state = RowState::not_applicable;
        it.row.reason = rep->second;
      } else if (!it.prop) {
        it.row.state = RowState::not_applicable;
        it.row.reason = "no executable property in this build";
      } else if (std::find(it.prop->dtypes.begin(), it.prop->dtypes.end(), d) == it.prop->dtypes.end()) {
        continue;  // the property is not stated at this format
      }
      plan.push_back(std::move(it));
    }
    for (const AuditProperty& ap : audit_properties()) {
      if (!selected(req.only_tests, ap.id)) continue;
      for (Kind k : ap.kinds) {
        if (!backend.has(k, d)) continue;
        Item it;
        it.row.contract = "audit";
        it.row.obligations = {ap.id};
        it.row.kinds = {std::string(kind_name(k))};
        it.row.outcome.test_id = ap.id;
        it.row.outcome.dtype = d;
        it.audit = &ap;
        it.kind = k;
        if (ap.judges_masked_policy) it.row.masked_policy = std::string(masked_policy_name(req.policy_for(k, d).masked));
        if (ap.id == "AUDIT-ATTBWD-002" && d != Dtype::f16_f32 && d != Dtype::bf16_f32) {
          it.row.state = RowState::not_applicable;
          it.row.reason = "accumulator drift is judged where the storage format is narrower than the arithmetic (f16@f32, bf16@f32): "
                          "here the accumulators are in the storage format by design";
        }
        if (ap.id == "AUDIT-DET-001" && !req.policy_for(k, d).deterministic) {
          it.row.state = RowState::not_applicable;
          it.row.reason = "the kernel is declared nondeterministic (--nondeterministic or deterministic: false): the same "
                          "bits are not demanded; every run is judged against the derived bounds by the accuracy checks";
        }
        plan.push_back(std::move(it));
      }
    }
  }

  // One check of the plan, against backend b (this process's, or a worker's own).
  const auto run_item = [&](Backend& b, std::size_t i) {
    const Item& it = plan[i];
    AuditRow row = it.row;
    const Dtype d = row.outcome.dtype;
    const auto t0 = std::chrono::steady_clock::now();
    const FullRows whole(req.full_inputs);  // a replay prints every element of a row
    try {
      if (it.prop) {
        visit_dtype(d, [&]<class T>() { run_contract_test<T>(b, *it.prop, req, row); });
      } else if (!req.plan_only) {
        row.outcome.seed = property::derive_seed(req.params.seed, row.outcome.test_id + ":" + row.kinds[0], d);
        visit_dtype(d, [&]<class T>() { run_audit_property<T>(b, *it.audit, it.kind, req, row); });
      }
    } catch (const std::exception& e) {
      row.outcome.verdict = property::Verdict::error;
      row.outcome.message = e.what();
    }
    row.outcome.test_id = it.prop ? it.prop->id : it.audit->id;
    row.outcome.dtype = d;
    row.outcome.kernels = b.describe();
    row.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return row;
  };

  std::vector<std::size_t> todo;  // the plan items that run (the others are N/A already)
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (plan[i].row.state == RowState::ran) todo.push_back(i);
  const auto stopping = [&] { return req.stop && req.stop(); };
  const auto label = [&](std::size_t i) {
    return plan[i].row.outcome.test_id + " [" + std::string(dtype_name(plan[i].row.outcome.dtype)) + "]";
  };

  // A worker makes its own backend on its first check: a fork server or program started by the
  // parent must not be shared by several processes. `own` is the worker's copy (fork).
  const pid_t parent = ::getpid();
  std::unique_ptr<Backend> own;
  const auto backend_here = [&]() -> Backend& {
    if (::getpid() == parent || !req.worker_backend) return backend;
    if (!own) own = req.worker_backend();
    return *own;
  };
  property::ParallelBytesHooks hooks;
  hooks.on_start = [&](std::size_t k) {
    if (progress.started) progress.started(todo[k], plan.size(), label(todo[k]));
  };
  std::vector<bool> finished(plan.size(), false);
  std::vector<AuditRow> results(plan.size());
  hooks.on_done = [&](std::size_t k, const std::string& bytes) {
    if (progress.finished) progress.finished();
    if (stopping()) return;  // finished after the stop: not to be trusted
    if (auto row = decode_row(bytes)) results[todo[k]] = std::move(*row), finished[todo[k]] = true;
  };
  hooks.stop = stopping;
  hooks.valid = [](std::string_view b) { return decode_row(b).has_value(); };
  hooks.error_result = [&](std::size_t k, const std::string& why) {
    AuditRow row = plan[todo[k]].row;
    row.outcome.verdict = property::Verdict::error;
    row.outcome.message = why;
    row.outcome.kernels = backend.describe();
    return encode_row(row);
  };
  hooks.worker_exit = [&] { own.reset(); };
  const int jobs = req.worker_backend ? req.jobs : 1;
  property::run_parallel_bytes(
      todo.size(), jobs,
      [&](std::size_t k) {
        try {
          return encode_row(run_item(backend_here(), todo[k]));
        } catch (const std::exception& e) {  // the worker could not start its backend
          AuditRow row = plan[todo[k]].row;
          row.outcome.verdict = property::Verdict::error;
          row.outcome.message = e.what();
          return encode_row(row);
        }
      },
      hooks);

  // In plan order; after a check that did not finish (interrupted), N/A rows are left out too,
  // as a run in one process would have stopped there.
  std::vector<AuditRow> rows;
  bool gap = false;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].row.state != RowState::ran) {
      if (!gap) rows.push_back(plan[i].row);
    } else if (finished[i]) {
      rows.push_back(std::move(results[i]));
    } else {
      gap = true;
    }
  }
  return rows;
}

namespace {
void put_strings(std::string& s, const std::vector<std::string>& v) {
  property::wire::put_u64(s, v.size());
  for (const auto& x : v) property::wire::put_string(s, x);
}
std::vector<std::string> get_strings(property::wire::Reader& r) {
  std::vector<std::string> v;
  const std::uint64_t n = r.u64();
  for (std::uint64_t i = 0; r.ok && i < n; ++i) v.push_back(r.str());
  return v;
}
void put_counts(std::string& s, const std::map<std::string, int>& m) {
  property::wire::put_u64(s, m.size());
  for (const auto& [k, n] : m) property::wire::put_string(s, k), property::wire::put_u64(s, static_cast<std::uint64_t>(n));
}
std::map<std::string, int> get_counts(property::wire::Reader& r) {
  std::map<std::string, int> m;
  const std::uint64_t n = r.u64();
  for (std::uint64_t i = 0; r.ok && i < n; ++i) {
    std::string k = r.str();
    m[k] = static_cast<int>(r.u64());
  }
  return m;
}
}  // namespace

// A field added to AuditRow or CallStats and forgotten here would vanish under -j N (while -j 1
// kept it); property/parallel.cpp guards Outcome the same way. When this fires, put the new field on
// the wire below and update the number.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(AuditRow) == 848 && sizeof(CallStats) == 280,
              "AuditRow or CallStats changed: put the new field on the wire (encode_row/decode_row)");
#endif

std::string encode_row(const AuditRow& r) {
  using namespace property::wire;
  std::string s;
  put_string(s, r.contract);
  put_strings(s, r.obligations);
  put_strings(s, r.kinds);
  put_u64(s, static_cast<std::uint64_t>(r.state));
  put_string(s, r.reason);
  put_string(s, property::encode_outcome(r.outcome));
  put_u64(s, static_cast<std::uint64_t>(static_cast<std::int64_t>(r.stats.calls)));
  put_u64(s, static_cast<std::uint64_t>(static_cast<std::int64_t>(r.stats.timeouts)));
  put_u64(s, static_cast<std::uint64_t>(static_cast<std::int64_t>(r.stats.declines)));
  put_string(s, r.stats.first_decline);
  put_string(s, r.stats.first_decline_shape);
  put_string(s, r.stats.out_of_memory);
  put_u64(s, static_cast<std::uint64_t>(static_cast<std::int64_t>(r.stats.timeout_budget)));
  put_u64(s, r.stats.shown_elements);
  put_string(s, r.masked_policy);
  put_u64(s, static_cast<std::uint64_t>(r.stats.not_drawn));
  put_counts(s, r.stats.not_drawn_features);
  put_counts(s, r.stats.accepted_uses);
  put_counts(s, r.stats.declined_uses);
  return s;
}

std::optional<AuditRow> decode_row(std::string_view bytes) {
  property::wire::Reader r{bytes};
  AuditRow row;
  row.contract = r.str();
  row.obligations = get_strings(r);
  row.kinds = get_strings(r);
  row.state = static_cast<RowState>(r.u64());
  row.reason = r.str();
  const auto outcome = property::decode_outcome(r.str());
  row.stats.calls = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  row.stats.timeouts = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  row.stats.declines = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  row.stats.first_decline = r.str();
  row.stats.first_decline_shape = r.str();
  row.stats.out_of_memory = r.str();
  row.stats.timeout_budget = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  row.stats.shown_elements = r.u64();
  row.masked_policy = r.str();
  row.stats.not_drawn = static_cast<int>(r.u64());
  row.stats.not_drawn_features = get_counts(r);
  row.stats.accepted_uses = get_counts(r);
  row.stats.declined_uses = get_counts(r);
  if (!r.ok || !r.b.empty() || !outcome) return std::nullopt;
  row.outcome = *outcome;
  return row;
}

}  // namespace attncheck::audit
