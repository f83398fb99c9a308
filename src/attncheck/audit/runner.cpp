// attncheck audit: the runner. A registered property runs unchanged against the audited kernels:
// the kernel set is swapped in through the registry's mutant mechanism (a run-time "mutant"
// that replaces the whole set), so seeds, shrinking budget and reports are the gate's own.
#include "attncheck/audit/runner.hpp"

#include <algorithm>
#include <chrono>

namespace attncheck::audit {

namespace {

constexpr const char* swap_name = "audit:kernels-under-audit";
constexpr int probe_cases = 10;  // cases used to see which kernel kinds a property calls

template <class T>
KernelSet<T>*& slot() {
  static KernelSet<T>* s = nullptr;
  return s;
}

void ensure_swap_registered() {
  static const bool once = [] {
    check::MutantInfo m;
    m.name = swap_name;
    m.description = "the kernels under audit (registered only inside 'attncheck audit')";
    m.apply_f16 = [](KernelSet<f16>& k) { k = *slot<f16>(); };
    m.apply_bf16 = [](KernelSet<bf16>& k) { k = *slot<bf16>(); };
    m.apply_f32 = [](KernelSet<float>& k) { k = *slot<float>(); };
    m.apply_f64 = [](KernelSet<double>& k) { k = *slot<double>(); };
    check::add_mutant(std::move(m));
    return true;
  }();
  (void)once;
}

// Runs a registered property at T against ks.
template <class T>
check::Outcome run_with(const check::PropertyInfo& p, KernelSet<T> ks, check::RunParams params) {
  ensure_swap_registered();
  slot<T>() = &ks;
  params.mutant = swap_name;
  check::Outcome o = check::run_property(p, dtype_of<T>(), params);
  slot<T>() = nullptr;
  return o;
}

// Bit i: Kind with value i (1..7); bit 8: rmsnorm_heads, bit 9: attention_hvp (no ABI kinds).
constexpr unsigned heads_bit = 1u << 8;
constexpr unsigned hvp_bit = 1u << 9;
unsigned bit(Kind k) { return 1u << static_cast<unsigned>(k); }

template <class F>
F recorded(F f, unsigned& used, unsigned b) {
  return [f, &used, b](auto... a) {
    used |= b;
    return f(a...);
  };
}

// Which kernel kinds p calls: run it briefly on the reference kernels with a recorder.
template <class T>
unsigned probe(const check::PropertyInfo& p, check::RunParams params) {
  unsigned used = 0;
  KernelSet<T> k = reference_kernels<T>();
  k.softmax = recorded(k.softmax, used, bit(Kind::softmax));
  k.log_softmax = recorded(k.log_softmax, used, bit(Kind::log_softmax));
  k.scores = recorded(k.scores, used, bit(Kind::scores));
  k.rmsnorm = recorded(k.rmsnorm, used, bit(Kind::rmsnorm));
  k.rmsnorm_heads = recorded(k.rmsnorm_heads, used, heads_bit);
  k.entropy = recorded(k.entropy, used, bit(Kind::entropy));
  k.attention = recorded(k.attention, used, bit(Kind::attention));
  k.softmax_jvp = recorded(k.softmax_jvp, used, bit(Kind::softmax_jvp));
  k.attention_hvp = recorded(k.attention_hvp, used, hvp_bit);
  params.cases = probe_cases;
  run_with<T>(p, k, params);
  return used;
}

std::vector<std::string> used_names(unsigned used) {
  std::vector<std::string> v;
  for (Kind k : all_kinds)
    if (used & bit(k)) v.emplace_back(kind_name(k));
  if (used & heads_bit) v.emplace_back("rmsnorm_heads");
  if (used & hvp_bit) v.emplace_back("attention_hvp");
  return v;
}

bool mentions_absent(const check::Outcome& o) {
  return o.counterexample.find(KindAbsent::marker) != std::string::npos || o.message.find(KindAbsent::marker) != std::string::npos;
}

template <class T>
void run_contract_test(Backend& b, const check::PropertyInfo& p, const AuditRequest& req, AuditRow& row) {
  const unsigned used = probe<T>(p, req.params);
  row.kinds = used_names(used);
  std::vector<std::string> missing;
  for (Kind k : all_kinds)
    if ((used & bit(k)) && !b.has(k, dtype_of<T>())) missing.emplace_back(kind_name(k));
  if (used & heads_bit) missing.emplace_back("rmsnorm_heads (no ABI kind: several heads in one call)");
  if (used & hvp_bit) missing.emplace_back("attention_hvp (no ABI kind)");
  if (used == 0 || !missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    row.state = RowState::not_applicable;
    row.reason = used == 0 ? "calls no kernel"
                           : std::string(missing.size() > 1 ? "needs kinds " : "needs kind ") + names + " at " +
                                 std::string(dtype_name(dtype_of<T>()));
    return;
  }
  if (req.full_inputs) row.stats.shown_elements = static_cast<std::size_t>(-1);
  const KernelSet<T> ks = audited_kernels<T>(b, row.stats);
  row.outcome = run_with<T>(p, ks, req.params);
  if (row.outcome.verdict != check::Verdict::pass && mentions_absent(row.outcome)) {
    row.state = RowState::not_applicable;
    row.reason = "needs a kernel kind that was not provided (seen while running)";
  }
}

template <class T>
void run_audit_property(Backend& b, const AuditProperty& ap, Kind kind, const AuditRequest& req, AuditRow& row) {
  if (req.full_inputs) row.stats.shown_elements = static_cast<std::size_t>(-1);
  const KernelSet<T> ks = audited_kernels<T>(b, row.stats);
  const auto& body = [&]() -> const std::function<void(Kind, const KernelSet<T>&, const Policy&)>& {
    if constexpr (std::is_same_v<T, f16>) return ap.f16;
    else if constexpr (std::is_same_v<T, bf16>) return ap.bf16;
    else if constexpr (std::is_same_v<T, float>) return ap.f32;
    else return ap.f64;
  }();
  const Policy policy = req.policy;
  check::detail::run_rapidcheck([&] { body(kind, ks, policy); }, req.params, row.outcome);
}

bool selected(const std::vector<std::string>& only, const std::string& id) {
  return only.empty() || std::find(only.begin(), only.end(), id) != only.end();
}

}  // namespace

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
    for (Kind k : all_kinds) any |= backend.has(k, d);
    if (any && (req.only_dtypes.empty() || std::find(req.only_dtypes.begin(), req.only_dtypes.end(), d) != req.only_dtypes.end()))
      dtypes.push_back(d);
  }
  // Plan first, so progress can say "i of n".
  struct Item {
    AuditRow row;
    const check::PropertyInfo* prop = nullptr;
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
      it.prop = check::find_property(t.test_id);
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
        plan.push_back(std::move(it));
      }
    }
  }

  std::vector<AuditRow> rows;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (req.stop && req.stop()) break;  // an interrupted run (the CLI's SIGINT): keep what finished
    Item& it = plan[i];
    AuditRow& row = it.row;
    const Dtype d = row.outcome.dtype;
    if (progress) progress(i, plan.size(), row.outcome.test_id + " [" + std::string(dtype_name(d)) + "]");
    if (row.state == RowState::ran) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        if (it.prop) {
          visit_dtype(d, [&]<class T>() { run_contract_test<T>(backend, *it.prop, req, row); });
        } else {
          row.outcome.seed = check::derive_seed(req.params.seed, row.outcome.test_id + ":" + row.kinds[0], d);
          visit_dtype(d, [&]<class T>() { run_audit_property<T>(backend, *it.audit, it.kind, req, row); });
        }
      } catch (const std::exception& e) {
        row.outcome.verdict = check::Verdict::error;
        row.outcome.message = e.what();
      }
      row.outcome.test_id = it.prop ? it.prop->id : it.audit->id;
      row.outcome.dtype = d;
      row.outcome.kernels = backend.describe();
      row.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    rows.push_back(std::move(row));
  }
  if (progress) progress(plan.size(), plan.size(), "");
  return rows;
}

}  // namespace attncheck::audit
