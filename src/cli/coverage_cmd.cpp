// attncheck CLI: `attncheck coverage` — for every obligation, its LaTeX and Coq proofs (checked
// only if this build recorded them), its falsification tests and harnesses (with their verdicts
// when a bmc report of a real run is at hand); exit 1 when an obligation lacks a required kind.
#include "cli/coverage.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "attncheck/audit/properties.hpp"
#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/harness.hpp"
#include "attncheck/property/registry.hpp"
#include "cli/cli.hpp"
#include "cli/table.hpp"

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
  if (!then) return not_checked_in_build;
  return *now == *then ? "checked" : "stale (edited since the recorded build)";
}

std::string latex_status(const contract::Obligation& o, const std::string& root, const std::string& record) {
  if (o.proof.empty()) return "no proof named";
  const auto [file, label] = proof_ref(o.proof, o.id);
  const auto text = read(fs::path(root) / file);
  if (!text) return file + " missing";
  if (text->find("\\label{" + label + "}") == std::string::npos) return file + " has no \\label{" + label + "}";
  return recorded(fs::path(root) / file, fs::path(record) / "pdf" / "checked" / fs::path(file).filename());
}

std::string coq_status(const std::string& theorem, const std::string& root, const std::string& record) {
  const auto ref = coq_ref(theorem);
  if (!ref) return "not a File.theorem name";
  const auto& [file, name] = *ref;
  const fs::path src = fs::path(root) / "proofs" / "coq", rec = fs::path(record) / "coq" / "checked";
  const auto text = read(src / file);
  if (!text) return "proofs/coq/" + file + " missing";
  if (!std::regex_search(*text, std::regex(coq_declaration_pattern(name))))
    return "not declared in proofs/coq/" + file;
  const auto all = read(src / "All.v");
  if (!all || (all->find("@" + theorem + ",") == std::string::npos && all->find("@" + theorem + ")") == std::string::npos))
    return "not bundled in proofs/coq/All.v (its axioms are not checked)";
  const std::string s = recorded(src / file, rec / file);
  if (s != "checked") return s;
  const std::string a = recorded(src / "All.v", rec / "All.v");
  return a == "checked" ? "checked" : "All.v " + a;
}

// Where the report's proved rows of a harness are non-trivial and where trivial (bmc_witness.hpp):
// "; non-trivial at f16 d=2; TRIVIAL at f32 d=1 (not counted)", and *kind as harness_kind says.
std::string triviality(const std::vector<BmcRecord::Row>& rows, std::string* kind) {
  std::vector<std::string> yes, no;
  for (const auto& r : rows)
    if (r.passed && r.nontrivial) (*r.nontrivial ? yes : no).push_back(r.format + " " + r.bound);
  *kind = !yes.empty() ? "non-trivial" : !no.empty() ? "trivial" : "";
  if (yes.empty() && no.empty()) return "; non-triviality not assessed (no witness in the report)";
  std::string s;
  if (!yes.empty()) s += "; non-trivial at " + join(yes, ", ");
  if (!no.empty()) s += "; TRIVIAL at " + join(no, ", ") + " (not counted)";
  return s;
}

// One harness's cell: what the bmc report says of it, and the gap it is (empty: none).
std::string harness_status(const std::string& id, const BmcRecord* bmc, std::string* gap, std::string* kind) {
  if (bmc::find_harness(id) == nullptr && bmc::find_gappa_harness(id) == nullptr) return "declared only";
  if (bmc == nullptr) return "not run";
  const auto it = bmc->rows.find(id);
  if (it == bmc->rows.end() || it->second.empty()) return "not in the bmc report";
  std::size_t proved = 0;
  std::string failed;
  for (const auto& r : it->second) {
    if (r.passed) {
      ++proved;
      continue;
    }
    failed += (failed.empty() ? "" : ", ") + r.format + " " + r.bound + " " + r.verdict;
  }
  if (failed.empty())
    return "proved " + std::to_string(proved) + "/" + std::to_string(it->second.size()) + triviality(it->second, kind);
  *gap = "harness " + id + " proved (the bmc report " + bmc->path + " says: " + failed + ")";
  return "NOT proved: " + failed;
}

}  // namespace

