# attncheck: every C and C++ compile through ccache (Debian's ccache, tools/install-deps.sh), when it
# is installed and ATTNCHECK_CCACHE is on (the default). Included before any target is defined: the
# CMAKE_<LANG>_COMPILER_LAUNCHER variables set each target's launcher when it is created.
#
# What makes a clone in another folder hit the cache of the developer's own build (issue 45; CI
# builds a fresh clone of main in another folder on the same machine):
# - CCACHE_BASEDIR = this source tree: absolute paths under it (sources, -I, -include of the
#   precompiled header) are rewritten relative to the compiler's working directory, the same in
#   every clone. Paths outside it (system headers) stay absolute. No define holds the checkout's or
#   a build tree's path (the test programs read theirs at run time: tests/test_paths.hpp; the CLI
#   finds its records beside itself, src/cli/util.cpp).
# - CCACHE_NOHASHDIR: the -g1 objects of the sanitized build and the fuzzers' -g objects are shared
#   across folders too; their debug info then names the folder that compiled them first (a
#   backtrace's file names are relative to it; only the directory differs).
# - sloppiness pch_defines,time_macros: what ccache needs to cache compiles that use a precompiled
#   header (the CLI's CLI11, src/cli/cli.cmake); no source of ours uses __DATE__ or __TIME__.
#   include_file_mtime,include_file_ctime: a fresh clone's files are all "new" (ccache would
#   otherwise refuse to record a manifest for headers modified within the second of the compile).
#   The contents are still hashed: an edited header is still a miss.
# - CCACHE_DEPEND: a miss costs the compile alone. ccache's default mode runs the preprocessor on
#   every miss (about 1 s a source here: a cold build would pay it some 300 times); depend mode
#   hashes the sources and the headers the compiler's own -MD list names (CMake passes -MD), so a
#   hit needs the same flags, which every clone of a commit has.
# - CCACHE_MAXSIZE bounds the cache (ATTNCHECK_CCACHE_MAXSIZE; one build of main, sanitized and
#   fuzz trees together is about a third of the default); ccache evicts the oldest beyond it.
# The cache itself is ccache's default (CCACHE_DIR if set, else ~/.cache/ccache). A miss, an
# unwritable cache or an absent ccache never fails a build: ccache then runs the compiler itself,
# and without ccache the compiler is called directly. tools/run.sh prints the hits of each run.
option(ATTNCHECK_CCACHE "Compile through ccache when it is installed (cmake/ccache.cmake)" ON)
set(ATTNCHECK_CCACHE_MAXSIZE "6G" CACHE STRING "Upper bound of the ccache directory (CCACHE_MAXSIZE)")
if(ATTNCHECK_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(ATTNCHECK_CCACHE_PROGRAM ccache)
  if(ATTNCHECK_CCACHE_PROGRAM)
    set(_attncheck_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=true
        CCACHE_DEPEND=true
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        CCACHE_MAXSIZE=${ATTNCHECK_CCACHE_MAXSIZE} ${ATTNCHECK_CCACHE_PROGRAM})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_attncheck_launcher})
    set(CMAKE_C_COMPILER_LAUNCHER ${_attncheck_launcher})
    message(STATUS "attncheck: compiling through ${ATTNCHECK_CCACHE_PROGRAM} (cmake/ccache.cmake)")
  endif()
endif()
