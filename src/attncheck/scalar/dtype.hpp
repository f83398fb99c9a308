// attncheck: the number formats, as a runtime value: a storage format and the arithmetic format
// it computes in (scalar/arithmetic.hpp). The one description of a format for every command: the
// property runner and the audit test the dtypes of all_dtypes; bmc runs the formats whose
// arithmetic is their storage, the 8-bit ones included (bmc/harness.hpp, all_formats()).
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "attncheck/scalar/arithmetic.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// f16 and bf16: 16-bit storage and 16-bit arithmetic (every operation rounds to 16 bits);
// f16_f32 and bf16_f32: 16-bit storage, f32 arithmetic, one rounding of each output.
// e4m3, e5m2, e4m3sat: the OCP 8-bit formats (scalar/fp8.hpp; e4m3sat is E4M3 with the saturating
// conversion), each computing in itself. Only bmc runs them: there is no oracle, bound or ABI code
// for them, so they are in no list below and parse_dtype does not accept them.
enum class Dtype { f16, bf16, f32, f64, f16_f32, bf16_f32, e4m3, e5m2, e4m3sat };

inline constexpr std::array<Dtype, 6> all_dtypes = {Dtype::f16, Dtype::bf16, Dtype::f32, Dtype::f64, Dtype::f16_f32, Dtype::bf16_f32};

// The formats whose arithmetic is their storage: the dtypes of a property whose allowance is
// not (yet) derived for a final rounding to storage (it combines kernel outputs in T itself).
inline constexpr std::array<Dtype, 4> storage_dtypes = {Dtype::f16, Dtype::bf16, Dtype::f32, Dtype::f64};

// The spelling, the same in --kernel and --dtype, bindings files, the exec protocol and every
// report: STORAGE@ARITHMETIC for the 16-bit formats, always both, so a row never leaves the
// model it was judged by to be guessed; f32 and f64 compute in themselves.
constexpr std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f16: return "f16@f16";
    case Dtype::bf16: return "bf16@bf16";
    case Dtype::f32: return "f32";
    case Dtype::f64: return "f64";
    case Dtype::f16_f32: return "f16@f32";
    case Dtype::bf16_f32: return "bf16@f32";
    case Dtype::e4m3: return "e4m3@e4m3";
    case Dtype::e5m2: return "e5m2@e5m2";
    case Dtype::e4m3sat: return "e4m3sat@e4m3sat";
  }
  return "?";
}

// The storage format alone ("bf16" for bf16@f32 and bf16@bf16).
constexpr std::string_view storage_name(Dtype d) {
  switch (d) {
    case Dtype::f16:
    case Dtype::f16_f32: return "f16";
    case Dtype::bf16:
    case Dtype::bf16_f32: return "bf16";
    case Dtype::f32: return "f32";
    case Dtype::f64: return "f64";
    case Dtype::e4m3: return "e4m3";
    case Dtype::e5m2: return "e5m2";
    case Dtype::e4m3sat: return "e4m3sat";
  }
  return "?";
}

constexpr bool is_8bit(Dtype d) { return d == Dtype::e4m3 || d == Dtype::e5m2 || d == Dtype::e4m3sat; }

constexpr Arithmetic arithmetic_of(Dtype d) {
  return d == Dtype::f16_f32 || d == Dtype::bf16_f32 ? Arithmetic::f32 : Arithmetic::storage;
}

// Accepts every dtype_name, "f32@f32" and "f64@f64", and a 16-bit storage name alone, which
// means f32 arithmetic: the default, as the libraries people ship compute (arithmetic.hpp).
inline std::optional<Dtype> parse_dtype(std::string_view s) {
  if (s == "f16") return Dtype::f16_f32;
  if (s == "bf16") return Dtype::bf16_f32;
  if (s == "f32@f32") return Dtype::f32;
  if (s == "f64@f64") return Dtype::f64;
  for (Dtype d : all_dtypes)
    if (dtype_name(d) == s) return d;
  return std::nullopt;
}

// Calls f.template operator()<T>() with the C++ storage type of d, under d's arithmetic
// (arithmetic_scope): the reference kernels, the bounds and dtype_of<T>() inside see it. The 8-bit
// formats are refused: nothing visited this way (properties, oracles, bounds) is defined for them.
template <class F>
decltype(auto) visit_dtype(Dtype d, F&& f) {
  const arithmetic_scope scope(arithmetic_of(d));
  switch (d) {
    case Dtype::f16:
    case Dtype::f16_f32: return f.template operator()<f16>();
    case Dtype::bf16:
    case Dtype::bf16_f32: return f.template operator()<bf16>();
    case Dtype::f32: return f.template operator()<float>();
    case Dtype::f64: break;
    case Dtype::e4m3:
    case Dtype::e5m2:
    case Dtype::e4m3sat: throw std::invalid_argument("visit_dtype: the 8-bit formats run under bmc only");
  }
  return f.template operator()<double>();
}

// The dtype of storage type T under the current arithmetic (inside visit_dtype: the visited one).
template <class T> Dtype dtype_of();
template <> inline Dtype dtype_of<f16>() { return current_arithmetic() == Arithmetic::f32 ? Dtype::f16_f32 : Dtype::f16; }
template <> inline Dtype dtype_of<bf16>() { return current_arithmetic() == Arithmetic::f32 ? Dtype::bf16_f32 : Dtype::bf16; }
template <> inline Dtype dtype_of<float>() { return Dtype::f32; }
template <> inline Dtype dtype_of<double>() { return Dtype::f64; }

}  // namespace attncheck