// Found beside the executable (cli.hpp's beside_executable): the build writes BUILD/proofs (the
// proofs record, proofs/proofs.cmake) and BUILD/bmc-report.json (CTest bmc.contract-bounds); an
// install copies whichever exist to PREFIX/share/attncheck/proofs-record and bmc-report.json.
std::string default_proofs_record() {
  if (const char* env = std::getenv("ATTNCHECK_PROOFS_RECORD"); env && *env) return env;
  return beside_executable("proofs-record", "proofs");
}

std::string default_bmc_record() {
  if (const char* env = std::getenv("ATTNCHECK_BMC_REPORT"); env && *env) return env;
  return beside_executable("bmc-report.json", "bmc-report.json");
}

std::optional<BmcRecord> read_bmc_record(const std::string& path, std::string* error) {
  const auto text = read(path);
  if (!text) {
    *error = "cannot read the bmc report '" + path + "' (write one with `attncheck bmc --json FILE`)";
    return std::nullopt;
  }
  BmcRecord r;
  r.path = path;
  try {
    const YAML::Node root = YAML::Load(*text);
    if (!root.IsMap() || !root["schema"] || root["schema"].as<std::string>().rfind("attncheck-bmc/", 0) != 0) {
      *error = "'" + path + "' is not a report of `attncheck bmc --json` (no schema attncheck-bmc/N)";
      return std::nullopt;
    }
    for (const auto& x : root["results"]) {
      if (!x["harness"] || !x["verdict"] || !x["passed"]) {
        *error = "'" + path + "' has a result without harness, verdict or passed";
        return std::nullopt;
      }
      BmcRecord::Row row{x["format"] ? x["format"].as<std::string>() : "", x["bound"] ? x["bound"].as<std::string>() : "",
                         x["verdict"].as<std::string>(), x["passed"].as<bool>(), std::nullopt, ""};
      if (x["nontrivial"] && !x["nontrivial"].IsNull()) row.nontrivial = x["nontrivial"].as<bool>();
      if (x["witness"]) row.witness = x["witness"].as<std::string>();
      r.rows[x["harness"].as<std::string>()].push_back(row);
    }
  } catch (const YAML::Exception& e) {
    *error = "'" + path + "' is not valid JSON: " + std::string(e.what());
    return std::nullopt;
  }
  return r;
}

