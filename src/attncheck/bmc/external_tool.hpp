// attncheck: the external solvers the model checker runs as child processes (cvc5, gappa): one
// lookup, one version probe and one child-process runner for both, so they behave alike.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace attncheck::bmc {

// The executable: $env_var if it is set and non-empty (nullopt when that path is not executable,
// never a silent fall-back to PATH), else the first `name` on PATH (/usr/bin:/bin without PATH).
std::optional<std::string> find_executable(const char* env_var, const std::string& name);

// The first line `command` prints on stdout, without trailing white space ("" if it printed none).
std::string first_output_line(const std::string& command);

// One run of an external tool: its own temporary directory (attncheck-<tag>-XXXXXX) for the input
// files and the child's stdout and stderr, a non-blocking poll, a deadline, and SIGKILL. The
// destructor kills a child that still runs, reaps it, and removes the directory.
class tool_process {
 public:
  explicit tool_process(const std::string& tag);  // throws std::runtime_error (no temporary directory)
  ~tool_process();
  tool_process(const tool_process&) = delete;
  tool_process& operator=(const tool_process&) = delete;

  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  void write(const std::string& name, const std::string& text);  // throws std::runtime_error
  // Starts argv[0] with the arguments; stdout and stderr go to path("out") and path("err").
  void start(std::vector<std::string> argv);  // throws std::runtime_error (fork failed)
  bool finished();  // non-blocking
  void kill();      // SIGKILL and reap, if it still runs
  // Polls until the child exits (true) or the deadline passes (false: the child was killed).
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  int exit_code() const;  // the exit status, or -1 if a signal ended it
  std::string out() const;
  std::string err() const;

 private:
  std::string dir_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = 0;
};

}  // namespace attncheck::bmc
