// attncheck audit: plans and runs an audit — every registered property of the selected contracts
// that the provided kernel kinds can answer, plus the AUDIT-* obligations — at each dtype the
// user provided, against a Backend.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attncheck/audit/audited_kernels.hpp"
#include "attncheck/audit/call.hpp"
#include "attncheck/audit/properties.hpp"
#include "attncheck/check/registry.hpp"

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
  check::RunParams params;
  Policy policy;
  bool full_inputs = false;            // fault messages show every input element (replays)
  std::function<bool()> stop;          // asked before each check; true: return the rows done so far
};

enum class RowState { ran, not_applicable };

struct AuditRow {
  std::string contract;                 // the contract ID, or "audit" for AUDIT-* obligations
  std::vector<std::string> obligations;
  std::vector<std::string> kinds;       // the kernel kinds the check calls
  RowState state = RowState::ran;
  std::string reason;                   // why not applicable
  check::Outcome outcome;               // test_id and dtype are set for every row
  CallStats stats;
};

// Gate tests the audit does not run, with the reason and the AUDIT-* obligations that take over.
const std::vector<std::pair<std::string, std::string>>& replaced_tests();

using Progress = std::function<void(std::size_t done, std::size_t total, const std::string& what)>;

std::vector<AuditRow> run_audit(Backend& backend, const AuditRequest& req, const Progress& progress);

}  // namespace attncheck::audit
