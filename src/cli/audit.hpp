// attncheck CLI: `attncheck audit` — what the command, its bindings file and its JSON writer share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attncheck/audit/library_backend.hpp"
#include "attncheck/audit/properties.hpp"
#include "attncheck/audit/runner.hpp"

namespace attncheck::cli {

// Where the kernels come from, after --lib/--kernel, --bindings or --exec were read.
struct AuditSource {
  std::string library;                  // --lib or the bindings file's library (resolved path)
  std::string exec;                     // --exec command
  std::vector<audit::Binding> bindings; // for --exec the symbol is empty
  audit::MaskedPolicy masked = audit::MaskedPolicy::either;  // the file's top-level masked, or --masked
  // Per kernel (a kernel entry's masked:); --masked on the command line replaces them all.
  std::map<std::pair<audit::Kind, Dtype>, audit::MaskedPolicy> kernel_masked;
  std::string tolerance;                // the bindings file's tolerance mode ("" = not given)
};

// Parses KIND:DTYPE:SYMBOL (library) or KIND:DTYPE (exec); returns an error text or "".
std::string parse_kernel_spec(const std::string& spec, bool with_symbol, audit::Binding& out);

// A bindings file names a library and a few kernels; anything this large is not one, and is refused
// unread (issue 9's resource bounds) rather than parsed for minutes.
inline constexpr std::uintmax_t max_bindings_bytes = std::uintmax_t{1} << 20;

// Reads a bindings YAML file (docs/audit.md); returns an error text or "".
std::string read_bindings(const std::string& path, AuditSource& out);
// The same for the file's text already in memory, reported under `path` (fuzzing, tests).
std::string read_bindings_text(const std::string& text, const std::string& path, AuditSource& out);

struct AuditReportInfo {
  std::string version, source, seed, masked;
  std::string tolerance = "derived";
  int cases = 0;
  double timeout = 0;
};
struct GateReport;
// The JSON report (schema attncheck-audit/1, documented in docs/audit.md and docs/report-schema.json);
// report supplies the run metadata, the locations and whether times are written.
std::string render_audit_json(const AuditReportInfo& info, const std::vector<audit::AuditRow>& rows, const GateReport& report);

}  // namespace attncheck::cli
