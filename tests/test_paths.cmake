# attncheck_test_paths.txt: the paths the test programs read at run time (tests/test_paths.hpp says
# why they are not compile definitions: ccache across clones), one "KEY=value" line each, written
# beside the test programs of this build tree (each build tree, the sanitized one too, its own).
# Included from the top-level CMakeLists.txt after every target it names is defined.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/attncheck-test-paths.txt CONTENT
"ATTNCHECK_SOURCE_DIR=${PROJECT_SOURCE_DIR}
ATTNCHECK_TEST_FIXTURES=${PROJECT_SOURCE_DIR}/tests/fixtures
ATTNCHECK_EXAMPLES_DIR=${PROJECT_SOURCE_DIR}/examples
ATTNCHECK_CLI_PATH=$<TARGET_FILE:attncheck_cli>
ATTNCHECK_AUDIT_TESTLIB=$<TARGET_FILE:attncheck_audit_testkernels>
ATTNCHECK_AUDIT_TESTLIB_V2=$<TARGET_FILE:attncheck_audit_testkernels_v2>
ATTNCHECK_AUDIT_TESTLIB_BWD=$<TARGET_FILE:attncheck_audit_testkernels_bwd>
ATTNCHECK_AUDIT_TESTLIB_MERGE=$<TARGET_FILE:attncheck_audit_testkernels_merge>
ATTNCHECK_AUDIT_TESTLIB_VARLEN=$<TARGET_FILE:attncheck_audit_testkernels_varlen>
ATTNCHECK_AUDIT_TESTLIB_PAGED=$<TARGET_FILE:attncheck_audit_testkernels_paged>
ATTNCHECK_AUDIT_TESTLIB_FP8KV=$<TARGET_FILE:attncheck_audit_testkernels_fp8kv>
")
