// attncheck: parallel worker processes for independent checks (see parallel.hpp for why fork).
#include "attncheck/property/parallel.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

namespace attncheck::property {

namespace wire {
void put_u64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_double(std::string& s, double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, sizeof v);
  put_u64(s, v);
}
void put_string(std::string& s, const std::string& t) {
  put_u64(s, t.size());
  s += t;
}
std::uint64_t Reader::u64() {
  if (b.size() < 8) return ok = false, 0;
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[i])) << (8 * i);
  b.remove_prefix(8);
  return v;
}
double Reader::f64() {
  const std::uint64_t v = u64();
  double d;
  std::memcpy(&d, &v, sizeof d);
  return d;
}
std::string Reader::str() {
  const std::uint64_t n = u64();
  if (!ok || n > b.size()) return ok = false, std::string();
  std::string s(b.substr(0, n));
  b.remove_prefix(n);
  return s;
}
}  // namespace wire

using wire::put_double;
using wire::put_string;
using wire::put_u64;
using wire::Reader;

int default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// ---- blocking pipe I/O (EINTR-safe) ----

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += static_cast<std::size_t>(w);
  }
  return true;
}

// false on EOF or error before n bytes.
bool read_all(int fd, char* p, std::size_t n) {
  std::size_t off = 0;
  while (off < n) {
    const ssize_t r = ::read(fd, p + off, n - off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    off += static_cast<std::size_t>(r);
  }
  return true;
}

bool read_u64(int fd, std::uint64_t& v) {
  char b[8];
  if (!read_all(fd, b, 8)) return false;
  Reader r{std::string_view(b, 8)};
  v = r.u64();
  return true;
}

// The worker: take an index, run it, send [index][length][outcome], until the parent closes.
[[noreturn]] void worker_main(int task_fd, int result_fd, const std::function<std::string(std::size_t)>& task,
                              const std::function<void()>& at_exit) {
  std::uint64_t i;
  while (read_u64(task_fd, i)) {
    const std::string body = task(static_cast<std::size_t>(i));
    std::string msg;
    put_u64(msg, i);
    put_u64(msg, body.size());
    msg += body;
    if (!write_all(result_fd, msg)) break;
  }
  if (at_exit) at_exit();
  std::fflush(nullptr);
  ::_exit(0);  // not exit(): the parent's atexit handlers and static destructors are not ours to run
}

struct Worker {
  pid_t pid = -1;
  int task_fd = -1, result_fd = -1;
  std::int64_t current = -1;  // the index it is running, -1 when idle
};

std::string wait_text(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(status))
    return "the worker process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "the worker process exited with status " + std::to_string(WEXITSTATUS(status));
  return "the worker process ended";
}

}  // namespace

// A field added to Outcome and forgotten here would silently vanish under -j N (while -j 1
// kept it). The size of Outcome on x86-64 with libstdc++ changes with every new field: when
// this fires, add the field to both functions below and update the number.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Outcome) == 416, "Outcome changed: put its new field on the wire (encode_outcome/decode_outcome)");
#endif

std::string encode_outcome(const Outcome& o) {
  std::string s;
  put_string(s, o.test_id);
  put_u64(s, static_cast<std::uint64_t>(o.dtype));
  put_string(s, o.kernels);
  put_u64(s, static_cast<std::uint64_t>(o.verdict));
  put_u64(s, static_cast<std::uint64_t>(static_cast<std::int64_t>(o.cases)));
  put_double(s, o.seconds);
  put_u64(s, o.seed);
  put_string(s, o.counterexample);
  put_string(s, o.message);
  put_double(s, o.worst_ratio);
  put_double(s, o.median_ratio);
  put_u64(s, o.observations);
  put_u64(s, o.unbounded);
  put_u64(s, o.certified.dbl);
  put_u64(s, o.certified.dd);
  put_u64(s, o.certified.mpfr);
  put_u64(s, o.certified.mpfi);
  put_u64(s, o.certified.uncertified);
  put_string(s, o.worst_case);
  put_double(s, o.counterexample_ratio);
  put_double(s, o.worst_failure_ratio);
  put_string(s, o.worst_failure);
  put_string(s, o.replay);
  put_u64(s, o.findings.size());
  for (const std::string& f : o.findings) put_string(s, f);
  // The sample series are variable-length: a count, then per series its strings, its counters,
  // its column names and its values (count, then each double by its bits).
  put_u64(s, o.samples.size());
  for (const SampleSeries& x : o.samples) {
    put_string(s, x.name);
    put_string(s, x.subject);
    put_u64(s, x.offered);
    put_u64(s, x.nonfinite);
    put_u64(s, x.columns.size());
    for (const std::string& c : x.columns) put_string(s, c);
    put_u64(s, x.points.size());
    for (double v : x.points) put_double(s, v);
  }
  // The coverage series: a count, then per series its generator, draws and (region, count) pairs.
  put_u64(s, o.coverage.size());
  for (const CoverageSeries& c : o.coverage) {
    put_string(s, c.generator);
    put_u64(s, c.draws);
    put_u64(s, c.regions.size());
    for (std::size_t k = 0; k < c.regions.size(); ++k) {
      put_string(s, c.regions[k]);
      put_u64(s, c.counts[k]);
    }
  }
  return s;
}

