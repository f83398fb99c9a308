// attncheck CLI: what the subcommands share (exit codes, contract loading, small text helpers).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "attncheck/scalar/dtype.hpp"
#include "attncheck/contract/loader.hpp"
#include "attncheck/text/words.hpp"

namespace attncheck::cli {

// The exit codes CI scripts rely on.
inline constexpr int exit_pass = 0;   // everything checked passed
inline constexpr int exit_fail = 1;   // a check failed, errored or gave up
inline constexpr int exit_usage = 2;  // bad arguments or broken contracts: nothing was judged
inline constexpr int exit_not_assessed = 3;  // `coverage`: no gap, but some proofs not checked in this build

// Options of the top-level command, filled by CLI11 before any subcommand runs.
struct Global {
  std::string contracts_dir;
  bool contracts_given = false;  // --contracts on the command line (replay commands must repeat it)
};

// A subcommand: its CLI11 node and what to run once it was parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command setup_gate(CLI::App& parent, const Global& global);
Command setup_list(CLI::App& parent, const Global& global);
Command setup_show(CLI::App& parent, const Global& global);
Command setup_lint(CLI::App& parent, const Global& global);
Command setup_coverage(CLI::App& parent, const Global& global);
Command setup_audit(CLI::App& parent, const Global& global);
Command setup_bmc(CLI::App& parent, const Global& global);
Command setup_graph(CLI::App& parent, const Global& global);
Command setup_docs(CLI::App& parent, const Global& global);
Command setup_report(CLI::App& parent, const Global& global);

// The whole command line: global options and every subcommand, built apart from main() so that the
// fuzzer (fuzz/cli_fuzz.cpp) drives exactly the parser users drive. Parse with cli->app.parse().
struct Cli {
  CLI::App app;
  Global global;
  CLI::Option* contracts = nullptr;  // --contracts
  std::vector<Command> commands;
  Cli();
};
std::unique_ptr<Cli> make_cli();

// The default contracts directory: $ATTNCHECK_CONTRACTS, else the one found beside the executable
// (PREFIX/share/attncheck/contracts installed, BUILD/contracts in the build tree), and where it came
// from (for --version). directory used without --contracts, and where it came from (for --version).
struct DefaultContracts {
  std::string dir, origin;
};
DefaultContracts find_default_contracts();
std::string default_contracts_dir();
// A file or directory the build writes and `cmake --install` copies (cmake/install.cmake), found
// as the contracts are: PREFIX/share/attncheck/<installed> when this binary is installed, else
// <build> beside it in the build tree. Whether this binary runs from an install prefix.
std::string beside_executable(const std::string& installed, const std::string& build);
bool running_installed();

// The repository root that `proof:` paths are relative to: the parent of the contracts dir.
std::string repo_root_of(const std::string& contracts_dir);

// Loads every contract in dir. On any load error prints every diagnostic (file:line:col) and a
// hint to stderr and returns nullopt; warnings are printed only when print_warnings is set.
std::optional<contract::LoadResult> load_or_report(const std::string& dir, bool print_warnings);

// Parses a seed written in decimal or as 0x hex; nullopt if it is neither or does not fit.
std::optional<std::uint64_t> parse_seed(std::string_view text);

// closest() and join(): attncheck/text/words.hpp.

// s as one word of a POSIX shell command line, for the replay lines: bare when it holds only
// [A-Za-z0-9_-./=:,+], else in single quotes ('' for the empty argument).
std::string shell_quoted(const std::string& s);

// "f16, bf16, f32, f64"
std::string dtype_list(const std::vector<Dtype>& dtypes);

// Writes content to a temporary file in path's directory and renames it over path, so a reader
// never sees half a report (report_files.cpp). Throws std::runtime_error naming the path and the reason.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace attncheck::cli