Coverage coverage_of(const contract::Contract& c, const contract::Obligation& o, const std::string& root,
                     const std::string& record, const BmcRecord* bmc) {
  Coverage v;
  v.latex = latex_status(o, root, record);
  v.latex_checked = v.latex == "checked";
  if (!v.latex_checked) (v.latex == not_checked_in_build ? v.unassessed : v.missing).push_back("LaTeX proof (" + v.latex + ")");
  for (std::size_t i = 0; i < o.coq.size(); ++i) {
    const std::string& t = o.coq[i];
    const auto proves = i < o.coq_proves.size() ? o.coq_proves[i] : contract::Obligation::CoqProves::unstated;
    const bool fp = proves == contract::Obligation::CoqProves::floating_point;
    const std::string status = coq_status(t, root, record);
    std::string s = status;
    ++v.coq_named;
    v.coq_checked += status == "checked" ? 1 : 0;
    const auto ref = coq_ref(t);
    const auto text = ref ? read(fs::path(root) / "proofs" / "coq" / ref->file) : std::nullopt;
    const bool rounds = text && coq_statement_rounds(*text, ref->name);
    if (fp && text && !rounds) {
      v.missing.push_back("Coq " + t + " as a floating-point proof (linked float:, but its statement rounds nothing: "
                          "an exact-arithmetic theorem; link it exact:)");
      s += ", but claimed float and its statement rounds nothing";
    } else if (!fp && rounds) {
      // The converse: a theorem about a rounded computation is not exact mathematics (an exact:
      // link, or one with no label, which counts as exact).
      v.missing.push_back("Coq " + t + " as an exact-arithmetic proof (linked " +
                          (proves == contract::Obligation::CoqProves::exact ? "exact:" : "without a label, counted exact") +
                          ", but its statement rounds: a floating-point theorem; link it float:)");
      s += ", but claimed exact and its statement rounds";
    } else if (s == "checked") {
      (fp ? v.coq_float_checked : v.coq_exact_checked) += 1;
    }
    if (fp && text)
      if (const auto hyps = coq_section_hypotheses(*text, ref->name); !hyps.empty()) {
        s += "; Section hypotheses: " + join(hyps, ", ");
        v.coq_hypotheses.push_back(t + ": " + join(hyps, ", "));
      }
    v.coq.push_back(t + " [" + (fp ? "float" : proves == contract::Obligation::CoqProves::exact ? "exact" : "unstated: exact") +
                    "] " + s);
    if (status != "checked") (status == not_checked_in_build ? v.unassessed : v.missing).push_back("Coq " + t + " (" + status + ")");
  }
  for (const auto& t : c.tests)
    if (std::find(t.obligations.begin(), t.obligations.end(), o.id) != t.obligations.end()) {
      v.tests.push_back(t.id);
      v.tests_with_property += property::find_property(t.id) ? 1 : 0;
    }
  if (v.tests_with_property == 0)
    v.missing.push_back(v.tests.empty() ? "falsification test (none attacks it)"
                                        : "falsification test (none has an executable property in this build)");
  for (const auto& h : c.harnesses)
    if (h.obligation == o.id) {
      std::string gap, kind;
      v.harnesses.push_back(h.id);
      v.harness_status.push_back(harness_status(h.id, bmc, &gap, &kind));
      // A lemma (LEM-*) is one step of an all-d composition, for every value of the format: it has
      // no bound to be trivial at, and the composed harness's row carries the witness.
      v.harness_kind.push_back(h.id.rfind("LEM-", 0) == 0 ? "lemma" : kind);
      if (!gap.empty()) v.missing.push_back(gap);
      // An all-d row has two halves: the solver's lemmas (in the bmc report) and the Coq lift.
      if (const bmc::harness_def* smt = bmc::find_harness(h.id); smt && !smt->lemmas.empty()) {
        const std::string lift = h.lift.empty() ? "none" : h.lift + " " + coq_status(h.lift, root, record);
        v.harness_status.back() += "; all d: lemmas " + join(smt->lemmas, ", ") + " + Coq lift " + lift;
        const std::string lift_status = h.lift.empty() ? "none" : coq_status(h.lift, root, record);
        if (lift_status != "checked")
          (lift_status == not_checked_in_build ? v.unassessed : v.missing).push_back("Coq lift of " + h.id + " (" + lift + ")");
      }
    }
  return v;
}

bool coq_statement_rounds(const std::string& text, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(coq_declaration_pattern(name)))) return false;
  const std::size_t from = static_cast<std::size_t>(m.position(0));
  const std::size_t to = text.find("Proof.", from);
  const std::string statement = text.substr(from, to == std::string::npos ? std::string::npos : to - from);
  // Flocq's rounding (round, a section's fl), its IEEE binary operations and conversions, and the
  // project's rounded loops (dot_fl): a statement naming none of them is about real numbers only.
  static const std::regex rounded(
      R"(\b(fl|round|Rnd|dot_fl|[a-z_]*_fl|Bplus|Bminus|Bmult|Bdiv|Bsqrt|Bfma|B2R|B2SF|binary_round|generic_format)\b)");
  return std::regex_search(statement, rounded);
}

std::vector<std::string> coq_section_hypotheses(const std::string& text, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(coq_declaration_pattern(name)))) return {};
  const std::string before = text.substr(0, static_cast<std::size_t>(m.position(0)));
  static const std::regex decl(R"((^|\n)[ \t]*(Section\s+(\w+)\.|End\s+(\w+)\.|Hypothesis\s+(\w+)\s*:))");
  std::vector<std::pair<std::string, std::vector<std::string>>> open;  // Section name, its hypotheses
  for (auto it = std::sregex_iterator(before.begin(), before.end(), decl); it != std::sregex_iterator(); ++it) {
    const auto& d = *it;
    if (d[3].matched) {
      open.push_back({d[3].str(), {}});
    } else if (d[4].matched) {
      if (!open.empty() && open.back().first == d[4].str()) open.pop_back();
    } else if (d[5].matched && !open.empty()) {
      open.back().second.push_back(d[5].str());
    }
  }
  std::vector<std::string> out;
  for (const auto& [section, hyps] : open) out.insert(out.end(), hyps.begin(), hyps.end());
  return out;
}

