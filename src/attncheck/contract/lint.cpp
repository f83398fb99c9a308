// attncheck: traceability checks over loaded contracts (`attncheck lint`).
#include "attncheck/contract/lint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace attncheck::contract {
namespace {

// A statistical allowance must say how often it may cry wolf.
bool states_false_alarm(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text.find("α") != std::string::npos || lower.find("alpha") != std::string::npos;
}

// A `coq: File.theorem` entry must name a theorem declared in proofs/coq/File.v. Whether it is
// proved is decided by building the Coq project (proofs/proofs.cmake), not here.
template <class Add>
void check_coq_theorem(const Obligation& o, const std::string& name, const std::string& root,
                       const Add& add) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return;  // the loader already warned about the form
  const std::string file = "proofs/coq/" + name.substr(0, dot) + ".v";
  const std::string theorem = name.substr(dot + 1);
  std::ifstream in(std::filesystem::path(root) / file);
  if (!in) {
    add(o.where, Severity::warning,
        fmt::format("Coq file {} (named by {} for {}) does not exist under {}", file, o.id, name,
                    root));
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::regex declared("(Theorem|Lemma|Corollary|Proposition|Fact|Remark)\\s+" + theorem +
                            "[\\s:]");
  if (!std::regex_search(text.str(), declared))
    add(o.where, Severity::warning,
        fmt::format("Coq theorem {} (named by {}) is not declared in {}", theorem, o.id, file));
}

void lint_contract(const Contract& c, const LintOptions& options, std::vector<Diagnostic>& out) {
  const auto add = [&](const Location& where, Severity s, std::string message) {
    out.push_back({where, s, std::move(message)});
  };
  std::set<std::string> attacked;
  for (const auto& t : c.tests) attacked.insert(t.obligations.begin(), t.obligations.end());

  for (const Obligation& o : c.obligations) {
    if (o.id.empty()) continue;  // the loader already reported it
    if (!attacked.count(o.id)) {
      if (c.legacy_dialect)
        add(o.where, Severity::warning,
            fmt::format("obligation {} (id assigned by position) is attacked by no falsification "
                        "test: legacy files link no test to an obligation; add obligations: [{}] "
                        "to the test that attacks it",
                        o.id, o.id));
      else
        add(o.where, Severity::error,
            fmt::format("obligation {} is attacked by no falsification test: add a test with "
                        "obligations: [{}] (a claim nothing tries to refute is unchecked)",
                        o.id, o.id));
    }
    if (o.proof.empty()) {
      add(o.where, Severity::warning,
          fmt::format("obligation {} names no proof: add proof: proofs/<file>.tex#{}", o.id, o.id));
    } else if (!options.repo_root.empty()) {
      const std::string file = o.proof.substr(0, o.proof.find('#'));
      std::error_code ec;
      if (file.empty() ||
          !std::filesystem::exists(std::filesystem::path(options.repo_root) / file, ec))
        add(o.where, Severity::warning,
            fmt::format("proof not written yet: {} (the proof of {}) does not exist under {}; "
                        "write it or correct the path",
                        file.empty() ? o.proof : file, o.id, options.repo_root));
    }
    if (!options.repo_root.empty())
      for (const auto& name : o.coq) check_coq_theorem(o, name, options.repo_root, add);
    if (!o.coq.empty() && std::count(o.coq_proves.begin(), o.coq_proves.end(), Obligation::CoqProves::unstated) +
                                  static_cast<long>(o.coq.size() - std::min(o.coq.size(), o.coq_proves.size())) > 0)
      add(o.where, Severity::warning,
          fmt::format("the coq: links of {} do not say what they prove: write coq: {{exact: [...]}} for theorems "
                      "about exact arithmetic and {{float: [...]}} for theorems about the rounded computation; "
                      "coverage counts an unstated link as exact arithmetic only",
                      o.id));
    if (!o.legacy_tolerance.empty())
      add(o.where, Severity::warning,
          fmt::format("obligation {} has a bare tolerance {}: tolerances must be derived; replace "
                      "it with allowance: text that derives the bound (unit roundoff, length, "
                      "conditioning)",
                      o.id, o.legacy_tolerance));
    if (o.type == "statistical" && !states_false_alarm(o.allowance))
      add(o.where, Severity::warning,
          fmt::format("statistical obligation {} does not state its false-alarm probability: add "
                      "it to the allowance (e.g. 'α = 1e-9 per run')",
                      o.id));
  }

  if (options.has_property)
    for (const auto& t : c.tests)
      if (!t.id.empty() && !options.has_property(t.id))
        add(t.where, Severity::error,
            fmt::format("{} has no executable property in this build: the gate could not run it; "
                        "register a property with this ID under falsify/ or remove the test",
                        t.id));
}

}  // namespace

std::vector<Diagnostic> lint(const LoadResult& loaded, const LintOptions& options) {
  std::vector<Diagnostic> out;
  for (const Contract& c : loaded.contracts) {
    std::vector<Diagnostic> mine;
    lint_contract(c, options, mine);
    // File order, as the loader reports: obligations and tests interleave by line.
    std::stable_sort(mine.begin(), mine.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.where.line, a.where.column) < std::pair(b.where.line, b.where.column);
    });
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

}  // namespace attncheck::contract
