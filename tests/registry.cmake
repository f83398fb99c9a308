# One registry, each fact written once: every registered property, audit property, harness and
# lemma has a YAML entry and every entry is registered; harness bounds and formats are the YAML's
# (a format the harness cannot run at, or no bound, is a mismatch); each test's `catches:` equals
# the mutants whose caught_by names it. The second test plants three mismatches in a copy of the
# contracts (the audit's entries removed; f64 recorded for a harness with exp; a mutant left out
# of a catches: list) and expects each reported.
add_test(NAME coverage.registry-matches-yaml
         COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts coverage --registry)
add_test(NAME coverage.registry-catches-mismatch
         COMMAND bash -c "tmp=$(mktemp -d); trap 'rm -rf $tmp' EXIT; cp -r contracts \"$tmp\"/; rm \"$tmp\"/contracts/audit-v1.yaml; \
sed -i 's/reached: {f16: 1, bf16: 1, f32: 1}/reached: {f16: 1, bf16: 1, f32: 1, f64: 1}/' \"$tmp\"/contracts/softmax-lipschitz-v1.yaml; \
sed -i 's/    catches: \\[softmax_negated\\]/    catches: []/' \"$tmp\"/contracts/softmax-kernel-v1.yaml; \
out=$('$<TARGET_FILE:attncheck_cli>' --contracts \"$tmp\"/contracts coverage --registry 2>&1); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && echo \"$out\" | grep -q 'audit property AUDIT-SAFE-001 is registered but no contract has an entry' && \
echo \"$out\" | grep -q 'harness BMC-SLIP-001 records reached at f64, a format it cannot run at' && \
echo \"$out\" | grep -q 'mutant softmax_negated names FALSIFY-SM-003 in caught_by, but FALSIFY-SM-003.s catches: omits it'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
# A composed (all-d) harness whose lift: is removed, and a lift: on a harness that composes nothing.
add_test(NAME coverage.registry-catches-lift
         COMMAND bash -c "tmp=$(mktemp -d); trap 'rm -rf $tmp' EXIT; cp -r contracts \"$tmp\"/; \
sed -i '/^    lift: SoftmaxKernelLift.kani_sm_002_all_d$/d; s/^    harness: bmc_sm_001$/&\\n    lift: SoftmaxKernelLift.kani_sm_002_all_d/' \"$tmp\"/contracts/softmax-kernel-v1.yaml; \
out=$('$<TARGET_FILE:attncheck_cli>' --contracts \"$tmp\"/contracts coverage --registry 2>&1); rc=$?; echo \"$out\"; \
[ $rc -eq 1 ] && echo \"$out\" | grep -q 'harness KANI-SM-002 composes lemmas for all d but names no Coq theorem' && \
echo \"$out\" | grep -q 'harness KANI-SM-001 names lift: SoftmaxKernelLift.kani_sm_002_all_d but composes no lemmas'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(coverage.registry-matches-yaml coverage.registry-catches-mismatch coverage.registry-catches-lift
                     PROPERTIES LABELS registry)

# attncheck show ID prints file:line of every artefact: the YAML entry, the property, the harness,
# the proof's \label, the Coq theorem and the mutants to be caught; tests/show_where.sh checks that
# each line it names holds the artefact.
add_test(NAME show.where-every-artefact
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/show_where.sh $<TARGET_FILE:attncheck_cli> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(show.where-every-artefact PROPERTIES LABELS registry)
