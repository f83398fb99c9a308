// attncheck audit tests: runs `attncheck audit ... --json F` with the real CLI and reads the verdict
// of each row back ("TEST kind [dtype]" -> PASS / FAIL / N/A / ...). For the ABI-version-2 attention
// tests (attention_v2_test.cpp, attention_v2_pending.cpp); audit_test.cpp has its own, fuller reader.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "tests/run_command.hpp"
#include "tests/test_paths.hpp"

namespace attncheck_tests::audit_cli {

struct Run {
  int status = -1;
  std::string output;                          // stdout and stderr
  std::map<std::string, std::string> verdicts; // "TEST kind [dtype]" -> verdict
  std::string json;
};

inline Run audit(const std::string& args) {
  namespace fs = std::filesystem;
  const fs::path json = fs::temp_directory_path() / ("attncheck-audit-v2-test-" + std::to_string(::getpid()) + ".json");
  fs::remove(json);
  const std::string command = std::string("'") + ATTNCHECK_CLI_PATH + "' --contracts '" + ATTNCHECK_SOURCE_DIR + "/contracts' audit " +
                              args + " --json '" + json.string() + "' 2>&1";
  Run r;
  const CommandOutput out = run_command(command);
  r.status = out.status;
  r.output = out.output;
  std::ifstream in(json);
  const std::regex row(R"re("test": "([^"]+)", "kinds": \[("[^"]*")?[^\]]*\], "dtype": "([^"]+)", "verdict": "([^"]+)")re");
  for (std::string line; std::getline(in, line);) {
    r.json += line + "\n";
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    const std::string kind = m[2].matched ? m[2].str().substr(1, m[2].length() - 2) : "";
    r.verdicts[m[1].str() + " " + kind + " [" + m[3].str() + "]"] = m[4];
  }
  fs::remove(json);
  return r;
}

inline bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// Set by tools/sanitize.sh: the run under ASan + UBSan at -O0, where an attention audit at the
// shipped sizes (AUDIT-ATTB-002) costs minutes per kernel. There the tests that cover every
// format keep one kernel at full scope and the others without the sized check: the same code
// paths (the --lib and exec boundaries, the attention-v2 properties), at a fraction of the cost.
inline bool sanitized_run() {
  const char* s = std::getenv("ATTNCHECK_SANITIZED");
  return s != nullptr && *s != '\0' && std::string(s) != "0";
}

}  // namespace attncheck_tests::audit_cli
