// attncheck audit tests: the unfused 16-bit backward recipe (--stores scores,p,dp,ds): kernels that
// store every op's output in bf16 or f16 as PyTorch's autograd does
// (tests/audit/kernels_attention_backward_unfused.c) pass every backward check declared so, and
// declared fused (the default, FlashAttention-2's recipe) fail FALSIFY-ATTBWD-001 with the line that
// names the declaration; the declaration's spellings are checked.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/audit/audit_cli.hpp"
#include "tests/test_paths.hpp"

namespace {

using attncheck_tests::audit_cli::audit;
using attncheck_tests::audit_cli::contains;
using attncheck_tests::audit_cli::Run;
using attncheck_tests::audit_cli::sanitized_run;

const std::string lib_bwd = std::string("--lib '") + ATTNCHECK_AUDIT_TESTLIB_BWD + "' ";
const std::vector<std::string> kChecks = {"FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-002", "FALSIFY-ATTBWD-003", "FALSIFY-ATTBWD-004",
                                          "AUDIT-SAFE-001",     "AUDIT-DET-001",      "AUDIT-NAN-001",      "AUDIT-ATTBWD-001"};
// AUDIT-ATTBWD-001 at two small shapes (tests/audit/attention_backward_test.cpp says why): grouped
// causal bottom-right with n < m, and top-left with n > m and a soft-cap.
const std::string kSmallShapes =
    " --attention-shape B=1,H=4,Hkv=2,n=96,m=128,d=16,causal=br --attention-shape B=1,H=2,Hkv=1,n=80,m=64,d=16,causal=tl,softcap=2 ";

std::string row(const std::string& id, const std::string& shown) { return id + " attention_backward [" + shown + "]"; }
std::string shown(const std::string& kernel) { return kernel.substr(kernel.rfind('_') + 1) + "@f32"; }

}  // namespace

TEST_CASE("unfused 16-bit backward kernels pass every applicable obligation declared --stores scores,p,dp,ds") {
  const std::vector<std::string> kernels =
      sanitized_run() ? std::vector<std::string>{"bwd_unfused_bf16"} : std::vector<std::string>{"bwd_unfused_bf16", "bwd_unfused_sdpa_bf16", "bwd_unfused_sdpa_f16"};
  for (const std::string& name : kernels) {
    const std::string d = name.substr(name.rfind('_') + 1);
    Run r = audit(lib_bwd + "--kernel attention_backward:" + d + ":" + name + " --stores scores,p,dp,ds" + kSmallShapes +
                  (sanitized_run() ? " --cases 20" : " --cases 60"));
    INFO(name << "\n" << r.output);
    CHECK(r.status == 0);
    for (const auto& id : kChecks) CHECK_MESSAGE(r.verdicts[row(id, shown(name))] == "PASS", id);
  }
}

// Declared fused (the default), the same kernels fail: their scores, P, dP and dS each carry a
// rounding to 16 bits the fused model does not allow (ratio about 12 at bf16), and the report names
// the declaration that would admit them.
TEST_CASE("unfused 16-bit backward kernels declared fused fail FALSIFY-ATTBWD-001, with 'Passes if declared unfused'") {
  if (sanitized_run()) return;  // the verdicts are the plain build's to check
  for (const std::string name : {"bwd_unfused_bf16", "bwd_unfused_sdpa_bf16", "bwd_unfused_sdpa_f16"}) {
    const std::string d = name.substr(name.rfind('_') + 1);
    Run r = audit(lib_bwd + "--kernel attention_backward:" + d + ":" + name + " --cases 60 --test FALSIFY-ATTBWD-001");
    INFO(name << "\n" << r.output);
    CHECK(r.status == 1);
    CHECK(r.verdicts[row("FALSIFY-ATTBWD-001", shown(name))] == "FAIL");
    CHECK(contains(r.output + r.json, "Passes if declared unfused"));
    CHECK(contains(r.output + r.json, "--stores scores,p,dp,ds"));
  }
}

// A FlashAttention-2-style kernel (P and dS stored, the rest in f32) stores less than the unfused
// model allows: it passes declared either way. The accumulator bugs pass neither.
TEST_CASE("a fused 16-bit backward kernel passes declared unfused too") {
  if (sanitized_run()) return;
  Run r = audit(lib_bwd + "--kernel attention_backward:bf16:bwd_fa2_gqa_bf16 --stores unfused --cases 60 --test FALSIFY-ATTBWD-001 "
                "--test FALSIFY-ATTBWD-003 --test FALSIFY-ATTBWD-004");
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* id : {"FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-003", "FALSIFY-ATTBWD-004"}) CHECK_MESSAGE(r.verdicts[row(id, "bf16@f32")] == "PASS", id);
}

