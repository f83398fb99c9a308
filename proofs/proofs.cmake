# attncheck proofs (included from the top-level CMakeLists.txt): every proofs/*.tex built with two
# pdflatex passes, the Coq project proofs/coq built with coq_makefile, and the check that no Coq
# file admits anything. Tests carry the label "proofs" (`ctest -L proofs`). The tools come from
# tools/install-deps.sh; if one is missing, its tests fail with that message (never skipped).
set(ATTNCHECK_PROOFS_DIR ${CMAKE_CURRENT_SOURCE_DIR}/proofs)

# A table a proof argues from, measured at build time by a tool from the kernels, never typed in:
# tools/<tool>.cpp writes proofs/generated/<table>.tex.
function(attncheck_generated_table tool table comment)
  add_executable(${tool} tools/${tool}.cpp)
  target_include_directories(${tool} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${tool} PRIVATE attncheck::core)
  add_custom_command(
    OUTPUT ${ATTNCHECK_PROOFS_OUT}/generated/${table}.tex
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ATTNCHECK_PROOFS_OUT}/generated
    COMMAND ${tool} ${ATTNCHECK_PROOFS_OUT}/generated/${table}.tex
    DEPENDS ${tool}
    COMMENT "${comment}")
endfunction()
# The measured tightness tables of softmax_filtering_bound.tex.
attncheck_generated_table(softmax_bound_table softmax_bound_tightness
                          "Measuring the softmax-filtering bound's tightness (proofs/softmax_filtering_bound.tex)")
# The smallest distances between position-encoding rows that attention_equivariance.tex argues from:
# the exhaustive search of falsify/position_rows.hpp on kernels::position_encoding (f32, f64; ~6 s).
attncheck_generated_table(position_rows_table position_rows_minima
                          "Searching the closest position-encoding rows (proofs/attention_equivariance.tex)")
add_custom_target(proofs_generated ALL DEPENDS ${ATTNCHECK_PROOFS_OUT}/generated/softmax_bound_tightness.tex
                                               ${ATTNCHECK_PROOFS_OUT}/generated/position_rows_minima.tex)
# The LaTeX tests need the tables even in a build that made only some targets (--target ...):
# this fixture builds it first (a no-op after a full build).
add_test(NAME proofs.generated-tables
         COMMAND ${CMAKE_COMMAND} --build ${CMAKE_CURRENT_BINARY_DIR} --target proofs_generated)
set_tests_properties(proofs.generated-tables PROPERTIES LABELS proofs FIXTURES_SETUP proofs_tables)