std::string coq_kind_cell(const Coverage& v) {
  if (v.coq_named == 0) return "-";
  const std::string fl = v.coq_float_checked ? "float " + std::to_string(v.coq_float_checked) : "";
  const std::string ex = v.coq_exact_checked ? "exact " + std::to_string(v.coq_exact_checked) : "";
  if (fl.empty() && ex.empty()) return "none checked";
  if (fl.empty()) return "exact only (" + ex + ")";
  return ex.empty() ? fl : fl + " + " + ex;
}

std::string harness_kind_cell(const Coverage& v) {
  bool trivial = false, unassessed = false, any = false;
  for (const auto& k : v.harness_kind) {
    if (k == "lemma") continue;
    any = true;
    if (k == "non-trivial") return "non-trivial";
    trivial = trivial || k == "trivial";
    unassessed = unassessed || k.empty();
  }
  if (!any) return "-";
  return trivial && !unassessed ? "trivial only (not counted)" : trivial ? "trivial or not assessed" : "not assessed";
}

std::vector<std::string> registry_mismatches(const std::vector<contract::Contract>& contracts) {
  std::vector<std::string> out;
  std::map<std::string, std::string> yaml;  // ID -> "file:line" of its YAML entry
  std::set<std::string> obligations;
  const auto at = [](const contract::Location& l) { return l.file + ":" + std::to_string(l.line); };
  for (const auto& c : contracts) {
    for (const auto& o : c.obligations) obligations.insert(o.id);
    for (const auto& t : c.tests) yaml[t.id] = at(t.where);
    for (const auto& a : c.audit_properties) yaml[a.id] = at(a.where);
    for (const auto& h : c.harnesses) yaml[h.id] = at(h.where);
  }
  std::set<std::string> registered;
  const auto need_yaml = [&](const std::string& id, const std::string& what) {
    registered.insert(id);
    if (!yaml.count(id)) out.push_back(what + " " + id + " is registered but no contract has an entry for it");
  };
  for (const auto& p : property::properties()) need_yaml(p.id, "property");
  for (const auto& a : audit::audit_properties()) need_yaml(a.id, "audit property");
  for (const auto& h : bmc::harnesses()) need_yaml(h.id, h.lemma ? "lemma" : "harness");
  for (const auto& g : bmc::gappa_harnesses()) need_yaml(g.id, "Gappa harness");
  for (const auto& c : contracts) {
    const auto unregistered = [&](const std::string& id, const contract::Location& w, const std::string& what) {
      if (!registered.count(id)) out.push_back(at(w) + ": " + what + " " + id + " has no registered implementation in this build");
    };
    for (const auto& t : c.tests) unregistered(t.id, t.where, "falsification test");
    for (const auto& a : c.audit_properties) {
      unregistered(a.id, a.where, "audit property");
      for (const auto& o : a.obligations)
        if (!obligations.count(o)) out.push_back(at(a.where) + ": audit property " + a.id + " names unknown obligation " + o);
    }
    for (const auto& h : c.harnesses) {
      unregistered(h.id, h.where, "harness");
      const bmc::harness_def* smt = bmc::find_harness(h.id);
      const bool gappa = bmc::find_gappa_harness(h.id) != nullptr;
      // An all-d composition rests on a Coq theorem (lift:), and only a composition names one.
      if (smt && !smt->lemmas.empty() && h.lift.empty())
        out.push_back(at(h.where) + ": harness " + h.id + " composes lemmas for all d but names no Coq theorem "
                      "that lifts them (lift: File.theorem)");
      if (!h.lift.empty() && !(smt && !smt->lemmas.empty()))
        out.push_back(at(h.where) + ": harness " + h.id + " names lift: " + h.lift + " but composes no lemmas");
      if ((smt && !smt->lemma) || gappa) {
        if (h.bound <= 0 && h.reached.empty())
          out.push_back(at(h.where) + ": harness " + h.id + " records no bound: (attncheck bmc would not run it)");
        for (const auto& [f, b] : h.reached) {
          const bool f64 = f == "f64", eight = f == "e4m3" || f == "e5m2" || f == "e4m3sat";
          if ((gappa && eight) || (smt && smt->uses_transcendentals && f64))
            out.push_back(at(h.where) + ": harness " + h.id + " records reached at " + f + ", a format it cannot run at");
        }
      }
    }
  }
  // Which tests must catch which mutant: written beside the test (`catches:`) and in the mutant's
  // caught_by; the two must say the same.
  std::map<std::string, std::set<std::string>> caught;  // test or harness ID -> mutants naming it
  std::set<std::string> mutant_names;
  for (const auto& m : property::mutants()) {
    mutant_names.insert(m.name);
    for (const auto& id : m.caught_by) caught[id].insert(m.name);
  }
  for (const auto& m : bmc::mutants()) {
    mutant_names.insert(m.name);
    for (const auto& id : m.caught_by) caught[id].insert(m.name);
  }
  for (const auto& m : bmc::gappa_mutants()) {
    mutant_names.insert(m.name);
    for (const auto& id : m.caught_by) caught[id].insert(m.name);
  }
  const auto agree = [&](const std::string& id, const std::vector<std::string>& catches, const contract::Location& w) {
    const std::set<std::string> stated(catches.begin(), catches.end());
    const std::set<std::string>& named = caught[id];
    for (const auto& m : stated) {
      if (!mutant_names.count(m))
        out.push_back(at(w) + ": " + id + " catches " + m + ", which is no registered mutant");
      else if (!named.count(m))
        out.push_back(at(w) + ": " + id + " catches " + m + ", but " + m + "'s caught_by does not name " + id);
    }
    for (const auto& m : named)
      if (!stated.count(m))
        out.push_back(at(w) + ": mutant " + m + " names " + id + " in caught_by, but " + id + "'s catches: omits it");
  };
  for (const auto& c : contracts) {
    for (const auto& t : c.tests) agree(t.id, t.catches, t.where);
    for (const auto& h : c.harnesses) agree(h.id, h.catches, h.where);
  }
  return out;
}

