# attncheck CLI smoke tests for plain `ctest` runs (included from the top-level CMakeLists.txt).
# The detailed end-to-end checks live in tests/cli_test.cpp (doctest, label "unit"); these two
# guard the commands CI scripts call first, with the bundled contracts named explicitly so an
# ATTNCHECK_CONTRACTS in the environment cannot change the result.
add_test(NAME cli.help COMMAND attncheck_cli --help)
add_test(NAME cli.lint COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts lint)
set_tests_properties(cli.help cli.lint PROPERTIES LABELS cli)
# The exhaustive search of FALSIFY-AEQ-007 reports what it measured (not only a verdict): the
# gate must print the smallest distance between position-encoding rows, and the pair, per format.
add_test(NAME cli.gate-prints-position-encoding-minimum
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts gate --test FALSIFY-AEQ-007 --cases 2)
set_tests_properties(cli.gate-prints-position-encoding-minimum PROPERTIES LABELS cli
                     PASS_REGULAR_EXPRESSION "FALSIFY-AEQ-007 \\[f32\\]: smallest distance between rows t < t' < 2\\^20 \\(exhaustive\\): d = 2: [0-9.e+-]+ at \\(t, t'\\) = \\([0-9]+, [0-9]+\\)[^\n]*\nFALSIFY-AEQ-007 \\[f64\\]: [^\n]*d = 8: [0-9.e+-]+ at[^\n]*\n.*2 passed, 0 failed")

# No doctest case name may contain ';': CTest's discovery splits it into tests that run nothing.
add_test(NAME meta.test-names-no-semicolon
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check-test-names.sh
                 ${CMAKE_CURRENT_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR}/falsify
                 ${CMAKE_CURRENT_SOURCE_DIR}/harnesses ${CMAKE_CURRENT_SOURCE_DIR}/examples)
# ... and the check can fail: a file with such a name is reported.
add_test(NAME meta.test-names-no-semicolon-catches
         COMMAND bash -c "d=$(mktemp -d) && printf 'TEST_CASE(\"a; b\") {}\\n' > $d/x_test.cpp && ! bash '${CMAKE_CURRENT_SOURCE_DIR}/tools/check-test-names.sh' $d; s=$?; rm -rf $d; exit $s")
set_tests_properties(meta.test-names-no-semicolon meta.test-names-no-semicolon-catches PROPERTIES LABELS unit)

# No function in src/cli/ longer than 150 lines (tools/function_lengths.py, a brace-matching scan):
# a command is parse → plan → run → report, each its own function.
find_program(ATTNCHECK_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ATTNCHECK_PYTHON3)
  find_program(ATTNCHECK_PYTHON3 NAMES python3)
endif()
if(ATTNCHECK_PYTHON3)
  add_test(NAME meta.cli-function-lengths
           COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/function_lengths.py --max 150
                   ${CMAKE_CURRENT_SOURCE_DIR}/src/cli)
  # ... and the check can fail: a planted 201-line function (written at configure time) is reported.
  set(_planted_dir ${CMAKE_CURRENT_BINARY_DIR}/function_lengths_planted)
  string(REPEAT "  total += 1;\n" 199 _planted_body)
  file(WRITE ${_planted_dir}/long.cpp
       "namespace planted {\nint short_one() { return 1; }\nint planted_long_function(int total) {\n${_planted_body}}\n}  // namespace planted\n")
  add_test(NAME meta.cli-function-lengths-catches
           COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/function_lengths.py --max 150 ${_planted_dir})
  set_tests_properties(meta.cli-function-lengths-catches PROPERTIES WILL_FAIL TRUE)
  # ... and it fails for the planted function, not for some other reason (a crash also exits 1).
  add_test(NAME meta.cli-function-lengths-names-it
           COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/function_lengths.py --max 150 ${_planted_dir})
  set_tests_properties(meta.cli-function-lengths-names-it PROPERTIES
                       PASS_REGULAR_EXPRESSION "long\\.cpp:3: planted_long_function is 201 lines long \\(limit 150\\)\n1 of 2 functions over 150 lines")
  set_tests_properties(meta.cli-function-lengths meta.cli-function-lengths-catches meta.cli-function-lengths-names-it
                       PROPERTIES LABELS "unit;cli")
endif()

# `coverage` and `show` without a proofs record (as after `tools/run.sh gate`): the first line says
# the proofs are not assessed and how the record is made, the exit status is 3 (not 1, a gap), and
# `show` says how to check the proof rather than that it is missing (issue 32).
add_test(NAME cli.coverage-not-assessed
         COMMAND bash -c "out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --proofs-record /nonexistent/record 2>&1); rc=$?; \
echo \"$out\" | head -2; echo \"$out\" | tail -4; [ $rc -eq 3 ] || { echo \"exit $rc, expected 3\"; exit 1; }; \
echo \"$out\" | head -1 | grep -q '^NOT ASSESSED: the proofs of [0-9]* obligations have not been checked: the record at ./nonexistent/record. does not exist (.ctest -L proofs. in a build writes one to BUILD/proofs)' && \
echo \"$out\" | grep -q '^0 of [0-9]* obligations covered (0 with a gap, [0-9]* not assessed' && \
out=$(ATTNCHECK_PROOFS_RECORD=/nonexistent/record '$<TARGET_FILE:attncheck_cli>' --contracts contracts show SM-INV-001 2>&1) && \
echo \"$out\" | grep -q 'latex proof: not checked in this build (run ctest -L proofs)' && \
echo \"$out\" | grep -q 'coverage: *not assessed: '"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(cli.coverage-not-assessed PROPERTIES LABELS cli)
