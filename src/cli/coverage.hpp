// attncheck CLI: what proves and what attacks one obligation, as recorded by real runs.
#pragma once

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
  std::vector<std::string> tests;    // attacking FALSIFY IDs
  int tests_with_property = 0;       // of those, registered as executable properties in this build
  std::vector<std::string> harnesses;
  std::vector<std::string> missing;  // required kinds that are absent: empty means covered
};

// Required: a checked LaTeX proof; at least one falsification test with an executable property;
// every Coq theorem the obligation names checked (obligations naming none require none).
// Harnesses are listed but not required: no model checker runs them yet.
Coverage coverage_of(const contract::Contract& c, const contract::Obligation& o, const std::string& repo_root,
                     const std::string& record);

// $ATTNCHECK_PROOFS_RECORD, else this build's proofs/ directory.
std::string default_proofs_record();

}  // namespace attncheck::cli
