// attncheck audit: the fork server behind `attncheck audit --lib`.
//
// Memory layout of the shared region (a memfd mapped in attncheck and in the child):
//   [input 0][input 1]...  ...  [canary 64 B][output][canary 64 B][guard page, PROT_NONE in the child]
// The output ends right before the trailing canary, so a write one element past the end changes
// a canary and a write further on hits the guard page (SIGSEGV in the child, recognised by its
// address). Inputs are compared with attncheck's own copies after every call.
#include "attncheck/audit/library_backend.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "attncheck/audit/fd_io.hpp"
#include "attncheck/abi.h"  // the signatures invoke() calls; also keeps the header C++-clean

namespace attncheck::audit {

namespace {

constexpr std::size_t canary_bytes = 64;
constexpr unsigned char canary_byte(std::size_t i) { return static_cast<unsigned char>(0xA5 ^ (i * 29)); }
constexpr unsigned char output_poison = 0xFF;  // an unwritten output element reads as NaN
constexpr double startup_seconds = 30;        // dlopen and the library's constructors

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// What travels over the request pipe: plain data, offsets into the shared region.
struct Request {
  std::uint32_t binding;
  std::uint32_t causal;
  std::uint64_t n, m, d, dv;
  double eps;
  std::uint64_t in_off[3];
  std::uint64_t out_off;
};
struct Response {
  std::int32_t guard_hit;  // 1: the child hit the guard page (sent by its SIGSEGV handler)
  std::int32_t rc;         // the kernel's return value
};

// ---- the child -----------------------------------------------------------------------------

int child_resp_fd = -1;
unsigned char* child_guard = nullptr;
std::size_t child_guard_size = 0;

// A SIGSEGV inside the guard page is an out-of-bounds write; anything else is left to the
// default action (SA_RESETHAND: returning re-runs the faulting access, which then kills us).
void on_segv(int, siginfo_t* info, void*) {
  auto* a = static_cast<unsigned char*>(info->si_addr);
  if (a >= child_guard && a < child_guard + child_guard_size) {
    const Response r{1, 0};
    (void)!::write(child_resp_fd, &r, sizeof r);
    ::_exit(0);
  }
}

// The casts below must match include/attncheck/abi.h; checked at compile time for f32.
static_assert(std::is_same_v<attncheck_softmax_f32_fn, int (*)(const float*, float*, std::size_t)>);
static_assert(std::is_same_v<attncheck_rmsnorm_bf16_fn, int (*)(const std::uint16_t*, const std::uint16_t*, std::size_t, float, std::uint16_t*)>);
static_assert(std::is_same_v<attncheck_attention_f64_fn, int (*)(const double*, const double*, const double*, std::size_t, std::size_t,
                                                                 std::size_t, std::size_t, int, double*)>);

template <class T, class S>
int invoke(Kind k, void* fn, const Request& r, unsigned char* base) {
  auto in = [&](int i) { return reinterpret_cast<const T*>(base + r.in_off[i]); };
  T* out = reinterpret_cast<T*>(base + r.out_off);
  switch (k) {
    case Kind::softmax:
    case Kind::log_softmax:
      return reinterpret_cast<int (*)(const T*, T*, std::size_t)>(fn)(in(0), out, r.n);
    case Kind::scores:
      return reinterpret_cast<int (*)(const T*, const T*, std::size_t, std::size_t, std::size_t, T*)>(fn)(
          in(0), in(1), r.n, r.m, r.d, out);
    case Kind::rmsnorm:
      return reinterpret_cast<int (*)(const T*, const T*, std::size_t, S, T*)>(fn)(in(0), in(1), r.d, static_cast<S>(r.eps), out);
    case Kind::entropy:
      return reinterpret_cast<int (*)(const T*, std::size_t, T*)>(fn)(in(0), r.n, out);
    case Kind::attention:
      return reinterpret_cast<int (*)(const T*, const T*, const T*, std::size_t, std::size_t, std::size_t, std::size_t, int, T*)>(fn)(
          in(0), in(1), in(2), r.n, r.m, r.d, r.dv, static_cast<int>(r.causal), out);
    case Kind::softmax_jvp:
      return reinterpret_cast<int (*)(const T*, const T*, std::size_t, T*)>(fn)(in(0), in(1), r.n, out);
  }
  return -1;
}

// Sends the startup message (empty = loaded) as a length and the text.
void send_startup(int fd, const std::string& msg) {
  const auto len = static_cast<std::uint32_t>(msg.size());
  (void)!::write(fd, &len, sizeof len);
  if (len) (void)!::write(fd, msg.data(), len);
}

[[noreturn]] void child_main(const std::string& path, const std::vector<Binding>& bindings, const Limits& limits,
                             unsigned char* region, std::size_t region_size, int req_fd, int resp_fd) {
  // A hung kernel must not outlive attncheck if attncheck itself is killed.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The kernel's own prints must not interleave with the verdict table on stdout.
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  // Limit the address space to what the child inherited plus the allowance.
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t as = static_cast<rlim_t>(pages) * page_size() + limits.memory_bytes;
  rlimit mem{as, as};
  ::setrlimit(RLIMIT_AS, &mem);

  child_resp_fd = resp_fd;
  child_guard_size = page_size();
  child_guard = region + region_size - child_guard_size;
  ::mprotect(child_guard, child_guard_size, PROT_NONE);
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  ::sigaction(SIGSEGV, &sa, nullptr);

  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    send_startup(resp_fd, std::string("cannot load ") + path + ": " + (e ? e : "unknown error"));
    ::_exit(0);
  }
  std::vector<void*> fns;
  for (const Binding& b : bindings) {
    void* f = ::dlsym(lib, b.symbol.c_str());
    if (!f) {
      send_startup(resp_fd, "symbol '" + b.symbol + "' (" + std::string(kind_name(b.kind)) + ":" +
                                std::string(dtype_name(b.dtype)) + ") not found in " + path);
      ::_exit(0);
    }
    fns.push_back(f);
  }
  send_startup(resp_fd, "");
  for (;;) {
    Request r{};
    if (::read(req_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(0);  // attncheck went away
    if (r.binding >= bindings.size()) ::_exit(3);
    const Binding& b = bindings[r.binding];
    int rc = -1;
    switch (b.dtype) {
      case Dtype::f32: rc = invoke<float, float>(b.kind, fns[r.binding], r, region); break;
      case Dtype::f64: rc = invoke<double, double>(b.kind, fns[r.binding], r, region); break;
      case Dtype::f16:
      case Dtype::bf16:
      case Dtype::f16_f32:
      case Dtype::bf16_f32: rc = invoke<std::uint16_t, float>(b.kind, fns[r.binding], r, region); break;
      case Dtype::e4m3:  // bmc's formats: no binding has them (parse_dtype refuses them)
      case Dtype::e5m2:
      case Dtype::e4m3sat: break;
    }
    const Response resp{0, rc};
    if (::write(resp_fd, &resp, sizeof resp) != static_cast<ssize_t>(sizeof resp)) ::_exit(0);
  }
}

}  // namespace

// ---- attncheck's side --------------------------------------------------------------------------

LibraryBackend::LibraryBackend(std::string path, std::vector<Binding> bindings, Limits limits)
    : path_(std::move(path)), bindings_(std::move(bindings)), limits_(limits) {
  ignore_sigpipe();
  region_fd_ = ::memfd_create("attncheck-audit", 0);
  if (region_fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  map_region(std::size_t{16} << 20);
  start();  // load now, so a missing library or symbol is a usage error before any verdict
}

LibraryBackend::~LibraryBackend() {
  stop();
  if (region_) ::munmap(region_, region_size_);
  if (region_fd_ >= 0) ::close(region_fd_);
}

void LibraryBackend::map_region(std::size_t bytes) {
  if (region_) ::munmap(region_, region_size_);
  region_size_ = align_up(bytes, page_size());
  if (::ftruncate(region_fd_, static_cast<off_t>(region_size_)) != 0)
    throw std::runtime_error(std::string("ftruncate: ") + std::strerror(errno));
  void* p = ::mmap(nullptr, region_size_, PROT_READ | PROT_WRITE, MAP_SHARED, region_fd_, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
  region_ = static_cast<unsigned char*>(p);
}

bool LibraryBackend::has(Kind k, Dtype d) const {
  return std::any_of(bindings_.begin(), bindings_.end(), [&](const Binding& b) { return b.kind == k && b.dtype == d; });
}

void LibraryBackend::start() {
  int req[2], resp[2];
  if (::pipe2(req, O_CLOEXEC) != 0 || ::pipe2(resp, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(req[1]);
    ::close(resp[0]);
    child_main(path_, bindings_, limits_, region_, region_size_, req[0], resp[1]);
  }
  ::close(req[0]);
  ::close(resp[1]);
  child_ = pid;
  req_fd_ = req[1];
  resp_fd_ = resp[0];
  std::uint32_t len = 0;
  const Io io = read_full(resp_fd_, &len, sizeof len, deadline_after(startup_seconds));
  if (io != Io::ok) {
    const Reply r = reap(io == Io::timeout ? "did not finish loading" : "");
    throw LoadError("loading " + path_ + ": the loader process " + r.detail);
  }
  if (len > 0) {
    std::string msg(std::min<std::uint32_t>(len, 4096), '\0');
    read_full(resp_fd_, msg.data(), msg.size(), deadline_after(5));
    stop();
    throw LoadError(msg);
  }
}

void LibraryBackend::stop() {
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    int st = 0;
    ::waitpid(child_, &st, 0);
  }
  child_ = -1;
  if (req_fd_ >= 0) ::close(req_fd_);
  if (resp_fd_ >= 0) ::close(resp_fd_);
  req_fd_ = resp_fd_ = -1;
}

Reply LibraryBackend::reap(const std::string& how) {
  Reply r;
  if (!how.empty()) {
    ::kill(child_, SIGKILL);
    r.status = Status::timed_out;
  } else {
    r.status = Status::crashed;
  }
  int st = 0;
  ::waitpid(child_, &st, 0);
  child_ = -1;
  r.code = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  r.detail = how.empty() ? describe_wait_status(st) : how;
  stop();
  return r;
}

Reply LibraryBackend::call(const Call& c) {
  auto it = std::find_if(bindings_.begin(), bindings_.end(), [&](const Binding& b) { return b.kind == c.kind && b.dtype == c.dtype; });
  if (it == bindings_.end()) throw KindAbsent(c.kind);
  const std::size_t es = dtype_size(c.dtype);
  const std::size_t out_bytes = c.output_count * es;
  // Size the region: inputs (64-byte aligned), two canaries, the output, the guard page.
  std::size_t in_bytes = 0;
  for (const auto& in : c.inputs) in_bytes += align_up(in.size(), 64);
  const std::size_t need = align_up(in_bytes + out_bytes + 4 * canary_bytes, page_size()) + page_size();
  if (need > region_size_) {
    stop();
    map_region(std::max(need, 2 * region_size_));
  }
  if (child_ < 0) start();

  Request req{};
  req.binding = static_cast<std::uint32_t>(it - bindings_.begin());
  req.causal = c.causal;
  req.n = c.n, req.m = c.m, req.d = c.d, req.dv = c.dv, req.eps = c.eps;
  std::size_t off = 0;
  for (std::size_t i = 0; i < c.inputs.size() && i < 3; ++i) {
    std::memcpy(region_ + off, c.inputs[i].data(), c.inputs[i].size());
    req.in_off[i] = off;
    off += align_up(c.inputs[i].size(), 64);
  }
  const std::size_t out_end = region_size_ - page_size() - canary_bytes;
  req.out_off = out_end - out_bytes;
  unsigned char* before = region_ + req.out_off - canary_bytes;
  unsigned char* after = region_ + out_end;
  for (std::size_t i = 0; i < canary_bytes; ++i) before[i] = after[i] = canary_byte(i);
  std::memset(region_ + req.out_off, output_poison, out_bytes);

  const Deadline deadline = deadline_after(limits_.timeout_seconds);
  if (write_full(req_fd_, &req, sizeof req, deadline) != Io::ok) return reap("");
  Response resp{};
  const Io io = read_full(resp_fd_, &resp, sizeof resp, deadline);
  if (io == Io::timeout) return reap("no answer within " + std::to_string(limits_.timeout_seconds).substr(0, 5) + " s");
  if (io != Io::ok) return reap("");

  Reply r;
  if (resp.guard_hit) {
    stop();  // the child has exited after reporting
    r.status = Status::out_of_bounds;
    r.detail = "wrote past the end of its output (hit the guard page, " + std::to_string(canary_bytes) +
               " or more bytes after the last output element)";
    return r;
  }
  for (std::size_t i = 0; i < canary_bytes; ++i)
    if (after[i] != canary_byte(i)) {
      r.status = Status::out_of_bounds;
      r.detail = "wrote past the end of its output (byte " + std::to_string(i) + " after element " +
                 std::to_string(c.output_count) + " of " + std::to_string(c.output_count) + " changed)";
      return r;
    }
  for (std::size_t i = canary_bytes; i-- > 0;)
    if (before[i] != canary_byte(i)) {
      r.status = Status::out_of_bounds;
      r.detail = "wrote before the start of its output (byte " + std::to_string(canary_bytes - i) + " before element 0 changed)";
      return r;
    }
  for (std::size_t i = 0; i < c.inputs.size() && i < 3; ++i)
    if (std::memcmp(region_ + req.in_off[i], c.inputs[i].data(), c.inputs[i].size()) != 0) {
      std::size_t at = 0;
      while (region_[req.in_off[i] + at] == c.inputs[i][at]) ++at;
      r.status = Status::modified_input;
      r.detail = "modified its input " + std::to_string(i) + " (element " + std::to_string(at / es) + " changed)";
      return r;
    }
  if (resp.rc != 0) {
    r.status = Status::declined;
    r.code = resp.rc;
    r.detail = "declined the input (returned " + std::to_string(resp.rc) + ")";
    return r;
  }
  r.status = Status::done;
  r.output.assign(region_ + req.out_off, region_ + req.out_off + out_bytes);
  return r;
}

}  // namespace attncheck::audit