TEST_CASE("--stores spellings: p, p,ds and fused name the fused recipe, scores,p, scores,p,dp,ds and unfused the unfused one") {
  if (sanitized_run()) return;
  const std::string k = lib_bwd + "--kernel attention_backward:bf16:bwd_unfused_bf16 --cases 30 --test FALSIFY-ATTBWD-001 ";
  for (const char* s : {"p", "p,ds", "fused"}) {
    Run r = audit(k + "--stores " + s);
    INFO(s << "\n" << r.output);
    CHECK(r.status == 1);
  }
  for (const char* s : {"scores,p", "ds,dp,p,scores", "unfused"}) {
    Run r = audit(k + "--stores " + s);
    INFO(s << "\n" << r.output);
    CHECK(r.status == 0);
  }
  for (const char* s : {"dp,ds", "p,p", "p,dq"}) {
    Run r = audit(k + "--stores " + s);
    INFO(s << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(contains(r.output, "is not a set of stored intermediates"));
  }
}

// Per kernel in a bindings file: the backward kernel's own stores: entry decides its model (not the
// forward attention kernel's, which the file may not have).
TEST_CASE("stores: per attention_backward kernel in a bindings file") {
  if (sanitized_run()) return;
  const std::string path = std::filesystem::temp_directory_path() / ("attncheck-bwd-unfused-bindings-" + std::to_string(::getpid()) + ".yaml");
  const auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  const std::string head = std::string("library: ") + ATTNCHECK_AUDIT_TESTLIB_BWD + "\nkernels:\n";
  write(head + "  - {kind: attention_backward, dtype: bf16, symbol: bwd_unfused_bf16, stores: \"scores,p,dp,ds\"}\n"
               "  - {kind: attention_backward, dtype: f16, symbol: bwd_unfused_sdpa_f16}\n");
  Run r = audit("--bindings '" + path + "' --test FALSIFY-ATTBWD-001 --test AUDIT-ATTBWD-001 --cases 40" + kSmallShapes);
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.verdicts[row("FALSIFY-ATTBWD-001", "bf16@f32")] == "PASS");
  CHECK(r.verdicts[row("AUDIT-ATTBWD-001", "bf16@f32")] == "PASS");
  CHECK(r.verdicts[row("FALSIFY-ATTBWD-001", "f16@f32")] == "FAIL");  // undeclared: fused
  std::filesystem::remove(path);
}

// A library no one here wrote: PyTorch's autograd on bf16 tensors
// (examples/python/torch_attention_backward.py --bf16-tensors), each matmul on f32 copies rounded to
// bf16 (--f32-matmul: torch 1.13's own bf16 matmul reads subnormal operands as 0 on AVX512-BF16).
// Declared unfused it passes every backward check; declared fused it fails FALSIFY-ATTBWD-001 with
// the line naming the declaration.
TEST_CASE("python example: PyTorch autograd on bf16 tensors passes declared unfused, fails declared fused") {
  if (sanitized_run()) return;  // the exec boundary of kind 9 is checked at f32 in attention_backward_test.cpp
  const std::string probe = std::string("'") + ATTNCHECK_PYTHON3 + "' -c 'import torch' 2>/dev/null";
  REQUIRE_MESSAGE(std::system(probe.c_str()) == 0, ATTNCHECK_PYTHON3 << " cannot import torch: install python3-torch (tools/install-deps.sh)");
  const std::string py = std::string("--exec \"'") + ATTNCHECK_PYTHON3 + "' '" + ATTNCHECK_EXAMPLES_DIR +
                         "/python/torch_attention_backward.py' --bf16-tensors --f32-matmul\" --kernel attention_backward:bf16 -j 1 ";
  Run declared = audit(py + "--stores scores,p,dp,ds --cases 60" + kSmallShapes);
  INFO(declared.output);
  CHECK(declared.status == 0);
  for (const auto& id : kChecks) CHECK_MESSAGE(declared.verdicts[row(id, "bf16@f32")] == "PASS", id);
  Run fused = audit(py + "--cases 60 --test FALSIFY-ATTBWD-001");
  INFO(fused.output);
  CHECK(fused.status == 1);
  CHECK(fused.verdicts[row("FALSIFY-ATTBWD-001", "bf16@f32")] == "FAIL");
  CHECK(contains(fused.output + fused.json, "Passes if declared unfused"));
}
