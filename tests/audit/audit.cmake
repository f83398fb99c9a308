# attncheck audit tests (included from the top-level CMakeLists.txt): the C test kernels and the doctest
# cases that audit them with the real CLI and assert the exact verdicts.
enable_language(C)
add_library(attncheck_audit_testkernels SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels.c ${CMAKE_CURRENT_LIST_DIR}/kernels16.c)
target_link_libraries(attncheck_audit_testkernels PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's attention kernels, in a library that exports the version marker (abi.h).
add_library(attncheck_audit_testkernels_v2 SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_v2.c
            ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_v2_declines.c)
target_link_libraries(attncheck_audit_testkernels_v2 PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_v2 PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's attention backward kernels (attention_backward_impl.h; the unfused 16-bit ones; the drift
# file has FlashAttention-2's blocks of 64), with the version marker (exported by kernels_attention_backward.c).
add_library(attncheck_audit_testkernels_bwd SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_backward.c
            ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_backward_unfused.c
            ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_backward_drift.c)
target_link_libraries(attncheck_audit_testkernels_bwd PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_bwd PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's merge kernels of split-KV partial results, with the version marker.
add_library(attncheck_audit_testkernels_merge SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_merge.c)
target_link_libraries(attncheck_audit_testkernels_merge PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_merge PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's attention kernels over packed variable-length batches, with the version marker.
add_library(attncheck_audit_testkernels_varlen SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_varlen.c
            ${CMAKE_CURRENT_LIST_DIR}/kernels_capabilities.c)
target_compile_definitions(attncheck_audit_testkernels_varlen PRIVATE CAP_VARLEN)  # kernels_capabilities.c's varlen kernels
target_link_libraries(attncheck_audit_testkernels_varlen PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_varlen PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's attention kernels over a paged KV cache, with the version marker.
add_library(attncheck_audit_testkernels_paged SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_paged.c
            ${CMAKE_CURRENT_LIST_DIR}/kernels_capabilities.c)
target_compile_definitions(attncheck_audit_testkernels_paged PRIVATE CAP_PAGED)  # kernels_capabilities.c's paged kernel
target_link_libraries(attncheck_audit_testkernels_paged PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_paged PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

# ABI version 2's FP8 KV-cache kernels (attention over the codes, the cache write), with the version marker.
add_library(attncheck_audit_testkernels_fp8kv SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels_attention_fp8kv.c)
target_link_libraries(attncheck_audit_testkernels_fp8kv PRIVATE attncheck::abi m)
set_target_properties(attncheck_audit_testkernels_fp8kv PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)

file(GLOB ATTNCHECK_AUDIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cpp)
add_executable(attncheck_audit_tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/main.cpp ${ATTNCHECK_AUDIT_TESTS})
target_include_directories(attncheck_audit_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(attncheck_audit_tests PRIVATE attncheck::audit doctest::doctest)
# Its paths (the checkout, the CLI, the test kernel libraries, the examples) are read at run time,
# not compiled in: tests/test_paths.hpp.
add_dependencies(attncheck_audit_tests attncheck_cli attncheck_audit_testkernels attncheck_audit_testkernels_v2
                 attncheck_audit_testkernels_bwd attncheck_audit_testkernels_merge attncheck_audit_testkernels_varlen
                 attncheck_audit_testkernels_paged attncheck_audit_testkernels_fp8kv)
doctest_discover_tests(attncheck_audit_tests TEST_PREFIX "audit: " PROPERTIES LABELS audit)

# The Python example (examples/python/) runs under Debian's interpreter, where python3-numpy and
# python3-scipy are installed (tools/install-deps.sh); /usr/bin first, so a user's pyenv or venv
# on PATH does not decide which NumPy is audited.
find_program(ATTNCHECK_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ATTNCHECK_PYTHON3)
  find_program(ATTNCHECK_PYTHON3 NAMES python3)
endif()
target_compile_definitions(attncheck_audit_tests PRIVATE ATTNCHECK_PYTHON3="${ATTNCHECK_PYTHON3}")

# -j 1 and -j 2 give byte-identical JSON (and text) reports with --no-timings.
add_test(NAME "audit: -j 1 and -j 2 give byte-identical reports"
         COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attncheck_cli> -DLIB=$<TARGET_FILE:attncheck_audit_testkernels>
                 -DCONTRACTS=${CMAKE_CURRENT_SOURCE_DIR}/contracts -DOUT=${CMAKE_CURRENT_BINARY_DIR}/audit-jobs
                 -P ${CMAKE_CURRENT_LIST_DIR}/jobs_identical.cmake)
set_tests_properties("audit: -j 1 and -j 2 give byte-identical reports" PROPERTIES LABELS audit TIMEOUT 600)

