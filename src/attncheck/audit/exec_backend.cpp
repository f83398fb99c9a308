// attncheck audit: the exec-protocol client (see docs/audit-protocol.md).
#include "attncheck/audit/exec_backend.hpp"
#include "attncheck/audit/kinds/registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "attncheck/audit/call_watch.hpp"
#include "attncheck/audit/fd_io.hpp"
#include "attncheck/audit/protocol.hpp"

namespace attncheck::audit {

namespace {
constexpr double startup_seconds = 60;  // interpreters importing NumPy/SciPy on a loaded machine

// Reads one frame under the deadline. Returns the I/O outcome; throws ProtocolError on a bad frame.
Io read_frame(int fd, Deadline deadline, protocol::Header& h, std::vector<unsigned char>& payload, const Extension& extend = {}) {
  unsigned char head[protocol::header_bytes];
  if (const Io io = read_full(fd, head, sizeof head, deadline, extend); io != Io::ok) return io;
  h = protocol::decode_header(head);
  payload.resize(h.length);  // bounded by protocol::max_payload
  return h.length ? read_full(fd, payload.data(), h.length, deadline, extend) : Io::ok;
}

bool contains_any(const std::string& text, std::initializer_list<const char*> words) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return lower.find(w) != std::string::npos; });
}

// An ERROR text that reports an allocation failure: Python's MemoryError, C++'s std::bad_alloc,
// Node's "Array buffer allocation failed" / "JavaScript heap out of memory", malloc's ENOMEM text.
bool reports_allocation_failure(const std::string& text) {
  return contains_any(text, {"memoryerror", "bad_alloc", "out of memory", "allocation failed", "cannot allocate memory",
                             "failed to allocate", "unable to allocate"});
}

// An ERROR text that says the program does not serve the call's kind (attncheck.serve: "this program
// serves no attention_v2:f32 kernel", "unknown kind, dtype or arithmetic code").
bool reports_unserved_kind(const std::string& text) {
  return contains_any(text, {"kind", "serve", "support", "unknown", "not implemented"});
}

// How a peer's ERROR frame begins in a Reply's detail (ExecBackend::exchange), for serves().
constexpr std::string_view peer_error_prefix = "program reported an error: ";

std::string peer_error_text(const std::vector<unsigned char>& payload) {
  std::string s(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(payload.size(), protocol::max_error_text)));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') c = '?';
  return s;
}
}  // namespace

ExecBackend::ExecBackend(std::string command, std::vector<std::pair<Kind, Dtype>> kernels, Limits limits, int abi)
    : command_(std::move(command)), kernels_(std::move(kernels)), limits_(limits), abi_(abi) {
  ignore_sigpipe();
  start();
}

ExecBackend::~ExecBackend() { stop(); }

bool ExecBackend::has(Kind k, Dtype d) const {
  return std::any_of(kernels_.begin(), kernels_.end(), [&](const auto& kd) { return abi_kind(kd.first, abi_) == k && kd.second == d; });
}

