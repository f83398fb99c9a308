// attncheck: the gappa child process (gappa_run.hpp).
#include "attncheck/bmc/gappa_run.hpp"
#include "attncheck/bmc/external_tool.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
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
  std::string dir = (std::filesystem::temp_directory_path() / "attncheck-gappa-XXXXXX").string();
  if (!::mkdtemp(dir.data())) {
    a.reason = "cannot create a temporary directory for gappa";
    return a;
  }
  struct cleanup {
    std::string d;
    ~cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  } guard{dir};
  const std::string in_path = dir + "/script.g", out_path = dir + "/out", err_path = dir + "/err";
  {
    std::ofstream out(in_path);
    out << script;
    if (!out) {
      a.reason = "cannot write the gappa script to " + dir;
      return a;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    a.reason = "cannot start gappa (fork failed)";
    return a;
  }
  if (pid == 0) {
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0) ::_exit(127);
    ::dup2(o, 1);
    ::dup2(e, 2);
    // No automatic interval splitting: it never helped our goals prove, and makes a failing
    // goal (a mutant) take 5-10 times longer.
    std::string b = *bin, opt = "-Eno-auto-dichotomy", f = in_path;
    char* argv[] = {b.data(), opt.data(), f.data(), nullptr};
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  const auto deadline = start + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      a.result = gappa_answer::status::timeout;
      a.reason = fmt::format("timeout after {:g} s (gappa killed)", timeout_seconds);
      return a;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string err = trimmed(slurp(err_path));
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

}  // namespace attncheck::bmc
