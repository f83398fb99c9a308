# attncheck audit -j: the JSON report with --no-timings is byte-identical between -j 1 and -j 2.
# Run by CTest (tests/audit/audit.cmake) as cmake -DCLI=... -DLIB=... -DCONTRACTS=... -DOUT=... -P.
# Several kinds, failing and passing checks, and N/A rows, so the plan order of rows that ran and
# rows that did not is compared too; each worker reaches the library through its own fork server.
set(kernels
  --kernel softmax:f32:ok_softmax_f32 --kernel softmax:f64:ok_softmax_f64
  --kernel log_softmax:f32:bug_log_softmax_masked_finite_f32 --kernel attention:f32:bug_attention_positional_f32
  --kernel scores:f32:bug_scores_inv_d_f32 --kernel entropy:f64:ok_entropy_f64)
file(MAKE_DIRECTORY ${OUT})
foreach(j 1 2)
  execute_process(
    COMMAND ${CLI} --contracts ${CONTRACTS} audit --lib ${LIB} ${kernels} --cases 25 --seed 0x7ab1e --no-timings -q -j ${j}
            --json ${OUT}/audit-j${j}.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "audit -j ${j}: exit status ${rc}, expected 1 (the buggy kernels fail)\n${out}\n${err}")
  endif()
  set(text_j${j} "${out}")
endforeach()
file(READ ${OUT}/audit-j1.json json1)
file(READ ${OUT}/audit-j2.json json2)
if(NOT json1 STREQUAL json2)
  execute_process(COMMAND diff ${OUT}/audit-j1.json ${OUT}/audit-j2.json OUTPUT_VARIABLE d)
  message(FATAL_ERROR "-j 1 and -j 2 JSON reports differ:\n${d}")
endif()
if(NOT text_j1 STREQUAL text_j2)
  message(FATAL_ERROR "-j 1 and -j 2 text reports differ:\n--- -j 1\n${text_j1}\n--- -j 2\n${text_j2}")
endif()
string(REGEX MATCHALL "\"verdict\": \"FAIL\"" fails "${json1}")
string(REGEX MATCHALL "\"verdict\": \"PASS\"" passes "${json1}")
string(REGEX MATCHALL "\"verdict\": \"N/A\"" nas "${json1}")
list(LENGTH fails nf)
list(LENGTH passes np)
list(LENGTH nas nn)
if(nf LESS 3 OR np LESS 10 OR nn LESS 1)
  message(FATAL_ERROR "the comparison is not meaningful: ${nf} FAIL, ${np} PASS, ${nn} N/A rows")
endif()
message(STATUS "-j 1 and -j 2: identical JSON and text (${nf} FAIL, ${np} PASS, ${nn} N/A rows)")
