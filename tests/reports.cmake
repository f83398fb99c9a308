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
