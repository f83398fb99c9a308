// attncheck CLI: `attncheck coverage` — for every obligation, its LaTeX and Coq proofs (checked
// only if this build recorded them), its falsification tests and harnesses; exit 1 when an
// obligation lacks a required kind.
#include "cli/coverage.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include "attncheck/check/registry.hpp"
#include "cli/cli.hpp"
#include "cli/table.hpp"

#ifndef ATTNCHECK_PROOFS_RECORD
#define ATTNCHECK_PROOFS_RECORD ""
#endif

namespace attncheck::cli {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "checked" if the recorded copy exists and equals the tree's file, else why not.
std::string recorded(const fs::path& source, const fs::path& copy) {
  const auto now = read(source);
  if (!now) return "source " + source.string() + " missing";
  const auto then = read(copy);
  if (!then) return "not built in this record";
  return *now == *then ? "checked" : "stale (edited since the recorded build)";
}

std::string latex_status(const contract::Obligation& o, const std::string& root, const std::string& record) {
  if (o.proof.empty()) return "no proof named";
  const std::string file = o.proof.substr(0, o.proof.find('#'));
  const std::string label = o.proof.find('#') == std::string::npos ? o.id : o.proof.substr(o.proof.find('#') + 1);
  const auto text = read(fs::path(root) / file);
  if (!text) return file + " missing";
  if (text->find("\\label{" + label + "}") == std::string::npos) return file + " has no \\label{" + label + "}";
  return recorded(fs::path(root) / file, fs::path(record) / "pdf" / "checked" / fs::path(file).filename());
}

std::string coq_status(const std::string& theorem, const std::string& root, const std::string& record) {
  const auto dot = theorem.find('.');
  if (dot == std::string::npos) return "not a File.theorem name";
  const std::string file = theorem.substr(0, dot) + ".v", name = theorem.substr(dot + 1);
  const fs::path src = fs::path(root) / "proofs" / "coq", rec = fs::path(record) / "coq" / "checked";
  const auto text = read(src / file);
  if (!text) return "proofs/coq/" + file + " missing";
  if (!std::regex_search(*text, std::regex("(Theorem|Lemma|Corollary|Proposition)\\s+" + name + "[\\s:]")))
    return "not declared in proofs/coq/" + file;
  const auto all = read(src / "All.v");
  if (!all || (all->find("@" + theorem + ",") == std::string::npos && all->find("@" + theorem + ")") == std::string::npos))
    return "not bundled in proofs/coq/All.v (its axioms are not checked)";
  const std::string s = recorded(src / file, rec / file);
  if (s != "checked") return s;
  const std::string a = recorded(src / "All.v", rec / "All.v");
  return a == "checked" ? "checked" : "All.v " + a;
}

}  // namespace

std::string default_proofs_record() {
  if (const char* env = std::getenv("ATTNCHECK_PROOFS_RECORD"); env && *env) return env;
  return ATTNCHECK_PROOFS_RECORD;
}

Coverage coverage_of(const contract::Contract& c, const contract::Obligation& o, const std::string& root,
                     const std::string& record) {
  Coverage v;
  v.latex = latex_status(o, root, record);
  v.latex_checked = v.latex == "checked";
  if (!v.latex_checked) v.missing.push_back("LaTeX proof (" + v.latex + ")");
  for (const auto& t : o.coq) {
    const std::string s = coq_status(t, root, record);
    ++v.coq_named;
    v.coq_checked += s == "checked" ? 1 : 0;
    v.coq.push_back(t + " " + s);
    if (s != "checked") v.missing.push_back("Coq " + t + " (" + s + ")");
  }
  for (const auto& t : c.tests)
    if (std::find(t.obligations.begin(), t.obligations.end(), o.id) != t.obligations.end()) {
      v.tests.push_back(t.id);
      v.tests_with_property += check::find_property(t.id) ? 1 : 0;
    }
  if (v.tests_with_property == 0)
    v.missing.push_back(v.tests.empty() ? "falsification test (none attacks it)"
                                        : "falsification test (none has an executable property in this build)");
  for (const auto& h : c.harnesses)
    if (h.obligation == o.id) v.harnesses.push_back(h.id);
  return v;
}

namespace {

int run_coverage(const Global& global, const std::string& record) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  const std::string root = repo_root_of(global.contracts_dir);
  std::error_code ec;
  if (record.empty() || !fs::is_directory(record, ec))
    std::cerr << "warning: no proofs record at '" << record
              << "': build the proofs first (ctest -L proofs) or pass --proofs-record DIR; no proof counts as checked\n";

  Table table;
  table.header = {"contract", "obligation", "latex", "coq", "tests", "harnesses", "covered"};
  std::vector<std::string> gaps;
  int covered = 0, total = 0;
  for (const auto& c : loaded->contracts)
    for (const auto& o : c.obligations) {
      const Coverage v = coverage_of(c, o, root, record);
      ++total;
      covered += v.missing.empty() ? 1 : 0;
      const std::string coq = v.coq_named ? std::to_string(v.coq_checked) + "/" + std::to_string(v.coq_named) + " checked" : "-";
      const std::string tests = std::to_string(v.tests_with_property) + " (" + join(v.tests, " ") + ")";
      table.rows.push_back({c.id, o.id, v.latex_checked ? "checked" : "NO", coq, tests,
                            v.harnesses.empty() ? "-" : join(v.harnesses, " ") + " (not run)",
                            v.missing.empty() ? "yes" : "NO"});
      for (const auto& m : v.missing) gaps.push_back(o.id + ": missing " + m);
    }
  std::cout << "proofs record: " << (record.empty() ? "(none)" : record) << "\n" << table.render();
  for (const auto& g : gaps) std::cout << g << "\n";
  std::cout << covered << " of " << total << " obligations covered\n";
  return covered == total ? exit_pass : exit_fail;
}

}  // namespace

Command setup_coverage(CLI::App& parent, const Global& global) {
  auto* app = parent.add_subcommand(
      "coverage",
      "For every obligation: its LaTeX and Coq proofs (checked only if this build recorded them), "
      "falsification tests and harnesses; exit 1 if one lacks a required kind");
  auto record = std::make_shared<std::string>(default_proofs_record());
  app->add_option("--proofs-record", *record,
                  "Directory where the proofs build recorded what it checked (default: "
                  "$ATTNCHECK_PROOFS_RECORD, else this build's proofs/)")
      ->capture_default_str();
  app->footer(
      "Required per obligation: a LaTeX proof that built (two pdflatex passes, no undefined "
      "reference), an attacking falsification test with an executable property, and every Coq "
      "theorem it names built with no Admitted and only standard axioms. Harnesses are listed, "
      "not required: none is run yet.\nExit status: 0 all covered, 1 a gap, 2 contract errors.");
  return {app, [&global, record] { return run_coverage(global, *record); }};
}

}  // namespace attncheck::cli
