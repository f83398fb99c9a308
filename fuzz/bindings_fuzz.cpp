// libFuzzer target: the audit bindings loader (src/attncheck/audit/bindings.cpp) on arbitrary bytes. It
// must answer every input with "" (loaded) or an error text; any exception that escapes is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attncheck/audit/bindings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  attncheck::audit::KernelSource src;
  const std::string error = attncheck::audit::read_bindings_text(text, "fuzz/bindings.yaml", src);
  // Loaded means usable: a library to open and at least one kernel to audit in it.
  if (error.empty() && (src.library.empty() || src.bindings.empty())) {
    std::fprintf(stderr, "bindings accepted without a library or kernels\n");
    std::abort();
  }
  return 0;
}
