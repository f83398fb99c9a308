# falsify_tests: the falsification suite as CTest tests. Included after enable_testing().
#  - One test per registered property, named "<ID>: <title>" and labelled falsify, discovered from
#    the registry after each build (`falsify_tests --list`, as doctest_discover_tests does): adding
#    a property is its struct and its YAML entry, nothing here.
#  - The doctest cases (falsify/wrong_claims/<stem>.cpp, falsify/runner/meta.cpp), discovered by doctest.
file(GLOB ATTNCHECK_FALSIFY_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/runner/*.cpp ${CMAKE_CURRENT_LIST_DIR}/wrong_claims/*.cpp)
add_executable(falsify_tests ${ATTNCHECK_FALSIFY_TEST_SOURCES} $<TARGET_OBJECTS:attncheck_falsify>)
target_include_directories(falsify_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(falsify_tests PRIVATE attncheck::property doctest::doctest)
doctest_discover_tests(falsify_tests ADD_LABELS 1 PROPERTIES LABELS falsify)

set(_falsify_list "${CMAKE_CURRENT_BINARY_DIR}/falsify_properties.cmake")
add_custom_command(TARGET falsify_tests POST_BUILD
  COMMAND ${CMAKE_COMMAND} -D "EXE=$<TARGET_FILE:falsify_tests>" -D "OUT=${_falsify_list}"
          -P "${PROJECT_SOURCE_DIR}/cmake/falsify_discover.cmake"
  VERBATIM)
set(_falsify_include "${CMAKE_CURRENT_BINARY_DIR}/falsify_properties_include.cmake")
file(WRITE "${_falsify_include}"
  "if(EXISTS \"${_falsify_list}\")\n  include(\"${_falsify_list}\")\nelse()\n"
  "  add_test(falsify_tests_NOT_BUILT falsify_tests_NOT_BUILT)\n"
  "  set_tests_properties(falsify_tests_NOT_BUILT PROPERTIES LABELS falsify)\nendif()\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_falsify_include}")
