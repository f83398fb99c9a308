// attncheck: traceability checks over loaded contracts (`attncheck lint`).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/contract/loader.hpp"

namespace attncheck::contract {

struct LintOptions {
  // Whether a falsification test ID has an executable property (the gate's registry). Unset: skip.
  std::function<bool(std::string_view)> has_property;
  // Root against which `proof:` paths are resolved. Empty: skip the proof-file check.
  std::string repo_root;
};

// Problems beyond what loading already reported: obligations no test attacks, tests whose ID
// has no property, proofs that do not exist, legacy-format gaps, bare tolerance numbers.
std::vector<Diagnostic> lint(const LoadResult& loaded, const LintOptions& options);

}  // namespace attncheck::contract
