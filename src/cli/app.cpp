// attncheck CLI: the command line (global options, subcommands), shared by main() and the fuzzer.
#include "cli/cli.hpp"

namespace attncheck::cli {

Cli::Cli() : app{"attncheck " ATTNCHECK_VERSION " - the mathematics of attention as checked contracts", "attncheck"} {
  const DefaultContracts found = find_default_contracts();
  app.set_version_flag("--version", "attncheck " ATTNCHECK_VERSION "\ncontracts: " + found.dir + " (" + found.origin +
                                        "; --contracts DIR or $ATTNCHECK_CONTRACTS overrides)");
  app.require_subcommand(1);
  global.contracts_dir = found.dir;
  contracts = app.add_option("--contracts", global.contracts_dir,
                             "Directory of contract YAML files (default: $ATTNCHECK_CONTRACTS, else "
                             "PREFIX/share/attncheck/contracts for PREFIX/bin/attncheck, else contracts/ "
                             "beside the executable)")
                  ->capture_default_str();
  app.footer("Run 'attncheck SUBCOMMAND --help' for the options of a subcommand.\n"
             "Exit status: 0 all passed, 1 a check failed, 2 usage or contract errors.");
  commands = {setup_gate(app, global), setup_list(app, global), setup_show(app, global),
              setup_lint(app, global), setup_coverage(app, global), setup_audit(app, global),
              setup_bmc(app, global),     setup_graph(app, global), setup_docs(app, global),
              setup_report(app, global)};
}

// On the heap: the subcommands' run functions hold references to `global`, so it must not move.
std::unique_ptr<Cli> make_cli() { return std::make_unique<Cli>(); }

}  // namespace attncheck::cli
