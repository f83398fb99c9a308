// attncheck CLI: `attncheck show ID` — one contract, obligation, test, harness or gate in full.
// It reports what the contracts state, never a verdict: nothing is run here.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/harness.hpp"
#include "attncheck/check/registry.hpp"
#include "cli/cli.hpp"
#include "cli/coverage.hpp"

namespace attncheck::cli {

namespace {

using contract::Contract;

void field(const char* name, const std::string& value) {
  if (!value.empty()) std::cout << "  " << name << ": " << value << "\n";
}

std::string location(const contract::Location& l) {
  return l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

// The proof reference, and whether its file exists (a fact about the tree, not a verdict).
std::string proof_with_status(const std::string& proof, const std::string& root) {
  if (proof.empty()) return "";
  const std::string file = proof.substr(0, proof.find('#'));
  std::error_code ec;
  const bool present = std::filesystem::exists(std::filesystem::path(root) / file, ec);
  return proof + (present ? "" : "  (file not found under " + root + ")");
}

std::string gate_hint(const std::string& flag, const std::string& id) {
  return "status: not run in this invocation — run `attncheck gate " + flag + " " + id + "`";
}

void show_obligation(const Contract& c, const contract::Obligation& o, const std::string& root) {
  std::cout << "obligation " << o.id << (o.id_assigned ? " (ID assigned by position)" : "") << "  (contract " << c.id
            << ", " << location(o.where) << ")\n";
  field("type", o.type);
  field("property", o.property);
  field("formal", o.formal);
  field("domain", o.domain);
  field("applies to", o.applies_to);
  field("allowance", o.tolerance);
  field("legacy tolerance", o.legacy_tolerance);
  field("proof", proof_with_status(o.proof, root));
  std::vector<std::string> tests, harnesses;
  for (const auto& t : c.tests)
    if (std::find(t.obligations.begin(), t.obligations.end(), o.id) != t.obligations.end()) tests.push_back(t.id);
  for (const auto& h : c.harnesses)
    if (h.obligation == o.id) harnesses.push_back(h.id);
  field("attacked by", tests.empty() ? "no falsification test" : join(tests, ", "));
  field("harnesses", join(harnesses, ", "));
  // Proof status from the proofs build's record (see `attncheck coverage`), never from the YAML.
  const Coverage v = coverage_of(c, o, root, default_proofs_record());
  field("latex proof", v.latex);
  for (const auto& line : v.coq) field("coq", line);
  field("coverage", v.missing.empty() ? "covered" : "missing " + join(v.missing, "; "));
  std::cout << "  " << (tests.empty() ? "status: no test attacks this obligation" : gate_hint("--test", join(tests, " --test ")))
            << "\n";
}

void show_test(const Contract& c, const contract::FalsificationTest& t, const std::string& root) {
  std::cout << "falsification test " << t.id << "  (contract " << c.id << ", " << location(t.where) << ")\n";
  field("rule", t.rule);
  field("prediction", t.prediction);
  field("test", t.test);
  field("if it fails", t.if_fails);
  const check::PropertyInfo* p = check::find_property(t.id);
  if (p) {
    field("property", p->title);
    field("dtypes", dtype_list(p->dtypes));
  } else {
    field("property", "none registered in this build (the gate reports ERROR for this test)");
  }
  for (const auto& id : t.obligations) {
    const auto o = std::find_if(c.obligations.begin(), c.obligations.end(), [&](const auto& x) { return x.id == id; });
    if (o == c.obligations.end()) {
      std::cout << "  obligation " << id << ": not found in " << c.id << "\n";
      continue;
    }
    std::cout << "  obligation " << o->id << ": " << o->property << "\n";
    if (!o->formal.empty()) std::cout << "    formal: " << o->formal << "\n";
    if (!o->domain.empty()) std::cout << "    domain: " << o->domain << "\n";
    if (!o->tolerance.empty()) std::cout << "    allowance: " << o->tolerance << "\n";
    if (!o->proof.empty()) std::cout << "    proof: " << proof_with_status(o->proof, root) << "\n";
  }
  std::cout << "  " << gate_hint("--test", t.id) << "\n";
}

void show_contract(const Contract& c) {
  std::cout << "contract " << c.id << "  (" << location(c.where) << ")\n";
  field("version", c.version);
  field("description", c.description);
  field("depends on", join(c.depends_on, ", "));
  for (const auto& r : c.references) field("reference", r);
  for (const auto& e : c.equations) {
    std::cout << "  equation " << e.name << ": " << e.formula << "\n";
    if (!e.domain.empty()) std::cout << "    domain: " << e.domain << "\n";
  }
  std::vector<std::string> obligations, tests, harnesses;
  for (const auto& o : c.obligations) obligations.push_back(o.id);
  for (const auto& t : c.tests) tests.push_back(t.id);
  for (const auto& h : c.harnesses) harnesses.push_back(h.id);
  field("obligations", join(obligations, ", "));
  field("tests", join(tests, ", "));
  field("harnesses", join(harnesses, ", "));
  if (c.gate) field("gate", c.gate->id);
  std::cout << "  " << gate_hint("--contract", c.id) << "\n";
}

void show_harness(const Contract& c, const contract::Harness& h) {
  std::cout << "harness " << h.id << "  (contract " << c.id << ", " << location(h.where) << ")\n";
  field("obligation", h.obligation);
  field("property", h.property);
  field("bound", h.bound ? std::to_string(h.bound) : "");
  field("strategy", h.strategy);
  field("solver", h.solver);
  field("function", h.harness);
  std::string reached;
  for (const auto& [format, bound] : h.reached) reached += (reached.empty() ? "" : ", ") + format + " " + std::to_string(bound);
  field("reached (recorded)", reached);
  // `show` runs nothing: it says whether attncheck's engine has this harness and how to run it.
  if (bmc::find_harness(h.id) != nullptr || bmc::find_gappa_harness(h.id) != nullptr)
    std::cout << "  status: not run by show; run it with: attncheck bmc --harness " << h.id << "\n";
  else
    std::cout << "  status: declared only: attncheck's model checker has no harness " << h.id << "\n";
}

void show_gate(const Contract& c, const contract::QaGate& g) {
  std::cout << "gate " << g.id << "  (contract " << c.id << ", " << location(g.where) << ")\n";
  field("name", g.name);
  field("description", g.description);
  for (const auto& check : g.checks) field("check", check);
  field("pass criteria", g.pass_criteria);
  field("falsification", g.falsification);
  std::cout << "  " << gate_hint("--contract", c.id) << "\n";
}

// Shows the item with this ID; false if no contract has one.
bool show(const std::vector<Contract>& contracts, const std::string& id, const std::string& root) {
  for (const auto& c : contracts) {
    if (c.id == id) {
      show_contract(c);
      return true;
    }
    for (const auto& o : c.obligations)
      if (o.id == id) {
        show_obligation(c, o, root);
        return true;
      }
    for (const auto& t : c.tests)
      if (t.id == id) {
        show_test(c, t, root);
        return true;
      }
    for (const auto& h : c.harnesses)
      if (h.id == id) {
        show_harness(c, h);
        return true;
      }
    if (c.gate && c.gate->id == id) {
      show_gate(c, *c.gate);
      return true;
    }
  }
  return false;
}

std::vector<std::string> all_ids(const std::vector<Contract>& contracts) {
  std::vector<std::string> ids;
  for (const auto& c : contracts) {
    ids.push_back(c.id);
    for (const auto& o : c.obligations) ids.push_back(o.id);
    for (const auto& t : c.tests) ids.push_back(t.id);
    for (const auto& h : c.harnesses) ids.push_back(h.id);
    if (c.gate) ids.push_back(c.gate->id);
  }
  return ids;
}

int run_show(const std::string& id, const Global& global) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  if (show(loaded->contracts, id, repo_root_of(global.contracts_dir))) return exit_pass;
  if (const check::PropertyInfo* p = check::find_property(id)) {
    std::cout << "property " << p->id << ": " << p->title << "\n  dtypes: " << dtype_list(p->dtypes)
              << "\n  no contract under " << global.contracts_dir << " lists this test, so the gate does not run it\n";
    return exit_pass;
  }
  const std::string guess = closest(id, all_ids(loaded->contracts));
  std::cerr << "error: unknown ID '" << id << "'" << (guess.empty() ? "" : "; did you mean " + guess + "?")
            << " (run 'attncheck list' to see the IDs)\n";
  return exit_usage;
}

}  // namespace

Command setup_show(CLI::App& parent, const Global& global) {
  auto id = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "show", "Show one contract, obligation, falsification test, harness or gate by its ID");
  app->fallthrough();
  app->add_option("ID", *id, "e.g. attention-scaling-v1, ASCL-BND-001, FALSIFY-ASCL-004, KANI-ASCL-001, F-ASCL-001")
      ->required();
  return {app, [id, &global] { return run_show(*id, global); }};
}

}  // namespace attncheck::cli
