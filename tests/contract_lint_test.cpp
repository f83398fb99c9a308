// attncheck: tests of `lint`: traceability (every obligation attacked, every test executable),
// proofs, and tolerances that must be derived rather than written as bare numbers.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "attncheck/contract/lint.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck::contract;

namespace {

const std::string fixtures = ATTNCHECK_TEST_FIXTURES;

std::string dump(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += to_string(d) + "\n";
  return out;
}

const Diagnostic* find(const std::vector<Diagnostic>& ds, Severity s, std::string_view text) {
  for (const auto& d : ds)
    if (d.severity == s && d.message.find(text) != std::string::npos) return &d;
  return nullptr;
}

bool has_errors(const std::vector<Diagnostic>& ds) {
  return std::any_of(ds.begin(), ds.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::error; });
}

// One obligation attacked by one test, with a proof and a derived allowance: lints clean.
LoadResult clean() {
  Obligation o;
  o.id = "MINI-INV-001";
  o.type = "invariant";
  o.allowance = "none: exact";
  o.proof = "good-minimal.yaml#MINI-INV-001";  // a file that exists under the fixtures root
  o.where = {"mini.yaml", 9, 5};
  FalsificationTest t;
  t.id = "FALSIFY-MINI-001";
  t.obligations = {"MINI-INV-001"};
  t.where = {"mini.yaml", 16, 5};
  Contract c;
  c.id = "mini";
  c.file = "mini.yaml";
  c.obligations = {o};
  c.tests = {t};
  LoadResult r;
  r.contracts = {c};
  return r;
}

}  // namespace

TEST_CASE("A clean contract lints without diagnostics") {
  LintOptions options;
  options.repo_root = fixtures;
  options.has_property = [](std::string_view) { return true; };
  const auto ds = lint(clean(), options);
  INFO(dump(ds));
  CHECK(ds.empty());
}

TEST_CASE("An obligation that no falsification test attacks is an error") {
  LoadResult r = clean();
  Obligation extra = r.contracts[0].obligations[0];
  extra.id = "MINI-BND-001";
  extra.where.line = 14;
  r.contracts[0].obligations.push_back(extra);
  const auto ds = lint(r, {});
  INFO(dump(ds));
  const Diagnostic* d =
      find(ds, Severity::error, "obligation MINI-BND-001 is attacked by no falsification test");
  REQUIRE(d != nullptr);
  CHECK(d->where.line == 14);
  CHECK(find(ds, Severity::error, "add a test with obligations: [MINI-BND-001]"));
  CHECK(find(ds, Severity::error, "MINI-INV-001") == nullptr);
}

TEST_CASE(
    "A falsification test without an executable property is an error when the registry is given") {
  LintOptions options;
  options.has_property = [](std::string_view id) { return id != "FALSIFY-MINI-001"; };
  const auto ds = lint(clean(), options);
  INFO(dump(ds));
  const Diagnostic* d =
      find(ds, Severity::error,
           "FALSIFY-MINI-001 has no executable property in this build: the gate could not run it");
  REQUIRE(d != nullptr);
  CHECK(d->where.line == 16);
  CHECK_FALSE(has_errors(lint(clean(), {})));  // no registry given: not checked
}

TEST_CASE("A bare tolerance number is a warning: tolerances must be derived") {
  LoadResult r = clean();
  r.contracts[0].obligations[0].legacy_tolerance = "1.0e-6";
  const auto ds = lint(r, {});
  INFO(dump(ds));
  CHECK(find(ds, Severity::warning, "bare tolerance 1.0e-6: tolerances must be derived"));
  CHECK_FALSE(has_errors(ds));
}

