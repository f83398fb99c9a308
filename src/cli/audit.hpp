// attncheck CLI: `attncheck audit` — what the command and its JSON writer share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attncheck/audit/bindings.hpp"
#include "attncheck/audit/library_backend.hpp"
#include "attncheck/audit/properties.hpp"
#include "attncheck/audit/runner.hpp"

namespace attncheck::cli {

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
