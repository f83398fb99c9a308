// attncheck tests: the paths the test programs use (the checkout, its fixtures, the CLI, the test
// kernel libraries, the examples), read at run time from attncheck-test-paths.txt beside the test
// program (written by tests/test_paths.cmake, one per build tree), not compiled in.
//
// Why not compile definitions: a define holding the checkout's or the build tree's absolute path
// makes every source of the target a different compile in every clone, so ccache
// (cmake/ccache.cmake) could not give a clone in another folder the objects of an earlier build:
// the test programs are most of the sanitized build's compile time (issue 45). The macros keep
// their old names; each is an expression of type const char*, not a string literal (write
// std::string(ATTNCHECK_SOURCE_DIR) + "/contracts", not ATTNCHECK_SOURCE_DIR "/contracts").
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace attncheck_test {

// The value of key in attncheck-test-paths.txt ("KEY=value" lines) beside /proc/self/exe. A test
// program without the file, or a key it lacks, stops at once with a message: a test that cannot
// find its inputs must not run, nor pass.
inline const char* path(const char* key) {
  static const std::map<std::string, std::string> paths = [] {
    std::map<std::string, std::string> m;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string dir = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : std::string();
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    const std::string file = dir + "attncheck-test-paths.txt";
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "test paths: cannot read %s (written by CMake: tests/test_paths.cmake)\n", file.c_str());
      std::exit(2);
    }
    for (std::string line; std::getline(in, line);)
      if (const auto eq = line.find('='); eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
    return m;
  }();
  const auto it = paths.find(key);
  if (it == paths.end()) {
    std::fprintf(stderr, "test paths: no %s in attncheck-test-paths.txt (tests/test_paths.cmake)\n", key);
    std::exit(2);
  }
  return it->second.c_str();
}

}  // namespace attncheck_test

#define ATTNCHECK_SOURCE_DIR ::attncheck_test::path("ATTNCHECK_SOURCE_DIR")
#define ATTNCHECK_TEST_FIXTURES ::attncheck_test::path("ATTNCHECK_TEST_FIXTURES")
#define ATTNCHECK_CLI_PATH ::attncheck_test::path("ATTNCHECK_CLI_PATH")
#define ATTNCHECK_EXAMPLES_DIR ::attncheck_test::path("ATTNCHECK_EXAMPLES_DIR")
#define ATTNCHECK_AUDIT_TESTLIB ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB")
#define ATTNCHECK_AUDIT_TESTLIB_V2 ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_V2")
#define ATTNCHECK_AUDIT_TESTLIB_BWD ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_BWD")
#define ATTNCHECK_AUDIT_TESTLIB_MERGE ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_MERGE")
#define ATTNCHECK_AUDIT_TESTLIB_VARLEN ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_VARLEN")
#define ATTNCHECK_AUDIT_TESTLIB_PAGED ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_PAGED")
#define ATTNCHECK_AUDIT_TESTLIB_FP8KV ::attncheck_test::path("ATTNCHECK_AUDIT_TESTLIB_FP8KV")
