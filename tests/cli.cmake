# attncheck CLI smoke tests for plain `ctest` runs (included from the top-level CMakeLists.txt).
# The detailed end-to-end checks live in tests/cli_test.cpp (doctest, label "unit"); these two
# guard the commands CI scripts call first, with the bundled contracts named explicitly so an
# ATTNCHECK_CONTRACTS in the environment cannot change the result.
add_test(NAME cli.help COMMAND attncheck_cli --help)
add_test(NAME cli.lint COMMAND attncheck_cli --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts lint)
set_tests_properties(cli.help cli.lint PROPERTIES LABELS cli)
