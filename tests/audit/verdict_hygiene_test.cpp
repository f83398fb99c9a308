// attncheck audit tests: verdict hygiene on correct kernels (issue 28, section 4). A check whose
// subject the kernel declared absent (the LSE under --no-lse) is N/A; a check whose every input the
// kernel declined is NOT-JUDGED (exit 0; 2 when no check at all was judged), while a check whose cases were all discarded for another
// reason stays GAVE-UP; `--list --abi 2` lists version 2's checks; an allocation failure under
// --memory is an ERROR naming the limit, never a finding; the kind-8 hint only when it applies;
// --replay prints every element.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "attncheck/audit/runner.hpp"
#include "tests/audit/audit_cli.hpp"
#include "tests/run_command.hpp"
#include "tests/test_paths.hpp"

namespace {

using attncheck_tests::audit_cli::audit;
using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::CommandOutput;
using attncheck_tests::run_command;

const std::string lib_v2 = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_V2 + "' ";

// `attncheck audit --list ARGS`: stdout and stderr.
CommandOutput list(const std::string& args) {
  return run_command(std::string("'") + ATTNCHECK_CLI_PATH + "' --contracts '" + ATTNCHECK_SOURCE_DIR + "/contracts' audit --list " + args +
                     " 2>&1");
}

// A Python server of attention_v2 at f32 (attncheck.serve from this checkout's python/src) whose
// kernel body is `body` (q, k, v, p in scope); returns the --exec option.
std::string python_server(const std::string& name, const std::string& body) {
  const std::string path = std::filesystem::temp_directory_path() / ("attncheck-hygiene-" + name + "-" + std::to_string(::getpid()) + ".py");
  std::ofstream(path) << "import sys\nsys.path.insert(0, '" << ATTNCHECK_SOURCE_DIR << "/python/src')\n"
                      << "import numpy as np\nfrom attncheck.protocol import serve, ProtocolError\n"
                      << "def attention(q, k, v, p):\n    " << body << "\n"
                      << "serve({('attention_v2', 'f32'): attention})\n";
  return std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + path + "'\" --abi 2 --kernel attention:f32 ";
}

}  // namespace

TEST_CASE("--no-lse: FALSIFY-ATTK-002 (the LSE's check) is N/A, not GAVE-UP, and the audit passes, --list leaves it out") {
  const std::string t = "--masked zeros --test FALSIFY-ATTK-002 --test AUDIT-SAFE-001 --cases 20 -j 1";
  Run with_lse = audit(lib_v2 + "--kernel attention:f32:v2_plain_f32 " + t);
  INFO(with_lse.output);
  CHECK(with_lse.status == 0);
  CHECK(with_lse.verdicts["FALSIFY-ATTK-002 attention [f32]"] == "PASS");  // judged when the LSE is returned
  Run no_lse = audit(lib_v2 + "--kernel attention:f32:v2_plain_f32 --no-lse " + t);
  INFO(no_lse.output);
  CHECK(no_lse.status == 0);
  CHECK(no_lse.verdicts["FALSIFY-ATTK-002 attention [f32]"] == "N/A");
  CHECK(no_lse.verdicts["AUDIT-SAFE-001 attention [f32]"] == "PASS");
  CHECK(contains(no_lse.json, "checks the LSE, which the attention kernel at f32 is declared not to return"));
  // The NumPy reference over the exec protocol, as the issue found it.
  const std::string py = std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR + "/python/numpy_attention.py'\" ";
  Run numpy = audit(py + "--abi 2 --kernel attention:f32 --no-lse " + t);
  INFO(numpy.output);
  CHECK(numpy.status == 0);
  CHECK(numpy.verdicts["FALSIFY-ATTK-002 attention [f32]"] == "N/A");
  CHECK(numpy.verdicts["AUDIT-SAFE-001 attention [f32]"] == "PASS");

  const CommandOutput listed = list("--abi 2 --kernel attention:f32 --no-lse");
  INFO(listed.output);
  CHECK(listed.status == 0);
  CHECK(contains(listed.output, "FALSIFY-ATTK-001 f32\n"));
  CHECK(!contains(listed.output, "FALSIFY-ATTK-002"));
}

