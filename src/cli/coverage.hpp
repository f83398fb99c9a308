// attncheck CLI: what proves and what attacks one obligation, as recorded by real runs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attncheck/contract/model.hpp"

namespace attncheck::cli {

// One obligation's coverage. A proof counts as checked only if the build recorded it (tools/
// build-latex.sh and tools/build-coq.sh copy the sources they built to <record>/pdf/checked and
// <record>/coq/checked) and the recorded source equals the tree's: an edit since makes it stale.
struct Coverage {
  std::string latex;                 // "checked", or why not
  bool latex_checked = false;
  std::vector<std::string> coq;      // one line per named theorem: "File.thm checked" or why not
  int coq_named = 0, coq_checked = 0;
  // What the checked Coq theorems prove (the link's `exact:`/`float:`): an exact-arithmetic theorem
  // (or an unstated link) never counts as a floating-point proof, and a `float:` link whose
  // statement rounds nothing is a gap.
  int coq_exact_checked = 0, coq_float_checked = 0;
  // One per `float:` theorem that takes Section hypotheses as premises (what Coq cannot see, e.g.
  // the libm's exp accuracy): "File.thm: h1, h2". Premises of the theorem, not axioms.
  std::vector<std::string> coq_hypotheses;
  std::vector<std::string> tests;    // attacking FALSIFY IDs
  int tests_with_property = 0;       // of those, registered as executable properties in this build
  std::vector<std::string> harnesses;
  // One per harness, from the bmc report when one is given: "proved 6/6", "NOT proved: f16 d=2
  // counterexample", "not in the bmc report"; without a report "not run"; "declared only" when
  // attncheck's model checker has no harness of that ID.
  std::vector<std::string> harness_status;
  // One per harness: "lemma" for a LEM-* step (no bound), "non-trivial" (some proved row has a
  // witness: a caught mutant refuted at that bound through the asserted bound with finite values),
  // "trivial" (proved only where no such mutant exists: not counted), or "" (not run, not proved,
  // or the report has no witness).
  std::vector<std::string> harness_kind;
  std::vector<std::string> missing;  // required kinds that are absent or fail: a gap
  // Required proofs this build has not checked (no copy in the proofs record: `ctest -L proofs`
  // has not run, or not since the proof was added): not assessed, which is not a gap. A proof
  // edited since its recorded check is stale, a gap.
  std::vector<std::string> unassessed;
  bool covered() const { return missing.empty() && unassessed.empty(); }
};

// A proof's status when the proofs record holds no copy of it.
inline constexpr const char* not_checked_in_build = "not checked in this build";

// What one run of `attncheck bmc --json FILE` (schema attncheck-bmc/1) says, per harness ID.
struct BmcRecord {
  struct Row {
    std::string format, bound, verdict;
    bool passed = false;
    std::optional<bool> nontrivial;  // the row's witness verdict (absent in older reports: nullopt)
    std::string witness;
  };
  std::string path;
  std::map<std::string, std::vector<Row>> rows;
};
// The report at path, or nullopt with *error saying why (unreadable, not JSON, another schema).
std::optional<BmcRecord> read_bmc_record(const std::string& path, std::string* error);

// Required: a checked LaTeX proof; at least one falsification test with an executable property;
// every Coq theorem the obligation names checked (obligations naming none require none).
// Harnesses are not required, but with a bmc report (a real run), a harness of the obligation
// that the report shows not proved is a gap.
Coverage coverage_of(const contract::Contract& c, const contract::Obligation& o, const std::string& repo_root,
                     const std::string& record, const BmcRecord* bmc = nullptr);

// proofs/coq/All.v as the contracts' `coq:` fields determine it: every theorem an obligation names,
// once, in contract and obligation order, bundled so that tools/build-coq.sh prints the axioms they
// rest on. `attncheck coverage --coq-bundle` prints it; the test proofs.coq.all-v-generated fails
// when the committed file differs.
std::string coq_bundle(const std::vector<contract::Contract>& contracts);

// Where the registries of this build and the contracts disagree, one line each: a registered
// property (FALSIFY-*), audit property (AUDIT-*), harness or lemma (KANI-/BMC-/GAPPA-/LEM-*) with no
// YAML entry, a YAML entry with nothing registered, a harness whose recorded formats it cannot run
// at or with no bound recorded, an audit property naming an unknown obligation. Empty: they agree.
std::vector<std::string> registry_mismatches(const std::vector<contract::Contract>& contracts);

// $ATTNCHECK_PROOFS_RECORD, else this build's proofs/ directory.
std::string default_proofs_record();
// $ATTNCHECK_BMC_REPORT, else the report this build's CTest `bmc.contract-bounds` writes.
std::string default_bmc_record();

// How an obligation's `proof:` and `coq:` fields name their artefacts, read one way by `coverage`
// (is it there?) and `show` (at which line?).
struct ProofRef {
  std::string file;   // proofs/<stem>.tex
  std::string label;  // the \label{} inside it (the obligation ID unless `file#label`)
};
inline ProofRef proof_ref(const std::string& ref, const std::string& obligation_id) {
  const auto hash = ref.find('#');
  return {ref.substr(0, hash), hash == std::string::npos ? obligation_id : ref.substr(hash + 1)};
}
struct CoqRef {
  std::string file;  // File.v of `File.theorem`, under proofs/coq/
  std::string name;  // the theorem
};
// `File.theorem`; nullopt when the name has no file part.
inline std::optional<CoqRef> coq_ref(const std::string& theorem) {
  const auto dot = theorem.find('.');
  if (dot == std::string::npos) return std::nullopt;
  return CoqRef{theorem.substr(0, dot) + ".v", theorem.substr(dot + 1)};
}
// A regex for the text of a declaration of the Coq theorem `name` (Theorem, Lemma, ...).
std::string coq_declaration_pattern(const std::string& name);
// Whether the statement of theorem `name` in Coq source `text` (from its declaration to `Proof.`)
// names a rounded operation (fl, round, Flocq's binary B* operations, dot_fl, ...): a `float:` link
// must, or it is an exact-arithmetic theorem claimed as a floating-point one.
bool coq_statement_rounds(const std::string& text, const std::string& name);
// The `Hypothesis` declarations of the Sections open at the declaration of theorem `name` in Coq
// source `text`: after `End` each one the proof uses is a premise of the theorem (the libm's
// accuracy, say); the list is the superset in scope.
std::vector<std::string> coq_section_hypotheses(const std::string& text, const std::string& name);

// The obligation's proof kinds, as `coverage` and `show` print them: "float 2/2 + exact 1/1",
// "exact only 2/2", "-".
std::string coq_kind_cell(const Coverage& v);
// The obligation's harness backing: "non-trivial", "trivial only (not counted)", "not assessed", "-".
std::string harness_kind_cell(const Coverage& v);

}  // namespace attncheck::cli
