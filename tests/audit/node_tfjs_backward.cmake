# attncheck audit test of TensorFlow.js's automatic differentiation (@tensorflow/tfjs 4.22.0, the
# pure-JavaScript cpu backend) served by examples/node/tfjs_attention_backward.mjs as
# attention_backward:f32 (CALL kind 9): tf.grads through a forward of TF.js's own ops. Every
# backward check must PASS at f32 (a library no one here wrote; issue 49). SKIPPED when node or
# examples/node/node_modules/@tensorflow/tfjs is absent. One file, two roles, as
# tests/audit/node.cmake.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_program(ATTNCHECK_NODE NAMES node nodejs)
  set(_name "audit: TensorFlow.js tf.grads (Node) passes every attention backward check at f32")
  add_test(NAME "${_name}"
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attncheck_cli> "-DNODE=${ATTNCHECK_NODE}"
                   -DCONTRACTS=${CMAKE_CURRENT_SOURCE_DIR}/contracts -DEXAMPLES=${CMAKE_CURRENT_SOURCE_DIR}/examples
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/audit-node-tfjs -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties("${_name}" PROPERTIES LABELS audit TIMEOUT 600 SKIP_REGULAR_EXPRESSION "SKIPPED: ")
  return()
endif()

cmake_minimum_required(VERSION 3.25)
if(NOT NODE OR NOT EXISTS "${NODE}")
  find_program(NODE NAMES node nodejs)
endif()
if(NOT NODE)
  message("SKIPPED: node is not installed (examples/node/tfjs_attention_backward.mjs runs under Node)")
  return()
endif()
if(NOT EXISTS "${EXAMPLES}/node/node_modules/@tensorflow/tfjs/package.json")
  message("SKIPPED: ${EXAMPLES}/node/node_modules/@tensorflow/tfjs is absent: run `npm ci --ignore-scripts` in ${EXAMPLES}/node")
  return()
endif()

# AUDIT-ATTBWD-001 at one small grouped shape (the default shapes take TF.js's pure-JavaScript
# matMul about 90 s: bench/RESULTS.md has that run, within the allowance).
set(tests FALSIFY-ATTBWD-001 FALSIFY-ATTBWD-002 FALSIFY-ATTBWD-003 FALSIFY-ATTBWD-004 AUDIT-ATTBWD-001 AUDIT-SAFE-001 AUDIT-DET-001 AUDIT-NAN-001)
string(REPLACE ";" "," test_list "${tests}")
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${CLI} --contracts ${CONTRACTS} audit --exec "'${NODE}' '${EXAMPLES}/node/tfjs_attention_backward.mjs'"
          --kernel attention_backward:f32 --test ${test_list} --seed 1 --cases 100 -q --json ${OUT}/audit.json
          --attention-shape B=1,H=4,Hkv=2,n=96,m=128,d=16,causal=br
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
include(${CMAKE_CURRENT_LIST_DIR}/expect_pass_rows.cmake)
attncheck_expect_pass_rows("TF.js tf.grads" "${rc}" ${OUT}/audit.json "${tests}" "${out}" "${err}")
