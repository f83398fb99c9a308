# attncheck audit test of ONNX Runtime's Softmax (CPU, onnxruntime-node 1.30.0, MLAS) served by
# examples/node/ort_softmax.mjs as softmax:f32, declared flush-to-zero (--subnormals flush): every
# softmax check must PASS. Declared, because MLAS's exp flushes subnormal results on some CPUs
# (issue 49: [-82.09, 5.59] gave 0 for an exact 8.3e-39) and not on others (this project's AVX-512
# machine of 2026-12-07 returns the subnormal): the flush model admits both, the IEEE model only
# the second. SKIPPED when node or examples/node/node_modules/onnxruntime-node is absent.
# One file, two roles, as tests/audit/node.cmake.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_program(ATTNCHECK_NODE NAMES node nodejs)
  set(_name "audit: ONNX Runtime Softmax (Node) declared flush-to-zero passes every softmax check at f32")
  add_test(NAME "${_name}"
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attncheck_cli> "-DNODE=${ATTNCHECK_NODE}"
                   -DCONTRACTS=${CMAKE_CURRENT_SOURCE_DIR}/contracts -DEXAMPLES=${CMAKE_CURRENT_SOURCE_DIR}/examples
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/audit-node-softmax -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties("${_name}" PROPERTIES LABELS audit TIMEOUT 300 SKIP_REGULAR_EXPRESSION "SKIPPED: ")
  return()
endif()

cmake_minimum_required(VERSION 3.25)
if(NOT NODE OR NOT EXISTS "${NODE}")
  find_program(NODE NAMES node nodejs)
endif()
if(NOT NODE)
  message("SKIPPED: node is not installed (examples/node/ort_softmax.mjs runs under Node)")
  return()
endif()
if(NOT EXISTS "${EXAMPLES}/node/node_modules/onnxruntime-node/package.json")
  message("SKIPPED: ${EXAMPLES}/node/node_modules/onnxruntime-node is absent: run `npm install --ignore-scripts` in ${EXAMPLES}/node")
  return()
endif()

set(tests FALSIFY-SM-001 FALSIFY-SM-002 FALSIFY-SM-004 FALSIFY-ASCL-004 AUDIT-MASK-002 AUDIT-NAN-001)
string(REPLACE ";" "," test_list "${tests}")
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${CLI} --contracts ${CONTRACTS} audit --exec "'${NODE}' '${EXAMPLES}/node/ort_softmax.mjs'" --kernel softmax:f32
          --subnormals flush --test ${test_list} --seed 1 -q --json ${OUT}/audit.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
include(${CMAKE_CURRENT_LIST_DIR}/expect_pass_rows.cmake)
attncheck_expect_pass_rows("ORT Softmax" "${rc}" ${OUT}/audit.json "${tests}" "${out}" "${err}")