TEST_CASE("--list says on stderr which checks judge the masked-row policy and the policy each applies, stdout keeps TEST_ID DTYPE") {
  const std::string args = "--abi 2 --kernel attention_varlen:f32 --kernel attention_fp8kv:f32 --kernel attention_paged:f32 --masked zeros";
  const CommandOutput l = list(args);
  INFO(l.output);
  CHECK(l.status == 0);
  CHECK(contains(l.output, "the masked-row policy (--masked, masked:) is judged by (check, format, kinds, policy):\n"));
  for (const char* m : {"  FALSIFY-VARLEN-001 f32 attention_varlen zeros\n", "  FALSIFY-PAGED-001 f32 attention_paged zeros\n",
                        "  FALSIFY-FP8-001 f32 attention_fp8kv zeros\n"}) {
    INFO(m);
    CHECK(contains(l.output, m));
  }
  // Checks that never see a row without a key are not named: the NaN and safety checks, the paged sizes.
  for (const char* m : {"  AUDIT-NAN-001", "  AUDIT-SAFE-001", "  AUDIT-PAGED-001", "  FALSIFY-VARLEN-002"}) {
    INFO(m);
    CHECK(!contains(l.output, m));
  }
  const CommandOutput out = run_command(std::string("'") + ATTNCHECK_CLI_PATH + "' --contracts '" + ATTNCHECK_SOURCE_DIR +
                                        "/contracts' audit --list " + args + " 2>/dev/null");
  CHECK(contains(out.output, "FALSIFY-VARLEN-001 f32\n"));
  CHECK(!contains(out.output, "masked"));
}

TEST_CASE("--list --abi 2 lists version 2's attention checks, not version 1's") {
  const CommandOutput v2 = list("--abi 2 --kernel attention:f32");
  INFO(v2.output);
  CHECK(v2.status == 0);
  for (const char* id : {"FALSIFY-ATTK-001 f32", "FALSIFY-ATTK-002 f32", "AUDIT-ATTB-001 f32", "AUDIT-ATTB-002 f32", "AUDIT-SAFE-001 f32",
                         "AUDIT-DET-001 f32", "AUDIT-NAN-001 f32"}) {
    INFO(id);
    CHECK(contains(v2.output, std::string(id) + "\n"));
  }
  for (const char* id : {"AUDIT-ATT-00", "FALSIFY-AEQ-004", "FALSIFY-EXPR-", "FALSIFY-ASCL-009"}) {
    INFO(id);
    CHECK(!contains(v2.output, id));
  }
  CHECK(!contains(v2.output, "note:"));
  // Version 1 (no --abi): version 1's checks, and a note that a version-2 library needs --abi 2.
  const CommandOutput v1 = list("--kernel attention:f32");
  INFO(v1.output);
  CHECK(v1.status == 0);
  CHECK(contains(v1.output, "AUDIT-ATT-001 f32\n"));
  CHECK(!contains(v1.output, "FALSIFY-ATTK-001"));
  CHECK(contains(v1.output, "add --abi 2"));
}

