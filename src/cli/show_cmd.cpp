// attncheck CLI: `attncheck show ID` — one contract, obligation, test, harness or gate in full.
// It reports what the contracts state, never a verdict: nothing is run here.
#include <algorithm>
#include <optional>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <source_location>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/audit/properties.hpp"
#include "attncheck/bmc/harness.hpp"
#include "attncheck/property/registry.hpp"
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
  field("allowance", o.allowance);
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
  // Harness verdicts and their non-triviality from this build's bmc report, when there is one.
  std::string bmc_error;
  std::error_code ec;
  const std::optional<BmcRecord> bmc = std::filesystem::exists(default_bmc_record(), ec)
                                           ? read_bmc_record(default_bmc_record(), &bmc_error)
                                           : std::nullopt;
  const Coverage v = coverage_of(c, o, root, default_proofs_record(), bmc ? &*bmc : nullptr);
  // A proof this build has not checked says how to check it, not that it is missing.
  const bool installed = running_installed();
  const auto how = [installed](std::string s) {
    if (const auto at = s.find(not_checked_in_build); at != std::string::npos)
      s.insert(at + std::string_view(not_checked_in_build).size(),
               installed ? " (this install carries no proofs record of it: `attncheck coverage` says how to assess it)"
                         : " (run ctest -L proofs)");
    return s;
  };
  field("latex proof", how(v.latex));
  for (const auto& line : v.coq) field("coq", how(line));
  field("coq proves", coq_kind_cell(v));
  for (std::size_t i = 0; i < v.harnesses.size(); ++i) field("harness", v.harnesses[i] + ": " + v.harness_status[i]);
  if (!v.harnesses.empty()) field("harness backing", harness_kind_cell(v));
  field("coverage", !v.missing.empty()      ? "missing " + join(v.missing, "; ")
                    : !v.unassessed.empty() ? "not assessed: " + how(join(v.unassessed, "; "))
                                            : "covered");
  std::cout << "  " << (tests.empty() ? "status: no test attacks this obligation" : gate_hint("--test", join(tests, " --test ")))
            << "\n";
}

void show_test(const Contract& c, const contract::FalsificationTest& t, const std::string& root) {
  std::cout << "falsification test " << t.id << "  (contract " << c.id << ", " << location(t.where) << ")\n";
  field("rule", t.rule);
  field("prediction", t.prediction);
  field("test", t.test);
  field("if it fails", t.if_fails);
  const property::PropertyInfo* p = property::find_property(t.id);
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
    if (!o->allowance.empty()) std::cout << "    allowance: " << o->allowance << "\n";
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
  std::vector<std::string> audits;
  for (const auto& a : c.audit_properties) audits.push_back(a.id);
  field("audit properties", join(audits, ", "));
  if (c.gate) field("gate", c.gate->id);
  if (c.tests.empty() && !audits.empty())
    std::cout << "  status: not run by show; `attncheck audit` checks these on a third party's kernels\n";
  else
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
  if (const bmc::harness_def* smt = bmc::find_harness(h.id); smt && !smt->lemmas.empty())
    field("all d from", join(smt->lemmas, ", ") + " (the solver's lemmas)");
  field("lift (Coq)", h.lift);
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

// ---- Where: file:line of every artefact of an ID, relative to the repository root ----------------

namespace fs = std::filesystem;

// A path as the user should read it: relative to root when it lies under it. A source_location's
// file is as the compiler saw it, which may be relative to the build directory (ccache's
// CCACHE_BASEDIR rewrites paths so, e.g. "../falsify/x.cpp"): the longest suffix that exists
// under root is taken then.
std::string under_root(const std::string& file, const std::string& root) {
  std::error_code ec;
  const fs::path r = fs::weakly_canonical(root, ec);
  fs::path p(file);
  if (p.is_absolute()) {
    const fs::path c = fs::weakly_canonical(p, ec);
    const fs::path rel = c.lexically_relative(r);
    if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
    return c.generic_string();
  }
  std::vector<fs::path> parts(p.begin(), p.end());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == ".." || parts[i] == ".") continue;
    fs::path tail;
    for (std::size_t j = i; j < parts.size(); ++j) tail /= parts[j];
    if (fs::exists(r / tail, ec)) return tail.generic_string();
  }
  return file;
}

