// attncheck: loading contract YAML files into the model, with file:line:col diagnostics.
#pragma once

#include <string>
#include <vector>

#include "attncheck/contract/model.hpp"

namespace attncheck::contract {

struct LoadResult {
  std::vector<Contract> contracts;
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  bool ok() const;                      // true when no diagnostic is an error
};

// One file. Never throws and never crashes on bad input: a malformed file yields an error
// diagnostic with its location and no contract (or a partial one, when the damage is local).
LoadResult load_file(const std::string& path);

// Every *.yaml in dir, sorted by file name, plus the checks across files: duplicate contract or
// item IDs, depends_on naming an unknown contract, dependency cycles.
LoadResult load_directory(const std::string& dir);

}  // namespace attncheck::contract
