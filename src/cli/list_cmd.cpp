// attncheck CLI: `attncheck list` — what the contracts state and what this build can check.
#include <algorithm>
#include <iostream>
#include <memory>

#include "attncheck/property/registry.hpp"
#include "cli/cli.hpp"
#include "cli/table.hpp"

namespace attncheck::cli {

namespace {
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += indent + text.substr(start, end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void print_contract(const contract::Contract& c) {
  std::cout << c.id << "  " << (c.version.empty() ? "-" : c.version) << "  " << c.description << "\n";
  if (c.legacy_dialect) std::cout << "  (legacy format: obligation IDs assigned by position)\n";
  if (!c.depends_on.empty()) std::cout << "  depends on: " << join(c.depends_on, ", ") << "\n";

  if (!c.obligations.empty()) {
    Table t{{"obligation", "type", "property"}, {}, {}};
    for (const auto& o : c.obligations) t.rows.push_back({o.id, o.type, o.property});
    std::cout << "\n" << indented(t.render(), "  ");
  }
  if (!c.tests.empty()) {
    Table t{{"test", "obligations", "property"}, {}, {}};
    for (const auto& test : c.tests) {
      const property::PropertyInfo* p = property::find_property(test.id);
      t.rows.push_back({test.id, test.obligations.empty() ? "-" : join(test.obligations, ","),
                        p ? "registered" : "NONE (gate reports ERROR)"});
    }
    std::cout << "\n" << indented(t.render(), "  ");
  }
  if (!c.harnesses.empty()) {
    Table t{{"harness", "obligation", "property"}, {}, {}};
    for (const auto& h : c.harnesses) t.rows.push_back({h.id, h.obligation, h.property});
    std::cout << "\n" << indented(t.render(), "  ");
  }
  if (c.gate) std::cout << "\n  gate " << c.gate->id << ": " << c.gate->name << "\n";
}

int run_list(const std::vector<std::string>& wanted, const Global& global) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  std::vector<std::string> ids;
  for (const auto& c : loaded->contracts) ids.push_back(c.id);
  for (const auto& w : wanted) {
    if (std::find(ids.begin(), ids.end(), w) != ids.end()) continue;
    const std::string guess = closest(w, ids);
    std::cerr << "error: unknown contract '" << w << "'" << (guess.empty() ? "" : "; did you mean '" + guess + "'?")
              << "\n  known contracts: " << (ids.empty() ? "(none)" : join(ids, ", ")) << "\n";
    return exit_usage;
  }
  bool first = true;
  for (const auto& c : loaded->contracts) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.id) == wanted.end()) continue;
    if (!first) std::cout << "\n";
    first = false;
    print_contract(c);
  }
  if (loaded->contracts.empty()) std::cout << "no contracts in " << global.contracts_dir << "\n";
  return exit_pass;
}
}  // namespace

Command setup_list(CLI::App& parent, const Global& global) {
  auto wanted = std::make_shared<std::vector<std::string>>();
  CLI::App* app = parent.add_subcommand(
      "list", "List contracts, obligations, falsification tests (and whether each has a property), harnesses, gates");
  app->fallthrough();
  app->add_option("--contract", *wanted, "Only this contract (repeatable)")->delimiter(',');
  app->footer("Exit status: 0 listed, 2 usage or contract errors (an unknown --contract among them).");
  return {app, [wanted, &global] { return run_list(*wanted, global); }};
}

}  // namespace attncheck::cli
