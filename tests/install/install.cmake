# Install tests (included from the top-level CMakeLists.txt; label `install`): attncheck installed
# into a temporary prefix that is then moved (the CLI must find its contracts beside itself), the
# gate run from the installed files, and examples/consumer built and tested against the installed
# CMake package only. Run after the whole build (cmake --install copies what was built).
set(ATTNCHECK_INSTALL_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/install-test)

add_test(NAME "install: cmake --install into a prefix, moved; its CLI finds its contracts and runs the gate"
         COMMAND ${CMAKE_COMMAND} -DSTEP=install -DBUILD=${CMAKE_CURRENT_BINARY_DIR}
                 -DOUT=${ATTNCHECK_INSTALL_TEST_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("install: cmake --install into a prefix, moved; its CLI finds its contracts and runs the gate"
                     PROPERTIES LABELS install FIXTURES_SETUP attncheck_installed TIMEOUT 300)

add_test(NAME "install: examples/consumer built and tested against the installed package"
         COMMAND ${CMAKE_COMMAND} -DSTEP=consumer -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/examples/consumer
                 -DOUT=${ATTNCHECK_INSTALL_TEST_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("install: examples/consumer built and tested against the installed package"
                     PROPERTIES LABELS install FIXTURES_REQUIRED attncheck_installed TIMEOUT 600)
