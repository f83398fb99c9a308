// attncheck: the gappa child process (gappa_run.hpp).
#include "attncheck/bmc/gappa_run.hpp"
#include "attncheck/bmc/external_tool.hpp"

#include <cctype>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// The verdict from gappa's stderr and exit status.
gappa_answer judge(gappa_answer a, const std::string& err, int code) {
  // Gappa exits 0 only when every goal is proved. Its warnings do not matter then, except one:
  // a rewriting hint whose two sides differ ("not trivially equal") is still used, so a proof
  // that relies on it proves nothing (the kernel's exact expression is not the specification).
  if (const auto at = err.find("are not trivially equal"); at != std::string::npos) {
    a.result = gappa_answer::status::not_proved;
    const auto line_start = err.rfind('\n', at);
    std::string what = err.substr(line_start == std::string::npos ? 0 : line_start + 1);
    if (const auto w = what.find("Warning: "); w == 0) what = what.substr(9);
    std::string compact;
    for (char c : what) compact += c == '\n' ? ' ' : c;
    while (compact.find("  ") != std::string::npos) compact.replace(compact.find("  "), 2, " ");
    a.reason = "the kernel's exact expression is not the specification (a rewriting hint failed): " +
               (compact.size() > 400 ? compact.substr(0, 400) + "..." : compact);
    return a;
  }
  if (code == 0) {
    a.result = gappa_answer::status::proved;
    return a;
  }
  if (err.find("some properties were not satisfied") != std::string::npos) {
    a.result = gappa_answer::status::not_proved;
    std::string goals;
    std::istringstream lines(err.substr(err.find("some properties were not satisfied")));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
      const auto first = line.find_first_not_of(' ');
      if (first != std::string::npos) goals += (goals.empty() ? "" : "; ") + trimmed(line.substr(first));
    }
    a.reason = "gappa could not prove: " + goals;
    return a;
  }
  a.reason = fmt::format("gappa failed (exit status {}): {}", code, err.size() > 300 ? err.substr(0, 300) + "..." : err);
  return a;
}

}  // namespace

std::optional<std::string> gappa_binary() { return find_executable("ATTNCHECK_GAPPA", "gappa"); }

std::string gappa_version() {
  static const std::string v = [] {
    const auto bin = gappa_binary();
    if (!bin) return std::string("gappa (not installed)");
    const std::string out = first_output_line(*bin + " --version 2>&1");
    // "Gappa 1.4.1" -> "gappa 1.4.1"
    const auto sp = out.rfind(' ');
    return sp == std::string::npos ? std::string("gappa") : "gappa " + out.substr(sp + 1);
  }();
  return v;
}

gappa_answer run_gappa(const std::string& script, double timeout_seconds) {
  gappa_answer a;
  const auto bin = gappa_binary();
  if (!bin) {
    a.reason = "gappa not found on PATH (Debian: apt-get install gappa)";
    return a;
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    tool_process gappa("gappa");
    gappa.write("script.g", script);
    // No automatic interval splitting: it never helped our goals prove, and makes a failing
    // goal (a mutant) take 5-10 times longer.
    gappa.start({*bin, "-Eno-auto-dichotomy", gappa.path("script.g")});
    const bool done = gappa.wait_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_seconds)));
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!done) {
      a.result = gappa_answer::status::timeout;
      a.reason = fmt::format("timeout after {:g} s (gappa killed)", timeout_seconds);
      return a;
    }
    return judge(a, trimmed(gappa.err()), gappa.exit_code());
  } catch (const std::runtime_error& e) {
    a.reason = e.what();
    return a;
  }
}

}  // namespace attncheck::bmc
