// attncheck: doctest entry point of the falsification suite (falsify/<stem>.cpp + mutants).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