// The first line of root/file matching re (1-based), 0 if none or unreadable.
int line_matching(const std::string& root, const std::string& file, const std::regex& re) {
  std::ifstream in(fs::path(root) / file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (std::regex_search(line, re)) return n;
  return 0;
}

std::string regex_escaped(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

}  // namespace

std::string coq_declaration_pattern(const std::string& name) {
  return "(Theorem|Lemma|Corollary|Proposition)\\s+" + regex_escaped(name) + "([\\s:]|$)";
}

namespace {

struct WhereBlock {
  std::string root;
  std::vector<std::pair<std::string, std::string>> lines;  // (what, "file:line  detail")

  void add(const std::string& what, const std::string& file, int line, std::string detail = "") {
    // A file that is not here (an installed tree has the contracts, docs and proofs, not the
    // sources: cmake/install.cmake) is said to be elsewhere, not searched and found wanting.
    std::error_code ec;
    if (!file.empty() && !fs::exists(fs::path(root) / file, ec)) {
      const std::string note = running_installed() ? "(a source file of attncheck's repository; not installed)" : "(not found under " + root + ")";
      detail = line == 0 ? note : detail + (detail.empty() ? "" : "  ") + note;
    }
    lines.push_back({what, file + (line > 0 ? ":" + std::to_string(line) : "") + (detail.empty() ? "" : "  " + detail)});
  }
  void missing(const std::string& what, const std::string& why) { lines.push_back({what, "(" + why + ")"}); }
  void yaml(const std::string& what, const contract::Location& l, const std::string& detail = "") {
    add(what, under_root(l.file, root), l.line, detail);
  }
  // A registered entry: its registration's file, at the line of its struct when that names key
  // (`name = "key"` or `id = "key"`), else the registration's line.
  void registered(const std::string& what, const std::source_location& w, const std::string& key,
                  const std::string& detail = "") {
    const std::string file = under_root(w.file_name(), root);
    int line = line_matching(root, file, std::regex("(name|id) = \"" + regex_escaped(key) + "\""));
    if (line == 0) line = static_cast<int>(w.line());
    add(what, file, line, detail.empty() ? key : detail);
  }
  void proof(const std::string& ref, const std::string& fallback_label) {
    if (ref.empty()) return missing("proof", "no proof: named");
    const auto [file, label] = proof_ref(ref, fallback_label);
    const int line = line_matching(root, file, std::regex("\\\\label\\{" + regex_escaped(label) + "\\}"));
    add("proof", file, line, line ? "\\label{" + label + "}" : "no \\label{" + label + "} in the file");
  }
  void coq(const std::string& theorem) {
    const auto ref = coq_ref(theorem);
    const std::string file = "proofs/coq/" + (ref ? ref->file : theorem + ".v");
    const std::string name = ref ? ref->name : theorem;
    const int line = line_matching(root, file, std::regex(coq_declaration_pattern(name)));
    add("coq", file, line, line ? theorem : theorem + " not declared there");
  }
  void print() const {
    std::cout << "Where:\n";
    for (const auto& [what, text] : lines) std::cout << "  " << what << std::string(what.size() < 10 ? 10 - what.size() : 1, ' ') << text << "\n";
  }
};

void where_property(WhereBlock& w, const std::string& id) {
  if (const property::PropertyInfo* p = property::find_property(id)) return w.registered("property", p->where, id);
  for (const auto& a : audit::audit_properties())
    if (a.id == id) {
      for (const char* f : {"src/attncheck/audit/properties.cpp", "src/attncheck/audit/rounding_bias.hpp"})
        if (const int line = line_matching(w.root, f, std::regex("ATTNCHECK_AUDIT_PROPERTY\\(\"" + regex_escaped(id) + "\"")))
          return w.add("property", f, line, id);
      return w.missing("property", id + ": an audit property (src/attncheck/audit/properties.cpp)");
    }
  w.missing("property", "no property " + id + " registered in this build");
}

void where_harness(WhereBlock& w, const std::string& id) {
  if (const bmc::harness_def* h = bmc::find_harness(id)) return w.registered("harness", h->where, id);
  if (const bmc::gappa_harness_def* g = bmc::find_gappa_harness(id)) return w.registered("harness", g->where, id);
  w.missing("harness", "attncheck's model checker has no harness " + id);
}

// The mutants that the tests or harnesses ids must catch (their caught_by lists).
void where_mutants(WhereBlock& w, const std::vector<std::string>& ids) {
  const auto names_one = [&](const std::vector<std::string>& caught_by) {
    std::vector<std::string> hit;
    for (const auto& c : caught_by)
      if (std::find(ids.begin(), ids.end(), c) != ids.end()) hit.push_back(c);
    return hit;
  };
  for (const auto& m : property::mutants())
    if (const auto hit = names_one(m.caught_by); !hit.empty())
      w.registered("mutant", m.where, m.name, m.name + " (must be caught by " + join(hit, ", ") + ")");
  for (const auto& m : bmc::mutants())
    if (const auto hit = names_one(m.caught_by); !hit.empty())
      w.registered("mutant", m.where, m.name, m.name + " (must be caught by " + join(hit, ", ") + ")");
  for (const auto& m : bmc::gappa_mutants())
    if (const auto hit = names_one(m.caught_by); !hit.empty())
      w.registered("mutant", m.where, m.name, m.name + " (must be caught by " + join(hit, ", ") + ")");
}

void where_obligation(WhereBlock& w, const std::vector<Contract>& contracts, const Contract& c,
                      const contract::Obligation& o) {
  w.yaml("yaml", o.where, o.id);
  w.proof(o.proof, o.id);
  for (const auto& t : o.coq) w.coq(t);
  std::vector<std::string> attackers;
  for (const auto& t : c.tests)
    if (std::find(t.obligations.begin(), t.obligations.end(), o.id) != t.obligations.end()) {
      attackers.push_back(t.id);
      w.yaml("test", t.where, t.id);
      where_property(w, t.id);
    }
  for (const auto& h : c.harnesses)
    if (h.obligation == o.id) {
      attackers.push_back(h.id);
      w.yaml("harness", h.where, h.id + " (contract entry)");
      where_harness(w, h.id);
    }
  for (const auto& ac : contracts)
    for (const auto& a : ac.audit_properties)
      if (std::find(a.obligations.begin(), a.obligations.end(), o.id) != a.obligations.end()) {
        w.yaml("audit", a.where, a.id);
        where_property(w, a.id);
      }
  where_mutants(w, attackers);
}

void where_test(WhereBlock& w, const Contract& c, const contract::FalsificationTest& t) {
  w.yaml("yaml", t.where, t.id);
  where_property(w, t.id);
  for (const auto& id : t.obligations)
    for (const auto& o : c.obligations)
      if (o.id == id) {
        w.yaml("obligation", o.where, o.id);
        w.proof(o.proof, o.id);
        for (const auto& th : o.coq) w.coq(th);
      }
  where_mutants(w, {t.id});
}

void where_harness_entry(WhereBlock& w, const Contract& c, const contract::Harness& h) {
  w.yaml("yaml", h.where, h.id);
  where_harness(w, h.id);
  if (!h.lift.empty()) w.coq(h.lift);  // the Coq lift of its all-d composition
  for (const auto& o : c.obligations)
    if (o.id == h.obligation) {
      w.yaml("obligation", o.where, o.id);
      w.proof(o.proof, o.id);
      for (const auto& th : o.coq) w.coq(th);
    }
  where_mutants(w, {h.id});
}

// The contract's stem files (docs/contract-format.md, "One stem per contract"), or why absent.
void where_stem_files(WhereBlock& w, const Contract& c) {
  std::string f = fs::path(c.file).stem().string(), F;
  if (const auto v = f.rfind("-v"); v != std::string::npos && v + 2 < f.size() &&
                                     std::all_of(f.begin() + static_cast<long>(v) + 2, f.end(), ::isdigit))
    f.erase(v);
  std::replace(f.begin(), f.end(), '-', '_');
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i] != '_') F += (i == 0 || f[i - 1] == '_') ? static_cast<char>(std::toupper(f[i])) : f[i];
  const std::pair<const char*, std::string> files[] = {{"falsify", "falsify/" + f + ".cpp"},
                                                       {"mutants", "falsify/mutants/" + f + ".cpp"},
                                                       {"proof", "proofs/" + f + ".tex"},
                                                       {"coq", "proofs/coq/" + F + ".v"},
                                                       {"harnesses", "harnesses/" + f + ".cpp"}};
  for (const auto& [kind, path] : files) {
    std::error_code ec;
    if (const auto a = c.absent.find(kind); a != c.absent.end())
      w.missing(kind, "absent: " + a->second);
    else
      w.add(kind, path, fs::exists(fs::path(w.root) / path, ec) ? 1 : 0, fs::exists(fs::path(w.root) / path, ec) ? "" : "MISSING");
  }
}

