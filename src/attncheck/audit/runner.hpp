// attncheck audit: plans and runs an audit — every registered property of the selected contracts
// that the provided kernel kinds can answer, plus the AUDIT-* obligations — at each dtype the
// user provided, against a Backend.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include "attncheck/audit/audited_kernels.hpp"
#include "attncheck/audit/call.hpp"
#include "attncheck/audit/properties.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::audit {

// A falsification test of a contract, as the contract names it.
struct ContractTest {
  std::string contract;
  std::string test_id;
  std::vector<std::string> obligations;
};

struct AuditRequest {
  std::vector<ContractTest> tests;     // from the selected contracts, in order
  std::vector<std::string> only_tests; // --test filter (contract or AUDIT-* IDs); empty: all
  std::vector<Dtype> only_dtypes;      // --dtype filter; empty: every dtype provided
  property::RunParams params;
  Policy policy;                       // for every kernel without its own entry below
  std::map<std::pair<Kind, Dtype>, Policy> kernel_policies;  // per kernel (bindings file)
  Policy policy_for(Kind k, Dtype d) const {  // keyed by the kind as spelt (attention for attention_v2)
    const auto it = kernel_policies.find({spelt_kind(k), d});
    return it == kernel_policies.end() ? policy : it->second;
  }
  bool full_inputs = false;            // fault messages show every input element (replays)
  // Only decide which checks apply (probing the reference kernels, as a run does) and call no
  // audited kernel: the rows that would run come back as ran with no verdict (`audit --list`).
  bool plan_only = false;
  std::function<bool()> stop;          // asked before each check; true: return the rows done so far
  // Checks run in this many forked worker processes (property/parallel.hpp); each worker reaches the
  // kernels through its own backend (its own fork server or program), made by worker_backend.
  // The rows are the same as with one process: each check's seed depends on (run seed, test,
  // dtype, kind) alone. Without worker_backend, everything runs here.
  int jobs = 1;
  std::function<std::unique_ptr<Backend>()> worker_backend;
};

// ran: a verdict (outcome.verdict). not_applicable: the check cannot apply to the kernels given
// (a kind not provided, or its subject declared absent, e.g. the LSE under --no-lse). not_judged:
// it ran, but the kernel declined every input it was given (or every case was discarded before any
// call), so nothing was judged: neither a pass nor a failure; reason says why and what to do.
enum class RowState { ran, not_applicable, not_judged };

struct AuditRow {
  std::string contract;                 // the contract ID, or "audit" for AUDIT-* obligations
  std::vector<std::string> obligations;
  std::vector<std::string> kinds;       // the kernel kinds the check calls
  RowState state = RowState::ran;
  std::string reason;                   // why not applicable, or why not judged
  property::Outcome outcome;               // test_id and dtype are set for every row
  CallStats stats;
  std::string masked_policy;            // the masked-row policy judged (rows of a check that judges it), else ""
};

// The verdict of a check that ran, from what the kernel did (CallStats): the kernel answered none of
// its calls (declined every input) and RapidCheck gave up or passed on cases without a call: not
// judged (state, reason: the count, the first declined call, for attention how to aim
// --attention-shape); the kernel process ran out of memory under --memory: an ERROR naming the
// limit. Otherwise the verdict stands (a GAVE-UP after some declines says how many). kind: the kind
// the check calls (attention_v2 for the attention advice). Called by run_audit on every row run.
void settle_row(Kind kind, AuditRow& row);

// Gate tests the audit does not run, with the reason and the AUDIT-* obligations that take over.
const std::vector<std::pair<std::string, std::string>>& replaced_tests();

// What the progress line learns: a check starts (its index in the plan, the plan's size and what it
// is), a check finished.
struct Progress {
  std::function<void(std::size_t index, std::size_t total, const std::string& what)> started;
  std::function<void()> finished;
};

// The rows in plan order. Interrupted (req.stop() true): the rows that finished before the stop
// was seen (a check that ends after it is dropped: its kernel process may have had the signal).
std::vector<AuditRow> run_audit(Backend& backend, const AuditRequest& req, const Progress& progress);

// The wire form of a row between a worker and the parent (every field; property/parallel.hpp).
std::string encode_row(const AuditRow& r);
std::optional<AuditRow> decode_row(std::string_view bytes);

}  // namespace attncheck::audit
