// attncheck: tests of the contract loader: the Rust system's files (legacy format), attncheck's
// own contracts, and one fixture per kind of damage, each giving a located error and no throw.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>

#include "attncheck/contract/loader.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck::contract;
namespace fs = std::filesystem;

namespace {

const std::string fixtures = ATTNCHECK_TEST_FIXTURES;

std::string dump(const LoadResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics) out += to_string(d) + "\n";
  return out;
}

// The first diagnostic of this severity whose message contains text, or null.
const Diagnostic* find(const LoadResult& r, Severity s, std::string_view text) {
  for (const auto& d : r.diagnostics)
    if (d.severity == s && d.message.find(text) != std::string::npos) return &d;
  return nullptr;
}

LoadResult load(const std::string& relative) {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_file(fixtures + "/" + relative));
  return r;
}

// An error whose message contains text, at line:column of the file.
void expect_error_at(const LoadResult& r, int line, int column, std::string_view text) {
  INFO(dump(r));
  CHECK_FALSE(r.ok());
  const Diagnostic* d = find(r, Severity::error, text);
  REQUIRE(d != nullptr);
  CHECK(d->where.line == line);
  CHECK(d->where.column == column);
}

std::vector<std::string> obligation_ids(const Contract& c) {
  std::vector<std::string> ids;
  for (const auto& o : c.obligations) ids.push_back(o.id);
  return ids;
}

}  // namespace

TEST_CASE("The Rust system's softmax contract loads as legacy format with positional ids") {
  const LoadResult r = load("interop/softmax-kernel-v1.yaml");
  INFO(dump(r));
  CHECK(r.ok());
  REQUIRE(r.contracts.size() == 1);
  const Contract& c = r.contracts[0];
  CHECK(c.id == "softmax-kernel-v1");
  CHECK(c.legacy_dialect);
  CHECK(c.obligations.size() == 6);
  CHECK(c.tests.size() == 6);
  CHECK(c.harnesses.size() == 3);
  CHECK(obligation_ids(c) == std::vector<std::string>{"SM-INV-001", "SM-INV-002", "SM-BND-001",
                                                      "SM-MON-001", "SM-EQV-001", "SM-INV-003"});
  CHECK(std::all_of(c.obligations.begin(), c.obligations.end(),
                    [](const Obligation& o) { return o.id_assigned; }));
  // The legacy harnesses' `obligation: SM-INV-001` references resolve after assignment.
  CHECK(find(r, Severity::warning, "does not define") == nullptr);
  CHECK(c.obligations[0].legacy_tolerance == "1.0e-6");
  CHECK(c.obligations[0].allowance.empty());
  CHECK(c.obligations[4].applies_to == "simd");
  REQUIRE(c.gate);
  CHECK(c.gate->id == "F-SM-001");
}

TEST_CASE("A legacy file gets warnings that say what it lacks") {
  const LoadResult r = load("interop/softmax-kernel-v1.yaml");
  INFO(dump(r));
  const Diagnostic* ids = find(r, Severity::warning, "obligations have no ids");
  REQUIRE(ids != nullptr);
  CHECK(ids->message.find("SM-INV-001 (line 21)") != std::string::npos);
  CHECK(ids->where.line == 20);  // the proof_obligations key
  CHECK(find(r, Severity::warning, "6 of 6 falsification tests have no obligations links"));
  CHECK(find(r, Severity::warning, "6 of 6 obligations name no proof"));
  CHECK(find(r, Severity::warning, "bare tolerance number (SM-INV-001: 1.0e-6, SM-EQV-001: 8.0)"));
  // Rust-only sections are accepted: a note at most, never an unknown-key warning.
  CHECK(find(r, Severity::note, "'verification_summary'"));
  CHECK(find(r, Severity::note, "'kernel_structure'"));
  CHECK(find(r, Severity::warning, "unknown") == nullptr);
}

