// attncheck CLI: what every report says about the run besides the verdicts — the contracts and
// where their obligations are stated, the machine, and the versions of the libraries attncheck
// was built with (read from their headers, so the report names what actually ran).
#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <CLI/Version.hpp>
#include <fmt/core.h>
#include <gmp.h>
#include <mpfi.h>
#include <mpfr.h>
#if __has_include(<z3_version.h>)
#include <z3_version.h>
#endif

#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "cli/gate.hpp"

namespace attncheck::cli {

namespace fs = std::filesystem;

namespace {
std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

std::string first_line_of(const std::string& s) { return s.substr(0, s.find('\n')); }
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
}  // namespace

void describe_contracts(GateReport& report, const std::vector<contract::Contract>& contracts,
                        const std::string& contracts_dir) {
  report.repo_root = repo_root_of(contracts_dir);
  for (const auto& c : contracts) {
    report.contracts.push_back({c.id, c.version, report_path(report, c.file)});
    for (const auto& o : c.obligations) report.obligations[o.id] = {c.id, first_line_of(o.property), o.where};
    for (const auto& t : c.tests) report.test_locations[t.id] = t.where;
    // The likely cause a failure names, as `attncheck show TEST` prints it ("if it fails").
    for (const auto* tests : {&c.tests, &c.audit_properties})
      for (const auto& t : *tests)
        if (!t.if_fails.empty()) report.test_causes[t.id] = one_line(t.if_fails);
  }
}

std::string report_path(const GateReport& report, const std::string& path) {
  if (path.empty()) return path;
  const fs::path abs = absolute_normal(path);
  if (report.repo_root.empty()) return abs.string();
  const fs::path rel = abs.lexically_relative(report.repo_root);
  if (rel.empty() || *rel.begin() == "..") return abs.string();
  return rel.generic_string();
}

std::vector<std::pair<std::string, std::string>> machine_info() {
  std::vector<std::pair<std::string, std::string>> m;
  struct utsname u {};
  if (::uname(&u) == 0) {
    m.emplace_back("os", u.sysname);
    m.emplace_back("os_release", u.release);
    m.emplace_back("arch", u.machine);
  }
  // The CPU model is what makes timings comparable; the first "model name" line names it.
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      const auto v = line.substr(line.find(':') + 1);
      m.emplace_back("cpu", v.substr(v.find_first_not_of(' ') == std::string::npos ? v.size() : v.find_first_not_of(' ')));
      break;
    }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) m.emplace_back("logical_cpus", std::to_string(n));
  return m;
}

#define ATTNCHECK_STR2(x) #x
#define ATTNCHECK_STR(x) ATTNCHECK_STR2(x)

std::vector<std::pair<std::string, std::string>> dependency_versions() {
  std::vector<std::pair<std::string, std::string>> d;
#if defined(__clang__)
  d.emplace_back("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
  d.emplace_back("compiler", "GCC " __VERSION__);
#endif
#if defined(_GLIBCXX_RELEASE)
  d.emplace_back("libstdc++", ATTNCHECK_STR(_GLIBCXX_RELEASE) " (" ATTNCHECK_STR(__GLIBCXX__) ")");
#endif
  d.emplace_back("boost", std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                              std::to_string(BOOST_VERSION % 100));
  d.emplace_back("gmp", ATTNCHECK_STR(__GNU_MP_VERSION) "." ATTNCHECK_STR(__GNU_MP_VERSION_MINOR) "." ATTNCHECK_STR(
                            __GNU_MP_VERSION_PATCHLEVEL));
  d.emplace_back("mpfr", MPFR_VERSION_STRING);
  d.emplace_back("mpfi", MPFI_VERSION_STRING);
#ifdef ATTNCHECK_YAML_CPP_VERSION
  d.emplace_back("yaml-cpp", ATTNCHECK_YAML_CPP_VERSION);  // yaml-cpp's headers carry no version: CMake's package file does
#endif
  d.emplace_back("fmt", std::to_string(FMT_VERSION / 10000) + "." + std::to_string(FMT_VERSION / 100 % 100) + "." +
                            std::to_string(FMT_VERSION % 100));
  d.emplace_back("cli11", CLI11_VERSION);
#ifdef Z3_FULL_VERSION
  d.emplace_back("z3", Z3_FULL_VERSION);
#endif
  return d;
}

}  // namespace attncheck::cli
