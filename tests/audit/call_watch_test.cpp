// attncheck audit: a call's time limit is the CPU time the kernel's process used (call_watch.hpp):
// a process that computes past its budget or sleeps with nothing to run is hung; one stopped or
// waiting for a busy machine is not.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/audit/call_watch.hpp"

using namespace attncheck::audit;

namespace {
// A child that spins (busy) or sleeps; killed and reaped when the test is done with it.
struct Child {
  pid_t pid;
  explicit Child(bool busy) {
    pid = ::fork();
    if (pid == 0) {
      volatile unsigned long x = 0;  // the busy loop the optimiser keeps
      for (;;) {
        if (busy) x = x + 1;
        else ::pause();
      }
    }
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

// Looks whenever the watch asks until it gives up or `limit` seconds of wall-clock time passed:
// true when it gave up.
bool hung_within(CallWatch& w, double limit) {
  auto next = std::optional<Deadline>(w.first());
  const auto end = deadline_after(limit);
  while (next && *next < end) {
    std::this_thread::sleep_until(*next);
    next = w.look();
  }
  return !next;
}
}  // namespace

TEST_CASE("call watch: a process that computes is hung once it used its budget of CPU time") {
  Child c(true);
  std::vector<pid_t> members;
  CallWatch w(c.pid, false, 0.3, members);
  REQUIRE(process_usage(c.pid, false).known);
  CHECK(members == std::vector<pid_t>{c.pid});
  CHECK(hung_within(w, 5));
  INFO(w.why());
  CHECK(w.why().find("of CPU time, past the limit of 0.3 s") != std::string::npos);
}

TEST_CASE("call watch: a process whose threads all sleep is hung at the first look") {
  Child c(false);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> members;
  CallWatch w(c.pid, false, 0.3, members);
  CHECK(hung_within(w, 5));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0);
  INFO(w.why());
  CHECK(w.why().find("blocked") != std::string::npos);
}

TEST_CASE("call watch: a process stopped (or waiting for the CPU) is waited for, then judged on what it ran") {
  Child c(true);
  ::kill(c.pid, SIGSTOP);
  std::vector<pid_t> members;
  CallWatch w(c.pid, false, 0.3, members);
  // Stopped for 1.5 s, five budgets: never hung meanwhile (state T counts as runnable).
  CHECK_FALSE(hung_within(w, 1.5));
  ::kill(c.pid, SIGCONT);
  // Then it computes, and its CPU time reaches the budget.
  CHECK(hung_within(w, 5));
  INFO(w.why());
  CHECK(w.why().find("of CPU time, past the limit") != std::string::npos);
}

TEST_CASE("call watch: a stopped process is given up after kWallFactor budgets of wall-clock time") {
  Child c(true);
  ::kill(c.pid, SIGSTOP);
  std::vector<pid_t> members;
  CallWatch w(c.pid, false, 0.02, members);
  CHECK(hung_within(w, 5 + kWallFactor * kBlockedLook));
  INFO(w.why());
  CHECK(w.why().find("too busy to judge it") != std::string::npos);
  ::kill(c.pid, SIGCONT);
}