TEST_CASE("a check whose every input the kernel declined is NOT-JUDGED, with the count and how to aim --attention-shape, and "
          "an audit that judged nothing at all exits 2") {
  Run all = audit(lib_v2 + "--kernel attention:f32:v2_declines_all_f32 --masked zeros --test FALSIFY-ATTK-001 --test AUDIT-ATTB-001 "
                           "--test AUDIT-ATTB-002 --cases 20 -j 1");
  INFO(all.output);
  // Every check NOT-JUDGED: the audit verified nothing, a setup error (exit 2), the report still written.
  CHECK(all.status == 2);
  CHECK(contains(all.output, "error: nothing was judged: the kernel declined every input of every check"));
  CHECK(all.verdicts["FALSIFY-ATTK-001 attention [f32]"] == "NOT-JUDGED");
  CHECK(all.verdicts["AUDIT-ATTB-001 attention [f32]"] == "NOT-JUDGED");
  CHECK(all.verdicts["AUDIT-ATTB-002 attention [f32]"] == "NOT-JUDGED");
  CHECK(contains(all.json, "every input declined ("));
  CHECK(contains(all.json, "declined the input (returned 3)"));
  CHECK(contains(all.json, "the first declined shape was --attention-shape B="));  // AUDIT-ATTB-002: a spec to edit
  CHECK(contains(all.json, "\"not_judged\": 3"));
  CHECK(contains(all.output, "3 not judged (NOT-JUDGED"));
  CHECK(contains(all.output, "0 passed, 0 failed, 3 skipped"));

  // Only the rows that see no key declined: AUDIT-ATTB-001 (every input has one) is not judged,
  // FALSIFY-ATTK-001 judges the inputs accepted and passes.
  Run some = audit(lib_v2 + "--kernel attention:f32:v2_declines_empty_rows_f32 --masked zeros --test FALSIFY-ATTK-001 "
                            "--test AUDIT-ATTB-001 --cases 30 -j 1");
  INFO(some.output);
  CHECK(some.status == 0);
  CHECK(some.verdicts["AUDIT-ATTB-001 attention [f32]"] == "NOT-JUDGED");
  CHECK(some.verdicts["FALSIFY-ATTK-001 attention [f32]"] == "PASS");
}

TEST_CASE("settle_row: every call declined is not judged, all cases discarded without a decline stays GAVE-UP, out of memory is an ERROR") {
  using namespace attncheck;
  using namespace attncheck::audit;
  const auto row = [](property::Verdict v, int calls, int declines) {
    AuditRow r;
    r.outcome.test_id = "FALSIFY-ATTK-001";
    r.outcome.verdict = v;
    r.stats.calls = calls;
    r.stats.declines = declines;
    r.stats.first_decline = declines ? "attention<f32> declined the input (returned 1) on ..." : "";
    return r;
  };
  AuditRow declined = row(property::Verdict::gave_up, 12, 12);
  settle_row(Kind::attention_v2, declined);
  CHECK(declined.state == RowState::not_judged);
  CHECK(contains(declined.reason, "every input declined (12)"));
  CHECK(contains(declined.reason, "--attention-shape"));
  // A pass on cases that called no kernel, every call declined: judged nothing, never a pass.
  AuditRow passed_on_nothing = row(property::Verdict::pass, 3, 3);
  settle_row(Kind::softmax, passed_on_nothing);
  CHECK(passed_on_nothing.state == RowState::not_judged);
  CHECK(!contains(passed_on_nothing.reason, "--attention-shape"));  // only for attention
  // Every case discarded by a property's own precondition (no decline): GAVE-UP stays.
  AuditRow precondition = row(property::Verdict::gave_up, 0, 0);
  settle_row(Kind::attention_v2, precondition);
  CHECK(precondition.state == RowState::ran);
  CHECK(precondition.outcome.verdict == property::Verdict::gave_up);
  // Some calls answered, too many declined to reach the cases: GAVE-UP, saying how many.
  AuditRow some = row(property::Verdict::gave_up, 30, 25);
  settle_row(Kind::attention_v2, some);
  CHECK(some.state == RowState::ran);
  CHECK(some.outcome.verdict == property::Verdict::gave_up);
  CHECK(contains(some.outcome.message, "declined 25 of 30 calls"));
  // A failure stays a failure.
  AuditRow failed = row(property::Verdict::fail, 5, 5);
  settle_row(Kind::attention_v2, failed);
  CHECK(failed.state == RowState::ran);
  CHECK(failed.outcome.verdict == property::Verdict::fail);
  AuditRow oom = row(property::Verdict::fail, 5, 0);
  oom.stats.out_of_memory = "attention<f32> ran out of memory";
  settle_row(Kind::attention_v2, oom);
  CHECK(oom.outcome.verdict == property::Verdict::error);
  CHECK(contains(oom.outcome.message, "--memory MIB"));
}

