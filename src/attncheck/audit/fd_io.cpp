// attncheck audit: pipe I/O with deadlines, and wait statuses in words.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "attncheck/audit/fd_io.hpp"

namespace attncheck::audit {

namespace {
// Waits until fd is ready for events or the deadline passes (and extend gives no later one).
// The deadline is updated to the last one extend gave, for the rest of the same transfer.
Io wait_ready(int fd, short events, Deadline& deadline, const Extension& extend) {
  for (;;) {
    // Rounded up to whole milliseconds (poll's unit): the deadline is never declared passed before
    // it is, as truncation did (a call watched for 0.3 s was judged at 0.299 s).
    const auto rest = deadline - std::chrono::steady_clock::now();
    const auto left = rest <= std::chrono::steady_clock::duration::zero() ? 0 : std::chrono::ceil<std::chrono::milliseconds>(rest).count();
    if (left <= 0) {
      if (!extend) return Io::timeout;
      const auto next = extend();
      if (!next) return Io::timeout;
      deadline = *next;
      continue;
    }
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (r > 0) return Io::ok;
    if (r < 0 && errno != EINTR) return Io::error;
  }
}
}  // namespace

Deadline deadline_after(double seconds) {
  return std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<long long>(seconds * 1e6));
}

Io read_full(int fd, void* buf, std::size_t n, Deadline deadline, const Extension& extend) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    if (const Io w = wait_ready(fd, POLLIN, deadline, extend); w != Io::ok) return w;
    const ssize_t r = ::read(fd, p, n);
    if (r == 0) return Io::eof;
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Io::error;
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return Io::ok;
}

Io write_full(int fd, const void* buf, std::size_t n, Deadline deadline, const Extension& extend) {
  const auto* p = static_cast<const unsigned char*>(buf);
  while (n > 0) {
    if (const Io w = wait_ready(fd, POLLOUT, deadline, extend); w != Io::ok) return w;
    const ssize_t r = ::write(fd, p, n);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return errno == EPIPE ? Io::eof : Io::error;
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return Io::ok;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(s);
    return "crashed (signal " + std::to_string(s) + ", SIG" + (abbrev ? abbrev : "?") + ": " + strsignal(s) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

void ignore_sigpipe() { ::signal(SIGPIPE, SIG_IGN); }

}  // namespace attncheck::audit
