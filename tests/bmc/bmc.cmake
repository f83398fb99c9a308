# bmc_tests and the CLI runs of the bounded model checker (included from the top-level CMakeLists.txt):
# the symbolic scalar in src/attncheck/bmc (Z3), the harnesses (harnesses/<stem>.cpp, object library
# attncheck_harnesses) and the engine's tests (tests/bmc/*_test.cpp).
file(GLOB ATTNCHECK_BMC_TESTS CONFIGURE_DEPENDS tests/bmc/*_test.cpp)
add_executable(bmc_tests tests/main.cpp ${ATTNCHECK_BMC_TESTS} $<TARGET_OBJECTS:attncheck_harnesses>)
target_include_directories(bmc_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(bmc_tests PRIVATE attncheck::bmc doctest::doctest)
# Its paths are read at run time: tests/test_paths.hpp.
# Every BMC test case is its own CTest test, labelled bmc; the exhaustive axiom validation over
# all 2^32 binary32 inputs is labelled bmc-long too (about a minute on 2 cores).
# Not RUN_SERIAL (which leaves the other core idle): the bmc tests hold one lock, bmc_solver, so
# none runs beside another, and in particular no solver query beside the all-core binary32 axiom
# validation (> 60 s there under load, measured); beside one test of another label their queries,
# seconds each against wall-clock limits of 60 s, keep a wide margin.
doctest_discover_tests(bmc_tests ADD_LABELS 1 PROPERTIES LABELS bmc RESOURCE_LOCK bmc_solver)

# The CLI run that CI relies on: every harness at the bound its contract records (`reached:`),
# each format, with the all-d lemmas; exit 0 only if everything is proved (and non-vacuous).
# Its non-triviality witnesses are the recorded ones (tests/bmc/witnesses/*.case) replayed on their
# mutants, without a solver query, while they still reproduce; a row whose record went stale is
# searched again and says so ("recorded witness stale ... searched again"; refresh the record with
# `attncheck bmc --witnesses tests/bmc/witnesses --record-witnesses`). The searches were about 40 %
# of this test's time (issue 45); the rows' verdicts come from the solver as before.
add_test(NAME bmc.contract-bounds
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts bmc --timeout 120
                 --witnesses ${CMAKE_CURRENT_SOURCE_DIR}/tests/bmc/witnesses --json ${ATTNCHECK_BMC_RECORD})
# `attncheck coverage` shows each harness's verdicts from this report by default (the record of a
# real run, like the proofs record: ATTNCHECK_BMC_RECORD, src/cli/cli.cmake).
set_tests_properties(bmc.contract-bounds PROPERTIES FIXTURES_SETUP bmc_record)
if(TEST proofs.coverage)
  # Coverage with this build's proofs record and bmc report: every obligation covered, and every
  # harness of the engine shows its verdicts from the run (none "not run").
  add_test(NAME bmc.coverage-verdicts
           COMMAND bash -c "out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage 2>&1); rc=$?; echo \"$out\" | grep -E 'GAPPA|bmc report|covered'; \
[ $rc -eq 0 ] && echo \"$out\" | grep -q 'GAPPA-SM-001 (proved [0-9]*/[0-9]*; non-trivial at' && ! echo \"$out\" | grep -q '(not run)'"
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(bmc.coverage-verdicts PROPERTIES LABELS proofs FIXTURES_REQUIRED "proofs_record;bmc_record")
endif()
# Non-triviality (src/cli/bmc_witness.hpp): at d = 1 KANI-SM-001's mutant is refuted only through
# a NaN (exp(x)/exp(x) = 1 for every finite x that does not overflow) and BMC-ASCL-004's only
# through 0/0, and row_max_is_min returns the max of a single element: all three rows are "trivial
# at d = 1". At d = 2 row_max_is_min fails KANI-ASCL-002's assertion with finite values. About 5 s.
add_test(NAME bmc.witness-trivial-at-bound
         COMMAND bash -c "j='${CMAKE_CURRENT_BINARY_DIR}/bmc-witness.json'; \
'$<TARGET_FILE:attncheck_cli>' --contracts contracts bmc --harness KANI-SM-001 --harness BMC-ASCL-004 \
--harness KANI-ASCL-002 --format f16 --bound 1 --no-lemmas --json \"$j\" || exit 1; \
[ \"$(grep -c '\"nontrivial\": false, \"witness\": \"trivial at d = 1' \"$j\")\" = 3 ] || exit 1; \
'$<TARGET_FILE:attncheck_cli>' --contracts contracts bmc --harness KANI-ASCL-002 --format f16 --bound 2 --no-lemmas \
--json \"$j\" && grep -q '\"nontrivial\": true, \"witness\": \"non-trivial at d=2: mutant row_max_is_min' \"$j\""
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(bmc.witness-trivial-at-bound PROPERTIES LABELS bmc)
# Recorded witnesses (--witnesses): KANI-ASCL-002's at f16 d=4 replays without a solver query; a
# record whose bits no longer fail the mutant (tests/fixtures/bmc/stale-witness: the same row with
# an input that row_max_is_min passes) is reported stale and the row is searched again, with the
# same answer; a malformed record is a usage error.
add_test(NAME bmc.witness-replayed
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts bmc --harness KANI-ASCL-002
                 --format f16 --bound 4 --no-lemmas --witnesses ${CMAKE_CURRENT_SOURCE_DIR}/tests/bmc/witnesses)
set_tests_properties(bmc.witness-replayed PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "non-trivial at d=4: mutant row_max_is_min[^\n]*recorded witness KANI-ASCL-002-f16-d4-row_max_is_min-[0-9a-f]+[.]case replayed, no solver query")
add_test(NAME bmc.witness-stale-searched-again
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts bmc --harness KANI-ASCL-002
                 --format f16 --bound 4 --no-lemmas --witnesses ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/bmc/stale-witness)
set_tests_properties(bmc.witness-stale-searched-again PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "non-trivial at d=4: mutant row_max_is_min[^\n]*recorded witness stale [(]stale.case: mutant row_max_is_min passes it now[)]: searched again")
add_test(NAME bmc.witness-malformed
         COMMAND attncheck_cli bmc --harness KANI-ASCL-002 --format f16 --bound 2 --no-lemmas
                 --witnesses ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/bmc/bad-witness)
set_tests_properties(bmc.witness-malformed PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "error: --witnesses: [^\n]*garbage[.]case: line 3")
# A broken kernel gives a counterexample, replayed on the concrete kernel, and exit status 1.
add_test(NAME bmc.mutant-counterexample
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 1 --no-lemmas
                 --mutant softmax_no_max_subtraction)
set_tests_properties(bmc.mutant-counterexample PROPERTIES WILL_FAIL TRUE)
add_test(NAME bmc.mutant-counterexample-text
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 1 --no-lemmas
                 --mutant softmax_no_max_subtraction)
set_tests_properties(bmc.mutant-counterexample-text PROPERTIES
                     PASS_REGULAR_EXPRESSION "counterexample.*Fails \\(kernel\\): +y_i in \\[0, 1\\].*Replay: attncheck bmc")
# 0x7bff = 65504: exp overflows without the max subtraction, inf/inf = NaN.
add_test(NAME bmc.replay-fails-on-mutant
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 1 --replay 7bff
                 --mutant softmax_no_max_subtraction)
set_tests_properties(bmc.replay-fails-on-mutant PROPERTIES PASS_REGULAR_EXPRESSION "FAILS: y_i in \\[0, 1\\]")
add_test(NAME bmc.replay-passes-on-reference
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 1 --replay 7bff)
add_test(NAME bmc.exhaustive-f16-d1
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --harness KANI-ASCL-002 --format f16 --bound 1 --exhaustive)
add_test(NAME bmc.unknown-harness COMMAND attncheck_cli bmc --harness KANI-SM-999)
set_tests_properties(bmc.unknown-harness PROPERTIES PASS_REGULAR_EXPRESSION "unknown harness 'KANI-SM-999'")
add_test(NAME bmc.unknown-solver COMMAND attncheck_cli bmc --solver yices)
set_tests_properties(bmc.unknown-solver PROPERTIES PASS_REGULAR_EXPRESSION "unknown --solver 'yices'")
# cvc5 (the CLI on Z3's SMT-LIB2 export) and the portfolio, end to end: the row names the solver.
add_test(NAME bmc.cvc5-proves
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 2 --no-lemmas --solver cvc5)
set_tests_properties(bmc.cvc5-proves PROPERTIES PASS_REGULAR_EXPRESSION "proved for all inputs, d=2 +[0-9.]+s +cvc5 ")
add_test(NAME bmc.portfolio-proves
         COMMAND attncheck_cli bmc --harness KANI-ASCL-002 --format bf16 --bound 2 --solver portfolio)
set_tests_properties(bmc.portfolio-proves PROPERTIES PASS_REGULAR_EXPRESSION "portfolio: [a-z0-9 .]+ first")
# A counterexample saved as a regression case, then the saved corpus replayed without a solver:
# the reference kernel passes it, the mutant fails it (exit 0 = every case behaves so).
add_test(NAME bmc.save-regression
         COMMAND attncheck_cli bmc --harness KANI-SM-002 --format f16 --bound 1 --no-lemmas
                 --mutant softmax_no_max_subtraction --save-regression ${CMAKE_CURRENT_BINARY_DIR}/bmc-regressions)
set_tests_properties(bmc.save-regression PROPERTIES WILL_FAIL TRUE FIXTURES_SETUP bmc_regressions)
add_test(NAME bmc.replay-regressions
         COMMAND attncheck_cli bmc --replay-regressions ${CMAKE_CURRENT_BINARY_DIR}/bmc-regressions)
set_tests_properties(bmc.replay-regressions PROPERTIES FIXTURES_REQUIRED bmc_regressions
                     PASS_REGULAR_EXPRESSION "reference passes, mutant softmax_no_max_subtraction fails.*[1-9][0-9]* of [1-9][0-9]* regression cases pass")
add_test(NAME bmc.replay-regressions-corpus
         COMMAND attncheck_cli bmc --replay-regressions ${CMAKE_CURRENT_SOURCE_DIR}/tests/bmc/regressions)
add_test(NAME bmc.replay-regressions-missing COMMAND attncheck_cli bmc --replay-regressions ${CMAKE_CURRENT_BINARY_DIR}/no-such-dir)
set_tests_properties(bmc.replay-regressions-missing PROPERTIES PASS_REGULAR_EXPRESSION "not a directory")
set_tests_properties(bmc.contract-bounds bmc.mutant-counterexample bmc.mutant-counterexample-text
                     bmc.replay-fails-on-mutant bmc.replay-passes-on-reference bmc.exhaustive-f16-d1
                     bmc.unknown-harness bmc.unknown-solver bmc.cvc5-proves bmc.portfolio-proves
                     bmc.save-regression bmc.replay-regressions bmc.replay-regressions-corpus
                     bmc.replay-regressions-missing PROPERTIES LABELS bmc)
# The 8-bit OCP formats, enumerated on the concrete kernel at d = 2 in CI (d = 3 is 16.7M rows per
# harness, about a minute each: `attncheck bmc --format e4m3 --format e5m2` without --bound).
# E5M2: the softmax, max-subtraction, entropy and swap harnesses pass on every row, and the all-d
# compositions on every lemma input. E4M3: the swap and entropy >= 0 hold on every row (no all-d
# claim: the step lemmas assume IEEE overflow to infinity, and E4M3 overflows to NaN); max
# subtraction does not hold (x - max is NaN beyond 464), which the third test pins down.
add_test(NAME bmc.exhaustive-e5m2-d2
         COMMAND attncheck_cli bmc --format e5m2 --bound 2 --harness KANI-SM-001 --harness KANI-SM-002
                 --harness KANI-ASCL-002 --harness BMC-ASCL-003 --harness KANI-AEQ-001)
set_tests_properties(bmc.exhaustive-e5m2-d2 PROPERTIES PASS_REGULAR_EXPRESSION "exhaustive: passed on every input \\(61504\\)"
                     FAIL_REGULAR_EXPRESSION "exhaustive-fail|unknown|[1-9][0-9]* not proved")
# An all-d row says what its claim covers when it is less than the harness checks: BMC-ASCL-003's
# lemmas give H >= 0 for every d, not the finiteness its bounded rows check. E5M2, d = 1: the
# lemmas are enumerated over every value (about 1 s).
add_test(NAME bmc.all-d-row-says-what-it-covers
         COMMAND attncheck_cli bmc --format e5m2 --bound 1 --harness BMC-ASCL-003)
set_tests_properties(bmc.all-d-row-says-what-it-covers PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "    all d covers: H >= 0 \\(not NaN\\) only; not 'H finite'"
                     FAIL_REGULAR_EXPRESSION "exhaustive-fail|unknown|unsupported|[1-9][0-9]* not proved")
add_test(NAME bmc.exhaustive-e4m3-d2
         COMMAND attncheck_cli bmc --format e4m3 --bound 2 --no-lemmas --harness KANI-AEQ-001 --harness BMC-ASCL-003)
add_test(NAME bmc.exhaustive-e4m3-overflow
         COMMAND attncheck_cli bmc --format e4m3 --bound 2 --no-lemmas --harness KANI-ASCL-002)
set_tests_properties(bmc.exhaustive-e4m3-overflow PROPERTIES
                     PASS_REGULAR_EXPRESSION "exhaustive-fail.*x_i - max <= 0 \\(not NaN\\)")
# E4M3 with OCP's saturating conversion (e4m3sat): x - max clamps to -448 instead of NaN, so the
# harnesses that fail in E4M3 pass on every row. No all-d claim (--no-lemmas): the Coq lifts of the
# compositions are over IEEE-754 binary formats, and E4M3's values are not one (bmc prints the
# all-d row as unsupported; bmc.no-all-d-e4m3sat).
add_test(NAME bmc.exhaustive-e4m3sat-d2
         COMMAND attncheck_cli bmc --format e4m3sat --bound 2 --no-lemmas --harness KANI-SM-001 --harness KANI-SM-002
                 --harness KANI-ASCL-002 --harness BMC-ASCL-003 --harness KANI-AEQ-001)
set_tests_properties(bmc.exhaustive-e4m3sat-d2 PROPERTIES PASS_REGULAR_EXPRESSION "exhaustive: passed on every input \\(64516\\)"
                     FAIL_REGULAR_EXPRESSION "exhaustive-fail|unknown|[1-9][0-9]* not proved")
# A row enumerated on the concrete kernel has its witness too (bmc_witness.hpp): the entropy upper
# bound, trivial at d = 1 in f16/bf16/f32, is non-trivial on every E4M3SAT row at d = 2
# (entropy_normalised fails ln 2 + allowance at x = (0, 0), H = ln 2 finite). About 0.2 s.
add_test(NAME bmc.exhaustive-witness-e4m3sat-d2
         COMMAND attncheck_cli bmc --format e4m3sat --bound 2 --no-lemmas --harness BMC-ASCL-004)
set_tests_properties(bmc.exhaustive-witness-e4m3sat-d2 PROPERTIES
                     PASS_REGULAR_EXPRESSION "passed on every input \\(64516\\).*non-trivial at d=2: mutant entropy_normalised fails 'H\\(softmax\\(x\\)\\) <= ln d")
set_tests_properties(bmc.exhaustive-e5m2-d2 bmc.exhaustive-e4m3-d2 bmc.exhaustive-e4m3-overflow bmc.exhaustive-e4m3sat-d2
                     bmc.exhaustive-witness-e4m3sat-d2 PROPERTIES LABELS bmc)
add_test(NAME bmc.no-all-d-e4m3sat
         COMMAND attncheck_cli bmc --format e4m3sat --bound 1 --harness KANI-ASCL-002)
set_tests_properties(bmc.no-all-d-e4m3sat PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "all d +unsupported.*lemmas hold, but AttentionScalingLift.kani_ascl_002_all_d lifts them over IEEE-754")
# "all d" needs the machine-checked lift: with contracts that name no lift: the lemmas still hold,
# but the all-d row is unknown (about 1 s: KANI-ASCL-002 at f16, d = 1, and two lemmas).
add_test(NAME bmc.all-d-needs-lift
         COMMAND bash -c "tmp=$(mktemp -d); cp contracts/*.yaml \"$tmp\"/; sed -i '/^    lift: /d' \"$tmp\"/*.yaml; \
out=$('$<TARGET_FILE:attncheck_cli>' --contracts \"$tmp\" bmc --harness KANI-ASCL-002 --format f16 --bound 1); rc=$?; \
rm -rf \"$tmp\"; echo \"$out\"; [ $rc -eq 1 ] && echo \"$out\" | grep -q 'all d  *unknown' && \
echo \"$out\" | grep -q 'no Coq theorem lifts them to every d'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(bmc.all-d-needs-lift PROPERTIES LABELS bmc)
# The JSON report names the solver asked for and, per result (the all-d row too), the one that answered.
foreach(solver cvc5 portfolio)
  add_test(NAME bmc.json-solver-${solver}
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attncheck_cli> -DSOLVER=${solver}
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bmc-json-${solver}.json
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/bmc/json_solver.cmake)
  set_tests_properties(bmc.json-solver-${solver} PROPERTIES LABELS bmc)
endforeach()
# cvc5 on lemmas whose inputs no assumption mentions (LEM-AEQ-004: every a, b): they must still be
# declared in the SMT-LIB2 script cvc5 reads. KANI-AEQ-001 at bf16 is all-d only (its contract).
add_test(NAME bmc.cvc5-lemmas-all-d
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts bmc --harness KANI-AEQ-001
                 --format bf16 --solver cvc5)
set_tests_properties(bmc.cvc5-lemmas-all-d PROPERTIES LABELS bmc
                     PASS_REGULAR_EXPRESSION "proved for all d by composition +[0-9.]+s +cvc5 ")
# The solver's limits are wall-clock. This run was RUN_SERIAL, which left one core idle for its
# 420 s (CI, 2026-11-28); it now starts first (COST) beside tests of other labels, never beside the
# all-core binary32 axiom validation (the lock bmc_solver, above), with a limit of 120 s per query:
# its slowest query takes 14 s alone (KANI-SM-004 f16 d=2, the report's `seconds`), so sharing
# the machine with one other test leaves a margin of four.
set_tests_properties(bmc.contract-bounds PROPERTIES TIMEOUT 1200 COST 100000)
# Gappa harnesses (GAPPA-*, src/attncheck/bmc/gappa*.cpp; Debian's gappa): the CLI proves the
# derived score bound at a row length far beyond bit-blasting, and a mutant makes it fail (exit 1).
add_test(NAME bmc.gappa-proves
         COMMAND attncheck_cli bmc --harness GAPPA-ASCL-001 --format f16 --format f32 --bound 16)
set_tests_properties(bmc.gappa-proves PROPERTIES
                     PASS_REGULAR_EXPRESSION "GAPPA-ASCL-001 f16 +d=16 +proved for all inputs, d=16 +[0-9.]+s +gappa 1\\.4")
add_test(NAME bmc.gappa-mutant
         COMMAND attncheck_cli bmc --harness GAPPA-ASCL-001 --format f16 --bound 8 --mutant gappa_accumulator_narrowed)
set_tests_properties(bmc.gappa-mutant PROPERTIES WILL_FAIL TRUE)
add_test(NAME bmc.gappa-mutant-text
         COMMAND attncheck_cli bmc --harness GAPPA-ASCL-001 --format f16 --bound 8 --mutant gappa_score_bound_quarter)
set_tests_properties(bmc.gappa-mutant-text PROPERTIES
                     PASS_REGULAR_EXPRESSION "unknown.*not proved: \\|error\\| <= [0-9.e-]+ claimed; gappa could not prove: BND")
add_test(NAME bmc.gappa-solver-refuses-smt COMMAND attncheck_cli bmc --solver gappa --harness KANI-SM-002)
set_tests_properties(bmc.gappa-solver-refuses-smt PROPERTIES PASS_REGULAR_EXPRESSION "runs only the Gappa harnesses")
set_tests_properties(bmc.gappa-proves bmc.gappa-mutant bmc.gappa-mutant-text bmc.gappa-solver-refuses-smt
                     PROPERTIES LABELS bmc)
# A bound below a harness's smallest row (KANI-AEQ-001 swaps x_0 and x_1) is refused with the
# reason, not run (it read past the row and crashed).
add_test(NAME bmc.below-min-bound COMMAND attncheck_cli bmc --harness KANI-AEQ-001 --format f16 --bound 1 --no-lemmas)
set_tests_properties(bmc.below-min-bound PROPERTIES LABELS bmc PASS_REGULAR_EXPRESSION "unsupported.*KANI-AEQ-001 needs d >= 2")

# The exp/log axioms a run rests on are validated on the running libm where that is cheap (f16,
# bf16: every input, in every run), and a run that relies on the test suite's f32 validation says
# so (issue 29). Both lines in one run of KANI-SM-001 at d = 1 (about 1 s).
add_test(NAME bmc.run-says-where-axioms-were-validated
         COMMAND attncheck_cli bmc --harness KANI-SM-001 --format f16 --format f32 --bound 1 --no-lemmas --no-witness)
set_tests_properties(bmc.run-says-where-axioms-were-validated PROPERTIES LABELS bmc RESOURCE_LOCK bmc_solver
                     PASS_REGULAR_EXPRESSION "exp/log axioms validated on this libm in this run: f16 \\(every input\\); f32: validated by the test suite \\(BMC-AXIOMS-F32"
                     FAIL_REGULAR_EXPRESSION "unknown|[1-9][0-9]* not proved")
