# attncheck audit: the public C ABI header (include/attncheck/abi.h) that audited kernels include.
# Included from the end of the top-level CMakeLists.txt.
add_library(attncheck_abi INTERFACE)
add_library(attncheck::abi ALIAS attncheck_abi)
target_include_directories(attncheck_abi INTERFACE
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
# The audit code in attncheck_core (src/attncheck/audit/) and the CLI include it too.
target_link_libraries(attncheck_core PUBLIC attncheck::abi ${CMAKE_DL_LIBS})

# Tests of the audit: small C kernels compiled into a test library (tests/audit/).
include(${CMAKE_CURRENT_SOURCE_DIR}/tests/audit/audit.cmake OPTIONAL)
