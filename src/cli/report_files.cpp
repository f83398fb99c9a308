// attncheck CLI: atomic report files and the SIGINT/SIGTERM handling of long runs.
#include "cli/report_files.hpp"

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/cli.hpp"

namespace attncheck::cli {

namespace fs = std::filesystem;

namespace {
volatile std::sig_atomic_t stop_signal = 0;

// The temporary file being written, for the handler of a second signal to remove (unlink is
// async-signal-safe; the buffer is filled before the file exists and cleared after the rename).
char pending_tmp[4096];
std::atomic<bool> pending{false};

extern "C" void on_signal(int sig) {
  // SIGTERM (a CI job's timeout, kill) stops at once: no report, the temporary file removed, the
  // kernel processes gone with us (they run with PR_SET_PDEATHSIG). SIGINT (Ctrl-C) finishes the
  // check in progress and reports what finished; a second one quits at once.
  if (sig == SIGTERM) {
    if (pending.load()) ::unlink(pending_tmp);
    static const char msg[] = "\nattncheck: terminated (SIGTERM); stopping now, no report written\n";
    const ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  if (stop_signal != 0) {  // second signal: the user insists
    if (pending.load()) ::unlink(pending_tmp);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  stop_signal = sig;
  static const char msg[] = "\nattncheck: interrupted; finishing the check in progress (interrupt again to quit now)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

void install(int sig) {
  struct sigaction old {};
  if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a read or write in progress (e.g. an exec kernel's pipe) goes on
  ::sigaction(sig, &sa, nullptr);
}
}  // namespace

void stop_on_interrupt() {
  install(SIGINT);
  install(SIGTERM);
}

int interrupted() { return stop_signal; }

int interrupted_exit_status() { return 128 + (stop_signal ? stop_signal : SIGINT); }

// The temporary file lives in the report's own directory (so the rename cannot cross file
// systems), is hidden, and carries the process ID (so two runs writing the same report do not
// share one). fsync before the rename: after a crash the report is the old one or the new one.
void write_atomically(const std::string& path, const std::string& content) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp = (dir / ("." + target.filename().string() + "." + std::to_string(::getpid()) + ".tmp")).string();
  if (tmp.size() >= sizeof pending_tmp) throw std::runtime_error("report path too long: '" + path + "'");
  std::memcpy(pending_tmp, tmp.c_str(), tmp.size() + 1);
  pending.store(true);
  const auto fail = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    pending.store(false);
    throw std::runtime_error("cannot " + what + " '" + tmp + "' for '" + path + "': " + reason);
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const std::string reason = std::strerror(errno);
    pending.store(false);
    throw std::runtime_error("cannot write '" + path + "': " + reason + " (check that the directory exists and is writable)");
  }
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) {  // EINVAL: a special file (e.g. /dev/stdout) cannot sync
    ::close(fd);
    fail("sync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
  pending.store(false);
}

bool write_reports(const ReportFiles& files) {
  try {
    for (const auto& [path, content] : files) {
      if (interrupted()) return false;
      write_atomically(path, content);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return false;
  }
  return true;
}

void add_report_options(CLI::App& app, ReportFileOptions& o, const ReportFileOptionHelp& help) {
  app.add_option("--json", o.json, "Also write a JSON report to FILE (" + help.json_schema + ")");
  app.add_option("--junit", o.junit, "Also write a JUnit XML report to FILE (" + help.junit_cases + ")");
  app.add_option("--sarif", o.sarif,
                 "Also write a SARIF 2.1.0 report to FILE: one result per failing check and obligation, at the "
                 "obligation's line in its contract YAML" + help.sarif_note);
  app.add_option("--markdown", o.markdown, "Also write a Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)");
  app.add_option("--html", o.html,
                 "Also write one self-contained HTML page to FILE: verdicts and plots, rendered from this run's JSON "
                 "report (as `attncheck report --html` would)");
  app.add_flag("--no-timings", o.no_timings,
               "Leave every time out of the reports (the JSON \"timings\" object; \"seconds\" are 0), so the same " +
                   help.same_inputs + " give byte-identical reports");
  app.add_flag("-q,--quiet", o.quiet, "No progress line and no table: only failures, notes and the summary line");
  app.add_flag("-v,--verbose", o.verbose,
               "Print RapidCheck's draw log (its \"Drawn TYPE: ...\" lines) under each counterexample; the JSON report "
               "always has it");
  app.add_flag("--coverage", o.coverage,
               "Print each check's generator coverage: per generator, the inputs drawn and how many reached each input "
               "region it names (row lengths, spreads, negative maxima, subnormals, ties, near overflow, masked "
               "entries); the JSON report always has it (\"coverage\")");
}

}  // namespace attncheck::cli