TEST_CASE("The Rust system's attention-scaling and qk-norm contracts load with their counts") {
  const LoadResult a = load("interop/attention-scaling-v1.yaml");
  INFO(dump(a));
  CHECK(a.ok());
  REQUIRE(a.contracts.size() == 1);
  CHECK(a.contracts[0].legacy_dialect);
  CHECK(a.contracts[0].obligations.size() == 7);
  CHECK(a.contracts[0].tests.size() == 7);
  CHECK(a.contracts[0].harnesses.size() == 2);
  CHECK(obligation_ids(a.contracts[0]) ==
        std::vector<std::string>{"ASCL-INV-001", "ASCL-INV-002", "ASCL-BND-001", "ASCL-BND-002",
                                 "ASCL-BND-003", "ASCL-INV-003", "ASCL-EQV-001"});
  CHECK(a.contracts[0].depends_on == std::vector<std::string>{"softmax-kernel-v1", "qk-norm-v1"});

  const LoadResult q = load("interop/qk-norm-v1.yaml");
  INFO(dump(q));
  CHECK(q.ok());
  REQUIRE(q.contracts.size() == 1);
  CHECK(q.contracts[0].legacy_dialect);
  CHECK(q.contracts[0].obligations.size() == 7);
  CHECK(q.contracts[0].tests.size() == 7);
  CHECK(q.contracts[0].harnesses.size() == 2);
  CHECK(q.contracts[0].obligations[3].id == "QKN-INV-003");
  CHECK(q.contracts[0].obligations[6].id == "QKN-INV-004");
  CHECK(find(q, Severity::warning, "no obligations links"));
}

TEST_CASE(
    "The interop directory loads; a dependency outside it is only a warning for legacy files") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(fixtures + "/interop"));
  INFO(dump(r));
  CHECK(r.ok());
  REQUIRE(r.contracts.size() == 3);
  CHECK(r.contracts[0].id == "attention-scaling-v1");  // sorted by file name
  CHECK(r.contracts[2].id == "softmax-kernel-v1");
  const Diagnostic* d = find(r, Severity::warning, "depends_on names rmsnorm-kernel-v1");
  REQUIRE(d != nullptr);
  CHECK(d->where.line == 10);
  CHECK(d->where.column == 16);
}

TEST_CASE("attncheck's attention-scaling contract loads with ids, links and no errors") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_file(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts/attention-scaling-v1.yaml"));
  INFO(dump(r));
  CHECK(r.ok());
  REQUIRE(r.contracts.size() == 1);
  const Contract& c = r.contracts[0];
  CHECK_FALSE(c.legacy_dialect);
  CHECK(c.id == "attention-scaling-v1");
  CHECK_FALSE(c.version.empty());
  CHECK(c.obligations.size() == 9);
  for (const auto& o : c.obligations) {
    CHECK_FALSE(o.id.empty());
    CHECK_FALSE(o.id_assigned);
    CHECK_FALSE(o.allowance.empty());  // `allowance:` is read into Obligation::allowance
    CHECK(o.legacy_tolerance.empty());
  }
  CHECK(c.tests.size() == 9);
  for (const auto& t : c.tests) CHECK_FALSE(t.obligations.empty());
  // KANI-ASCL-001, KANI-ASCL-002, BMC-ASCL-003, BMC-ASCL-004, GAPPA-ASCL-001/002 and the lemmas LEM-ASCL-001..004
  CHECK(c.harnesses.size() == 10);
  // `reached:` maps each format to the bound `attncheck bmc` proves there.
  const auto max_sub = std::find_if(c.harnesses.begin(), c.harnesses.end(), [](const Harness& h) { return h.id == "KANI-ASCL-002"; });
  REQUIRE(max_sub != c.harnesses.end());
  CHECK(max_sub->reached.size() == 3);
  CHECK(max_sub->reached.at("f16") >= 1);
}

TEST_CASE("A minimal well-formed contract loads without any diagnostic") {
  const LoadResult r = load("good-minimal.yaml");
  INFO(dump(r));
  CHECK(r.diagnostics.empty());
  REQUIRE(r.contracts.size() == 1);
  CHECK(r.contracts[0].harnesses[0].bound == 4);
  CHECK(r.contracts[0].where.line == 2);  // the root map starts after the comment
}

TEST_CASE("A YAML syntax error is located where the parser stopped") {
  const LoadResult r = load("bad/syntax-error.yaml");
  expect_error_at(r, 5, 1, "YAML syntax error (end of sequence flow not found)");
  CHECK(find(r, Severity::error, "add the missing ']'"));
  CHECK(r.contracts.empty());
}

TEST_CASE("A value of the wrong type is an error at the value") {
  const LoadResult r = load("bad/wrong-type.yaml");
  expect_error_at(r, 17, 12,
                  "bound of harness KANI-WT-001 must be a positive whole number (the unwinding "
                  "bound, e.g. 8), not 'eight'");
  expect_error_at(r, 12, 18,
                  "obligations of falsification test FALSIFY-WT-001 must be a list, not a single "
                  "value: write [WT-INV-001]");
  REQUIRE(r.contracts.size() == 1);  // the damage is local: the rest still loads
  CHECK(r.contracts[0].harnesses[0].obligation == "WT-INV-001");
}

