// attncheck: doctest's implementation, without a main. The falsify/ sources are compiled once and
// linked into the CLI as well as into falsify_tests; their TEST_CASEs need doctest's runtime to
// link. The CLI never runs them (it runs the registered properties); falsify/main.cpp is the
// test executable's entry point.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
