// attncheck audit tests: split-KV decoding (abi.h, attncheck_attention_problem's num_splits). The
// split kernels of tests/audit/kernels_attention_v2.c, audited with --splits 4 through the real CLI:
// each gives the verdict its row says for FALSIFY-MERGE-004 (the split bound, uniform over the
// kernel's partition); without --splits the obligation is not applicable and the kernel is never
// told to split; the exec protocol carries num_splits in the attention block.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "attncheck/audit/protocol.hpp"
#include "tests/audit/audit_cli.hpp"
#include "tests/audit/verdict_table.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {

using attncheck_tests::audit_cli::check_masked_policy;
using attncheck_tests::audit_cli::check_verdict_table;
using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::VerdictTable;

const std::string lib_v2 = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_V2 + "' --masked zeros ";

const std::vector<std::string> kCorrect = {"v2_split_f32", "v2_split_bf16"};
const VerdictTable kExpected = {
    {"FALSIFY-MERGE-004",
     {{"bug_v2_split_empty_nan_f32", "FAIL"},
      {"bug_v2_split_rounded_down_f32", "FAIL"},
      {"bug_v2_split_unnormalised_f32", "FAIL"}}},
};

}  // namespace

TEST_CASE("split-KV decoding: each split kernel told --splits 4 gives the verdict its row says") {
  check_verdict_table(lib_v2 + "--splits 4 ", "attention", kExpected, kCorrect, {"v2_split_f32", "bug_v2_split_empty_nan_f32"});
}

TEST_CASE("split-KV decoding: the declared masked-row policy holds: NaN rows pass undeclared and fail under --masked zeros, zeros pass it") {
  // FALSIFY-MERGE-004's decode-like cases (n <= 3) see a row with no key in few cases: 300 reach one.
  check_masked_policy(std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_V2 + "' --splits 4 ", "attention", {"FALSIFY-MERGE-004"},
                      "v2_split_nan_rows_f32", "v2_split_f32", 300);
}

TEST_CASE("split-KV decoding: without --splits the split check is not applicable and a split bug stays unseen") {
  Run r = attncheck_tests::audit_cli::audit(lib_v2 + "--kernel attention:f32:bug_v2_split_rounded_down_f32 --test FALSIFY-MERGE-004 "
                                                           "--test FALSIFY-ATTK-001 --cases 40");
  INFO(r.output);
  CHECK(r.verdicts["FALSIFY-ATTK-001 attention [f32]"] == "PASS");  // num_splits 0: the kernel does not split
  CHECK(contains(r.output, "FALSIFY-MERGE-004 [f32]: needs a kernel kind that was not provided"));
  CHECK(r.status == 0);
}

TEST_CASE("split-KV decoding in a bindings file: splits: S declares what --splits does, and a bad count is refused") {
  const std::string path = std::filesystem::temp_directory_path() / ("attncheck-splits-" + std::to_string(::getpid()) + ".yaml");
  const auto write = [&](const std::string& splits) {
    std::ofstream(path) << "library: " << ATTNCHECK_AUDIT_TESTLIB_V2 << "\nabi: 2\nmasked: zeros\n" << splits
                        << "kernels:\n  - {kind: attention, dtype: f32, symbol: bug_v2_split_rounded_down_f32}\n";
  };
  write("splits: 4\n");
  Run r = attncheck_tests::audit_cli::audit("--bindings '" + path + "' --test FALSIFY-MERGE-004 --cases 40");
  INFO(r.output);
  CHECK(r.verdicts["FALSIFY-MERGE-004 attention [f32]"] == "FAIL");  // declared: told to split, and caught
  write("splits: 0\n");
  Run bad = attncheck_tests::audit_cli::audit("--bindings '" + path + "' --test FALSIFY-MERGE-004 --cases 5");
  INFO(bad.output);
  CHECK(bad.status == 2);
  CHECK(contains(bad.output, "splits: '0' is not a number of splits from 1 to 65535"));
  std::filesystem::remove(path);
}

TEST_CASE("exec protocol kind 8: num_splits travels in the attention block and round-trips") {
  Call c;
  c.kind = Kind::attention_v2;
  c.dtype = Dtype::f32;
  c.n = 1, c.m = 3, c.d = 1, c.dv = 1;
  c.problem.shape = {.batch = 1, .heads = 1, .kv_heads = 1, .n = 1, .m = 3, .d = 1, .dv = 1};
  c.inputs = {std::vector<unsigned char>(4), std::vector<unsigned char>(12), std::vector<unsigned char>(12)};
  c.output_count = 1;
  const auto round_trip = [&](std::size_t splits) {
    c.problem.num_splits = splits;
    const auto frame = protocol::encode_call(c);
    return protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()}).problem.num_splits;
  };
  CHECK(round_trip(3) == 3);
  CHECK(round_trip(65535) == 65535);
  CHECK(round_trip(0) == 0);
}