TEST_CASE("A test or harness naming an undefined obligation is an error at the reference") {
  const LoadResult r = load("bad/dangling-id.yaml");
  expect_error_at(r, 13, 33,
                  "falsification test FALSIFY-ASCL-009 names obligation ASCL-BND-099, which this "
                  "contract does not define (defined: ASCL-BND-001)");
  expect_error_at(r, 16, 17, "harness KANI-ASCL-001 names obligation ASCL-INV-007");
}

TEST_CASE("A duplicate ID or a duplicate key is an error at the second occurrence") {
  expect_error_at(load("bad/duplicate-id.yaml"), 8, 5,
                  "duplicate ID DUP-INV-001: this obligation reuses the ID defined at line 5");
  const LoadResult r = load("bad/duplicate-key.yaml");
  expect_error_at(r, 4, 3, "duplicate key 'version' in metadata (first at line 2)");
  REQUIRE(r.contracts.size() == 1);
  CHECK(r.contracts[0].version == "1.0.0");
}

TEST_CASE("IDs that break the ID syntax are errors at the id") {
  const LoadResult r = load("bad/bad-id-syntax.yaml");
  expect_error_at(r, 5, 9, "obligation id 'ascl-bnd-1' does not match CODE-TYP-NNN");
  expect_error_at(r, 8, 9, "falsification test id 'FALSIFY-ASCL-1' does not match");
  expect_error_at(r, 11, 9, "harness id 'PROOF-ASCL-001' does not match");
  expect_error_at(r, 14, 7, "qa_gate id 'GATE-ASCL' does not match F-CODE-NNN");
}

TEST_CASE("Missing metadata version and a missing obligation id are errors") {
  expect_error_at(load("bad/missing-version.yaml"), 1, 1, "metadata has no version: add version:");
  const LoadResult r = load("bad/missing-id.yaml");
  expect_error_at(r, 8, 5, "obligation 'has none' has no id");
  CHECK(find(r, Severity::error, "add id: MID-INV-002"));
  REQUIRE(r.contracts.size() == 1);
  CHECK_FALSE(r.contracts[0].legacy_dialect);  // one obligation has an id: not the Rust format
}

TEST_CASE("An empty file, a non-map root and binary junk are errors with a location") {
  const LoadResult empty = load("bad/empty.yaml");
  expect_error_at(empty, 1, 1, "the file is empty");
  CHECK(empty.contracts.empty());
  expect_error_at(load("bad/not-a-map.yaml"), 2, 1, "the document root is a list");
  const LoadResult junk = load("bad/garbage-bytes.yaml");
  expect_error_at(junk, 2, 1, "byte 0x89 that is not valid UTF-8");
  CHECK(junk.contracts.empty());
}

TEST_CASE("An unknown top-level key is a warning with its location") {
  const LoadResult r = load("bad/unknown-key.yaml");
  INFO(dump(r));
  CHECK(r.ok());
  const Diagnostic* d = find(r, Severity::warning, "unknown top-level key 'proof_obligation'");
  REQUIRE(d != nullptr);
  CHECK(d->where.line == 4);
  CHECK(d->where.column == 1);
}

TEST_CASE("A missing file or directory is an error naming the path, not an exception") {
  const std::string missing = fixtures + "/no-such-contract.yaml";
  LoadResult r;
  REQUIRE_NOTHROW(r = load_file(missing));
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].where.file == missing);
  CHECK(to_string(r.diagnostics[0]) == missing + ": error: " + r.diagnostics[0].message);
  CHECK_FALSE(r.ok());

  REQUIRE_NOTHROW(r = load_file(fixtures + "/bad"));
  CHECK(find(r, Severity::error, "is a directory"));
  REQUIRE_NOTHROW(r = load_directory(fixtures + "/no-such-dir"));
  CHECK(find(r, Severity::error, "no such directory"));
}

TEST_CASE("A dependency cycle between two files is reported with its path") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(fixtures + "/cycle"));
  INFO(dump(r));
  const Diagnostic* d =
      find(r, Severity::error, "dependency cycle: cycle-a-v1 -> cycle-b-v1 -> cycle-a-v1");
  REQUIRE(d != nullptr);
  CHECK(d->where.file == fixtures + "/cycle/cycle-a-v1.yaml");
  CHECK(d->where.line == 4);
  CHECK(d->where.column == 16);
  CHECK(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                      [](const Diagnostic& x) { return x.severity == Severity::error; }) == 1);
}

