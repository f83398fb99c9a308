// attncheck CLI: `attncheck graph` — the contract dependency DAG as text, Graphviz DOT or Mermaid;
// exit 2 on a dependency cycle or a depends_on entry naming no loaded contract.
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "cli/contract_graph.hpp"

namespace attncheck::cli {

namespace {
// style: how the graph is written (--format text, dot or mermaid).
int run_graph(const Global& global, const std::string& style) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) {
    std::cerr << "error: no dependency graph: the contracts do not load (a dependency cycle or an unknown "
                 "dependency is among the errors above)\n";
    return exit_usage;
  }
  std::string error;
  const auto g = build_graph(loaded->contracts, &error);
  if (!g) {
    std::cerr << "error: " << error << "\n";
    return exit_usage;
  }
  if (style == "dot")
    std::cout << graph_dot(*g);
  else if (style == "mermaid")
    std::cout << graph_mermaid(*g);
  else
    std::cout << graph_text(*g);
  return exit_pass;
}
}  // namespace

Command setup_graph(CLI::App& parent, const Global& global) {
  auto* app = parent.add_subcommand(
      "graph", "Print the contract dependency DAG (metadata.depends_on); exit 2 on a cycle or an unknown dependency");
  auto style = std::make_shared<std::string>("text");
  app->add_option("--format", *style,
                  "text: one line per contract, dependencies first ('id -> dep, dep'); dot: Graphviz; "
                  "mermaid: a Mermaid flowchart")
      ->check(CLI::IsMember({"text", "dot", "mermaid"}))
      ->capture_default_str();
  app->footer("Edges point from a contract to the contracts it depends on.\n"
              "Exit status: 0 printed, 2 contract errors (including a cycle or an unknown dependency).");
  return {app, [&global, style] { return run_graph(global, *style); }};
}

}  // namespace attncheck::cli
