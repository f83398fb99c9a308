# attncheck_bench (bench/*.cpp, Google Benchmark): speed is measured here, never asserted in tests.
# Built when Google Benchmark is installed (tools/install-deps.sh installs it).
find_package(benchmark QUIET)
file(GLOB ATTNCHECK_BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
if(benchmark_FOUND AND ATTNCHECK_BENCH_SOURCES)
  add_executable(attncheck_bench ${ATTNCHECK_BENCH_SOURCES})
  target_include_directories(attncheck_bench PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
  target_link_libraries(attncheck_bench PRIVATE attncheck::audit benchmark::benchmark)
endif()
