// attncheck: entry point of the falsification suite (falsify/<stem>.cpp + mutants), whose doctest
// implementation comes from falsify/doctest_runtime.cpp (shared with the CLI).
#include <doctest/doctest.h>

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  return context.run();
}
