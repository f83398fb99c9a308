// attncheck: the in-memory model of a contract file (contracts/<stem>.yaml) and its diagnostics.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attncheck::contract {

// A position in a source file, 1-based as editors show it (yaml-cpp's marks are 0-based).
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

enum class Severity { error, warning, note };

// One problem found while loading or linting: printed as `file:line:col: error: message`.
struct Diagnostic {
  Location where;
  Severity severity = Severity::error;
  std::string message;
};
std::string to_string(const Diagnostic& d);

struct Equation {
  std::string name;
  std::string formula;
  std::string domain;
  std::string codomain;
  std::vector<std::string> invariants;
  Location where;
};

// A statement that must hold. `id` is the stable key (e.g. ASCL-BND-001); files written for the
// existing Rust system have none, and get a positional one with `id_assigned = true`.
struct Obligation {
  std::string id;
  bool id_assigned = false;
  std::string type;      // invariant | bound | equivalence | monotonicity | statistical | ...
  std::string property;  // one line
  std::string formal;    // the statement, as written
  std::string domain;    // where it holds
  std::string applies_to;
  std::string allowance;  // the YAML `allowance:` (or a textual `tolerance:`): how it is derived; never a bare number
  std::string proof;      // path of the proof (proofs/<stem>.tex#label), if any
  std::vector<std::string> coq;  // machine-checked theorems, "File.theorem" in proofs/coq/File.v
  // What each entry of coq (same order) proves: `coq: {exact: [...], float: [...]}`. The plain list
  // form `coq: [...]` states nothing (unstated), and coverage counts it as exact arithmetic only.
  enum class CoqProves { unstated, exact, floating_point };
  std::vector<CoqProves> coq_proves;
  std::string legacy_tolerance;  // a Rust-format bare `tolerance:` number, kept for reporting
  Location where;
};

struct FalsificationTest {
  std::string id;  // FALSIFY-...
  std::string rule;
  std::string prediction;
  std::string test;
  std::string if_fails;
  std::vector<std::string> obligations;  // obligation IDs this test attacks
  // The mutants (broken kernels, falsify/mutants/) this test must catch: `catches:`, checked
  // against the mutants' caught_by lists by `attncheck coverage --registry`.
  std::vector<std::string> catches;
  Location where;
};

struct Harness {
  std::string id;  // KANI-... or BMC-...
  std::string obligation;
  std::string property;
  int bound = 0;
  // The bound each format reached within the per-harness time limit (`reached: {f16: 8, ...}`);
  // `attncheck bmc` runs each format at this bound, so every CI run re-proves the record.
  std::map<std::string, int> reached;
  std::string strategy;
  std::string solver;
  std::string harness;  // function name
  std::vector<std::string> catches;  // the bmc mutants it must catch (harnesses/mutants.cpp, Gappa's)
  // `lift: File.theorem`: the Coq theorem (proofs/coq/File.v, bundled in All.v) that lifts the
  // harness's step lemmas to every d; required of a harness that composes lemmas ("all d").
  std::string lift;
  Location where;
};

struct QaGate {
  std::string id;  // F-...
  std::string name;
  std::string description;
  std::vector<std::string> checks;
  std::string pass_criteria;
  std::string falsification;
  Location where;
};

// The files every contract has, named by its stem (contracts/<stem>.yaml), unless declared absent:
// falsify/<f>.cpp, falsify/mutants/<f>.cpp, proofs/<f>.tex, proofs/coq/<F>.v, harnesses/<f>.cpp,
// f the stem without its -vN suffix and with '_' for '-', F the same in CamelCase.
inline constexpr const char* stem_file_kinds[] = {"falsify", "mutants", "proof", "coq", "harnesses"};

struct Contract {
  std::string id;  // the stem: attention-scaling-v1
  std::string file;
  std::string version;
  std::string description;
  std::vector<std::string> references;
  std::vector<std::string> depends_on;
  std::vector<std::string> corrections;  // where this contract corrects an earlier statement (a seed)
  std::vector<Equation> equations;
  std::vector<Obligation> obligations;
  std::vector<FalsificationTest> tests;
  std::vector<Harness> harnesses;
  // The audit's own obligations (`audit_properties:`, AUDIT-CODE-NNN), checked on a third party's
  // kernels by `attncheck audit` (src/attncheck/audit/properties.cpp), never by the gate. `rule` is
  // the property as a sentence; `obligations` may name obligations of any contract.
  std::vector<FalsificationTest> audit_properties;
  std::optional<QaGate> gate;
  // Files of the contract's stem it declares absent, each with the reason (`absent: {coq: "a
  // statistical test"}`; docs/contract-format.md): kind -> reason, kinds as stem_file_kinds.
  std::map<std::string, std::string> absent;
  bool legacy_dialect = false;  // written for the Rust system: no obligation ids or links
  Location where;              // of the document root
};

}  // namespace attncheck::contract
