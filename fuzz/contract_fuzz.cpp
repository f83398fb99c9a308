// libFuzzer target: the contract YAML loader (src/attncheck/contract/loader.cpp) on arbitrary bytes.
// The loader promises never to throw or crash and to explain every failure (loader.hpp); an escaped
// exception or the loader's last-resort diagnostic ("internal error while loading (...)" at the start
// of the message; messages may quote the file's own text, which can contain the same words) is a
// finding here.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attncheck/contract/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const auto r = attncheck::contract::load_text(bytes, "fuzz.yaml");
  for (const auto& d : r.diagnostics)
    if (d.message.rfind("internal error while loading (", 0) == 0) {
      std::fprintf(stderr, "loader fell through to its last-resort catch: %s\n", d.message.c_str());
      std::abort();
    }
  // A file that loaded without errors must have produced a contract, and a contract an ID.
  if (r.ok() && r.contracts.empty()) {
    std::fprintf(stderr, "no error diagnostic, yet no contract\n");
    std::abort();
  }
  return 0;
}