std::string coq_bundle(const std::vector<contract::Contract>& contracts) {
  std::vector<std::string> theorems, modules;
  const auto bundle = [&](const std::string& t) {
    if (std::find(theorems.begin(), theorems.end(), t) != theorems.end()) return;
    theorems.push_back(t);
    const std::string m = t.substr(0, t.find('.'));
    if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
  };
  for (const auto& c : contracts) {
    for (const auto& o : c.obligations)
      for (const auto& t : o.coq) bundle(t);
    for (const auto& h : c.harnesses)  // the lifts of the all-d compositions (lift:)
      if (!h.lift.empty()) bundle(h.lift);
  }
  std::string s =
      "(** * attncheck's machine-checked proofs: everything, and the axioms everything rests on *)\n"
      "(** GENERATED by `attncheck coverage --coq-bundle > proofs/coq/All.v` from the contracts' coq:\n"
      "    fields (contracts/*.yaml); do not edit: the test proofs.coq.all-v-generated fails when this\n"
      "    file differs from what the contracts say. Not in _CoqProject: tools/build-coq.sh compiles it\n"
      "    last, once. [all_theorems] bundles every theorem an obligation names (coq:) and every lift of\n"
      "    a harness's lemmas to all d (lift:), and [Print Assumptions] lists every axiom any of them\n"
      "    depends on (one traversal for all: it is the slow part of the build). tools/build-coq.sh\n"
      "    fails if one is not among the standard axioms of Coq's real numbers and classical logic (the\n"
      "    list is in tools/check-coq-assumptions.sh). *)\n";
  if (theorems.empty()) return s;
  std::string line = "From Attncheck Require Export";
  for (const auto& m : modules) {
    if (line.size() + 1 + m.size() > 100) {
      s += line + "\n";
      line = " ";
    }
    line += " " + m;
  }
  s += line + ".\n\nDefinition all_theorems :=\n";
  for (std::size_t i = 0; i < theorems.size(); ++i)
    s += std::string(i == 0 ? "  (" : "   ") + "@" + theorems[i] + (i + 1 == theorems.size() ? ").\n" : ",\n");
  s += "\nPrint Assumptions all_theorems.\n";
  return s;
}