std::optional<Outcome> decode_outcome(std::string_view bytes) {
  Reader r{bytes};
  Outcome o;
  o.test_id = r.str();
  o.dtype = static_cast<Dtype>(r.u64());
  o.kernels = r.str();
  o.verdict = static_cast<Verdict>(r.u64());
  o.cases = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  o.seconds = r.f64();
  o.seed = r.u64();
  o.counterexample = r.str();
  o.message = r.str();
  o.worst_ratio = r.f64();
  o.median_ratio = r.f64();
  o.observations = r.u64();
  o.unbounded = r.u64();
  o.certified.dbl = r.u64();
  o.certified.dd = r.u64();
  o.certified.mpfr = r.u64();
  o.certified.mpfi = r.u64();
  o.certified.uncertified = r.u64();
  o.worst_case = r.str();
  o.counterexample_ratio = r.f64();
  o.worst_failure_ratio = r.f64();
  o.worst_failure = r.str();
  o.replay = r.str();
  const std::uint64_t findings = r.u64();
  for (std::uint64_t k = 0; r.ok && k < findings; ++k) o.findings.push_back(r.str());
  // Counts are checked against the bytes left before anything is reserved: a corrupt count
  // cannot make the parent allocate more than the message holds.
  const std::uint64_t series = r.u64();
  for (std::uint64_t k = 0; r.ok && k < series; ++k) {
    SampleSeries x;
    x.name = r.str();
    x.subject = r.str();
    x.offered = r.u64();
    x.nonfinite = r.u64();
    const std::uint64_t columns = r.u64();
    for (std::uint64_t c = 0; r.ok && c < columns; ++c) x.columns.push_back(r.str());
    const std::uint64_t values = r.u64();
    if (!r.ok || values > r.b.size() / 8) return std::nullopt;
    x.points.reserve(values);
    for (std::uint64_t v = 0; v < values; ++v) x.points.push_back(r.f64());
    o.samples.push_back(std::move(x));
  }
  const std::uint64_t covered = r.u64();
  for (std::uint64_t k = 0; r.ok && k < covered; ++k) {
    CoverageSeries c;
    c.generator = r.str();
    c.draws = r.u64();
    const std::uint64_t regions = r.u64();
    for (std::uint64_t j = 0; r.ok && j < regions; ++j) {
      c.regions.push_back(r.str());
      c.counts.push_back(r.u64());
    }
    o.coverage.push_back(std::move(c));
  }
  if (!r.ok || !r.b.empty()) return std::nullopt;
  return o;
}

