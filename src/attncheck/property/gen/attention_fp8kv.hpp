// attncheck: drawing FP8 KV caches (kernels/attention_fp8kv.hpp) for the gate: a batched case
// (gen/attention_batched.hpp) whose keys and values are written to E4M3 or E5M2 codes with scales
// per tensor or per key/value head, and rows of values for the cache write: in range (ties between
// two codes included), beyond the format's range, and the special values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attncheck/kernels/attention_fp8kv.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/property.hpp"
#include "attncheck/text/numbers.hpp"

namespace attncheck::gen {

// FP8 codes for a report line: "[0x7e, 0x00, …]" (the gate's FALSIFY-FP8-* and the audit's own).
inline std::string codes_text(const std::vector<std::uint8_t>& c) {
  std::string r;
  char buf[8];
  for (std::size_t i = 0; i < c.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s0x%02x", i ? ", " : "", c[i]);
    r += buf;
  }
  return "[" + r + "]";
}

// A scale for values of largest magnitude amax: amax / max_fp8 (the usual amax scaling) times a
// drawn factor: 1, a power of two (exact scalings), an arbitrary float in [0.5, 2) (half the
// range saturated at 0.5), never 0 or infinite, never exactly 1 (so that a scale applied in the
// wrong direction, or twice, shows).
inline float draw_scale(double amax, kernels::Fp8Format f) {
  const double base = amax > 0 && std::isfinite(amax) ? amax / kernels::fp8_max(f) : 1.0;
  double factor = 1;
  switch (*rc::gen::inRange(0, 3)) {
    case 0: factor = 1; break;
    case 1: factor = std::ldexp(1.0, *rc::gen::inRange(-3, 4)); break;
    default: factor = 0.5 + *rc::gen::inRange(0, 1500) / 1000.0; break;
  }
  float s = static_cast<float>(base * factor);
  if (!(s > 0) || !std::isfinite(s)) s = 0.75f;
  if (s == 1.0f) s = 1.25f;
  return s;
}

template <class T>
struct Fp8Case {
  BatchedCase<T> c;            // c.q the queries; c.k, c.v the values written to the cache
  kernels::Fp8Spec spec;       // the cache's format; its writer saturates (the codes are finite)
  kernels::Fp8Scales sc;
  std::vector<std::uint8_t> k8, v8;
  std::vector<double> kx, vx;  // the exact dequantized values decode(code) · scale (exact in double)

  using Output = typename BatchedCase<T>::Output;
  Output run(const KernelSet<T>& ks) const {
    const auto& s = c.p.shape;
    Output r{std::vector<T>(s.o_size(), lit<T>(0)), std::vector<lse_t<T>>(ks.attention_batched_lse ? s.lse_size() : 0, 0)};
    ks.attention_fp8kv(c.p, spec, sc, c.tiling, c.q.data(), k8.data(), v8.data(), r.o.data(), r.lse.empty() ? nullptr : r.lse.data());
    return r;
  }
  std::string describe() const { return c.describe() + ", FP8 " + spec.describe() + ", " + sc.describe(); }
};

// The batched case c with its keys and values written to an FP8 cache: a drawn format, per-tensor
// or (with several key/value heads, half the time) per-head scales, each value's code the exact
// quotient rounded once, saturating. The audit's own obligations (audit/properties.cpp) write their
// small cases with it too.
template <class T>
Fp8Case<T> fp8_case_of(BatchedCase<T> c) {
  Fp8Case<T> r;
  r.c = std::move(c);
  const auto& s = r.c.p.shape;
  r.spec.format = *rc::gen::inRange(0, 2) ? kernels::Fp8Format::e4m3fn : kernels::Fp8Format::e5m2;
  r.spec.saturating = true;
  const bool per_head = s.kv_heads > 1 && *rc::gen::inRange(0, 2);
  const std::size_t scales = per_head ? s.kv_heads : 1;
  // amax per key/value head (or over the tensor), then the scales.
  std::vector<double> kmax(scales, 0), vmax(scales, 0);
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t j = 0; j < s.m; ++j)
      for (std::size_t g = 0; g < s.kv_heads; ++g) {
        const std::size_t at = per_head ? g : 0;
        for (std::size_t t = 0; t < s.d; ++t) kmax[at] = std::max(kmax[at], std::fabs(to_double(r.c.k[s.k_at(b, j, g) + t])));
        for (std::size_t t = 0; t < s.dv; ++t) vmax[at] = std::max(vmax[at], std::fabs(to_double(r.c.v[s.v_at(b, j, g) + t])));
      }
  for (std::size_t i = 0; i < scales; ++i) {
    r.sc.k.push_back(draw_scale(kmax[i], r.spec.format));
    r.sc.v.push_back(draw_scale(vmax[i], r.spec.format));
  }
  // The cache: each value written by the exact (double) quotient rounded once to FP8, saturating.
  r.k8.resize(r.c.k.size()), r.v8.resize(r.c.v.size()), r.kx.resize(r.c.k.size()), r.vx.resize(r.c.v.size());
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t j = 0; j < s.m; ++j)
      for (std::size_t g = 0; g < s.kv_heads; ++g) {
        const float ks = r.sc.k[per_head ? g : 0], vs = r.sc.v[per_head ? g : 0];
        for (std::size_t t = 0; t < s.d; ++t) {
          const std::size_t e = s.k_at(b, j, g) + t;
          r.k8[e] = kernels::fp8_encode(r.spec, to_double(r.c.k[e]) / ks);
          r.kx[e] = kernels::fp8_decode(r.spec.format, r.k8[e]) * ks;
        }
        for (std::size_t t = 0; t < s.dv; ++t) {
          const std::size_t e = s.v_at(b, j, g) + t;
          r.v8[e] = kernels::fp8_encode(r.spec, to_double(r.c.v[e]) / vs);
          r.vx[e] = kernels::fp8_decode(r.spec.format, r.v8[e]) * vs;
        }
      }
  return r;
}