namespace {

int run_coverage(const Global& global, const std::string& record, const std::string& bmc_path) {
  const auto loaded = load_or_report(global.contracts_dir, false);
  if (!loaded) return exit_usage;
  // The bmc report: named with --bmc-report it must read; the build's default may be absent
  // (bmc.contract-bounds has not run), and then the harnesses show "not run".
  std::optional<BmcRecord> bmc;
  std::error_code bec;
  if (!bmc_path.empty() && (bmc_path != default_bmc_record() || fs::exists(bmc_path, bec))) {
    std::string error;
    bmc = read_bmc_record(bmc_path, &error);
    if (!bmc) {
      std::cerr << "error: " << error << "\n";
      return exit_usage;
    }
  }
  const std::string root = repo_root_of(global.contracts_dir);
  std::error_code ec;
  const bool have_record = !record.empty() && fs::is_directory(record, ec);

  Table table;
  table.header = {"contract", "obligation", "latex", "coq", "coq proves", "tests", "harnesses", "harness backing", "covered"};
  std::vector<std::string> gaps, hypotheses;
  int covered = 0, total = 0, unassessed = 0, with_gap = 0;
  std::map<std::string, int> coq_kinds, harness_kinds;  // obligations per cell, for the summary
  for (const auto& c : loaded->contracts)
    for (const auto& o : c.obligations) {
      const Coverage v = coverage_of(c, o, root, record, bmc ? &*bmc : nullptr);
      ++total;
      covered += v.covered() ? 1 : 0;
      with_gap += v.missing.empty() ? 0 : 1;
      unassessed += v.missing.empty() && !v.unassessed.empty() ? 1 : 0;
      const std::string coq = v.coq_named ? std::to_string(v.coq_checked) + "/" + std::to_string(v.coq_named) + " checked" : "-";
      const std::string tests = std::to_string(v.tests_with_property) + " (" + join(v.tests, " ") + ")";
      std::vector<std::string> hs;
      for (std::size_t i = 0; i < v.harnesses.size(); ++i) hs.push_back(v.harnesses[i] + " (" + v.harness_status[i] + ")");
      const std::string coq_kind = coq_kind_cell(v), harness_kind = harness_kind_cell(v);
      ++coq_kinds[v.coq_float_checked ? "float-proved (Coq)" : v.coq_exact_checked ? "exact-math only (Coq)" : "no checked Coq theorem"];
      ++harness_kinds[harness_kind == "-" ? "no harness" : "harness " + harness_kind];
      table.rows.push_back({c.id, o.id, v.latex_checked ? "checked" : v.latex == not_checked_in_build ? "not checked" : "NO", coq, coq_kind, tests,
                            hs.empty() ? "-" : join(hs, " "), harness_kind,
                            !v.missing.empty() ? "NO" : !v.unassessed.empty() ? "not assessed" : "yes"});
      for (const auto& m : v.missing) gaps.push_back(o.id + ": missing " + m);
      for (const auto& h : v.coq_hypotheses) hypotheses.push_back(o.id + ": " + h);
    }
  // First, how the proofs' column is known, and when it is not: a newcomer must not read "not
  // checked" as "no proofs".
  if (unassessed) {
    std::cout << "NOT ASSESSED: the proofs of " << unassessed << " obligations have not been checked";
    if (record == default_proofs_record() && running_installed())
      // An install made before the build's proof tests ran carries no record (cmake/install.cmake).
      std::cout << ": this installed attncheck carries " << (have_record ? "a proofs record without them" : "no proofs record")
                << " (it was installed before `ctest -L proofs` ran in the build that made it). Its proofs are in "
                << (fs::path(root) / "proofs").string() << ". To assess them, in a checkout of this version: `ctest --test-dir BUILD "
                << "-L proofs` (pdflatex and coqc check every proof and record what they checked), then `attncheck coverage "
                << "--proofs-record BUILD/proofs`, or install again.\n";
    else if (record == default_proofs_record())
      std::cout << " in this build (the record at '" << record << "' " << (have_record ? "lacks them" : "does not exist")
                << "). One command assesses them: `ctest --test-dir " << fs::path(record).parent_path().string()
                << " -L proofs` (pdflatex and coqc check every proof and record what they checked; `tools/run.sh test` runs it), "
                << "then `attncheck coverage` again.\n";
    else
      std::cout << ": the record at '" << record << "' " << (have_record ? "lacks them" : "does not exist")
                << " (`ctest -L proofs` in a build writes one to BUILD/proofs).\n";
  }
  std::cout << "proofs record: " << (record.empty() ? "(none)" : record) << (have_record ? "" : " (absent)") << "\n"
            << "bmc report: " << (bmc ? bmc->path : "(none: harnesses not run; pass --bmc-report FILE of `attncheck bmc --json FILE`)")
            << "\n" << table.render();
  for (const auto& g : gaps) std::cout << g << "\n";
  // What the floating-point theorems take as premises (Section hypotheses, never axioms: the
  // axioms are checked by Print Assumptions in the proofs build).
  for (const auto& h : hypotheses) std::cout << "hypotheses: " << h << "\n";
  std::cout << covered << " of " << total << " obligations covered";
  if (with_gap || unassessed)
    std::cout << " (" << with_gap << " with a gap, " << unassessed << " not assessed: their proofs are not checked "
              << (record == default_proofs_record() && running_installed() ? "in the record installed" : "in this build") << ")";
  std::cout << "\n";
  const auto tally = [](const std::map<std::string, int>& m) {
    std::vector<std::string> parts;
    for (const auto& [k, n] : m) parts.push_back(std::to_string(n) + " " + k);
    return join(parts, ", ");
  };
  std::cout << "proofs: " << tally(coq_kinds) << "\n"
            << "harnesses: " << tally(harness_kinds) << "\n";
  std::size_t audits = 0;
  for (const auto& c : loaded->contracts) audits += c.audit_properties.size();
  const auto mismatches = registry_mismatches(loaded->contracts);
  for (const auto& m : mismatches) std::cout << "registry: " << m << "\n";
  std::cout << audits << " audit properties; registry and contracts "
            << (mismatches.empty() ? "agree" : "DISAGREE (" + std::to_string(mismatches.size()) + ")") << "\n";
  if (with_gap || !mismatches.empty()) return exit_fail;
  return unassessed ? exit_not_assessed : exit_pass;
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
  auto bmc = std::make_shared<std::string>(default_bmc_record());
  app->add_option("--bmc-report", *bmc,
                  "A JSON report of `attncheck bmc --json FILE` (a real run): each harness shows its verdicts from it "
                  "(default: $ATTNCHECK_BMC_REPORT, else the one this build's CTest bmc.contract-bounds writes, if present)")
      ->capture_default_str();
  app->footer(
      "Required per obligation: a LaTeX proof that built (two pdflatex passes, no undefined "
      "reference), an attacking falsification test with an executable property, and every Coq "
      "theorem it names built with no Admitted and only standard axioms, as is the Coq lift (lift:) of "
      "each harness that composes lemmas for all d. Harnesses are not "
      "required, but one that the bmc report shows not proved is a gap; without a report they "
      "show \"not run\", and \"declared only\" when attncheck's model checker has no such harness. A harness "
      "proved only at bounds where no caught mutant is refuted through its asserted bound with finite values "
      "(the report's witness) is \"trivial\" there and not counted. \"coq proves\" separates theorems about the "
      "rounded computation (float:) from exact-arithmetic ones (exact:); a float: link whose statement rounds "
      "nothing is a gap, and so is an exact: (or unlabelled) link whose statement rounds.\n"
      "Exit status: 0 all covered, 1 a gap, 2 contract errors or an unreadable bmc report, 3 no gap but some proofs "
      "not assessed (not checked in this build: run ctest -L proofs).");
  auto bundle = std::make_shared<bool>(false), registry = std::make_shared<bool>(false);
  app->add_flag("--coq-bundle", *bundle,
                "Print proofs/coq/All.v as the contracts' coq: and lift: fields determine it (checks nothing)");
  app->add_flag("--registry", *registry,
                "Only check that every registered ID has a YAML entry and vice versa (exit 1 if not)");
  return {app, [&global, record, bmc, bundle, registry] {
            if (!*bundle && !*registry) return run_coverage(global, *record, *bmc);
            const auto loaded = load_or_report(global.contracts_dir, false);
            if (!loaded) return exit_usage;
            if (*bundle) {
              std::cout << coq_bundle(loaded->contracts);
              return exit_pass;
            }
            const auto mismatches = registry_mismatches(loaded->contracts);
            for (const auto& m : mismatches) std::cout << m << "\n";
            std::cout << "registry and contracts " << (mismatches.empty() ? "agree" : "disagree") << "\n";
            return mismatches.empty() ? exit_pass : exit_fail;
          }};
}

}  // namespace attncheck::cli
