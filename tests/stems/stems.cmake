# One stem per contract (included from the top-level CMakeLists.txt): every contracts/<stem>.yaml
# has its falsify/, falsify/mutants/, proofs/, proofs/coq/ and harnesses/ files, or declares one
# absent with the reason (absent: in the YAML; docs/contract-format.md). The second test shows the
# check fails on a planted missing file.
add_test(NAME stems.check COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/stems/check_stems.sh ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME stems.check-catches-missing
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/stems/check_stems_catches.sh ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(stems.check stems.check-catches-missing PROPERTIES LABELS stems)
