# attncheck audit test of a real third-party kernel over the exec protocol: ONNX Runtime's
# com.microsoft.GroupQueryAttention (CPU, onnxruntime-node 1.30.0) served by
# examples/node/ort_gqa_varlen.mjs as attention_varlen (CALL kind 11) at f32 and f16 (f16@f32).
# Every check must PASS (no FAIL, and not NOT-JUDGED: ORT must have been judged). Then declared
# (--supports: what GQA cannot compute) as attention_varlen and attention_paged (kind 12): every
# check PASSES with no input declined (the declaration is exact, and a decline inside it would
# fail). SKIPPED when
# node or examples/node/node_modules/onnxruntime-node is absent (`npm install --ignore-scripts` in
# examples/node installs it; examples/node/README.md).
#
# One file, two roles: included from the top-level CMakeLists.txt it registers the test; run by
# that test as `cmake -DCLI=... -P tests/audit/node.cmake` it runs the audit.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_program(ATTNCHECK_NODE NAMES node nodejs)
  set(_name "audit: ONNX Runtime GroupQueryAttention (Node) as attention_varlen and, declared, attention_paged passes at f32 and f16")
  add_test(NAME "${_name}"
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attncheck_cli> "-DNODE=${ATTNCHECK_NODE}"
                   -DCONTRACTS=${CMAKE_CURRENT_SOURCE_DIR}/contracts -DEXAMPLES=${CMAKE_CURRENT_SOURCE_DIR}/examples
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/audit-node -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties("${_name}" PROPERTIES LABELS audit TIMEOUT 300 SKIP_REGULAR_EXPRESSION "SKIPPED: ")
  return()
endif()

# ---- run by the test -----------------------------------------------------------------------------
cmake_minimum_required(VERSION 3.25)  # the top level's: its policies (IN_LIST), string(JSON)
if(NOT NODE OR NOT EXISTS "${NODE}")
  find_program(NODE NAMES node nodejs)  # installed after configuring
endif()
if(NOT NODE)
  message("SKIPPED: node is not installed (examples/node/ort_gqa_varlen.mjs runs under Node)")
  return()
endif()
if(NOT EXISTS "${EXAMPLES}/node/node_modules/onnxruntime-node/package.json")
  message("SKIPPED: ${EXAMPLES}/node/node_modules/onnxruntime-node is absent: run `npm install --ignore-scripts` in ${EXAMPLES}/node")
  return()
endif()

# A fixed seed and few cases (about 15 s on 2 cores); the declined inputs (ALiBi, n_b > m_b, ...:
# examples/node/README.md) are reported, not judged. --masked nan: what ORT gives for a row whose
# every key is masked (attention_bias -inf), though the kernel never sends GQA such a row.
set(kernels --kernel attention_varlen:f32 --kernel attention_varlen:f16)
set(tests FALSIFY-VARLEN-001 FALSIFY-VARLEN-002 AUDIT-SAFE-001 AUDIT-DET-001 AUDIT-NAN-001)
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${CLI} --contracts ${CONTRACTS} audit --exec "'${NODE}' '${EXAMPLES}/node/ort_gqa_varlen.mjs'" --abi 2 ${kernels}
          --no-lse --masked nan --seed 0x0a7e --cases 60 -q --json ${OUT}/audit-node.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "attncheck audit of ORT GroupQueryAttention: exit status ${rc}, expected 0\n${out}\n${err}")
endif()

# Each check ran and passed at both formats (exit 0 alone would also admit NOT-JUDGED rows).
file(READ ${OUT}/audit-node.json json)
string(JSON n LENGTH "${json}" results)
math(EXPR last "${n} - 1")
set(passed "")
foreach(i RANGE ${last})
  string(JSON test GET "${json}" results ${i} test)
  string(JSON dtype GET "${json}" results ${i} dtype)
  string(JSON verdict GET "${json}" results ${i} verdict)
  string(JSON declined GET "${json}" results ${i} declined)
  if(test IN_LIST tests)
    if(NOT verdict STREQUAL "PASS")
      message(FATAL_ERROR "${test} [${dtype}]: ${verdict}, expected PASS\n${out}\n${err}")
    endif()
    list(APPEND passed "${test}[${dtype}]")
    message(STATUS "${test} [${dtype}]: PASS (${declined} inputs declined)")
  endif()
endforeach()
list(LENGTH passed np)
if(NOT np EQUAL 10)
  message(FATAL_ERROR "expected 10 PASS rows (5 checks x f32, f16@f32), got ${np}: ${passed}\n${out}")
endif()

# Declared: GQA has no ALiBi, no sequence with n_b > m_b, a bottom-right causal mask and a causal
# window only (window=no: a window without the causal mask is declined, and no single feature says
# "non-causal with a window"). Nothing inside is declined; AUDIT-NAN-001's unmasked inputs are
# inside too.
set(kernels --kernel attention_varlen:f32 --kernel attention_varlen:f16 --kernel attention_paged:f32 --kernel attention_paged:f16)
set(supports --supports alibi=no --supports n_gt_m=no --supports top_left=no --supports window=no)
list(APPEND tests FALSIFY-PAGED-001 FALSIFY-PAGED-002 FALSIFY-PAGED-003 FALSIFY-PAGED-004 AUDIT-PAGED-001)
execute_process(
  COMMAND ${CLI} --contracts ${CONTRACTS} audit --exec "'${NODE}' '${EXAMPLES}/node/ort_gqa_varlen.mjs'" --abi 2 ${kernels}
          --no-lse --masked nan ${supports} --seed 0x0a7e --cases 60 -q --json ${OUT}/audit-node-declared.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "attncheck audit of ORT GroupQueryAttention, declared: exit status ${rc}, expected 0\n${out}\n${err}")
endif()
file(READ ${OUT}/audit-node-declared.json json)
string(JSON n LENGTH "${json}" results)
math(EXPR last "${n} - 1")
set(passed "")
foreach(i RANGE ${last})
  string(JSON test GET "${json}" results ${i} test)
  string(JSON kind ERROR_VARIABLE no_kind GET "${json}" results ${i} kinds 0)  # none: an N/A row
  string(JSON dtype GET "${json}" results ${i} dtype)
  string(JSON verdict GET "${json}" results ${i} verdict)
  string(JSON declined GET "${json}" results ${i} declined)
  if(test IN_LIST tests AND kind MATCHES "^attention_(varlen|paged)$")
    if(NOT verdict STREQUAL "PASS" OR NOT declined EQUAL 0)
      message(FATAL_ERROR "declared: ${test} ${kind} [${dtype}]: ${verdict} with ${declined} inputs declined, expected PASS with none\n${out}")
    endif()
    list(APPEND passed "${test}[${kind},${dtype}]")
  endif()
endforeach()
list(LENGTH passed np)
if(NOT np EQUAL 26)
  message(FATAL_ERROR "declared: expected 26 PASS rows (varlen 5 and paged 8 checks x f32, f16@f32), got ${np}: ${passed}\n${out}")
endif()
message(STATUS "declared: ${np} checks PASS with no input declined")
