// attncheck tests: running a command through the shell and collecting what it printed, for the
// tests that drive the real CLI binary (tests/cli_test.cpp, tests/resource_bounds_test.cpp,
// tests/audit/audit_test.cpp).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <doctest/doctest.h>

// (Not in namespace attncheck: tests/cli_test.cpp calls its own function attncheck().)
namespace attncheck_tests {

struct CommandOutput {
  int status = -1;     // exit status, -1 if the process died from a signal
  std::string output;  // what it wrote to stdout (append 2>&1 to the command for stderr too)
};

// Runs command with /bin/sh (popen) and waits for it.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput r;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace attncheck_tests
