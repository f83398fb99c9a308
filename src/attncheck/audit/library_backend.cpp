// attncheck audit: the fork server behind `attncheck audit --lib`.
//
// Memory layout of the shared region (a memfd mapped in attncheck and in the child):
//   [input 0][input 1]...  ...  [canary 64 B][output][canary 64 B][guard page, PROT_NONE in the child]
// The output ends right before the trailing canary, so a write one element past the end changes
// a canary and a write further on hits the guard page (SIGSEGV in the child, recognised by its
// address). Inputs are compared with attncheck's own copies after every call.
//
// ABI version 2's attention has a second output, the LSE, and two more inputs, the problem struct
// and the ALiBi slopes (abi.h):
//   [q][k][v][problem][slopes] ... [canary][lse][canary][guard page 2] ... [canary][o][canary][guard page]
// Guard page 2 is made PROT_NONE by the child for the call only (its place depends on the sizes).
// The backward pass (attention_backward) has three outputs, dQ, dK and dV, each so guarded
// (dQ at the end, dK and dV below it with guard pages 2 and 3), and inputs q, k, v, o, dO, lse.
// The merge of split-KV partial results (attention_merge) is laid out as attention_v2 without a
// problem: inputs o_parts, lse_parts; outputs o (at the end) and, unless lse is NULL, the LSE.
// A packed variable-length batch (attention_varlen) is laid out as attention_v2 with two more
// inputs after v, the offsets cu_seqlens_q and cu_seqlens_k (B + 1 int32 each), compared after the
// call like every input: [q][k][v][cu_seqlens_q][cu_seqlens_k][problem][slopes] ... lse ... o.
// Attention over a paged KV cache (attention_paged) likewise, with the caches in place of k and v
// and three int32 arrays, all compared after the call: [q][k_cache][v_cache][cu_seqlens_q]
// [seqused_k][block_table][problem][slopes] ... lse ... o; its three size_t scalars travel in the
// request. Attention over an FP8 KV cache (attention_fp8kv) is attention_v2 with the codes in place
// of k and v (one byte per element) and the two scale arrays after them, compared after the call:
// [q][k codes][v codes][k_scale][v_scale][problem][slopes] ... lse ... o; the format and the scale
// count travel in the request. The cache write (kv_quantize) has one input and one output of
// one-byte codes, guarded as every output: [x] ... [canary][codes][canary][guard page]; its format,
// overflow rule and scale travel in the request.
// The problem's alibi_slopes pointer points into the region: the child is a fork of attncheck
// and maps the region at the same address.
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

#include "attncheck/audit/call_watch.hpp"
#include "attncheck/audit/fd_io.hpp"
#include "attncheck/audit/kinds/registry.hpp"
#include "attncheck/abi.h"  // the signatures invoke() calls; also keeps the header C++-clean

