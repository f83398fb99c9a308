// attncheck benchmarks: entry point (the benchmarks register themselves in kernels.cpp,
// oracles.cpp, ...). Run through tools/bench.sh, which also prints the overhead table.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
