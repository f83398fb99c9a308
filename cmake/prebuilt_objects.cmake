# attncheck_object_library(TARGET SOURCES...): the object library TARGET, compiled here from
# SOURCES; or, when ATTNCHECK_PREBUILT_OBJECTS names another build tree of this source tree,
# that tree's objects of TARGET, imported and not compiled again.
#
# tools/sanitize.sh uses the second form for the properties (attncheck_falsify) and the harnesses
# (attncheck_harnesses): its build-asan/ links the optimised (-O1) objects of build/ instead of compiling them
# again with ASan + UBSan at -O0. Those two are the contracts' content, every property at every
# format and every harness, not the code sanitizers find bugs in (the parsers, the process
# boundary, the kernels: all compiled instrumented in build-asan/); and they were 38 % of the
# instrumented build's compile time (measured 2026-11-28: 590 of 1565 s of GCC processes). The
# objects are compatible: the same compiler, language flags and headers, and no header of ours
# reads NDEBUG or the optimisation level. Uninstrumented code linked into an ASan program is
# simply not checked (as glibc is not).
#
# An object of build/ lives at CMakeFiles/TARGET.dir/<path relative to the source tree>.o (the
# Makefile and Ninja generators' naming); a missing one stops the configuration with its path.
function(attncheck_object_library target)
  set(sources ${ARGN})
  if(NOT ATTNCHECK_PREBUILT_OBJECTS)
    add_library(${target} OBJECT ${sources})
    return()
  endif()
  set(objects)
  foreach(src IN LISTS sources)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${src})
    set(obj ${ATTNCHECK_PREBUILT_OBJECTS}/CMakeFiles/${target}.dir/${rel}.o)
    if(NOT EXISTS ${obj})
      message(FATAL_ERROR "ATTNCHECK_PREBUILT_OBJECTS: ${obj} does not exist; build ${target} in "
                          "${ATTNCHECK_PREBUILT_OBJECTS} first")
    endif()
    list(APPEND objects ${obj})
  endforeach()
  add_library(${target} OBJECT IMPORTED GLOBAL)
  set_property(TARGET ${target} PROPERTY IMPORTED_OBJECTS ${objects})
endfunction()
