// attncheck CLI: `attncheck docs` — one Markdown page per contract, generated from its YAML
// (equations as LaTeX math, domains, invariants, the obligations, falsification tests, harnesses
// and QA gate), an index page with the Mermaid dependency graph, and two live status columns:
// whether each obligation's proofs were checked (the proofs record `attncheck coverage` reads)
// and the last verdict (from a gate or audit JSON report). With --no-status the status columns
// are left out: that is the form committed under docs/contracts/, which must depend on the YAML
// alone so a test can regenerate it and compare.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "cli/contract_graph.hpp"
#include "cli/coverage.hpp"
#include "cli/docs_latex.hpp"
#include "cli/report_reader.hpp"

namespace attncheck::cli {

namespace fs = std::filesystem;

namespace {

struct DocsOptions {
  std::string out = "contract-docs";
  std::string report;
  std::string record = default_proofs_record();
  bool no_status = false;
};

// What the live columns are computed from; absent with --no-status.
struct Status {
  std::string root, record;
  bool record_exists = false;
  std::optional<ReportData> report;
};

// Text for a Markdown table cell or paragraph: no line breaks, and the characters that Markdown
// (or GitHub's $…$ math) would interpret are escaped, so a formula like |S| ≤ 1/√d_k stays text.
std::string md(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\n': out += ' '; break;
      case '|': out += "\\|"; break;
      case '*': out += "\\*"; break;
      case '`': out += "\\`"; break;
      case '$': out += "\\$"; break;
      case '\\': out += "\\\\"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : md(s); }

// "PASS f16 bf16 · FAIL f32": the verdicts of the given rows, dtypes grouped per verdict, worst first.
std::string verdict_summary(const std::vector<const ReportRow*>& rows) {
  static const std::vector<std::string> rank = {"FAIL", "ERROR", "GAVE_UP", "PASS", "N/A"};
  std::map<std::string, std::vector<std::string>> by;
  for (const ReportRow* r : rows) by[r->verdict].push_back(r->dtype.empty() ? "-" : r->dtype);
  std::vector<std::string> verdicts;
  for (const auto& [v, _] : by) verdicts.push_back(v);
  const auto pos = [&](const std::string& v) {
    const auto it = std::find(rank.begin(), rank.end(), v);
    return it == rank.end() ? 2 : static_cast<int>(it - rank.begin());  // unknown verdicts sort with the failures
  };
  std::stable_sort(verdicts.begin(), verdicts.end(), [&](const auto& a, const auto& b) { return pos(a) < pos(b); });
  std::vector<std::string> parts;
  for (const auto& v : verdicts) parts.push_back(v + " " + join(by[v], " "));
  return join(parts, " · ");
}

std::string last_verdict_of_obligation(const Status& st, const contract::Contract& c, const std::string& id) {
  if (!st.report) return "not run";
  std::vector<const ReportRow*> rows;
  for (const auto& r : st.report->rows)
    if (r.contract == c.id && std::find(r.obligations.begin(), r.obligations.end(), id) != r.obligations.end())
      rows.push_back(&r);
  if (rows.empty()) return "not in the report";
  std::set<std::string> bad;
  int passed = 0;
  for (const ReportRow* r : rows) {
    if (r->verdict == "PASS")
      ++passed;
    else if (r->verdict != "N/A")
      bad.insert(r->verdict + " " + r->test + " [" + r->dtype + "]");
  }
  if (bad.empty() && passed == 0) return "N/A (no applicable kernel)";
  if (bad.empty()) return "PASS (" + std::to_string(passed) + (passed == 1 ? " check)" : " checks)");
  return md(join(std::vector<std::string>(bad.begin(), bad.end()), "; "));
}

std::string last_verdict_of_test(const Status& st, const std::string& id) {
  if (!st.report) return "not run";
  std::vector<const ReportRow*> rows;
  for (const auto& r : st.report->rows)
    if (r.test == id) rows.push_back(&r);
  return rows.empty() ? "not in the report" : md(verdict_summary(rows));
}

std::string proof_checked(const Status& st, const contract::Contract& c, const contract::Obligation& o) {
  const Coverage v = coverage_of(c, o, st.root, st.record);
  std::string s = "LaTeX " + v.latex;
  if (v.coq_named) s += "; Coq " + std::to_string(v.coq_checked) + "/" + std::to_string(v.coq_named) + " checked";
  return md(s);
}

std::string report_description(const ReportData& r) {
  return "`" + fs::path(r.path).filename().string() + "` (" + r.schema + ", attncheck " + r.version + ", seed " +
         r.seed + ", " + std::to_string(r.cases) + " cases, kernels " + md(r.kernels) + ")";
}

std::string status_note(const Status* st) {
  if (!st)
    return "Live status (whether each proof was checked, the last verdict) is left out of this page: it depends "
           "on a build and a run, not on the YAML. `attncheck docs --out DIR [--report gate.json]` writes the "
           "pages with it.\n";
  std::string s = "Proof status from the proofs record `" + (st->record.empty() ? std::string("(none)") : st->record) +
                  "`" + (st->record_exists ? "" : " (missing: no proof counts as checked)") + "; last verdict ";
  s += st->report ? "from " + report_description(*st->report) : "not run (no `--report` given)";
  return s + ".\n";
}

std::string page(const contract::Contract& c, const ContractGraph& g, const Status* st) {
  std::string s = "# " + c.id + "\n\n";
  s += "<!-- Generated by `attncheck docs` from contracts/" + fs::path(c.file).filename().string() +
       ": edit the YAML, not this page. -->\n\n";
  s += "**Version:** " + or_dash(c.version) + " · **Source:** `contracts/" + fs::path(c.file).filename().string() +
       "`" + (c.legacy_dialect ? " (legacy format: obligation IDs assigned by position)" : "") + "\n\n";
  s += md(c.description) + "\n\n" + status_note(st) + "\n";

  if (!c.references.empty()) {
    s += "## References\n\n";
    for (const auto& r : c.references) s += "- " + md(r) + "\n";
    s += "\n";
  }
  if (!c.corrections.empty()) {
    s += "## Corrections\n\nWhere this contract corrects the statement it was made from:\n\n";
    for (const auto& r : c.corrections) s += "- " + md(r) + "\n";
    s += "\n";
  }
  std::vector<std::string> users;
  for (const auto& [from, to] : g.edges)
    if (to == c.id) users.push_back(from);
  s += "## Dependencies\n\n";
  if (c.depends_on.empty()) s += "None.\n";
  for (const auto& d : c.depends_on) s += "- [" + d + "](" + d + ".md)\n";
  if (!users.empty()) {
    std::vector<std::string> links;
    for (const auto& u : users) links.push_back("[" + u + "](" + u + ".md)");
    s += "\nUsed by: " + join(links, ", ") + ".\n";
  }
  s += "\n## Dependency Graph\n\n```mermaid\n" + graph_mermaid_around(g, c.id) + "```\n\n";

  if (!c.equations.empty()) {
    s += "## Equations\n\n";
    for (const auto& e : c.equations) {
      s += "### " + md(e.name) + "\n\n";
      if (!e.formula.empty()) s += "$$\n" + formula_to_latex(e.formula) + "\n$$\n\n";
      if (!e.domain.empty()) s += "**Domain:** " + md(e.domain) + "\n\n";
      if (!e.codomain.empty()) s += "**Codomain:** " + md(e.codomain) + "\n\n";
      if (!e.invariants.empty()) {
        s += "**Invariants:**\n\n";
        for (const auto& i : e.invariants) s += "- " + md(i) + "\n";
        s += "\n";
      }
    }
  }

  if (!c.obligations.empty()) {
    s += "## Proof Obligations\n\n";
    s += std::string("| # | ID | Type | Property | Formal | Proof |") + (st ? " Proof checked | Last verdict |" : "") + "\n";
    s += std::string("|---|----|------|----------|--------|-------|") + (st ? "---------------|--------------|" : "") + "\n";
    int n = 0;
    for (const auto& o : c.obligations) {
      std::string proof = or_dash(o.proof);
      // Grouped by what each theorem proves (the link's exact:/float:), so that a page never
      // presents an exact-arithmetic theorem as a proof about the rounded computation.
      using P = contract::Obligation::CoqProves;
      for (const auto& [kind, label] : {std::pair{P::floating_point, "Coq (float)"}, std::pair{P::exact, "Coq (exact)"},
                                        std::pair{P::unstated, "Coq (unstated: exact)"}}) {
        std::vector<std::string> named;
        for (std::size_t i = 0; i < o.coq.size(); ++i)
          if ((i < o.coq_proves.size() ? o.coq_proves[i] : P::unstated) == kind) named.push_back(o.coq[i]);
        if (!named.empty()) proof += std::string("; ") + label + ": " + md(join(named, ", "));
      }
      s += "| " + std::to_string(++n) + " | " + o.id + " | " + or_dash(o.type) + " | " + or_dash(o.property) + " | " +
           or_dash(o.formal) + " | " + proof + " |";
      if (st) s += " " + proof_checked(*st, c, o) + " | " + last_verdict_of_obligation(*st, c, o.id) + " |";
      s += "\n";
    }
    s += "\n### Domains and allowances\n\n";
    for (const auto& o : c.obligations) {
      s += "- **" + o.id + "**: domain: " + or_dash(o.domain) + ". Allowance: " + or_dash(o.allowance);
      if (!o.legacy_tolerance.empty()) s += " (legacy bare tolerance " + md(o.legacy_tolerance) + ", not derived)";
      if (!o.applies_to.empty()) s += ". Applies to: " + md(o.applies_to);
      s += "\n";
    }
    s += "\n";
  }

  if (!c.tests.empty()) {
    s += "## Falsification Tests\n\n";
    s += std::string("| ID | Obligations | Rule | Prediction | If Fails |") + (st ? " Last verdict |" : "") + "\n";
    s += std::string("|----|-------------|------|------------|----------|") + (st ? "--------------|" : "") + "\n";
    for (const auto& t : c.tests) {
      s += "| " + t.id + " | " + or_dash(join(t.obligations, ", ")) + " | " + or_dash(t.rule) + " | " +
           or_dash(t.prediction) + " | " + or_dash(t.if_fails) + " |";
      if (st) s += " " + last_verdict_of_test(*st, t.id) + " |";
      s += "\n";
    }
    s += "\n";
  }

  if (!c.harnesses.empty()) {
    s += "## Model-Checking Harnesses\n\n";
    s += "| ID | Obligation | Property | Bound | Reached | Strategy |\n";
    s += "|----|------------|----------|-------|---------|----------|\n";
    for (const auto& h : c.harnesses) {
      std::vector<std::string> reached;
      for (const auto& [fmt, b] : h.reached) reached.push_back(fmt + ": " + (b ? std::to_string(b) : "all-d"));
      s += "| " + h.id + " | " + or_dash(h.obligation) + " | " + or_dash(h.property) + " | " +
           (h.bound ? std::to_string(h.bound) : "-") + " | " + or_dash(join(reached, ", ")) + " | " +
           or_dash(h.strategy) + " |\n";
    }
    s += "\n`attncheck bmc --harness ID` proves a harness; \"Reached\" is the bound per format the contract "
         "records and CI re-proves.\n\n";
  }

  if (c.gate) {
    const auto& q = *c.gate;
    s += "## QA Gate\n\n**" + or_dash(q.name) + "** (" + q.id + ")\n\n";
    if (!q.description.empty()) s += md(q.description) + "\n\n";
    if (!q.checks.empty()) s += "**Checks:** " + md(join(q.checks, ", ")) + "\n\n";
    if (!q.pass_criteria.empty()) s += "**Pass criteria:** " + md(q.pass_criteria) + "\n\n";
    if (!q.falsification.empty()) s += "**Falsification:** " + md(q.falsification) + "\n\n";
  }
  while (s.size() >= 2 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') s.pop_back();
  return s;
}

std::string index_page(const std::vector<contract::Contract>& contracts, const ContractGraph& g, const Status* st) {
  std::string s = "# Contracts\n\n<!-- Generated by `attncheck docs` from contracts/*.yaml: edit the YAML, not this page. -->\n\n";
  s += "One page per contract, generated from its YAML by `attncheck docs`. " + status_note(st) + "\n";
  s += std::string("| Contract | Version | Description | Depends on |") + (st ? " Proofs checked | Last verdict |" : "") + "\n";
  s += std::string("|----------|---------|-------------|------------|") + (st ? "----------------|--------------|" : "") + "\n";
  std::map<std::string, const contract::Contract*> by_id;
  for (const auto& c : contracts) by_id[c.id] = &c;
  for (const auto& [id, c] : by_id) {
    std::vector<std::string> deps;
    for (const auto& d : c->depends_on) deps.push_back("[" + d + "](" + d + ".md)");
    s += "| [" + id + "](" + id + ".md) | " + or_dash(c->version) + " | " + or_dash(c->description) + " | " +
         (deps.empty() ? "-" : join(deps, ", ")) + " |";
    if (st) {
      int checked = 0;
      for (const auto& o : c->obligations) checked += coverage_of(*c, o, st->root, st->record).covered() ? 1 : 0;
      std::vector<const ReportRow*> rows;
      if (st->report)
        for (const auto& r : st->report->rows)
          if (r.contract == id) rows.push_back(&r);
      s += " " + std::to_string(checked) + " of " + std::to_string(c->obligations.size()) + " obligations covered | " +
           (!st->report ? std::string("not run") : rows.empty() ? std::string("not in the report") : md(verdict_summary(rows))) +
           " |";
    }
    s += "\n";
  }
  s += "\n## Dependency Graph\n\nAn arrow points from a contract to one it depends on (`attncheck graph`).\n\n```mermaid\n" +
       graph_mermaid(g) + "```\n";
  return s;
}

int run_docs(const Global& global, const DocsOptions& opt) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  std::string error;
  const auto g = build_graph(loaded->contracts, &error);
  if (!g) {
    std::cerr << "error: " << error << "\n";
    return exit_usage;
  }
  std::optional<Status> status;
  if (!opt.no_status) {
    status.emplace();
    status->root = repo_root_of(global.contracts_dir);
    status->record = opt.record;
    std::error_code ec;
    status->record_exists = !opt.record.empty() && fs::is_directory(opt.record, ec);
    if (!status->record_exists)
      std::cerr << "warning: no proofs record at '" << opt.record
                << "': build the proofs first (ctest -L proofs) or pass --proofs-record DIR; no proof counts as checked\n";
    if (!opt.report.empty()) {
      status->report = read_report(opt.report, &error);
      if (!status->report) {
        std::cerr << "error: " << error << "\n";
        return exit_usage;
      }
    }
  } else if (!opt.report.empty()) {
    std::cerr << "error: --report and --no-status exclude each other: --no-status leaves the verdict column out\n";
    return exit_usage;
  }
  std::error_code ec;
  fs::create_directories(opt.out, ec);
  if (ec) {
    std::cerr << "error: cannot create the output directory '" << opt.out << "': " << ec.message() << "\n";
    return exit_usage;
  }
  const Status* st = status ? &*status : nullptr;
  for (const auto& c : loaded->contracts) write_atomically((fs::path(opt.out) / (c.id + ".md")).string(), page(c, *g, st));
  write_atomically((fs::path(opt.out) / "README.md").string(), index_page(loaded->contracts, *g, st));
  std::cout << "wrote " << loaded->contracts.size() << " contract pages and README.md to " << opt.out << "\n";
  return exit_pass;
}

}  // namespace

Command setup_docs(CLI::App& parent, const Global& global) {
  auto* app = parent.add_subcommand(
      "docs", "Write one Markdown page per contract (equations, obligations, tests, harnesses, gate, live status) "
              "and an index with the dependency graph");
  auto opt = std::make_shared<DocsOptions>();
  app->add_option("--out", opt->out, "Directory to write <contract>.md and README.md into (created if missing)")
      ->capture_default_str();
  app->add_option("--report", opt->report,
                  "A JSON report of `attncheck gate --json` or `attncheck audit --json`: the last-verdict column "
                  "(default: \"not run\")");
  app->add_option("--proofs-record", opt->record,
                  "Where the proofs build recorded what it checked, as for `attncheck coverage` (default: "
                  "$ATTNCHECK_PROOFS_RECORD, else this build's proofs/)")
      ->capture_default_str();
  app->add_flag("--no-status", opt->no_status,
                "Leave out the status columns, so the pages depend on the YAML alone (the form committed under "
                "docs/contracts/)");
  app->footer("Regenerate the committed pages with: attncheck docs --no-status --out docs/contracts\n"
              "Exit status: 0 written, 2 contract errors, an unreadable report or an unwritable directory.");
  return {app, [&global, opt] { return run_docs(global, *opt); }};
}

}  // namespace attncheck::cli