file(GLOB ATTNCHECK_TEX CONFIGURE_DEPENDS ${ATTNCHECK_PROOFS_DIR}/*.tex)
foreach(tex ${ATTNCHECK_TEX})
  get_filename_component(stem ${tex} NAME_WE)
  add_test(NAME proofs.latex.${stem}
           COMMAND ${CMAKE_COMMAND} -E env TEXINPUTS_EXTRA=${ATTNCHECK_PROOFS_OUT}/generated
                   bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/build-latex.sh ${tex} ${ATTNCHECK_PROOFS_OUT}/pdf)
  set_tests_properties(proofs.latex.${stem} PROPERTIES LABELS proofs FIXTURES_REQUIRED proofs_tables)
endforeach()

add_test(NAME proofs.coq.build
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/build-coq.sh ${ATTNCHECK_PROOFS_DIR}/coq ${ATTNCHECK_PROOFS_OUT}/coq)
add_test(NAME proofs.coq.no-admitted
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check-coq-axioms.sh ${ATTNCHECK_PROOFS_DIR}/coq)
# The check must be able to fail: on the planted fixture it must exit 1 and name each plant.
add_test(NAME proofs.coq.no-admitted-catches-planted
         COMMAND bash -c "out=$(bash tools/check-coq-axioms.sh tests/fixtures/coq/planted_admitted.v); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && [ $(echo \"$out\" | grep -cE ':(13|15|16): ') -eq 4 ] && bash tools/check-coq-axioms.sh tests/fixtures/coq/clean.v"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coq.build proofs.coq.no-admitted proofs.coq.no-admitted-catches-planted
                     PROPERTIES LABELS proofs)

# The LaTeX check must be able to fail: a fixture with an undefined reference and citation.
add_test(NAME proofs.latex.catches-undefined
         COMMAND bash -c "out=$(bash tools/build-latex.sh tests/fixtures/latex/undefined_ref.tex '${ATTNCHECK_PROOFS_OUT}/fixture' 2>&1); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && echo \"$out\" | grep -q 'lem:missing' && echo \"$out\" | grep -q 'missing2017'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.latex.catches-undefined PROPERTIES LABELS proofs)

# The axiom check of tools/build-coq.sh must be able to fail: a theorem resting on a planted axiom.
add_test(NAME proofs.coq.assumptions-catches-planted
         COMMAND bash -c "out=$(coqc -q tests/fixtures/coq/planted_axiom_use.v -o '${ATTNCHECK_PROOFS_OUT}/planted_axiom_use.vo' | bash tools/check-coq-assumptions.sh 2>&1); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && echo \"$out\" | grep -q planted_false"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coq.assumptions-catches-planted PROPERTIES LABELS proofs)

# All.v is generated from the contracts' coq: fields (never edited by hand): the committed file must
# be exactly what `attncheck coverage --coq-bundle` prints. To update it:
#   attncheck --contracts contracts coverage --coq-bundle > proofs/coq/All.v
add_test(NAME proofs.coq.all-v-generated
         COMMAND bash -c "diff -u proofs/coq/All.v <('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --coq-bundle) \
|| { echo 'proofs/coq/All.v differs from the contracts: regenerate it with attncheck coverage --coq-bundle'; exit 1; }"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coq.all-v-generated PROPERTIES LABELS proofs)

# Every `proof:` resolves to a \label and every `coq:` theorem is bundled in All.v; and the check
# reports each kind of broken link on its fixture.
add_test(NAME proofs.links
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check-proof-links.sh ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME proofs.links-catches-broken
         COMMAND bash -c "out=$(bash tools/check-proof-links.sh tests/fixtures/proof-links); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && [ $(echo \"$out\" | grep -cE 'not_bundled|no .label.MINI-INV-002|absent.tex does not exist') -eq 4 ]"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
# A harness's `lift:` (the Coq theorem of its all-d composition) that the Coq file no longer
# declares (renamed) or that neither declares nor bundles (missing) fails the check.
add_test(NAME proofs.links-catches-missing-lift
         COMMAND bash -c "out=$(bash tools/check-proof-links.sh tests/fixtures/proof-links); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && [ $(echo \"$out\" | grep -cE 'lift Mini.lift_(renamed is not declared|missing is not (bundled|declared))') -eq 3 ] \
&& ! echo \"$out\" | grep -q lift_ok"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.links proofs.links-catches-broken proofs.links-catches-missing-lift PROPERTIES LABELS proofs)

# The Coq lifts against what they transcribe (issue 29): each lift theorem assumes exactly the
# lemmas the harness registry lists for its harness, and every {transcribes FILE SYMBOL #FP} anchor
# matches the C++ it was written from (tools/check-coq-lifts.py says how to update one); the
# check catches each planted inconsistency (tests/proofs/coq_lifts_catch_stale.sh). About 1 s.
add_test(NAME proofs.coq.lifts-match-registry
         COMMAND bash -c "python3 tools/check-coq-lifts.py . <('$<TARGET_FILE:attncheck_cli>' --contracts contracts bmc --list)"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME proofs.coq.lifts-catch-stale
         COMMAND bash tests/proofs/coq_lifts_catch_stale.sh . $<TARGET_FILE:attncheck_cli>
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coq.lifts-match-registry proofs.coq.lifts-catch-stale PROPERTIES LABELS proofs)

# `attncheck coverage` reads what the tests above recorded (build-latex.sh and build-coq.sh copy
# the sources they built to pdf/checked and coq/checked): this build's proofs/ (ATTNCHECK_PROOFS_OUT)
# is its default (src/cli/cli.cmake).
set_tests_properties(proofs.coq.build PROPERTIES FIXTURES_SETUP proofs_record)
foreach(tex ${ATTNCHECK_TEX})
  get_filename_component(stem ${tex} NAME_WE)
  set_tests_properties(proofs.latex.${stem} PROPERTIES FIXTURES_SETUP proofs_record)
endforeach()
add_test(NAME proofs.coverage
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts coverage)
# Coverage must be able to fail: with an empty record no proof is checked, which is "not
# assessed" (exit 3, said on the first line), and an edit since the recorded build makes that
# proof stale, a gap (exit 1).
add_test(NAME proofs.coverage-catches-unchecked
         COMMAND bash -c "rec='${ATTNCHECK_PROOFS_OUT}/coverage-fixture'; rm -rf \"$rec\"; mkdir -p \"$rec\"; \
out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --proofs-record \"$rec\" 2>&1); rc=$?; echo \"$out\" | tail -3; \
[ $rc -eq 3 ] && echo \"$out\" | head -1 | grep -q '^NOT ASSESSED: the proofs of [0-9]* obligations have not been checked: the record at .* lacks them' && \
echo \"$out\" | grep -q '^0 of [0-9]* obligations covered (0 with a gap, [0-9]* not assessed' || exit 1; \
cp -r '${ATTNCHECK_PROOFS_OUT}/pdf' '${ATTNCHECK_PROOFS_OUT}/coq' \"$rec\"/ && echo '% edited' >> \"$rec\"/pdf/checked/qk_norm.tex; \
out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --proofs-record \"$rec\" 2>&1); rc=$?; echo \"$out\" | grep QKN-INV-001; \
[ $rc -eq 1 ] && echo \"$out\" | grep -q 'QKN-INV-001: missing LaTeX proof (stale'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
# The floating-point bound theorems rest on what Coq cannot see (the libm's exp and log) as Section
# hypotheses, never axioms: coverage lists them beside each theorem (issue 47).
add_test(NAME proofs.coverage-lists-hypotheses
         COMMAND bash -c "out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage 2>&1); echo \"$out\" | grep '^hypotheses:'; \
echo \"$out\" | grep -q '^hypotheses: SM-BND-001: SoftmaxRounding.softmax_fl_element_bound: .*exp_fl_accurate' && \
echo \"$out\" | grep -q '^hypotheses: SM-BND-003: SoftmaxRounding.log_softmax_fl_bound: .*log_fl_accurate' && \
echo \"$out\" | grep -q '^proofs: .*float-proved (Coq)'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coverage proofs.coverage-catches-unchecked proofs.coverage-lists-hypotheses PROPERTIES
                     LABELS proofs FIXTURES_REQUIRED proofs_record)
# A bmc report in which a harness is not proved makes that harness a gap; an unreadable one is
# refused (exit 2). (With this build's own bmc run: bmc.coverage-verdicts, tests/bmc/bmc.cmake.)
add_test(NAME proofs.coverage-catches-unproved-harness
         COMMAND bash -c "out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --bmc-report tests/fixtures/bmc/one-unproved.json 2>&1); rc=$?; \
echo \"$out\" | grep -E 'KANI-SM-001|bmc report'; [ $rc -eq 1 ] && \
echo \"$out\" | grep -q 'SM-INV-001: missing harness KANI-SM-001 proved (the bmc report tests/fixtures/bmc/one-unproved.json says: f16 d=2 counterexample)' && \
echo \"$out\" | grep -q 'KANI-SM-002 (proved 2/2; non-triviality not assessed (no witness in the report); all d: lemmas LEM-ASCL-001, .* + Coq lift SoftmaxKernelLift.kani_sm_002_all_d checked)' || exit 1; \
'$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --bmc-report contracts/softmax-kernel-v1.yaml; [ $? -eq 2 ]"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coverage-catches-unproved-harness PROPERTIES LABELS proofs)
# A harness proved only where it is trivial (the report's witness says so) is shown and not counted;
# one with a witness is counted. Planted report: tests/fixtures/bmc/one-trivial.json. About 1 s.
add_test(NAME proofs.coverage-catches-trivial-harness
         COMMAND bash -c "out=$('$<TARGET_FILE:attncheck_cli>' --contracts contracts coverage --bmc-report tests/fixtures/bmc/one-trivial.json 2>&1); \
echo \"$out\" | grep -E 'KANI-SM-00|KANI-ASCL-002|^harnesses:'; \
echo \"$out\" | grep -q 'KANI-SM-002 (proved 1/1; TRIVIAL at f16 d=2 (not counted); all d: .*Coq lift .*).* trivial only (not counted)' && \
echo \"$out\" | grep -q 'KANI-ASCL-002 (proved 1/1; non-trivial at f16 d=4; all d: .*).* non-trivial ' && \
echo \"$out\" | grep -q '^harnesses: .*1 harness non-trivial.*1 harness trivial only (not counted)'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
# An exact-arithmetic theorem linked as a floating-point proof is a gap: SM-BND-002's softmax_pos
# (0 < y_i, false after rounding) planted as float: in a copy of the contracts. The bundled float:
# links all name a rounded operation. About 2 s.
add_test(NAME proofs.coverage-catches-exact-claimed-float
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/proofs/coverage_planted_link.sh $<TARGET_FILE:attncheck_cli>
                 softmax-kernel-v1.yaml "s/coq: {exact: \\[SoftmaxKernel.softmax_pos, SoftmaxKernel.softmax_le_1\\], float: \\[/coq: {exact: [SoftmaxKernel.softmax_le_1], float: [SoftmaxKernel.softmax_pos, /"
                 "float: \\[SoftmaxKernel.softmax_pos"
                 "^SM-BND-002: missing Coq SoftmaxKernel.softmax_pos as a floating-point proof \\(linked float:, but its statement rounds nothing"
                 "as a floating-point proof"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
# The converse: a theorem about the rounded computation linked exact: is a gap. ASCL-INV-002's
# ScoresRounding.dot_fl_error (a bound on dot_fl, the rounded loop) planted as exact: in a copy of
# the contracts; the bundled exact: links name no rounded operation. About 2 s.
add_test(NAME proofs.coverage-catches-float-claimed-exact
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/proofs/coverage_planted_link.sh $<TARGET_FILE:attncheck_cli>
                 attention-scaling-v1.yaml
                 "s/coq: {float: \\[ScoresRounding.dot_fl_error, ScoresRounding.scaled_score_error\\], exact: \\[/coq: {float: [ScoresRounding.scaled_score_error], exact: [ScoresRounding.dot_fl_error, /"
                 "exact: \\[ScoresRounding.dot_fl_error"
                 "^ASCL-INV-002: missing Coq ScoresRounding.dot_fl_error as an exact-arithmetic proof \\(linked exact:, but its statement rounds"
                 "as an exact-arithmetic proof"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(proofs.coverage-catches-trivial-harness proofs.coverage-catches-exact-claimed-float
                     proofs.coverage-catches-float-claimed-exact PROPERTIES LABELS proofs)
