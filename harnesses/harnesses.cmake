# attncheck_harnesses: the bounded model-checking harnesses (harnesses/<stem>.cpp, Kani's shape:
# nondeterministic inputs, assume, call, assert), registered by ID. Compiled once, linked into the
# attncheck CLI (whose bmc command runs them) and into bmc_tests (tests/bmc/bmc.cmake).
file(GLOB ATTNCHECK_HARNESS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
# (Or, with ATTNCHECK_PREBUILT_OBJECTS, another build tree's objects: cmake/prebuilt_objects.cmake.)
attncheck_object_library(attncheck_harnesses ${ATTNCHECK_HARNESS_SOURCES})
if(NOT ATTNCHECK_PREBUILT_OBJECTS)
  target_include_directories(attncheck_harnesses PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(attncheck_harnesses PRIVATE attncheck::bmc)
endif()
