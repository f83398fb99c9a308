// attncheck audit: kernels from a shared library, called in a fork-server child process that
// dlopens the library, so that a crash, hang, stray write or runaway allocation is a verdict.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "attncheck/audit/call.hpp"

namespace attncheck::audit {

// One exported kernel: `--kernel KIND:DTYPE:SYMBOL`.
struct Binding {
  Kind kind = Kind::softmax;
  Dtype dtype = Dtype::f32;
  std::string symbol;
};

struct Limits {
  double timeout_seconds = 2;            // per call; the child is killed and restarted after it
  std::size_t memory_bytes = 1ull << 30; // address space the child may add beyond what it inherits
};

// The library or a symbol could not be loaded: a usage error, nothing was judged.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LibraryBackend final : public Backend {
 public:
  // Starts the fork server, which dlopens path and resolves every symbol; throws LoadError.
  // declared_abi: the ABI version declared for the library (--abi, abi: in a bindings file), 0 for
  // none. The library's own marker (abi.h, attncheck_abi_version()) decides when it has one, and
  // must agree with a declaration; without either the library is version 1.
  LibraryBackend(std::string path, std::vector<Binding> bindings, Limits limits, int declared_abi = 0);
  ~LibraryBackend() override;
  LibraryBackend(const LibraryBackend&) = delete;
  LibraryBackend& operator=(const LibraryBackend&) = delete;

  bool has(Kind k, Dtype d) const override;
  Reply call(const Call& c) override;
  std::string describe() const override { return "library " + path_; }
  int abi_version() const { return abi_; }
  bool sees_memory() const override { return true; }

 private:
  void start();                 // fork the server; throws LoadError if it cannot load the library
  void stop();                  // SIGKILL and reap the server
  void map_region(std::size_t bytes);
  Reply reap(const std::string& how);  // the server died: why

  std::string path_;
  std::vector<Binding> bindings_;
  Limits limits_;
  int declared_abi_ = 0;
  int abi_ = 1;  // set by start()
  int region_fd_ = -1;
  unsigned char* region_ = nullptr;
  std::size_t region_size_ = 0;
  pid_t child_ = -1;
  std::vector<pid_t> watched_;  // the kernel's processes, for CallWatch (emptied when the child restarts)
  int req_fd_ = -1, resp_fd_ = -1;
};

}  // namespace attncheck::audit