void ExecBackend::start() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group, so a timeout kills the shell and everything it started
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and it does not outlive a killed attncheck
    // The program starts afresh at exec, so the whole allowance is its address space; no cores.
    const rlimit core{0, 0}, mem{limits_.memory_bytes, limits_.memory_bytes};
    ::setrlimit(RLIMIT_CORE, &core);
    ::setrlimit(RLIMIT_AS, &mem);
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(in[0]);
  ::close(out[1]);
  child_ = pid;
  watched_.clear();  // a new process: CallWatch finds its members again
  to_peer_ = in[1];
  from_peer_ = out[0];
  ::fcntl(to_peer_, F_SETFL, O_NONBLOCK);
  ::fcntl(from_peer_, F_SETFL, O_NONBLOCK);

  const Deadline deadline = deadline_after(startup_seconds);
  const auto hello = protocol::encode_hello();
  std::string why;
  try {
    protocol::Header h;
    std::vector<unsigned char> payload;
    // A peer may answer and exit before reading HELLO: a failed write is judged by what it sent.
    Io io = write_full(to_peer_, hello.data(), hello.size(), deadline);
    if (io != Io::timeout) io = read_frame(from_peer_, deadline, h, payload);
    if (io == Io::timeout) why = "sent no HELLO within " + std::to_string(static_cast<int>(startup_seconds)) + " s";
    else if (io != Io::ok)
      why = "closed";  // said below, from how the program ended
    else if (h.type == protocol::Type::error) why = "reported an error: " + peer_error_text(payload);
    else if (h.type != protocol::Type::hello || payload.size() != 4) why = "answered HELLO with a frame of another type or size";
    else if (payload[0] != protocol::version || payload[1] || payload[2] || payload[3])
      why = "speaks protocol version " + std::to_string(payload[0]) + ", attncheck speaks " + std::to_string(protocol::version) +
            protocol::version_note(payload[0]);
  } catch (const protocol::ProtocolError& e) {
    why = std::string("sent a malformed HELLO: ") + e.what();
  }
  if (!why.empty()) {
    int st = 0;
    ::kill(-child_, SIGKILL);
    ::waitpid(child_, &st, 0);
    child_ = -1;
    stop();
    if (why == "closed") {
      // How it ended says why: the shell's 127 and 126 are a program that could not start at all
      // (its own message is on stderr above); anything else may be the address-space limit.
      const std::string memory = " (it runs under an address-space limit of --memory " + std::to_string(limits_.memory_bytes >> 20) +
                                 " MiB; an interpreter that reserves more at start needs a larger --memory)";
      if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        why = "could not be started: command not found (the shell exited with status 127; its message is above)";
      else if (WIFEXITED(st) && WEXITSTATUS(st) == 126)
        why = "could not be started: not executable (the shell exited with status 126; its message is above)";
      else if (WIFEXITED(st))
        // Its own messages (an ImportError, a usage line) say why; the limit only if they speak of memory.
        why = "exited with status " + std::to_string(WEXITSTATUS(st)) + " before HELLO (its own messages, above, say why; if they " +
              "speak of memory, it ran into the address-space limit of --memory " + std::to_string(limits_.memory_bytes >> 20) +
              " MiB, which an interpreter that reserves more at start needs raised)";
      else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
        why = "was killed by signal " + std::to_string(WTERMSIG(st)) + " before HELLO" + memory;
      else
        why = "closed its output before HELLO" + memory;
    }
    throw LoadError("program '" + command_ + "' " + why);
  }
}

void ExecBackend::stop() {
  if (child_ > 0) {
    ::kill(-child_, SIGKILL);
    int st = 0;
    ::waitpid(child_, &st, 0);
  }
  child_ = -1;
  if (to_peer_ >= 0) ::close(to_peer_);
  if (from_peer_ >= 0) ::close(from_peer_);
  to_peer_ = from_peer_ = -1;
}

Reply ExecBackend::fault(Status s, const std::string& detail) {
  Reply r;
  r.status = s;
  r.detail = detail;
  if (s == Status::crashed && child_ > 0) {
    // The peer closed its pipe: give it a moment to exit so the report can say how.
    int st = 0;
    for (int i = 0; i < 100 && ::waitpid(child_, &st, WNOHANG) == 0; ++i) ::usleep(10000);
    if (WIFSIGNALED(st) || WIFEXITED(st)) {
      r.detail = "program " + describe_wait_status(st);
      r.code = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
      child_ = -1;
    }
  }
  stop();
  return r;
}

Reply ExecBackend::call(const Call& c) {
  if (!has(c.kind, c.dtype)) throw KindAbsent(kind_label(c.kind));
  return exchange(c);
}

ExecBackend::Served ExecBackend::serves(Kind k, Dtype d) {
  Call c;
  c.kind = k;
  c.dtype = d;
  descriptor_of(k).smallest_call(c);  // the kind's smallest input (its descriptor, kinds/)
  const Reply r = exchange(c);
  if (r.status == Status::done || r.status == Status::declined) return Served::yes;
  if (r.status == Status::protocol_error && r.detail.rfind(peer_error_prefix, 0) == 0 &&
      reports_unserved_kind(r.detail.substr(peer_error_prefix.size())))
    return Served::no;
  return Served::unknown;
}

