// libFuzzer target: the command line (src/cli/app.cpp: CLI11 plus attncheck's own option parsers).
// The input is split at NUL bytes into argv; parsing must end in success or CLI::ParseError (which
// main() turns into a usage message and exit 2). Subcommands are not run: that is the test suite's
// job, and a gate run per input would make fuzzing pointless. Each argument is also fed to the
// value parsers that subcommands apply after parsing (seeds, kernel specs, tolerances, typo hints).
#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/property/tolerance.hpp"
#include "cli/audit.hpp"
#include "cli/cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attncheck::cli;
  std::vector<std::string> args{"attncheck"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (args.size() < 64) args.push_back(current);

  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const auto cli = make_cli();
  try {
    cli->app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
  }

  const std::vector<std::string> names{"gate", "list", "show", "lint", "coverage", "audit", "bmc"};
  for (const auto& a : args) {
    (void)parse_seed(a);
    attncheck::audit::Binding b;
    (void)attncheck::audit::parse_kernel_spec(a, true, b);
    (void)attncheck::audit::parse_kernel_spec(a, false, b);
    std::string why;
    (void)attncheck::property::parse_tolerance(a, why);
    (void)attncheck::closest(a, names);
  }
  return 0;
}
