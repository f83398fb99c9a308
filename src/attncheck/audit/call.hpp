// attncheck audit: one call of an untrusted kernel (kind, dtype, shape, raw input bits) and what
// came back, independent of how the kernel is reached (a dlopen'd library or an exec'd program).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/check/dtype.hpp"

namespace attncheck::audit {

// The kernel kinds of include/attncheck/abi.h, numbered as in the exec protocol.
enum class Kind : std::uint8_t { softmax = 1, log_softmax, scores, rmsnorm, entropy, attention, softmax_jvp };

inline constexpr Kind all_kinds[] = {Kind::softmax, Kind::log_softmax, Kind::scores, Kind::rmsnorm,
                                     Kind::entropy, Kind::attention, Kind::softmax_jvp};

std::string_view kind_name(Kind k);
std::optional<Kind> parse_kind(std::string_view s);
std::size_t dtype_size(Dtype d);   // bytes per element: 2, 4 or 8
std::uint8_t dtype_code(Dtype d);  // exec protocol code of the storage format: f16 1, bf16 2, f32 3, f64 4
std::uint8_t arithmetic_code(Dtype d);  // of the arithmetic format: 0 the storage format's own, 3 f32
std::optional<Dtype> dtype_from_code(std::uint8_t storage, std::uint8_t arithmetic);

// The arguments of one call, in the ABI's order. Inputs hold raw little-endian element bits.
struct Call {
  Kind kind = Kind::softmax;
  Dtype dtype = Dtype::f32;
  std::uint64_t n = 0, m = 0, d = 0, dv = 0;  // the size_t arguments the kind takes (others 0)
  double eps = 0;                             // rmsnorm's S eps (float for f16/bf16/f32: exact in double)
  bool causal = false;                        // attention only
  std::vector<std::vector<unsigned char>> inputs;
  std::uint64_t output_count = 0;             // elements the kernel must write
};

// How a call ended. Everything but `done` is a fault of the kernel (or a refusal, for declined).
enum class Status { done, declined, crashed, timed_out, out_of_bounds, modified_input, protocol_error };

struct Reply {
  Status status = Status::protocol_error;
  int code = 0;         // the kernel's return value (declined) or the signal number (crashed)
  std::string detail;   // what exactly went wrong, for the report
  std::vector<unsigned char> output;  // output_count elements when done
};

// A way to reach the audited kernels. Implementations keep the kernel out of this process.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual bool has(Kind k, Dtype d) const = 0;
  virtual Reply call(const Call& c) = 0;
  virtual std::string describe() const = 0;  // "library ./libx.so" / "program 'python3 a.py'"
  // Whether a stray write (out of bounds, into an input) is observable with this backend.
  virtual bool sees_memory() const = 0;
};

// A fault of the audited kernel, thrown out of the KernelSet function that made the call, so
// RapidCheck counts the case as failing and shrinks it to the smallest input that faults.
class KernelFault : public std::runtime_error {
 public:
  KernelFault(Status s, const std::string& message) : std::runtime_error(message), status(s) {}
  Status status;
};

// Thrown when a property needs a kernel kind the user did not provide: the obligation is then
// "not applicable", never passed.
class KindAbsent : public std::runtime_error {
 public:
  explicit KindAbsent(Kind k) : KindAbsent(kind_name(k)) {}
  explicit KindAbsent(std::string_view name) : std::runtime_error(std::string(marker) + std::string(name)) {}
  static constexpr const char* marker = "kernel kind not provided by the audited set: ";
};

}  // namespace attncheck::audit
