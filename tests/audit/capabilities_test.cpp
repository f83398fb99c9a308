// attncheck audit tests: declared capabilities (--supports, supports:; audit/capabilities.hpp). In
// process: the declaration's parser, the features read off a call, which of them a declaration
// excludes, and the decline hint. Through the CLI, the kernels of tests/audit/kernels_capabilities.c
// (ONNX Runtime GroupQueryAttention's limits over the correct varlen and paged kernels): undeclared,
// a check ends GAVE-UP with the features of the declined calls and the declaration that excludes
// them; declared, every check passes (exit 0), and with no input inside the declaration it is N/A;
// a kernel that declines an input inside its declaration fails. The backward pass declares the same
// features (a backward kernel without ALiBi and soft-cap, kernels_attention_backward.c).
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/audit/capabilities.hpp"
#include "tests/audit/audit_cli.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {

using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;

Run cli_audit(const std::string& args) { return attncheck_tests::audit_cli::audit(args); }

// What ONNX Runtime's GroupQueryAttention cannot compute (kernels_capabilities.c).
const std::string gqa_declaration = " --supports alibi=no --supports non_causal=no --supports top_left=no --supports n_gt_m=no";

std::vector<unsigned char> int32_bytes(const std::vector<std::int32_t>& v) {
  std::vector<unsigned char> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A packed call: two sequences (n_b, m_b) = (2, 1) and (0, 3), causal bottom-right, H 4 over H_kv 2.
Call varlen_call() {
  Call c;
  c.kind = Kind::attention_varlen;
  c.problem.shape = {.batch = 2, .heads = 4, .kv_heads = 2, .n = 2, .m = 3, .d = 8, .dv = 8};
  c.problem.mask.causal = true;
  c.problem.mask.alignment = kernels::Alignment::bottom_right;
  c.inputs = {{}, {}, {}, int32_bytes({0, 2, 2}), int32_bytes({0, 1, 4})};
  return c;
}

// Audits KIND:f32:SYMBOL (or f16) of lib with the given tests; checks each verdict and the exit status.
Run check_verdicts(const char* lib, const std::string& kind, const std::string& symbol, const std::string& extra,
                   const std::map<std::string, std::string>& want, int status) {
  std::string tests;
  for (const auto& [id, v] : want) tests += " --test " + id;
  const std::string d = symbol.substr(symbol.rfind('_') + 1);
  Run r = cli_audit(std::string("--lib '") + lib + "' --abi 2 --kernel " + kind + ":" + d + ":" + symbol + tests + extra);
  INFO(symbol << extra << "\n" << r.output);
  const std::string shown = d == "f16" ? "f16@f32" : d;
  for (const auto& [id, v] : want) CHECK_MESSAGE(r.verdicts[id + " " + kind + " [" + shown + "]"] == v, id);
  CHECK(r.status == status);
  return r;
}

}  // namespace

TEST_CASE("capabilities: --supports words parse, and wrong ones say what is known") {
  Supports s;
  CHECK(parse_supports("alibi=no", s).empty());
  CHECK(s.feature == "alibi");
  CHECK(s.values.empty());
  CHECK(!s.kind);
  CHECK(parse_supports("attention_paged:page_size=16,32", s).empty());
  CHECK(s.kind == Kind::attention_paged);
  CHECK(s.values == std::vector<long long>{16, 32});
  CHECK(s.text() == "attention_paged:page_size=16,32");
  CHECK(contains(parse_supports("alibi", s), "not FEATURE=VALUE"));
  CHECK(contains(parse_supports("alibis=no", s), "unknown feature 'alibis'"));
  CHECK(contains(parse_supports("alibi=2", s), "takes yes or no"));
  CHECK(contains(parse_supports("group=two", s), "list of whole numbers"));
  CHECK(contains(parse_supports("softmax:alibi=no", s), "not a kind that declares capabilities"));
  CHECK(contains(parse_supports("attention_varlen:page_size=16", s), "attention_varlen problems have no feature page_size"));
}

TEST_CASE("capabilities: the features of a packed call, and which a declaration excludes") {
  const Call c = varlen_call();
  // (2, 1): more queries than keys, and its first row sees no key; (0, 3): no queries.
  CHECK(features_used(c) == std::vector<std::string>{"causal", "bottom_right", "n_gt_m", "keyless_rows", "empty_sequences", "group=2", "d=8"});
  Supports a, b, g;
  REQUIRE(parse_supports("n_gt_m=no", a).empty());
  REQUIRE(parse_supports("alibi=no", b).empty());
  REQUIRE(parse_supports("attention_varlen:group=1,4", g).empty());
  const Capabilities caps = capabilities_for({a, b, g}, Kind::attention_varlen);
  CHECK(outside(caps, features_used(c)) == std::vector<std::string>{"n_gt_m", "group=2"});
  CHECK(capabilities_for({g}, Kind::attention_paged).declared.empty());  // it names another kind
  CHECK(capabilities_for({a}, Kind::softmax).declared.empty());          // a kind without features
  CHECK(features_used(Call{}).empty());
}