TEST_CASE("Across a directory, reused IDs and unknown dependencies are errors") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(fixtures + "/crossfile"));
  INFO(dump(r));
  const Diagnostic* dup = find(r, Severity::error, "ID CF-INV-001 is already defined in");
  REQUIRE(dup != nullptr);
  CHECK(dup->where.file == fixtures + "/crossfile/two-v1.yaml");
  CHECK(find(r, Severity::error, "depends_on names missing-v1, which is not in"));
  // The same files one at a time are fine: these checks need the whole directory.
  CHECK(load("crossfile/one-v1.yaml").ok());
}

TEST_CASE("A megabyte of garbage never throws and always yields a located error") {
  const fs::path dir =
      fs::temp_directory_path() / ("attncheck-loader-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::mt19937 rng(2026);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  };
  std::string binary(1 << 20, '\0'), text(1 << 20, ' ');
  for (char& ch : binary) ch = static_cast<char>(rng() & 0xff);
  const std::string alphabet = "ab:-[]{}'\"#&*!|>%@ ,?\n\t";
  for (char& ch : text) ch = alphabet[rng() % alphabet.size()];
  for (const std::string& path : {write("binary.yaml", binary), write("text.yaml", text),
                                  write("deep.yaml", std::string(1 << 20, '[')),
                                  write("scalar.yaml", std::string(1 << 20, 'x'))}) {
    CAPTURE(path);
    LoadResult r;
    REQUIRE_NOTHROW(r = load_file(path));
    INFO(dump(r).substr(0, 2000));
    CHECK_FALSE(r.ok());
    for (const auto& d : r.diagnostics)
      if (d.severity == Severity::error) CHECK(d.where.line >= 1);
  }
  fs::remove_all(dir);
}

TEST_CASE("Diagnostics print as file:line:col: severity: message") {
  CHECK(to_string({{"c.yaml", 3, 7}, Severity::error, "boom"}) == "c.yaml:3:7: error: boom");
  CHECK(to_string({{"c.yaml", 1, 1}, Severity::warning, "hm"}) == "c.yaml:1:1: warning: hm");
  CHECK(to_string({{"c.yaml", 2, 1}, Severity::note, "fyi"}) == "c.yaml:2:1: note: fyi");
}

TEST_CASE("An obligation's coq: list is read, and an entry that is not File.theorem is a warning there") {
  const LoadResult r = load("bad/coq-name.yaml");
  INFO(dump(r));
  CHECK(r.ok());  // a warning, not an error: the contract still loads
  REQUIRE(r.contracts.size() == 1);
  const auto& coq = r.contracts[0].obligations[0].coq;
  CHECK(coq == std::vector<std::string>{"Mini.identity_holds", "not a theorem name"});
  const Diagnostic* d = find(r, Severity::warning, "coq entry 'not a theorem name'");
  REQUIRE(d != nullptr);
  CHECK(d->where.line == 15);
  CHECK(d->where.column == 32);
  CHECK(find(r, Severity::warning, "Mini.identity_holds") == nullptr);
}

TEST_CASE("The bundled contracts name Coq theorems in the File.theorem form") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts"));
  INFO(dump(r));
  CHECK(find(r, Severity::warning, "coq entry") == nullptr);
  std::size_t named = 0;
  for (const auto& c : r.contracts)
    for (const auto& o : c.obligations) named += o.coq.size();
  CHECK(named > 0);
}

namespace {
// The minimal contract with extra top-level text appended.
LoadResult minimal_with(const std::string& extra) {
  std::ifstream in(fixtures + "/good-minimal.yaml");
  const std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LoadResult r;
  REQUIRE_NOTHROW(r = load_text(base + extra, "mini.yaml"));
  return r;
}
}  // namespace

TEST_CASE("A coq: link says what it proves: {exact: [...], float: [...]}, and the plain list states nothing") {
  std::ifstream in(fixtures + "/bad/coq-name.yaml");
  const std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string list = "coq: [Mini.identity_holds, \"not a theorem name\"]";
  REQUIRE(base.find(list) != std::string::npos);
  const auto with = [&](const std::string& coq) {
    std::string text = base;
    text.replace(text.find(list), list.size(), coq);
    LoadResult r;
    REQUIRE_NOTHROW(r = load_text(text, "mini.yaml"));
    return r;
  };
  using P = Obligation::CoqProves;
  const LoadResult kinds = with("coq: {float: [Mini.b, Mini.c], exact: [Mini.a]}");
  INFO(dump(kinds));
  REQUIRE(kinds.ok());
  const Obligation& o = kinds.contracts[0].obligations[0];
  CHECK(o.coq == std::vector<std::string>{"Mini.b", "Mini.c", "Mini.a"});
  CHECK(o.coq_proves == std::vector<P>{P::floating_point, P::floating_point, P::exact});
  const LoadResult legacy = with("coq: [Mini.a]");
  REQUIRE(legacy.ok());
  CHECK(legacy.contracts[0].obligations[0].coq_proves == std::vector<P>{P::unstated});
  const LoadResult bad = with("coq: {proved: [Mini.a]}");
  CHECK_FALSE(bad.ok());
  CHECK(find(bad, Severity::error, "coq of obligation MINI-INV-001: unknown key 'proved'") != nullptr);
}

