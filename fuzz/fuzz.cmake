# libFuzzer targets (fuzz/*_fuzz.cpp) for the four parsers of untrusted input: contract YAML,
# audit bindings YAML, exec-protocol frames, the command line. libFuzzer exists only in clang, and
# the kernels' _Float16 needs clang >= 15 on x86 (Debian 12: clang-16), so they are built only in a
# separate build directory configured with clang; the main build (GCC) skips this file's targets:
#   CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo
# tools/fuzz.sh builds them and runs each for a bounded time (CI) or long (tools/fuzz-long.sh).
if(NOT (CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 15))
  return()
endif()

# ASan and UBSan alongside the fuzzer, so a memory error or undefined behaviour is a crash too.
set(ATTNCHECK_FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)

function(attncheck_fuzzer name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE ${ATTNCHECK_FUZZ_FLAGS} -g)
  target_link_options(${name} PRIVATE ${ATTNCHECK_FUZZ_FLAGS})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  # Every input that once crashed the target is replayed (a libFuzzer binary given files runs them).
  file(GLOB regressions CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions/${name}/*)
  if(regressions)
    add_test(NAME ${name}.regressions COMMAND ${name} ${regressions})
    set_tests_properties(${name}.regressions PROPERTIES LABELS fuzz)
  endif()
endfunction()

# The parsers under test are compiled into each target from their own sources, instrumented.
attncheck_fuzzer(fuzz_contract fuzz/contract_fuzz.cpp
  src/attncheck/contract/loader.cpp src/attncheck/contract/ids.cpp src/attncheck/contract/encoding.cpp
  src/attncheck/contract/schema.cpp src/attncheck/contract/validate.cpp src/attncheck/contract/legacy.cpp
  src/attncheck/contract/cycles.cpp src/attncheck/contract/model.cpp src/attncheck/contract/yaml_documents.cpp)
target_link_libraries(fuzz_contract PRIVATE yaml-cpp fmt::fmt)

# The kind registry (src/attncheck/audit/kinds/) names and numbers the kinds both parsers read.
file(GLOB ATTNCHECK_FUZZ_KIND_SOURCES CONFIGURE_DEPENDS src/attncheck/audit/kinds/*.cpp)

attncheck_fuzzer(fuzz_protocol fuzz/protocol_fuzz.cpp
  src/attncheck/audit/protocol.cpp src/attncheck/audit/call.cpp ${ATTNCHECK_FUZZ_KIND_SOURCES})
target_link_libraries(fuzz_protocol PRIVATE attncheck::kernels attncheck::abi)

# The bindings parser with the two small files it calls (kind and policy names), not the audit
# library: CI builds only what its bounded run fuzzes (tools/fuzz.sh).
attncheck_fuzzer(fuzz_bindings fuzz/bindings_fuzz.cpp src/attncheck/audit/bindings.cpp src/attncheck/audit/call.cpp
  src/attncheck/audit/masked_policy.cpp src/attncheck/audit/capabilities.cpp ${ATTNCHECK_FUZZ_KIND_SOURCES})
target_link_libraries(fuzz_bindings PRIVATE attncheck::property attncheck::abi)

# The command line needs every subcommand's option set: the CLI sources (not main.cpp) and the core.
file(GLOB ATTNCHECK_FUZZ_CLI_SOURCES CONFIGURE_DEPENDS src/cli/*.cpp)
list(FILTER ATTNCHECK_FUZZ_CLI_SOURCES EXCLUDE REGEX ".*/src/cli/main\\.cpp$")
attncheck_fuzzer(fuzz_cli fuzz/cli_fuzz.cpp ${ATTNCHECK_FUZZ_CLI_SOURCES})
target_link_libraries(fuzz_cli PRIVATE attncheck::audit attncheck::bmc CLI11::CLI11)

add_custom_target(fuzzers DEPENDS fuzz_contract fuzz_protocol fuzz_bindings fuzz_cli)