TEST_CASE("A proof that is missing or not written yet is a warning") {
  LoadResult r = clean();
  LintOptions options;
  options.repo_root = fixtures;
  r.contracts[0].obligations[0].proof = "proofs/not-there.tex#MINI-INV-001";
  auto ds = lint(r, options);
  INFO(dump(ds));
  CHECK(find(ds, Severity::warning, "proof not written yet: proofs/not-there.tex"));
  CHECK(lint(r, {}).empty());  // no repo root: the path is not checked

  r.contracts[0].obligations[0].proof.clear();
  ds = lint(r, {});
  CHECK(find(ds, Severity::warning, "obligation MINI-INV-001 names no proof"));
}

TEST_CASE("A statistical obligation must state its false-alarm probability") {
  LoadResult r = clean();
  Obligation& o = r.contracts[0].obligations[0];
  o.type = "statistical";
  o.allowance = "reject outside the chi-square quantiles";
  CHECK(find(lint(r, {}), Severity::warning, "does not state its false-alarm probability"));
  o.allowance = "reject outside the χ² quantiles at α/2 per side, α = 1e-9";
  CHECK(lint(r, {}).empty());
  o.allowance = "two-sided test at Alpha = 1e-9";
  CHECK(lint(r, {}).empty());
}

TEST_CASE("Legacy contracts lint with warnings, not errors, for their missing links") {
  const LoadResult r = load_file(fixtures + "/interop/softmax-kernel-v1.yaml");
  const auto ds = lint(r, {});
  INFO(dump(ds));
  CHECK_FALSE(has_errors(ds));
  CHECK(find(ds, Severity::warning,
             "obligation SM-INV-001 (id assigned by position) is attacked by no"));
  CHECK(find(ds, Severity::warning, "obligation SM-EQV-001 has a bare tolerance 8.0"));
}

TEST_CASE("Lint reports only its own findings, not the loader's") {
  LoadResult r = clean();
  r.diagnostics.push_back({{"mini.yaml", 1, 1}, Severity::error, "a load error"});
  CHECK(lint(r, {}).empty());
}

TEST_CASE("attncheck's attention-scaling contract lints without errors") {
  const LoadResult r = load_file(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts/attention-scaling-v1.yaml");
  const auto ds = lint(r, {});
  INFO(dump(ds));
  CHECK_FALSE(has_errors(ds));
}

TEST_CASE("A coq: entry must name a theorem declared in its proofs/coq file") {
  LoadResult r = clean();
  LintOptions options;
  options.repo_root = fixtures;
  using P = Obligation::CoqProves;
  r.contracts[0].obligations[0].coq = {"Mini.identity_holds"};
  r.contracts[0].obligations[0].coq_proves = {P::exact};
  auto ds = lint(r, options);
  INFO(dump(ds));
  CHECK(find(ds, Severity::warning, "Coq") == nullptr);

  r.contracts[0].obligations[0].coq = {"Mini.identity", "Missing.anything"};
  r.contracts[0].obligations[0].coq_proves = {P::exact, P::floating_point};
  ds = lint(r, options);
  INFO(dump(ds));
  CHECK(find(ds, Severity::warning, "Coq theorem identity (named by MINI-INV-001) is not declared in proofs/coq/Mini.v"));
  CHECK(find(ds, Severity::warning, "Coq file proofs/coq/Missing.v"));
  CHECK_FALSE(has_errors(ds));
  CHECK(lint(r, {}).empty());  // no repo root: the files are not read
}

TEST_CASE("A coq: link that does not say whether it proves exact or floating-point arithmetic is a warning") {
  LoadResult r = clean();
  r.contracts[0].obligations[0].coq = {"Mini.identity_holds"};
  r.contracts[0].obligations[0].coq_proves = {Obligation::CoqProves::unstated};
  const auto ds = lint(r, {});
  INFO(dump(ds));
  CHECK(find(ds, Severity::warning, "the coq: links of MINI-INV-001 do not say what they prove"));
  r.contracts[0].obligations[0].coq_proves = {Obligation::CoqProves::exact};
  CHECK(lint(r, {}).empty());
}