namespace attncheck::audit {

namespace {

constexpr std::size_t canary_bytes = 64;
constexpr unsigned char canary_byte(std::size_t i) { return static_cast<unsigned char>(0xA5 ^ (i * 29)); }
constexpr unsigned char output_poison = 0xFF;  // an unwritten output element reads as NaN
constexpr double startup_seconds = 30;        // dlopen and the library's constructors

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// What travels over the request pipe (kinds/library_call.hpp: the descriptors' calls read it).
using Request = LibraryRequest;
constexpr int max_inputs = max_library_inputs, max_outputs = max_library_outputs;
struct Response {
  std::int32_t guard_hit;  // 1 + the output whose guard page the child hit (sent by its SIGSEGV handler)
  std::int32_t rc;         // the kernel's return value
};

// ---- the child -----------------------------------------------------------------------------

int child_resp_fd = -1;
unsigned char* child_guard = nullptr;
std::size_t child_guard_size = 0;
unsigned char* volatile child_guards[max_outputs - 1] = {};  // outputs 1 and 2's guard pages during a call

// A SIGSEGV inside a guard page is an out-of-bounds write; anything else is left to the
// default action (SA_RESETHAND: returning re-runs the faulting access, which then kills us).
void on_segv(int, siginfo_t* info, void*) {
  auto* a = static_cast<unsigned char*>(info->si_addr);
  int hit = a >= child_guard && a < child_guard + child_guard_size ? 1 : 0;
  for (int g = 0; g < max_outputs - 1 && !hit; ++g) {
    unsigned char* const p = child_guards[g];
    if (p && a >= p && a < p + child_guard_size) hit = g + 2;
  }
  if (hit) {
    const Response r{hit, 0};
    (void)!::write(child_resp_fd, &r, sizeof r);
    ::_exit(0);
  }
}

// The casts of the kinds' calls (their descriptors' invoke, kinds/) must match include/attncheck/abi.h;
// checked at compile time here for some formats.
static_assert(std::is_same_v<attncheck_softmax_f32_fn, int (*)(const float*, float*, std::size_t)>);
static_assert(std::is_same_v<attncheck_rmsnorm_bf16_fn, int (*)(const std::uint16_t*, const std::uint16_t*, std::size_t, float, std::uint16_t*)>);
static_assert(std::is_same_v<attncheck_attention_f64_fn, int (*)(const double*, const double*, const double*, std::size_t, std::size_t,
                                                                 std::size_t, std::size_t, int, double*)>);
static_assert(std::is_same_v<attncheck_attention_v2_bf16_fn, int (*)(const attncheck_attention_problem*, const std::uint16_t*, const std::uint16_t*,
                                                                     const std::uint16_t*, std::uint16_t*, float*)>);
static_assert(std::is_same_v<attncheck_attention_v2_f64_fn, int (*)(const attncheck_attention_problem*, const double*, const double*,
                                                                    const double*, double*, double*)>);

static_assert(std::is_same_v<attncheck_attention_backward_v2_bf16_fn,
                             int (*)(const attncheck_attention_problem*, const std::uint16_t*, const std::uint16_t*, const std::uint16_t*,
                                     const std::uint16_t*, const std::uint16_t*, const float*, std::uint16_t*, std::uint16_t*, std::uint16_t*)>);
static_assert(std::is_same_v<attncheck_attention_merge_v2_bf16_fn,
                             int (*)(std::size_t, std::size_t, std::size_t, const std::uint16_t*, const float*, std::uint16_t*, float*)>);
static_assert(std::is_same_v<attncheck_attention_merge_v2_f64_fn,
                             int (*)(std::size_t, std::size_t, std::size_t, const double*, const double*, double*, double*)>);
static_assert(std::is_same_v<attncheck_attention_varlen_v2_bf16_fn,
                             int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*, const std::uint16_t*,
                                     const std::uint16_t*, const std::uint16_t*, std::uint16_t*, float*)>);
static_assert(std::is_same_v<attncheck_attention_varlen_v2_f64_fn,
                             int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*, const double*,
                                     const double*, const double*, double*, double*)>);
static_assert(std::is_same_v<attncheck_attention_paged_v2_bf16_fn,
                             int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*, const std::int32_t*,
                                     std::size_t, std::size_t, std::size_t, const std::uint16_t*, const std::uint16_t*, const std::uint16_t*,
                                     std::uint16_t*, float*)>);
static_assert(std::is_same_v<attncheck_attention_paged_v2_f64_fn,
                             int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*, const std::int32_t*,
                                     std::size_t, std::size_t, std::size_t, const double*, const double*, const double*, double*, double*)>);

static_assert(std::is_same_v<attncheck_attention_fp8kv_v2_bf16_fn,
                             int (*)(const attncheck_attention_problem*, int, std::size_t, const float*, const float*, const std::uint16_t*,
                                     const std::uint8_t*, const std::uint8_t*, std::uint16_t*, float*)>);
static_assert(std::is_same_v<attncheck_attention_fp8kv_v2_f64_fn,
                             int (*)(const attncheck_attention_problem*, int, std::size_t, const float*, const float*, const double*,
                                     const std::uint8_t*, const std::uint8_t*, double*, double*)>);
