// attncheck CLI: writing report files so that no reader ever sees a partial one, and stopping a
// run cleanly on SIGINT / SIGTERM.
#pragma once

#include <string>
#include <vector>

namespace attncheck::cli {

// The report files a run writes: (path, content), written in order by write_reports.
using ReportFiles = std::vector<std::pair<std::string, std::string>>;

// Writes each file atomically (write_atomically, cli.hpp). Returns false after printing the
// reason on the first failure; stops without writing anything more once interrupted().
bool write_reports(const ReportFiles& files);

// From now on, the first SIGINT or SIGTERM only sets a flag (the run finishes the check in
// progress, prints what it finished and writes no report); a second one ends the process at once,
// removing the temporary file of a report being written. A signal the parent set to be ignored
// (e.g. `nohup`) stays ignored.
void stop_on_interrupt();

// The signal that asked the run to stop, or 0.
int interrupted();

// The exit status of an interrupted run: 128 + the signal, as a shell reports it.
int interrupted_exit_status();

}  // namespace attncheck::cli
