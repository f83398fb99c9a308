// attncheck CLI: the progress line (see progress.hpp).
#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace attncheck::cli {

namespace {
std::string duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

std::size_t terminal_columns() {
  struct winsize w {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 80;
}

// ATTNCHECK_PROGRESS_AFTER_MS: how long a run goes before the line appears (default 1000 ms).
// Tests set 0 so that the line's presence does not depend on how fast the machine is.
std::chrono::milliseconds progress_delay() {
  const char* s = std::getenv("ATTNCHECK_PROGRESS_AFTER_MS");
  if (s == nullptr || *s == '\0') return std::chrono::milliseconds(1000);
  char* end = nullptr;
  const long ms = std::strtol(s, &end, 10);
  if (*end != '\0' || ms < 0) return std::chrono::milliseconds(1000);  // not a count: the default
  return std::chrono::milliseconds(ms);
}
}  // namespace

Progress::Progress(bool quiet, std::size_t total_checks, std::size_t cases_per_check)
    : enabled_(!quiet && ::isatty(STDERR_FILENO) != 0), total_(total_checks), cases_per_(cases_per_check),
      delay_(progress_delay()) {}

// The ticker thread starts here, at the first check, and not in the constructor: the gate's
// property::run_parallel forks its workers before it hands out the first check, and a process must
// not fork while another of its threads may hold a lock the child needs. Found by the sanitized
// suite: the ticker, allocating in draw(), held ASan's allocator lock at the fork, and the worker
// (GCC 12's libasan has no fork handler for it) waited on that lock forever in its first malloc.
void Progress::start_ticker() {
  if (enabled_ && !stop_ && !ticker_.joinable()) ticker_ = std::thread([this] { loop(); });
}

Progress::~Progress() { clear(); }

void Progress::show(std::size_t index, const std::string& what) {
  std::lock_guard lock(mutex_);
  start_ticker();
  index_ = index;
  what_ = what;
  if (enabled_ && !stop_ && (drawn_ || std::chrono::steady_clock::now() - start_ >= delay_)) draw();
}

void Progress::finished(std::size_t cases) {
  std::lock_guard lock(mutex_);
  ++done_;
  cases_done_ += cases;
}

void Progress::clear() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
    if (drawn_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (stop_) break;
    if (std::chrono::steady_clock::now() - start_ >= delay_) draw();
  }
}

void Progress::draw() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string head = "[" + std::to_string(index_ + 1) + "/" + std::to_string(total_) + "] ";
  std::string tail;
  if (cases_per_ > 0) tail += "  cases " + std::to_string(cases_done_) + "/" + std::to_string(total_ * cases_per_);
  // The time left, from the mean time of the checks done so far (none done yet: unknown).
  tail += "  ETA " + (done_ == 0 ? std::string("?") : duration(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_)));
  // A line longer than the terminal would wrap and leave a trail: shorten what runs, keep the counts.
  const std::size_t cols = terminal_columns() - 1;
  std::string what = what_;
  if (head.size() + what.size() + tail.size() > cols)
    what = head.size() + tail.size() + 4 < cols ? "..." + what.substr(what.size() - (cols - head.size() - tail.size() - 3)) : "";
  std::fputs(("\r\033[K" + head + what + tail).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace attncheck::cli