static_assert(std::is_same_v<attncheck_kv_quantize_v2_bf16_fn, int (*)(int, int, std::size_t, float, const std::uint16_t*, std::uint8_t*)>);
static_assert(std::is_same_v<attncheck_kv_quantize_v2_f64_fn, int (*)(int, int, std::size_t, float, const double*, std::uint8_t*)>);

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
    // A name without a '/' is looked up on the library search path, not in the working directory.
    const bool bare = path.find('/') == std::string::npos;
    send_startup(resp_fd, std::string("cannot load ") + path + ": " + (e ? e : "unknown error") +
                              (bare ? " (a name without '/' is searched for on the library path, not here: say ./" + path + " for a file in this folder)" : ""));
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
  // The ABI version marker (abi.h, ATTNCHECK_EXPORT_ABI_VERSION); 0: the library has none.
  std::uint32_t abi = 0;
  if (void* v = ::dlsym(lib, "attncheck_abi_version")) abi = reinterpret_cast<std::uint32_t (*)()>(v)();
  send_startup(resp_fd, "");
  (void)!::write(resp_fd, &abi, sizeof abi);
  for (;;) {
    Request r{};
    if (::read(req_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(0);  // attncheck went away
    if (r.binding >= bindings.size()) ::_exit(3);
    const Binding& b = bindings[r.binding];
    const Kind kind = static_cast<Kind>(r.kind);
    for (std::uint32_t g = 1; g < r.outputs && g < max_outputs; ++g) {
      child_guards[g - 1] = region + r.guard_off[g - 1];
      ::mprotect(child_guards[g - 1], child_guard_size, PROT_NONE);
    }
    // The kind's call of its signature (its descriptor, kinds/); -1 for a kind that has none.
    const KindDescriptor* kd = find_kind(static_cast<std::uint8_t>(kind));
    const int rc = kd && kd->invoke ? kd->invoke(fns[r.binding], LibraryArgs{r, region}, b.dtype) : -1;
    for (auto& g : child_guards)
      if (g) {
        ::mprotect(g, child_guard_size, PROT_READ | PROT_WRITE);
        g = nullptr;
      }
    const Response resp{0, rc};
    if (::write(resp_fd, &resp, sizeof resp) != static_cast<ssize_t>(sizeof resp)) ::_exit(0);
  }
}

}  // namespace

// ---- attncheck's side --------------------------------------------------------------------------

LibraryBackend::LibraryBackend(std::string path, std::vector<Binding> bindings, Limits limits, int declared_abi)
    : path_(std::move(path)), bindings_(std::move(bindings)), limits_(limits), declared_abi_(declared_abi) {
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
  return std::any_of(bindings_.begin(), bindings_.end(), [&](const Binding& b) { return abi_kind(b.kind, abi_) == k && b.dtype == d; });
}