TEST_CASE("The bundled contracts state what every coq: link proves") {
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts"));
  for (const auto& c : r.contracts)
    for (const auto& o : c.obligations) {
      CAPTURE(o.id);
      REQUIRE(o.coq_proves.size() == o.coq.size());
      for (const auto p : o.coq_proves) CHECK(p != Obligation::CoqProves::unstated);
    }
}

TEST_CASE("absent: declares stem files absent with a reason, and an unknown kind or no reason is an error") {
  const LoadResult good = minimal_with("absent:\n  coq: \"a statistical test\"\n  harnesses: \"no model\"\n");
  INFO(dump(good));
  REQUIRE(good.ok());
  REQUIRE(good.contracts.size() == 1);
  CHECK(good.contracts[0].absent.at("coq") == "a statistical test");
  CHECK(good.contracts[0].absent.size() == 2);
  expect_error_at(minimal_with("absent:\n  lean: \"not used\"\n"), 32, 3, "absent: unknown file kind 'lean'");
  expect_error_at(minimal_with("absent:\n  coq: \"\"\n"), 32, 3, "absent.coq needs the reason");
}

TEST_CASE("catches:, LEM- harness IDs and audit_properties load, and an audit ID of another form is an error") {
  const LoadResult r = minimal_with(
      "audit_properties:\n  - id: AUDIT-SAFE-001\n    rule: \"returns\"\n    obligations: [MINI-INV-001]\n");
  INFO(dump(r));
  REQUIRE(r.ok());
  REQUIRE(r.contracts[0].audit_properties.size() == 1);
  CHECK(r.contracts[0].audit_properties[0].obligations == std::vector<std::string>{"MINI-INV-001"});
  expect_error_at(minimal_with("audit_properties:\n  - id: AUDIT-1\n"), 32, 9, "audit property id 'AUDIT-1' does not match");
  const LoadResult bmc = load_file(fixtures + "/../../contracts/softmax-kernel-v1.yaml");
  INFO(dump(bmc));
  REQUIRE(bmc.ok());
  const auto& c = bmc.contracts[0];
  CHECK(std::count_if(c.harnesses.begin(), c.harnesses.end(), [](const Harness& h) { return h.id.rfind("LEM-", 0) == 0; }) == 5);
  const auto sm1 = std::find_if(c.tests.begin(), c.tests.end(), [](const auto& t) { return t.id == "FALSIFY-SM-001"; });
  REQUIRE(sm1 != c.tests.end());
  CHECK(std::find(sm1->catches.begin(), sm1->catches.end(), "softmax_no_max_subtraction") != sm1->catches.end());
}

TEST_CASE("An unclosed quote is reported on its own line, and a depends_on naming the file that did not load says so") {
  namespace fsys = std::filesystem;
  const fsys::path dir = fsys::temp_directory_path() / ("attncheck-unclosed-" + std::to_string(::getpid()));
  fsys::remove_all(dir);
  fsys::create_directories(dir);
  for (const auto& e : fsys::directory_iterator(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts"))
    if (e.path().extension() == ".yaml") fsys::copy_file(e.path(), dir / e.path().filename());
  std::ifstream in(dir / "softmax-kernel-v1.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::size_t at = text.find("prediction: \"");
  REQUIRE(at != std::string::npos);
  const std::size_t eol = text.find('\n', at);
  REQUIRE(text[eol - 1] == '"');
  text.erase(eol - 1, 1);  // the closing quote of that line
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  std::ofstream(dir / "softmax-kernel-v1.yaml") << text;
  LoadResult r;
  REQUIRE_NOTHROW(r = load_directory(dir.string()));
  INFO(dump(r));
  const auto* quote = find(r, Severity::error, "a quoted string probably opens on line " + std::to_string(line));
  REQUIRE(quote != nullptr);
  CHECK(quote->where.line == line);
  CHECK(find(r, Severity::error, "indentation does not line up") == nullptr);
  CHECK(find(r, Severity::error, "depends_on names softmax-kernel-v1, whose file softmax-kernel-v1.yaml did not load") != nullptr);
  CHECK(find(r, Severity::error, "which is not in") == nullptr);
  fsys::remove_all(dir);
}
