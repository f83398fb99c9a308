# attncheck_tests: unit tests of the library (tests/*_test.cpp, doctest), one CTest test per case.
file(GLOB ATTNCHECK_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cpp)
add_executable(attncheck_tests ${CMAKE_CURRENT_LIST_DIR}/main.cpp ${ATTNCHECK_UNIT_TESTS})
target_include_directories(attncheck_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
target_link_libraries(attncheck_tests PRIVATE attncheck::audit doctest::doctest)
# Its paths (the checkout, the CLI) are read at run time: tests/test_paths.hpp.
add_dependencies(attncheck_tests attncheck_cli)
doctest_discover_tests(attncheck_tests PROPERTIES LABELS unit)
