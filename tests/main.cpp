// attncheck: doctest entry point of the unit tests (loader, lint, CLI).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
