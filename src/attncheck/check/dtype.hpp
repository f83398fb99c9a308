// attncheck: the scalar formats a kernel is tested in, as a runtime value.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

enum class Dtype { f16, bf16, f32, f64 };

inline constexpr std::array<Dtype, 4> all_dtypes = {Dtype::f16, Dtype::bf16, Dtype::f32, Dtype::f64};

constexpr std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f16: return "f16";
    case Dtype::bf16: return "bf16";
    case Dtype::f32: return "f32";
    case Dtype::f64: return "f64";
  }
  return "?";
}

inline std::optional<Dtype> parse_dtype(std::string_view s) {
  for (Dtype d : all_dtypes)
    if (dtype_name(d) == s) return d;
  return std::nullopt;
}

// Calls f.template operator()<T>() with the C++ type of d.
template <class F>
decltype(auto) visit_dtype(Dtype d, F&& f) {
  switch (d) {
    case Dtype::f16: return f.template operator()<f16>();
    case Dtype::bf16: return f.template operator()<bf16>();
    case Dtype::f32: return f.template operator()<float>();
    case Dtype::f64: break;
  }
  return f.template operator()<double>();
}

template <class T> constexpr Dtype dtype_of();
template <> constexpr Dtype dtype_of<f16>() { return Dtype::f16; }
template <> constexpr Dtype dtype_of<bf16>() { return Dtype::bf16; }
template <> constexpr Dtype dtype_of<float>() { return Dtype::f32; }
template <> constexpr Dtype dtype_of<double>() { return Dtype::f64; }

}  // namespace attncheck