std::string ExecBackend::fails_every_call(Kind k, Dtype d) {
  const KindDescriptor& kind = descriptor_of(k);
  Call c;
  c.kind = k;
  c.dtype = d;
  kind.smallest_call(c);
  const auto error_text = [](const Reply& r) {
    return r.status == Status::protocol_error && r.detail.rfind(peer_error_prefix, 0) == 0 ? r.detail.substr(peer_error_prefix.size())
                                                                                          : std::string();
  };
  const std::string first = error_text(exchange(c));
  if (first.empty()) return "";
  // The same call with every storage element 0.5 (the LSE, offsets and FP8 codes as they were).
  const std::string storage(storage_name(d));
  const std::uint64_t half = storage == "f64" ? 0x3fe0000000000000u : storage == "f32" ? 0x3f000000u : storage == "bf16" ? 0x3f00u : 0x3800u;
  const std::size_t es = dtype_size(d);
  for (std::size_t i = 0; i < c.inputs.size() && i < kind.wire_inputs; ++i)
    if (kind.arrays[i].element == Element::storage)
      for (std::size_t at = 0; at + es <= c.inputs[i].size(); at += es) std::memcpy(c.inputs[i].data() + at, &half, es);  // little-endian
  const std::string second = error_text(exchange(c));
  return second == first ? first : "";
}

Reply ExecBackend::exchange(const Call& c) {
  if (child_ < 0) start();
  std::vector<unsigned char> frame;
  try {
    frame = protocol::encode_call(c);
  } catch (const protocol::ProtocolError& e) {
    // A call too large for one frame is attncheck's limit, not the kernel's fault: judged as a
    // declined input (never a failure), and the report says why.
    Reply r;
    r.status = Status::declined;
    r.detail = std::string("not sent: ") + e.what() + " (" + std::to_string(protocol::max_payload >> 20) +
               " MiB, docs/audit-protocol.md); audit this shape with --lib";
    return r;
  }
  // The program's process group (it may have started others): judged on the CPU time it used.
  CallWatch watch(child_, /*whole_group=*/true, call_timeout_seconds(c, limits_.timeout_seconds), watched_);
  const Deadline deadline = watch.first();
  const Extension extend = watch.extension();
  Io io = write_full(to_peer_, frame.data(), frame.size(), deadline, extend);
  if (io == Io::timeout) return fault(Status::timed_out, watch.why());
  if (io != Io::ok) return fault(Status::crashed, "program closed its input");
  protocol::Header h;
  std::vector<unsigned char> payload;
  try {
    io = read_frame(from_peer_, deadline, h, payload, extend);
    if (io == Io::timeout) return fault(Status::timed_out, watch.why());
    if (io != Io::ok) return fault(Status::crashed, "program closed its output without answering");
    if (h.type == protocol::Type::error) {
      const std::string text = peer_error_text(payload);
      if (reports_allocation_failure(text))
        return fault(Status::out_of_memory, "ran out of memory (the program reported: " + text + ") under attncheck's limit of --memory " +
                                                std::to_string(limits_.memory_bytes >> 20) + " MiB of address space");
      // The kind-8 hint only when it applies: the program said it does not serve the call's kind,
      // and it has answered no kind-8 call of this audit.
      const bool unserved_v2 = c.kind == Kind::attention_v2 && !answered_v2_ && reports_unserved_kind(text);
      return fault(Status::protocol_error,
                   std::string(peer_error_prefix) + text +
                       (unserved_v2 ? " (the call was kind 8, attention of ABI version 2, sent because of --abi 2 or abi: 2: a program "
                                      "serving version 1's attention, kind 6, is audited without it; docs/audit-protocol.md)"
                                    : ""));
    }
    if (h.type != protocol::Type::result) throw protocol::ProtocolError("expected a RESULT frame, got type " + std::to_string(static_cast<int>(h.type)));
    const bool lse_part = returns_o_lse(c.kind);  // RESULT with an LSE part
    const auto res = protocol::decode_result(payload, c.dtype, c.output_count,
                                             lse_part ? std::optional<std::uint64_t>(c.lse_count) : std::nullopt,
                                             output_size(c.kind, c.dtype));
    Reply r;
    if (c.kind == Kind::attention_v2) answered_v2_ = true;  // it serves kind 8 (a RESULT, done or declined)
    if (res.status != 0) {
      r.status = Status::declined;
      r.code = res.status;
      r.detail = "declined the input (status " + std::to_string(res.status) + ")";
      return r;
    }
    r.status = Status::done;
    r.output = res.output;
    r.lse = res.lse;
    return r;
  } catch (const protocol::ProtocolError& e) {
    return fault(Status::protocol_error, std::string("sent a malformed frame: ") + e.what());
  }
}

}  // namespace attncheck::audit