// Shows the item with this ID; false if no contract has one.
bool show(const std::vector<Contract>& contracts, const std::string& id, const std::string& root) {
  WhereBlock w{root, {}};
  const auto done = [&w] {
    w.print();
    return true;
  };
  for (const auto& c : contracts) {
    if (c.id == id) {
      show_contract(c);
      w.yaml("yaml", c.where, c.id);
      where_stem_files(w, c);
      return done();
    }
    for (const auto& o : c.obligations)
      if (o.id == id) {
        show_obligation(c, o, root);
        where_obligation(w, contracts, c, o);
        return done();
      }
    for (const auto& t : c.tests)
      if (t.id == id) {
        show_test(c, t, root);
        where_test(w, c, t);
        return done();
      }
    for (const auto& h : c.harnesses)
      if (h.id == id) {
        show_harness(c, h);
        where_harness_entry(w, c, h);
        return done();
      }
    for (const auto& a : c.audit_properties)
      if (a.id == id) {
        std::cout << "audit property " << a.id << "  (contract " << c.id << ", " << location(a.where) << ")\n";
        field("property", a.rule);
        field("obligations", join(a.obligations, ", "));
        field("test", a.test);
        field("if it fails", a.if_fails);
        std::cout << "  status: not run by show; `attncheck audit` checks it on a third party's kernels\n";
        w.yaml("yaml", a.where, a.id);
        where_property(w, a.id);
        for (const auto& oid : a.obligations)
          for (const auto& oc : contracts)
            for (const auto& o : oc.obligations)
              if (o.id == oid) {
                w.yaml("obligation", o.where, o.id);
                w.proof(o.proof, o.id);
              }
        return done();
      }
    if (c.gate && c.gate->id == id) {
      show_gate(c, *c.gate);
      w.yaml("yaml", c.gate->where, c.gate->id);
      return done();
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
    for (const auto& a : c.audit_properties) ids.push_back(a.id);
    if (c.gate) ids.push_back(c.gate->id);
  }
  return ids;
}

int run_show(const std::string& id, const Global& global) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  if (show(loaded->contracts, id, repo_root_of(global.contracts_dir))) return exit_pass;
  if (const property::PropertyInfo* p = property::find_property(id)) {
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
  app->footer("Exit status: 0 shown, 2 usage or contract errors (an ID no contract has among them).");
  return {app, [id, &global] { return run_show(*id, global); }};
}

}  // namespace attncheck::cli
