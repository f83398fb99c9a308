# attncheck reports (included from the end of the top-level CMakeLists.txt).

# End-to-end tests of the report files (tests/reports/check_reports.py), under Debian's python3
# with python3-jsonschema (tools/install-deps.sh): schema validation of real reports,
# byte-identical JSON for the same seed, agreement of JSON/JUnit/SARIF/Markdown on a failing
# audit, and a SIGINT that leaves no report behind.
find_program(ATTNCHECK_REPORTS_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ATTNCHECK_REPORTS_PYTHON3)
  find_program(ATTNCHECK_REPORTS_PYTHON3 NAMES python3)
endif()
if(ATTNCHECK_REPORTS_PYTHON3 AND TARGET attncheck_audit_testkernels)
  foreach(mode schema determinism agree terminal sigint)
    add_test(NAME reports.${mode}
             COMMAND ${ATTNCHECK_REPORTS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/reports/check_reports.py ${mode}
                     --cli $<TARGET_FILE:attncheck_cli> --source ${CMAKE_CURRENT_SOURCE_DIR}
                     --testlib $<TARGET_FILE:attncheck_audit_testkernels>)
    set_tests_properties(reports.${mode} PROPERTIES LABELS "cli;reports" TIMEOUT 600)
  endforeach()
endif()

# What a failing audit says first (issue 48; tests/reports/check_failure_first.py): an attention
# kernel without the 1/sqrt(d) scale and a backward pass failing at shipped sizes print the first
# failure's cause, figures, counterexample and replay within 40 lines, and no draw log (text, ~15 s);
# the HTML report shows them on the first screen of a 1280 x 900 window in headless Chromium (html).
if(ATTNCHECK_REPORTS_PYTHON3 AND TARGET attncheck_audit_testkernels AND TARGET attncheck_audit_testkernels_bwd)
  foreach(mode text html)
    add_test(NAME reports.failure-first-${mode}
             COMMAND ${ATTNCHECK_REPORTS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/reports/check_failure_first.py ${mode}
                     --cli $<TARGET_FILE:attncheck_cli> --source ${CMAKE_CURRENT_SOURCE_DIR}
                     --testlib $<TARGET_FILE:attncheck_audit_testkernels>
                     --testlib-bwd $<TARGET_FILE:attncheck_audit_testkernels_bwd>)
    set_tests_properties(reports.failure-first-${mode} PROPERTIES LABELS "cli;reports" TIMEOUT 600)
  endforeach()
endif()
