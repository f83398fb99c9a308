// attncheck audit: kernels served by any program over the exec protocol on its stdin/stdout
// (`attncheck audit --exec 'COMMAND' --kernel KIND:DTYPE`). The program is untrusted like a
// library: it runs in its own process group, is killed on a timeout and restarted after a
// crash, and a malformed or oversized frame is a verdict, never an unbounded allocation.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "attncheck/audit/call.hpp"
#include "attncheck/audit/library_backend.hpp"  // LoadError, Limits

namespace attncheck::audit {

class ExecBackend final : public Backend {
 public:
  // Starts the program (via /bin/sh -c) and exchanges HELLO frames; throws LoadError. kernels are
  // as spelt; abi is the declared ABI version (--abi, default 1): from 2, `attention` is called
  // as attention_v2 (CALL kind 8).
  ExecBackend(std::string command, std::vector<std::pair<Kind, Dtype>> kernels, Limits limits, int abi = 1);
  ~ExecBackend() override;
  ExecBackend(const ExecBackend&) = delete;
  ExecBackend& operator=(const ExecBackend&) = delete;

  bool has(Kind k, Dtype d) const override;
  Reply call(const Call& c) override;
  std::string describe() const override { return "program '" + command_ + "'"; }
  bool sees_memory() const override { return false; }

 private:
  void start();
  void stop();
  Reply fault(Status s, const std::string& detail);  // stops the peer and describes why

  std::string command_;
  std::vector<std::pair<Kind, Dtype>> kernels_;
  Limits limits_;
  int abi_ = 1;
  bool answered_v2_ = false;  // the program has answered a kind-8 call with RESULT (it serves kind 8)
  pid_t child_ = -1;
  int to_peer_ = -1, from_peer_ = -1;
};

}  // namespace attncheck::audit
