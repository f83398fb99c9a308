// attncheck CLI: the progress line of long runs (gate, audit) on a terminal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace attncheck::cli {

// One line on stderr, redrawn four times a second: checks done / total, what runs now (contract,
// obligations, test, dtype), cases done / total and the time left, estimated from the checks
// done so far. Only when stderr is a terminal, not with --quiet, and only once the run has taken
// a second (a quick run shows nothing; ATTNCHECK_PROGRESS_AFTER_MS sets another delay). stdout is
// never touched, so reports stay identical. No thread runs until the first show(): a caller that
// forks (the gate's workers) does so before it, so its children never inherit a held lock.
class Progress {
 public:
  // cases_per_check 0: the caller cannot count cases, the line shows checks only.
  Progress(bool quiet, std::size_t total_checks, std::size_t cases_per_check);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void show(std::size_t index, const std::string& what);  // check `index` (0-based) starts
  void finished(std::size_t cases);                       // the current check ran `cases` cases
  void clear();                                           // erase the line and stop redrawing

 private:
  void start_ticker();  // with mutex_ held
  void loop();
  void draw();  // with mutex_ held

  bool enabled_;
  std::size_t total_, cases_per_;
  std::chrono::milliseconds delay_;
  std::size_t done_ = 0, cases_done_ = 0, index_ = 0;
  std::string what_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool drawn_ = false, stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace attncheck::cli
