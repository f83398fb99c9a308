// attncheck CLI: `attncheck lint` — load the contracts and check their traceability (every
// obligation attacked by a test, every test backed by a property, every proof file present).
#include <filesystem>
#include <iostream>
#include <memory>

#include "attncheck/property/registry.hpp"
#include "attncheck/contract/lint.hpp"
#include "cli/cli.hpp"

namespace attncheck::cli {

namespace {
int run_lint(const Global& global) {
  std::error_code ec;
  if (!std::filesystem::is_directory(global.contracts_dir, ec)) {
    std::cerr << "error: contracts directory '" << global.contracts_dir
              << "' does not exist; pass --contracts DIR or set ATTNCHECK_CONTRACTS\n";
    return exit_usage;
  }
  const contract::LoadResult loaded = contract::load_directory(global.contracts_dir);
  contract::LintOptions options;
  options.has_property = [](std::string_view id) { return property::find_property(id) != nullptr; };
  options.repo_root = repo_root_of(global.contracts_dir);

  // Load problems first (they explain lint problems that follow from them), then lint's own.
  std::vector<contract::Diagnostic> all = loaded.diagnostics;
  const auto linted = contract::lint(loaded, options);
  all.insert(all.end(), linted.begin(), linted.end());

  int errors = 0, warnings = 0;
  for (const auto& d : all) {
    errors += d.severity == contract::Severity::error ? 1 : 0;
    warnings += d.severity == contract::Severity::warning ? 1 : 0;
    std::cout << contract::to_string(d) << "\n";
  }
  // Fixed wording (always plural) so scripts can parse it like the gate's summary line.
  std::cout << errors << " errors, " << warnings << " warnings\n";
  return errors ? exit_usage : exit_pass;
}
}  // namespace

Command setup_lint(CLI::App& parent, const Global& global) {
  CLI::App* app = parent.add_subcommand(
      "lint", "Load the contracts and check traceability: obligations, tests, properties, proof files");
  app->fallthrough();
  app->footer("Exit status: 0 no errors (warnings allowed), 2 any error.");
  return {app, [&global] { return run_lint(global); }};
}

}  // namespace attncheck::cli