std::vector<std::optional<std::string>> run_parallel_bytes(std::size_t n, int jobs, const std::function<std::string(std::size_t)>& task,
                                                           const ParallelBytesHooks& hooks) {
  std::vector<std::optional<std::string>> out(n);
  const auto stopping = [&] { return hooks.stop && hooks.stop(); };
  const auto finish = [&](std::size_t i, std::string o) {
    out[i] = std::move(o);
    if (hooks.on_done) hooks.on_done(i, *out[i]);
  };
  const auto run_here = [&](std::size_t from) {
    for (std::size_t i = from; i < n && !stopping(); ++i) {
      if (hooks.on_start) hooks.on_start(i);
      finish(i, task(i));
    }
  };
  if (jobs <= 1 || n <= 1) {
    run_here(0);
    return out;
  }
  // A worker may die mid-write; the parent must see EPIPE, not be killed by SIGPIPE.
  struct sigaction ignore{}, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);

  // The workers are forked here, before hooks.on_start first runs: the caller's progress line
  // starts its thread only then (cli/progress.hpp), so this process has one thread at each fork.
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(jobs), n);
  std::vector<Worker> workers;
  for (std::size_t w = 0; w < count; ++w) {
    int to_worker[2], to_parent[2];
    if (::pipe(to_worker) != 0) break;
    if (::pipe(to_parent) != 0) {
      ::close(to_worker[0]), ::close(to_worker[1]);
      break;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (int fd : {to_worker[0], to_worker[1], to_parent[0], to_parent[1]}) ::close(fd);
      break;
    }
    if (pid == 0) {
      ::signal(SIGINT, SIG_IGN);   // the parent finishes or abandons the run, not the worker
      ::signal(SIGTERM, SIG_IGN);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no orphan keeps computing after the parent quits
      if (::getppid() != parent) ::_exit(0);
      ::close(to_worker[1]);
      ::close(to_parent[0]);
      for (const Worker& other : workers) ::close(other.task_fd), ::close(other.result_fd);
      worker_main(to_worker[0], to_parent[1], task, hooks.worker_exit);
    }
    ::close(to_worker[0]);
    ::close(to_parent[1]);
    workers.push_back({pid, to_worker[1], to_parent[0], -1});
  }
  if (workers.empty()) {  // no process could be started: run here rather than fail
    ::sigaction(SIGPIPE, &old, nullptr);
    run_here(0);
    return out;
  }

  std::size_t next = 0;
  const auto hand_out = [&](Worker& w) {
    if (next < n && !stopping()) {
      std::string msg;
      put_u64(msg, next);
      if (write_all(w.task_fd, msg)) {
        if (hooks.on_start) hooks.on_start(next);
        w.current = static_cast<std::int64_t>(next++);
        return;
      }
    }
    w.current = -1;
    if (w.task_fd >= 0) ::close(w.task_fd), w.task_fd = -1;  // no more work: the worker exits
  };
  for (Worker& w : workers) hand_out(w);

  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owner;
    for (Worker& w : workers)
      if (w.result_fd >= 0 && w.current >= 0) {
        fds.push_back({w.result_fd, POLLIN, 0});
        owner.push_back(&w);
      }
    if (fds.empty()) break;  // nothing running: all done, stopped, or every worker gone
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = *owner[k];
      std::uint64_t idx = 0, len = 0;
      std::string body;
      bool ok = read_u64(w.result_fd, idx) && read_u64(w.result_fd, len) && len < (std::uint64_t{1} << 32);
      if (ok) {
        body.resize(len);
        ok = read_all(w.result_fd, body.data(), len);
      }
      if (ok && static_cast<std::int64_t>(idx) == w.current && (!hooks.valid || hooks.valid(body))) {
        finish(idx, std::move(body));
        hand_out(w);
        continue;
      }
      // The worker died (or spoke nonsense) while running w.current: that check is an ERROR.
      const auto i = static_cast<std::size_t>(w.current);
      ::close(w.result_fd), w.result_fd = -1;
      if (w.task_fd >= 0) ::close(w.task_fd), w.task_fd = -1;
      ::kill(w.pid, SIGKILL);
      const std::string why = wait_text(w.pid);
      w.pid = -1;
      w.current = -1;
      finish(i, hooks.error_result ? hooks.error_result(i, why + " while running this check") : std::string());
    }
  }
  for (Worker& w : workers) {
    if (w.task_fd >= 0) ::close(w.task_fd);
    if (w.result_fd >= 0) ::close(w.result_fd);
    if (w.pid > 0) wait_text(w.pid);
  }
  ::sigaction(SIGPIPE, &old, nullptr);
  // Every worker gone with work left (and no stop asked): run the rest here.
  if (next < n) run_here(next);
  return out;
}

std::vector<std::optional<Outcome>> run_parallel(std::size_t n, int jobs, const std::function<Outcome(std::size_t)>& task,
                                                 const ParallelHooks& hooks) {
  std::vector<std::optional<Outcome>> out(n);
  if (jobs <= 1 || n <= 1) {  // in this process: no wire form needed
    for (std::size_t i = 0; i < n && !(hooks.stop && hooks.stop()); ++i) {
      if (hooks.on_start) hooks.on_start(i);
      out[i] = task(i);
      if (hooks.on_done) hooks.on_done(i, *out[i]);
    }
    return out;
  }
  ParallelBytesHooks bytes;
  bytes.on_start = hooks.on_start;
  bytes.stop = hooks.stop;
  bytes.valid = [](std::string_view b) { return decode_outcome(b).has_value(); };
  bytes.error_result = [&](std::size_t i, const std::string& why) {
    return encode_outcome(hooks.error_outcome ? hooks.error_outcome(i, why) : Outcome{});
  };
  bytes.on_done = [&](std::size_t i, const std::string& b) {
    out[i] = decode_outcome(b);
    if (hooks.on_done) hooks.on_done(i, *out[i]);
  };
  run_parallel_bytes(n, jobs, [&](std::size_t i) { return encode_outcome(task(i)); }, bytes);
  return out;
}

}  // namespace attncheck::property
