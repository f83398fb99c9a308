# attncheck_cli: the `attncheck` program. The properties and mutants (falsify/<stem>.cpp) and the
# harnesses (harnesses/<stem>.cpp) are the contracts' content, linked in without any test
# framework: gate and bmc run them.
file(GLOB ATTNCHECK_CLI_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
add_executable(attncheck_cli ${ATTNCHECK_CLI_SOURCES}
               $<TARGET_OBJECTS:attncheck_falsify> $<TARGET_OBJECTS:attncheck_harnesses>)
set_target_properties(attncheck_cli PROPERTIES OUTPUT_NAME attncheck EXPORT_NAME attncheck)  # attncheck::attncheck
target_include_directories(attncheck_cli PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(attncheck_cli PRIVATE attncheck::audit attncheck::bmc CLI11::CLI11)
# CLI11 is header-only and cli.hpp includes it into 23 of these sources: parsing it alone takes
# 5.9 s per source at -O0 and 9.4 s with ASan + UBSan (GCC 12, measured 2026-11-28), most of this
# target's compile time in either build. Precompiled once per build instead.
target_precompile_headers(attncheck_cli PRIVATE <CLI/CLI.hpp>)

# The CLI finds its contracts beside itself, never through a compiled-in path (src/cli/util.cpp):
# installed, PREFIX/share/attncheck/contracts (cmake/install.cmake); in the build tree, this link
# to the source tree's contracts/.
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/contracts ${CMAKE_CURRENT_BINARY_DIR}/contracts SYMBOLIC)

# A version only the file that reads it gets (a define in every target's flags would make every
# compile a miss when it changes): yaml-cpp's (its headers carry none; the run metadata of every
# JSON report names it). The proofs record and the bmc report `attncheck coverage` reads are found
# beside the executable (src/cli/util.cpp), never compiled in: an installed attncheck names no
# build tree, and no source compiles a path (a clone in another folder hits ccache everywhere).
if(DEFINED yaml-cpp_VERSION)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/report_meta.cpp APPEND PROPERTY COMPILE_DEFINITIONS
               ATTNCHECK_YAML_CPP_VERSION="${yaml-cpp_VERSION}")
endif()