template <class T>
Fp8Case<T> fp8_case() {
  return fp8_case_of(batched_case<T>(BatchedLimits{}, true));
}

// A row for the cache write: the format, the declared overflow rule, one scale and 1 to 48 values.
template <class T>
struct Fp8WriteCase {
  kernels::Fp8Spec spec;
  float scale = 1;
  std::vector<T> x;
  std::string describe() const {
    return "fp8_quantize<" + std::string(dtype_name(dtype_of<T>())) + ">, " + spec.describe() + ", scale " + decimal(scale) + ", " +
           std::to_string(x.size()) + " values";
  }
};

// In range: values v·scale for v spread over the format's range (normal and subnormal), exact
// codes, and midpoints between neighbouring codes (ties: round half to even). Out of range (and
// special): beyond ±max·scale (just past the rounding boundary max + half a quantum, and far),
// ±infinity, NaN, ±0, with some in-range values between them.
template <class T>
Fp8WriteCase<T> fp8_write_case(bool out_of_range) {
  Fp8WriteCase<T> r;
  r.spec.format = *rc::gen::inRange(0, 2) ? kernels::Fp8Format::e4m3fn : kernels::Fp8Format::e5m2;
  r.spec.saturating = *rc::gen::inRange(0, 2);
  r.scale = draw_scale(std::ldexp(1.0, *rc::gen::inRange(-4, 5)) * kernels::fp8_max(r.spec.format), r.spec.format);
  const double top = kernels::fp8_max(r.spec.format);
  const int lo_exp = r.spec.format == kernels::Fp8Format::e4m3fn ? -9 : -16;  // the smallest subnormal's exponent
  const std::size_t n = *rc::gen::inRange<std::size_t>(1, 49);
  for (std::size_t i = 0; i < n; ++i) {
    double v;
    const int kind = *rc::gen::inRange(0, out_of_range ? 8 : 4);
    const double sign = *rc::gen::inRange(0, 2) ? -1 : 1;
    switch (kind) {
      case 0: v = sign * std::ldexp(1 + *rc::gen::inRange(0, 1000) / 1000.0, *rc::gen::inRange(lo_exp, static_cast<int>(std::log2(top)))); break;
      case 1: {  // an exact code, or the midpoint between it and the next
        const std::uint8_t code = static_cast<std::uint8_t>(*rc::gen::inRange(0, 0x7f));
        const double a = kernels::fp8_decode(r.spec.format, code), b = kernels::fp8_decode(r.spec.format, static_cast<std::uint8_t>(code + 1));
        v = sign * (std::isfinite(b) && *rc::gen::inRange(0, 2) ? (a + b) / 2 : (std::isfinite(a) ? a : top));
        break;
      }
      case 2: v = sign * top * (1 - *rc::gen::inRange(0, 100) / 1000.0); break;  // near the top
      case 3: v = sign * std::ldexp(*rc::gen::inRange(1, 8), lo_exp - 2); break;  // around the smallest subnormal
      case 4: {  // just beyond the top: relative steps, or steps of the top binade's quantum around the
                 // rounding boundary top + q/2 and the next power's code top + q (E4M3FN: 464, 480–496)
        const double q = top - kernels::fp8_decode(r.spec.format, r.spec.format == kernels::Fp8Format::e4m3fn ? 0x7d : 0x7a);
        v = sign * (*rc::gen::inRange(0, 2) ? top * (1 + std::ldexp(1.0, -*rc::gen::inRange(2, 8)))
                                            : top + q * *rc::gen::element(0.5, 0.5625, 0.75, 1.0, 1.25, 1.4375, 1.5, 2.0));
        break;
      }
      case 5: v = sign * top * std::ldexp(1.0, *rc::gen::inRange(1, 20)); break;     // far beyond
      case 6: v = sign * std::numeric_limits<double>::infinity(); break;
      default: v = *rc::gen::inRange(0, 2) ? std::numeric_limits<double>::quiet_NaN() : sign * 0.0; break;
    }
    // The value the kernel is given: v · scale rounded to T (the grid of T decides what arrives).
    r.x.push_back(lit<T>(std::isfinite(v) ? v * static_cast<double>(r.scale) : v));
  }
  return r;
}

}  // namespace attncheck::gen