TEST_CASE("exec: an allocation failure under --memory is an ERROR naming the limit, and the kind-8 hint only when it applies") {
  // A correct NumPy attention under too small a limit: the shipped shapes of AUDIT-ATTB-002 do not
  // fit in 100 MiB of address space (the interpreter and NumPy take ~50); the verdict names --memory, never a FAIL of the kernel.
  const std::string py = std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR + "/python/numpy_attention.py'\" ";
  Run small = audit(py + "--abi 2 --kernel attention:f64 --masked zeros --test AUDIT-ATTB-002 --memory 100 -j 1");
  INFO(small.output);
  CHECK(small.status == 1);
  CHECK(small.verdicts["AUDIT-ATTB-002 attention [f64]"] == "ERROR");
  CHECK(contains(small.json, "ran out of memory"));
  CHECK(contains(small.json, "--memory 100 MiB"));
  CHECK(contains(small.json, "Raise the limit with --memory MIB"));
  CHECK(!contains(small.json, "kind 6"));
  // The default limit of --exec fits the same program at the same shapes.
  Run fits = audit(py + "--abi 2 --kernel attention:f64 --masked zeros --test AUDIT-ATTB-002 -j 1");
  INFO(fits.output);
  CHECK(fits.status == 0);
  CHECK(fits.verdicts["AUDIT-ATTB-002 attention [f64]"] == "PASS");

  // A kernel that reports std::bad_alloc (as a C++ server would): the same ERROR, no kind-8 hint.
  Run bad_alloc = audit(python_server("bad-alloc", "raise ProtocolError('std::bad_alloc')") + "--test AUDIT-SAFE-001 --cases 5 -j 1");
  INFO(bad_alloc.output);
  CHECK(bad_alloc.verdicts["AUDIT-SAFE-001 attention [f32]"] == "ERROR");
  CHECK(contains(bad_alloc.json, "--memory"));
  CHECK(!contains(bad_alloc.json, "kind 6"));
  // Any other error, on every input, of a program that serves kind 8: said before any check with
  // its own message (exit 2: the audit would fail every check), without the hint.
  Run other = audit(python_server("other", "raise ProtocolError('CUDA error: an illegal memory access was encountered')") +
                    "--test AUDIT-SAFE-001 --cases 5 -j 1");
  INFO(other.output);
  CHECK(other.status == 2);
  CHECK(contains(other.output, "failed the same way on two different attention:f32 calls"));
  CHECK(contains(other.output, "illegal memory access"));
  CHECK(!contains(other.output, "kind 6"));
  // The same error on some inputs only is a failure of the check: python/tests/test_audit.py.
  // A program that serves no kind 8 gets it (python example numpy_softmax.py: attention_v2_test.cpp).
}

TEST_CASE("--replay prints every element of a property's counterexample rows, without it they are cut after 48") {
  // Wrong only on rows longer than 60: FALSIFY-SM-001's shrunk row is longer than 48 entries.
  const std::string t = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB +
                        "' --kernel softmax:f32:bug_softmax_wrong_long_f32 --test FALSIFY-SM-001 --dtype f32 --cases 40 -j 1";
  Run cut = audit(t);
  INFO(cut.output);
  CHECK(cut.verdicts["FALSIFY-SM-001 softmax [f32]"] == "FAIL");
  REQUIRE(contains(cut.output, " more, "));  // a row longer than 48 elements was cut
  Run whole = audit(t + " --replay");
  INFO(whole.output);
  CHECK(whole.verdicts["FALSIFY-SM-001 softmax [f32]"] == "FAIL");
  CHECK(!contains(whole.output, " more, "));
  CHECK(!contains(whole.json, " more, "));
}
