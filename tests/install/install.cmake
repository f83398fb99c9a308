# Install tests (included from the top-level CMakeLists.txt; labels `install`, `python`): attncheck installed
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
                 -DREADME=${CMAKE_CURRENT_SOURCE_DIR}/README.md
                 -DOUT=${ATTNCHECK_INSTALL_TEST_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("install: examples/consumer built and tested against the installed package"
                     PROPERTIES LABELS install FIXTURES_REQUIRED attncheck_installed TIMEOUT 600)

# The Python package (python/): a wheel built offline, installed, its pytest suite (plugin included)
# run against the installed CLI. Debian's interpreter: python3-numpy, python3-pytest (and
# python3-torch, else its tests are skipped) are Debian packages (tools/install-deps.sh).
find_program(ATTNCHECK_SYSTEM_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
add_test(NAME "python: the attncheck package's wheel, installed, passes its pytest suite"
         COMMAND ${CMAKE_COMMAND} -DSTEP=python -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/python
                 -DPYTHON=${ATTNCHECK_SYSTEM_PYTHON3} -DOUT=${ATTNCHECK_INSTALL_TEST_DIR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("python: the attncheck package's wheel, installed, passes its pytest suite"
                     PROPERTIES LABELS "python;install" FIXTURES_REQUIRED attncheck_installed TIMEOUT 600)

# The README's pytest way in, as written, in a fresh venv (about 5 s).
add_test(NAME "python: the README's pip and pytest lines pass as written in a fresh venv"
         COMMAND ${CMAKE_COMMAND} -DSTEP=readme-venv -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}
                 -DPYTHON=${ATTNCHECK_SYSTEM_PYTHON3} -DOUT=${ATTNCHECK_INSTALL_TEST_DIR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("python: the README's pip and pytest lines pass as written in a fresh venv"
                     PROPERTIES LABELS "python;install" FIXTURES_REQUIRED attncheck_installed TIMEOUT 300)

# The Debian package: CPack's .deb, its Depends, the gate from its files (dpkg-deb, dpkg-dev).
add_test(NAME "install: the .deb from CPack has its Depends and runs the gate from its files"
         COMMAND ${CMAKE_COMMAND} -DSTEP=deb -DBUILD=${CMAKE_CURRENT_BINARY_DIR} -DOUT=${ATTNCHECK_INSTALL_TEST_DIR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties("install: the .deb from CPack has its Depends and runs the gate from its files"
                     PROPERTIES LABELS install TIMEOUT 600)

# The README's three ways in are what CI runs: its CMake and pytest examples are in
# examples/consumer/CMakeLists.txt and python/tests/test_readme.py (the install and python tests
# above run those), its CLI lines run in the consumer step; and the check catches a drifted example.
add_test(NAME "docs: the README's examples are the files CI runs"
         COMMAND ${ATTNCHECK_SYSTEM_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/../docs/check_readme_ways.py ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME "docs: the README examples check catches a drifted example"
         COMMAND bash -c "d=$(mktemp -d) && mkdir -p $d/examples/consumer && cp '${CMAKE_CURRENT_SOURCE_DIR}/README.md' $d/ && \
sed 's/attncheck::abi m)/attncheck::abi)/' '${CMAKE_CURRENT_SOURCE_DIR}/examples/consumer/CMakeLists.txt' > $d/examples/consumer/CMakeLists.txt && \
mkdir -p $d/python/tests && cp '${CMAKE_CURRENT_SOURCE_DIR}/python/tests/test_readme.py' $d/python/tests/ && \
! '${ATTNCHECK_SYSTEM_PYTHON3}' '${CMAKE_CURRENT_LIST_DIR}/../docs/check_readme_ways.py' $d; s=$?; rm -rf $d; exit $s")
set_tests_properties("docs: the README's examples are the files CI runs" "docs: the README examples check catches a drifted example"
                     PROPERTIES LABELS docs)

# The listings the CMake package and the pytest plugin register their tests from: `audit --list`
# loads no kernel (the library named does not exist), `gate --list` runs nothing.
set(ATTNCHECK_LIST_EXPECT bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/expect.sh)
add_test(NAME cli.audit.list COMMAND ${ATTNCHECK_LIST_EXPECT} 0
         "^FALSIFY-SM-001 f32\nFALSIFY-SM-004 f32\nAUDIT-MASK-001 f32\nFALSIFY-SM-001 bf16@f32\nFALSIFY-SM-004 bf16@f32\nAUDIT-MASK-001 bf16@f32\nthe masked-row policy [^\n]*\n  AUDIT-MASK-001 f32 softmax either\n  AUDIT-MASK-001 bf16@f32 softmax either$"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts audit --list
            --lib /nonexistent/libkernels.so --kernel softmax:f32:a --kernel softmax:bf16:b
            --test FALSIFY-SM-001 --test FALSIFY-SM-004 --test AUDIT-MASK-001)
add_test(NAME cli.audit.list-no-library COMMAND ${ATTNCHECK_LIST_EXPECT} 0 "^FALSIFY-SM-004 f32$"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts audit --list
            --kernel softmax:f32 --test FALSIFY-SM-004)
add_test(NAME cli.gate.list COMMAND ${ATTNCHECK_LIST_EXPECT} 0 "^FALSIFY-SM-001 f32\nFALSIFY-SM-002 f32\n"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts gate --list
            --contract softmax-kernel-v1 --dtype f32)
set_tests_properties(cli.audit.list cli.audit.list-no-library cli.gate.list PROPERTIES LABELS cli)