TEST_CASE("capabilities: the decline hint names the features no accepted call had, and what declaring them excludes") {
  const std::string h = decline_hint({{"causal group=1", 10}}, {{"non_causal group=1", 6}, {"causal alibi group=2", 3}, {"causal group=1", 1}});
  CHECK(contains(h, "non_causal 6, causal 4, alibi 3, group=2 3 (of 10)"));
  CHECK(contains(h, "--supports alibi=no --supports non_causal=no --supports group=1"));
  CHECK(contains(h, "excludes 9 of the 10 declined"));
  CHECK(decline_hint({{"causal", 3}}, {}).empty());
  CHECK(contains(decline_hint({}, {{"non_causal group=1", 4}, {"non_causal alibi", 2}}), "each had what --supports non_causal=no declares"));
}

// GroupQueryAttention's limits as attention_varlen: undeclared, FALSIFY-VARLEN-002 gives up on its
// declines (exit 1) naming the declaration that excludes them, and AUDIT-NAN-001 (whose inputs are all
// non-causal) is NOT-JUDGED; declared, every check passes (AUDIT-NAN-001 on causal masks, the
// alignment declared) with exit 0.
TEST_CASE("capabilities: a GQA-like varlen kernel gives up undeclared and passes declared") {
  const std::map<std::string, std::string> undeclared = {{"FALSIFY-VARLEN-001", "PASS"}, {"FALSIFY-VARLEN-002", "GAVE-UP"},
                                                         {"AUDIT-SAFE-001", "PASS"},     {"AUDIT-DET-001", "PASS"},
                                                         {"AUDIT-NAN-001", "NOT-JUDGED"}};
  Run r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_VARLEN, "attention_varlen", "gqa_like_varlen_f32", "", undeclared, 1);
  CHECK(contains(r.output, "the declined calls had: "));
  CHECK(contains(r.output, "declaring --supports alibi=no --supports keyless_rows=no --supports n_gt_m=no --supports non_causal=no "
                           "--supports top_left=no (bindings: supports:) excludes"));
  CHECK(contains(r.output, "each had what --supports non_causal=no declares unsupported"));  // AUDIT-NAN-001's
  std::map<std::string, std::string> declared = undeclared;
  declared["FALSIFY-VARLEN-002"] = "PASS";
  declared["AUDIT-NAN-001"] = "PASS";
  for (const char* symbol : {"gqa_like_varlen_f32", "gqa_like_varlen_f16"}) {
    r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_VARLEN, "attention_varlen", symbol, gqa_declaration, declared, 0);
    CHECK(contains(r.output, "attention_varlen:" + std::string(contains(symbol, "f16") ? "f16@f32" : "f32") +
                                 " supports only alibi=no non_causal=no top_left=no n_gt_m=no"));
    CHECK(contains(r.output, "not drawn (outside the declared capabilities"));
    CHECK(contains(r.json, "\"not_drawn\": "));
  }
  // A declaration nothing drawn is inside (no key head size of 99): every check is N/A, never
  // GAVE-UP, each saying why; nothing applicable is a usage error (exit 2).
  r = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_VARLEN + "' --abi 2 --kernel attention_varlen:f32:gqa_like_varlen_f32" +
                gqa_declaration + " --supports d=99 --test FALSIFY-VARLEN-002 --test AUDIT-NAN-001");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(contains(r.output, "FALSIFY-VARLEN-002 [f32]: no input inside the declared capabilities: "));
  CHECK(contains(r.output, "AUDIT-NAN-001 [f32]: no input inside the declared capabilities: "));
  CHECK(contains(r.output, "d=1 "));  // the features that excluded them, counted
  CHECK(!contains(r.output, "GAVE-UP"));
}

TEST_CASE("capabilities: a GQA-like paged kernel gives up undeclared, without blaming the page size, and passes declared") {
  const std::map<std::string, std::string> undeclared = {
      {"FALSIFY-PAGED-001", "PASS"}, {"FALSIFY-PAGED-002", "PASS"}, {"FALSIFY-PAGED-003", "PASS"}, {"FALSIFY-PAGED-004", "GAVE-UP"},
      {"AUDIT-SAFE-001", "PASS"},    {"AUDIT-DET-001", "PASS"},     {"AUDIT-NAN-001", "NOT-JUDGED"}};
  Run r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_PAGED, "attention_paged", "gqa_like_paged_f32", "", undeclared, 1);
  CHECK(contains(r.output, "--supports non_causal=no"));
  CHECK(!contains(r.output, "the first declined call names its page size"));
  std::map<std::string, std::string> declared = undeclared;
  declared["FALSIFY-PAGED-004"] = "PASS";
  declared["AUDIT-NAN-001"] = "PASS";
  check_verdicts(ATTNCHECK_AUDIT_TESTLIB_PAGED, "attention_paged", "gqa_like_paged_f32", gqa_declaration, declared, 0);
}

