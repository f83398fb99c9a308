// attncheck: loading contract YAML files into the model, with file:line:col diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/contract/model.hpp"

namespace attncheck::contract {

struct LoadResult {
  std::vector<Contract> contracts;
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  bool ok() const;                      // true when no diagnostic is an error
};

// A contract file larger than this is refused unread, with a diagnostic (the resource
// bounds): yaml-cpp builds a node tree of tens of bytes per input byte, so a 100 MB file would
// cost minutes and gigabytes before any verdict. The bundled contracts are under 16 KiB.
inline constexpr std::uintmax_t max_file_bytes = std::uintmax_t{4} << 20;

// One file. Never throws and never crashes on bad input: a malformed file yields an error
// diagnostic with its location and no contract (or a partial one, when the damage is local).
LoadResult load_file(const std::string& path);

// The same checks on a file's bytes already in memory, reported under `name` (fuzzing, tests).
LoadResult load_text(const std::string& bytes, const std::string& name);

// Every *.yaml in dir, sorted by file name, plus the checks across files: duplicate contract or
// item IDs, depends_on naming an unknown contract, dependency cycles.
LoadResult load_directory(const std::string& dir);

}  // namespace attncheck::contract