void LibraryBackend::start() {
  int req[2], resp[2];
  if (::pipe2(req, O_CLOEXEC) != 0 || ::pipe2(resp, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  (void)registered_kinds();  // the registry built before the fork: the child looks kinds up without allocating
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
  watched_.clear();  // a new process: CallWatch finds its members again
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
  std::uint32_t marker = 0;
  if (read_full(resp_fd_, &marker, sizeof marker, deadline_after(startup_seconds)) != Io::ok) {
    const Reply r = reap("");
    throw LoadError("loading " + path_ + ": the loader process " + r.detail + " in attncheck_abi_version()");
  }
  std::string why;
  if (marker != 0 && (marker < static_cast<std::uint32_t>(min_abi_version) || marker > static_cast<std::uint32_t>(max_abi_version)))
    why = path_ + " exports attncheck_abi_version() = " + std::to_string(marker) + ", and this attncheck speaks ABI versions " +
          std::to_string(min_abi_version) + " to " + std::to_string(max_abi_version) + " (include/attncheck/abi.h)";
  else if (marker != 0 && declared_abi_ != 0 && static_cast<int>(marker) != declared_abi_)
    why = path_ + " exports attncheck_abi_version() = " + std::to_string(marker) + ", but ABI version " + std::to_string(declared_abi_) +
          " was declared (--abi or abi: in the bindings file): drop the declaration, or check that this is the library you meant";
  if (!why.empty()) {
    stop();
    throw LoadError(why);
  }
  abi_ = marker != 0 ? static_cast<int>(marker) : declared_abi_ != 0 ? declared_abi_ : 1;
  for (const Binding& b : bindings_)
    if (abi2_only(b.kind) && abi_ < 2) {
      stop();
      throw LoadError(std::string(kind_name(b.kind)) + " is a kind of ABI version 2 (include/attncheck/abi.h), and " + path_ +
                      " is version 1: put ATTNCHECK_EXPORT_ABI_VERSION in it, or declare it with --abi 2 (abi: 2 in a bindings file)");
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
  auto it = std::find_if(bindings_.begin(), bindings_.end(),
                         [&](const Binding& b) { return abi_kind(b.kind, abi_) == c.kind && b.dtype == c.dtype; });
  if (it == bindings_.end()) throw KindAbsent(kind_label(c.kind));
  const KindDescriptor& kind = descriptor_of(c.kind);
  const bool bwd = c.kind == Kind::attention_backward, fp8kv = c.kind == Kind::attention_fp8kv, quantize = kind.byte_output;
  const std::size_t es = dtype_size(c.dtype);
  // The outputs, each between two canaries and before a guard page: the kind's one output, or
  // attention_v2's, the merge's, varlen's or paged's o and LSE, or the backward's dQ, dK, dV (in the order of Reply::output).
  struct Out {
    std::string name;
    std::size_t bytes, count, off = 0, guard = 0;
  };
  std::vector<Out> outs;
  if (bwd) {
    const auto& sh = c.problem.shape;
    outs = {{"output dq", sh.q_size() * es, sh.q_size()}, {"output dk", sh.k_size() * es, sh.k_size()}, {"output dv", sh.v_size() * es, sh.v_size()}};
  } else {
    const bool o_lse = returns_o_lse(c.kind);  // outputs named o and lse
    outs = {{o_lse ? "output o" : quantize ? "output codes" : "output", c.output_count * output_size(c.kind, c.dtype), c.output_count}};
    if (o_lse && c.lse_count) outs.push_back({"output lse", c.lse_count * lse_size(c.dtype), c.lse_count});
  }
  // The inputs the kernel must leave unchanged: the kind's own (q, k, v; the backward's o, dO and
  // lse too; the merge's o_parts and lse_parts; varlen's two offset arrays; paged's three int32
  // arrays; fp8kv's two scale arrays; the write's x), and for the attention kinds the problem
  // struct and the slopes, built here.
  const std::size_t own_inputs = kind.call_inputs;
  std::vector<std::vector<unsigned char>> inputs(
      c.inputs.begin(), c.inputs.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(c.inputs.size(), own_inputs)));
  const std::size_t problem_index = inputs.size();
  if (takes_problem(c.kind)) {
    inputs.emplace_back(sizeof(attncheck_attention_problem));
    inputs.emplace_back(c.problem.alibi_slopes.size() * sizeof(double));
    if (!c.problem.alibi_slopes.empty()) std::memcpy(inputs.back().data(), c.problem.alibi_slopes.data(), inputs.back().size());
  }
  // Size the region: inputs (64-byte aligned), the first output with its canaries and the final
  // guard page; each further output with its canaries, its guard page and the alignment before it.
  std::size_t in_bytes = 0;
  for (const auto& in : inputs) in_bytes += align_up(in.size(), 64);
  std::size_t need = align_up(in_bytes + outs[0].bytes + 4 * canary_bytes, page_size()) + page_size();
  for (std::size_t o = 1; o < outs.size(); ++o) need += align_up(outs[o].bytes + 2 * canary_bytes, page_size()) + 2 * page_size();
  if (need > region_size_) {
    stop();
    map_region(std::max(need, 2 * region_size_));
  }
  if (child_ < 0) start();

  Request req{};
  req.binding = static_cast<std::uint32_t>(it - bindings_.begin());
  req.causal = c.causal;
  req.n = c.n, req.m = c.m, req.d = c.d, req.dv = c.dv, req.eps = c.eps;
  req.kind = static_cast<std::uint32_t>(c.kind);
  req.page_size = c.paging.page_size, req.num_pages = c.paging.num_pages, req.pages_per_sequence = c.paging.pages_per_sequence;
  req.scale_count = fp8kv && c.inputs.size() > 3 ? c.inputs[3].size() / sizeof(float) : 0;
  req.fp8_format = c.fp8.format, req.fp8_saturating = c.fp8.saturating ? 1 : 0, req.fp8_scale = c.fp8.scale;
  std::vector<std::size_t> in_off(inputs.size());
  std::size_t off = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    in_off[i] = off;
    if (i < own_inputs && i < static_cast<std::size_t>(max_inputs)) req.in_off[i] = off;
    off += align_up(inputs[i].size(), 64);
  }
  if (takes_problem(c.kind)) {
    const auto& p = c.problem;
    attncheck_attention_problem ap{};
    ap.struct_size = sizeof ap;
    ap.batch = p.shape.batch, ap.heads = p.shape.heads, ap.kv_heads = p.shape.kv_heads, ap.n = p.shape.n, ap.m = p.shape.m;
    ap.d = p.shape.d, ap.dv = p.shape.dv;
    ap.scale = p.scale;
    ap.causal = p.mask.causal ? 1 : 0;
    ap.alignment = p.mask.alignment == kernels::Alignment::bottom_right ? 1 : 0;
    ap.window_left = p.mask.window_left, ap.window_right = p.mask.window_right;
    ap.softcap = p.softcap;
    ap.num_splits = p.num_splits;
    ap.alibi_slopes = p.alibi_slopes.empty() ? nullptr : reinterpret_cast<const double*>(region_ + in_off[problem_index + 1]);
    std::memcpy(inputs[problem_index].data(), &ap, sizeof ap);
    req.problem_off = in_off[problem_index];
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty()) std::memcpy(region_ + in_off[i], inputs[i].data(), inputs[i].size());
  // Place the outputs from the end of the region down, poison them and set their canaries.
  std::size_t end = region_size_ - page_size() - canary_bytes;  // the first output's end
  for (std::size_t o = 0; o < outs.size(); ++o) {
    if (o > 0) {
      outs[o].guard = (outs[o - 1].off - canary_bytes) / page_size() * page_size() - page_size();
      req.guard_off[o - 1] = outs[o].guard;
      end = outs[o].guard - canary_bytes;
    }
    outs[o].off = end - outs[o].bytes;
    req.out_off[o] = outs[o].off;
    unsigned char* before = region_ + outs[o].off - canary_bytes;
    unsigned char* after = region_ + end;
    for (std::size_t i = 0; i < canary_bytes; ++i) before[i] = after[i] = canary_byte(i);
    std::memset(region_ + outs[o].off, output_poison, outs[o].bytes);
  }
  req.outputs = static_cast<std::uint32_t>(outs.size());

  // The server process (its threads): judged on the CPU time it used, not on a busy machine's clock.
  CallWatch watch(child_, /*whole_group=*/false, call_timeout_seconds(c, limits_.timeout_seconds), watched_);
  const Extension extend = watch.extension();
  if (write_full(req_fd_, &req, sizeof req, watch.first(), extend) != Io::ok) return reap("");
  Response resp{};
  const Io io = read_full(resp_fd_, &resp, sizeof resp, watch.first(), extend);
  if (io == Io::timeout) return reap(watch.why());
  if (io != Io::ok) return reap("");

  Reply r;
  if (resp.guard_hit) {
    stop();  // the child has exited after reporting
    const std::size_t o = std::min<std::size_t>(static_cast<std::size_t>(resp.guard_hit - 1), outs.size() - 1);
    r.status = Status::out_of_bounds;
    r.detail = "wrote past the end of its " + outs[o].name + " (hit the guard page, " + std::to_string(canary_bytes) +
               " or more bytes after the last element)";
    return r;
  }
  // The canaries around one output: a fault text, or "".
  const auto canaries = [&](const Out& out) -> std::string {
    const unsigned char* lo = region_ + out.off - canary_bytes;
    const unsigned char* hi = region_ + out.off + out.bytes;
    for (std::size_t i = 0; i < canary_bytes; ++i)
      if (hi[i] != canary_byte(i))
        return "wrote past the end of its " + out.name + " (byte " + std::to_string(i) + " after element " + std::to_string(out.count) + " of " +
               std::to_string(out.count) + " changed)";
    for (std::size_t i = canary_bytes; i-- > 0;)
      if (lo[i] != canary_byte(i))
        return "wrote before the start of its " + out.name + " (byte " + std::to_string(canary_bytes - i) + " before element 0 changed)";
    return "";
  };
  for (const Out& out : outs)
    if (std::string bad = canaries(out); !bad.empty()) {
      r.status = Status::out_of_bounds;
      r.detail = bad;
      return r;
    }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty() && std::memcmp(region_ + in_off[i], inputs[i].data(), inputs[i].size()) != 0) {  // empty: no slopes
      std::size_t at = 0;
      while (region_[in_off[i] + at] == inputs[i][at]) ++at;
      // The kind's own inputs by their descriptor's names and elements, then the problem struct
      // (compared byte by byte) and the slopes (double).
      const bool problem = takes_problem(c.kind) && i == problem_index;
      const std::size_t width = problem ? 1 : i > problem_index ? sizeof(double) : element_size(kind.arrays[i].element, c.dtype);
      const char* name = problem ? "problem struct" : i > problem_index ? "alibi_slopes" : kind.arrays[i].name;
      r.status = Status::modified_input;
      r.detail = name ? "modified its input " + std::string(name) + " (" + (problem ? "byte " : "element ") + std::to_string(at / width) + " changed)"
                      : "modified its input " + std::to_string(i) + " (element " + std::to_string(at / es) + " changed)";
      return r;
    }
  if (resp.rc != 0) {
    r.status = Status::declined;
    r.code = resp.rc;
    r.detail = "declined the input (returned " + std::to_string(resp.rc) + ")";
    return r;
  }
  r.status = Status::done;
  if (bwd) {
    for (const Out& out : outs) r.output.insert(r.output.end(), region_ + out.off, region_ + out.off + out.bytes);
  } else {
    r.output.assign(region_ + outs[0].off, region_ + outs[0].off + outs[0].bytes);
    if (outs.size() > 1) r.lse.assign(region_ + outs[1].off, region_ + outs[1].off + outs[1].bytes);
  }
  return r;
}

}  // namespace attncheck::audit
