// attncheck audit: when a kernel call has taken too long, judged on the time the kernel's process
// really ran, never on the wall clock alone. A call is given a budget of seconds (--timeout plus
// the call's work estimate, call.hpp's call_timeout_seconds). At the first look, after that many
// seconds of wall-clock time, a kernel process that has used less CPU time than the budget was
// waiting for a busy machine (CI with other jobs, `nice`, a laptop on battery), not hung: the call
// waits on. It is hung, and killed, when
//   - it has used the budget in CPU time (all its threads; an endless loop), or
//   - none of its threads can run (all sleep: a deadlock, a read of a pipe nobody writes, sleep())
//     and it used no CPU time since the previous look, at least kBlockedLook apart, or
//   - kWallFactor times the budget has passed in wall-clock time (the machine gave it less than
//     1/kWallFactor of a core: the audit could not finish in any useful time either).
// A thread stopped by a signal (state T) or in uninterruptible sleep (D: paging under memory
// pressure) is the machine's doing, so it counts as runnable. On a system without /proc the
// process's usage cannot be read and the budget is wall-clock time, as before.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "attncheck/audit/fd_io.hpp"

namespace attncheck::audit {

inline constexpr double kWallFactor = 50;      // a call waits at most 50 budgets of wall-clock time
inline constexpr double kBlockedLook = 0.25;   // seconds between two looks that find a blocked process

// CPU time used so far and whether a thread can run, of one process (its threads) or of every
// process of a process group (an exec program that starts others, e.g. a shell running Python),
// from /proc; and which processes those are.
struct ProcessUsage {
  bool known = false;     // false without /proc, or when the process is gone
  double cpu_seconds = 0;
  bool runnable = false;  // some thread in state R, D or T
  std::vector<pid_t> members;
};
ProcessUsage process_usage(pid_t pid, bool whole_group);
// The CPU time of the processes listed, read from their CPU clocks (one system call each, no file
// read: cheap enough for the start of every call); processes that are gone count 0.
double cpu_seconds_of(const std::vector<pid_t>& pids);

class CallWatch {
 public:
  // members: the processes last seen in the group (the backend keeps the list between calls, so a
  // call's start reads clocks, not /proc); filled here when empty, refreshed at every look.
  CallWatch(pid_t pid, bool whole_group, double budget_seconds, std::vector<pid_t>& members);
  // The first wall-clock time to look: the budget from now.
  Deadline first() const { return first_; }
  // At a passed deadline: the next one, or nullopt when the call is hung (then why() says how).
  std::optional<Deadline> look();
  // For read_full/write_full's extend argument.
  Extension extension() {
    return [this] { return look(); };
  }
  const std::string& why() const { return why_; }

 private:
  pid_t pid_;
  bool group_;
  double budget_;
  std::vector<pid_t>& members_;
  std::vector<pid_t> at_start_;  // the members whose clocks were read at the start
  std::chrono::steady_clock::time_point start_, last_look_;
  Deadline first_;
  double cpu_at_start_ = 0, cpu_at_last_look_ = 0;
  std::string why_;
};

}  // namespace attncheck::audit
