// attncheck audit: a kernel call's time limit on the CPU time its process used (call_watch.hpp).
#include "attncheck/audit/call_watch.hpp"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace attncheck::audit {

namespace {

// The fields of /proc/<pid>/stat (or of a task) after the command name, which may hold spaces and
// parentheses: state, ppid, pgrp, ..., utime (14th field of the line), stime (15th).
struct Stat {
  char state = '?';
  long pgrp = -1;
  double cpu_ticks = 0;
};
bool read_stat(const std::string& path, Stat& s) {
  std::ifstream f(path);
  std::string line;
  if (!std::getline(f, line)) return false;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  std::string field[13];  // fields 3 .. 15
  for (auto& x : field)
    if (!(rest >> x)) return false;
  s.state = field[0].empty() ? '?' : field[0][0];
  s.pgrp = std::stol(field[2]);
  s.cpu_ticks = std::stod(field[11]) + std::stod(field[12]);
  return true;
}

bool is_number(const char* name) { return *name && std::all_of(name, name + std::char_traits<char>::length(name), [](char c) { return c >= '0' && c <= '9'; }); }

// Adds one process and whether one of its threads can run (its CPU time: cpu_seconds_of).
void add_process(pid_t pid, const std::string& dir, const Stat& s, ProcessUsage& u) {
  u.known = true;
  u.members.push_back(pid);
  if (u.runnable) return;
  DIR* tasks = ::opendir((dir + "/task").c_str());
  if (!tasks) {
    u.runnable = s.state == 'R' || s.state == 'D' || s.state == 'T' || s.state == 't';
    return;
  }
  while (const dirent* e = ::readdir(tasks)) {
    Stat t;
    if (!is_number(e->d_name) || !read_stat(dir + "/task/" + e->d_name + "/stat", t)) continue;
    if (t.state == 'R' || t.state == 'D' || t.state == 'T' || t.state == 't') {
      u.runnable = true;
      break;
    }
  }
  ::closedir(tasks);
}

}  // namespace

ProcessUsage process_usage(pid_t pid, bool whole_group) {
  ProcessUsage u;
  const std::string own = "/proc/" + std::to_string(pid);
  Stat s;
  if (!whole_group) {
    if (read_stat(own + "/stat", s)) add_process(pid, own, s, u);
    u.cpu_seconds = cpu_seconds_of(u.members);
    return u;
  }
  DIR* proc = ::opendir("/proc");
  if (!proc) return u;
  while (const dirent* e = ::readdir(proc)) {
    if (!is_number(e->d_name)) continue;
    const std::string dir = std::string("/proc/") + e->d_name;
    if (read_stat(dir + "/stat", s) && s.pgrp == pid && s.state != 'Z') add_process(static_cast<pid_t>(std::stol(e->d_name)), dir, s, u);
  }
  ::closedir(proc);
  u.cpu_seconds = cpu_seconds_of(u.members);
  return u;
}

double cpu_seconds_of(const std::vector<pid_t>& pids) {
  double total = 0;
  for (const pid_t p : pids) {
    clockid_t clock;
    timespec t{};
    if (::clock_getcpuclockid(p, &clock) == 0 && ::clock_gettime(clock, &t) == 0)
      total += static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  return total;
}

CallWatch::CallWatch(pid_t pid, bool whole_group, double budget_seconds, std::vector<pid_t>& members)
    : pid_(pid), group_(whole_group), budget_(budget_seconds), members_(members), start_(std::chrono::steady_clock::now()),
      last_look_(start_), first_(deadline_after(budget_seconds)) {
  if (members_.empty()) members_ = group_ ? process_usage(pid_, true).members : std::vector<pid_t>{pid_};
  at_start_ = members_;
  cpu_at_start_ = cpu_at_last_look_ = cpu_seconds_of(at_start_);
}

std::optional<Deadline> CallWatch::look() {
  const auto now = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(now - start_).count();
  const auto secs = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g s", x);
    return std::string(b);
  };
  const std::string limit = "the limit of " + secs(budget_) + " (--timeout plus the call's work estimate)";
  const ProcessUsage u = process_usage(pid_, group_);
  if (!u.known) {  // no /proc, or the process is gone: the budget is wall-clock time
    why_ = "no answer within " + secs(wall) + " of wall-clock time, " + limit;
    return std::nullopt;
  }
  members_ = u.members;
  // The CPU time of this call: the members seen at its start from their start, any process
  // started since (not at_start_) with all it used.
  const double cpu = u.cpu_seconds - cpu_at_start_;
  const double since_look = std::chrono::duration<double>(now - last_look_).count();
  const double cpu_since_look = u.cpu_seconds - cpu_at_last_look_;
  const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (cpu >= budget_) {
    why_ = "no answer within " + secs(wall) + ": it ran for " + secs(cpu) + " of CPU time, past " + limit;
    return std::nullopt;
  }
  if (!u.runnable && since_look >= kBlockedLook && cpu_since_look < tick) {
    why_ = "no answer within " + secs(wall) + ": blocked (none of its threads could run and it used no CPU time in the last " +
           secs(since_look) + "; " + secs(cpu) + " of CPU time in all, " + limit + ")";
    return std::nullopt;
  }
  if (wall >= kWallFactor * budget_) {
    why_ = "no answer within " + secs(wall) + " of wall-clock time, " + std::to_string(static_cast<int>(kWallFactor)) + " times " + limit +
           ": it ran for " + secs(cpu) + " of CPU time; the machine is too busy to judge it";
    return std::nullopt;
  }
  last_look_ = now;
  cpu_at_last_look_ = u.cpu_seconds;
  // Waiting for the machine: look again when the budget's rest could be used, and soon enough to
  // see a blocked process.
  return now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(std::max(kBlockedLook, std::min(budget_ - cpu, budget_))));
}

}  // namespace attncheck::audit
