# attncheck_falsify: the falsification properties (falsify/<stem>.cpp) and the mutants that each
# must catch (falsify/mutants/<stem>.cpp). They hold no test framework: compiled once into this
# object library, linked into the attncheck CLI (whose gate runs them) and into falsify_tests.
file(GLOB ATTNCHECK_FALSIFY_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/*.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants/*.cpp)
# (Or, with ATTNCHECK_PREBUILT_OBJECTS, another build tree's objects: cmake/prebuilt_objects.cmake.)
attncheck_object_library(attncheck_falsify ${ATTNCHECK_FALSIFY_SOURCES})
if(NOT ATTNCHECK_PREBUILT_OBJECTS)
  target_include_directories(attncheck_falsify PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(attncheck_falsify PRIVATE attncheck::property)
endif()
