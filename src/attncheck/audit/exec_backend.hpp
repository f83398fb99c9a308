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

  // Whether the program serves kind k at d, asked by one call on the smallest input of that kind
  // (all elements +0; an attention_v2 problem of one query, one key, d = dv = 1, no LSE asked):
  // yes on a RESULT (computed or declined), no on an ERROR that says the kind or format is not
  // served (reports_unserved_kind), unknown on anything else (a crash, a hang, another ERROR: the
  // audit's checks judge those). The exec protocol has no "what do you serve" frame; this asks
  // the question with the frames every program already answers.
  enum class Served { yes, no, unknown };
  Served serves(Kind k, Dtype d);
  // When serves() said unknown: the program's error text if it answers the smallest call of kind k
  // at d with the same ERROR on two inputs (all +0, then all 0.5), so a kernel raises whatever it
  // is given (a wrong signature, a table naming the wrong function): a setup error the audit
  // reports at once rather than as one failure per check. "" otherwise.
  std::string fails_every_call(Kind k, Dtype d);
  std::string describe() const override { return "program '" + command_ + "'"; }
  bool sees_memory() const override { return false; }

 private:
  void start();
  void stop();
  Reply exchange(const Call& c);  // call() without the check that c's kernel was asked for
  Reply fault(Status s, const std::string& detail);  // stops the peer and describes why

  std::string command_;
  std::vector<std::pair<Kind, Dtype>> kernels_;
  Limits limits_;
  int abi_ = 1;
  bool answered_v2_ = false;  // the program has answered a kind-8 call with RESULT (it serves kind 8)
  pid_t child_ = -1;
  std::vector<pid_t> watched_;  // the kernel's processes, for CallWatch (emptied when the child restarts)
  int to_peer_ = -1, from_peer_ = -1;
};

}  // namespace attncheck::audit