// A declaration is a promise: the kernel that also declines soft-capped inputs, declared as the one
// that does not, fails every check that sends it one (AUDIT-NAN-001 draws no soft-cap: PASS).
TEST_CASE("capabilities: a kernel that declines an input inside its declaration fails") {
  const std::map<std::string, std::string> want = {{"FALSIFY-VARLEN-001", "FAIL"}, {"FALSIFY-VARLEN-002", "FAIL"}, {"AUDIT-SAFE-001", "FAIL"},
                                                   {"AUDIT-DET-001", "FAIL"},      {"AUDIT-NAN-001", "PASS"}};
  Run r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_VARLEN, "attention_varlen", "gqa_like_no_softcap_varlen_f32", gqa_declaration, want, 1);
  CHECK(contains(r.output, "The input is inside the declared capabilities (alibi=no non_causal=no top_left=no n_gt_m=no; it has "));
  CHECK(contains(r.output, "softcap"));
}

// The backward pass declares as the forward does (the features of the problem it differentiates):
// a correct backward kernel without ALiBi and soft-cap (kernels_attention_backward.c), declared,
// is sent neither (the report counts them per feature); declared without the soft-cap's line, the
// soft-capped inputs it declines are inside the declaration and fail.
TEST_CASE("capabilities: a backward kernel declares what it computes, and a decline inside the declaration fails") {
  const std::map<std::string, std::string> pass = {{"FALSIFY-ATTBWD-001", "PASS"}, {"AUDIT-DET-001", "PASS"}};
  Run r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_BWD, "attention_backward", "bwd_no_alibi_softcap_f32",
                         " --supports alibi=no --supports attention_backward:softcap=no", pass, 0);
  CHECK(contains(r.output, "attention_backward:f32 supports only alibi=no softcap=no"));
  CHECK(contains(r.output, "FALSIFY-ATTBWD-001 [f32]: "));
  CHECK(contains(r.json, "\"not_drawn_features\": \"softcap "));
  CHECK(!contains(r.output, "declined inputs"));
  r = check_verdicts(ATTNCHECK_AUDIT_TESTLIB_BWD, "attention_backward", "bwd_no_alibi_softcap_f32", " --supports alibi=no",
                     {{"FALSIFY-ATTBWD-001", "FAIL"}, {"AUDIT-DET-001", "FAIL"}}, 1);
  CHECK(contains(r.output, "The input is inside the declared capabilities (alibi=no; it has "));
  CHECK(contains(r.output, "softcap"));
}

TEST_CASE("capabilities: the bindings file's supports: declares as --supports does, and a wrong one is refused") {
  namespace fs = std::filesystem;
  const fs::path yaml = fs::temp_directory_path() / "attncheck-capabilities-test.yaml";
  {
    std::ofstream out(yaml);
    out << "library: " << ATTNCHECK_AUDIT_TESTLIB_VARLEN << "\nabi: 2\nsupports: {alibi: no, non_causal: no}\nkernels:\n"
        << "  - {kind: attention_varlen, dtype: f32, symbol: gqa_like_varlen_f32, supports: [top_left=no, n_gt_m=no]}\n";
  }
  Run r = cli_audit("--bindings '" + yaml.string() + "' --test FALSIFY-VARLEN-002 --test AUDIT-NAN-001");
  INFO(r.output);
  CHECK(r.verdicts["FALSIFY-VARLEN-002 attention_varlen [f32]"] == "PASS");
  CHECK(r.verdicts["AUDIT-NAN-001 attention_varlen [f32]"] == "PASS");
  CHECK(r.status == 0);
  {
    std::ofstream out(yaml);
    out << "library: " << ATTNCHECK_AUDIT_TESTLIB_VARLEN << "\nsupports: {alibis: no}\nkernels:\n"
        << "  - {kind: attention_varlen, dtype: f32, symbol: gqa_like_varlen_f32}\n";
  }
  r = cli_audit("--bindings '" + yaml.string() + "'");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "unknown feature 'alibis'"));
  fs::remove(yaml);
  r = cli_audit(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_VARLEN + "' --abi 2 --kernel attention_varlen:f32:gqa_like_varlen_f32 --supports causal=maybe");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "error: --supports 'causal=maybe': causal takes yes or no"));
}
