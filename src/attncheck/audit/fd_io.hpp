// attncheck audit: reading and writing pipes with a deadline (the peer may hang or die).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace attncheck::audit {

using Deadline = std::chrono::steady_clock::time_point;

enum class Io { ok, eof, timeout, error };

// Asked when a deadline passes: the next deadline to wait until, or nullopt when the time is up
// (call_watch.hpp's CallWatch, which looks at what the peer process did meanwhile).
using Extension = std::function<std::optional<Deadline>()>;

// Reads exactly n bytes unless the peer closes (eof), the deadline passes (and extend, if given,
// gives no later one) or the fd fails.
Io read_full(int fd, void* buf, std::size_t n, Deadline deadline, const Extension& extend = {});
// Writes exactly n bytes; a closed reader (EPIPE) is eof.
Io write_full(int fd, const void* buf, std::size_t n, Deadline deadline, const Extension& extend = {});

Deadline deadline_after(double seconds);

// "crashed (signal 11, SIGSEGV: Segmentation fault)" or "exited with status 3" from a wait status.
std::string describe_wait_status(int status);

// SIGPIPE would kill attncheck when an audited child dies mid-write: ignore it, see EPIPE.
void ignore_sigpipe();

}  // namespace attncheck::audit
