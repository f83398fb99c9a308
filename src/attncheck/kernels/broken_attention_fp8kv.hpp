// attncheck: broken FP8 KV-cache kernels, beside the kernel they break. Each replaces one step of
// kernels::Fp8Steps (attention_fp8kv.hpp) with a bug class of shipped FP8 paths: a scale not
// applied or applied twice, per-head scales read as one per-tensor scale,
// the V scale used for K, E4M3 codes decoded as E5M2; and in the cache write: saturation and NaN
// confused either way, truncation instead of rounding, ties rounded away from zero, E4M3's range taken as the IEEE-like
// variant's (±240), a NaN clamped into range by fmax/fmin, the scale multiplied instead of divided.
// The tests that must catch each are named in falsify/mutants/attention_fp8kv.cpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "attncheck/kernels/attention_fp8kv.hpp"

namespace attncheck::kernels::broken {

// ---- reading the cache --------------------------------------------------------------------------

// The K scale never applied (the raw codes' values used as keys).
struct Fp8KScaleMissing : Fp8Steps {
  static float k_scale(const Fp8Scales&, std::size_t) { return 1; }
};

// The V scale applied twice (once at dequantization, once more on the output).
struct Fp8VScaleTwice : Fp8Steps {
  static float v_scale(const Fp8Scales& s, std::size_t g) {
    const float x = Fp8Steps::v_scale(s, g);
    return x * x;
  }
};

// Per-head scales read as one per-tensor scale: every key/value head uses the first head's.
struct Fp8PerHeadScaleAsTensor : Fp8Steps {
  static float k_scale(const Fp8Scales& s, std::size_t) { return s.k[0]; }
  static float v_scale(const Fp8Scales& s, std::size_t) { return s.v[0]; }
};

// The K scale used for V as well (one scale variable for both caches).
struct Fp8KScaleForV : Fp8Steps {
  static float v_scale(const Fp8Scales& s, std::size_t g) { return Fp8Steps::k_scale(s, g); }
};

// E4M3 codes decoded as E5M2 (the dtype of the cache confused); E5M2 decoded right.
struct Fp8DecodedAsE5m2 : Fp8Steps {
  static double decode(Fp8Format, std::uint8_t code) { return e5m2::decode(code); }
};

// ---- writing the cache ----------------------------------------------------------------------------

// Saturation declared, OCP's non-saturating conversion done: overflow becomes NaN (E4M3) or ±inf.
struct Fp8QuantizeNeverSaturates : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    s.saturating = false;
    return Fp8Steps::quantize<T>(s, x, scale);
  }
};

// Non-saturation declared, saturation done: an overflow becomes a plausible ±max instead of NaN/inf.
struct Fp8QuantizeAlwaysSaturates : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    s.saturating = true;
    return Fp8Steps::quantize<T>(s, x, scale);
  }
};

// Non-saturating overflow detected one code late: a quotient that rounds past the largest finite
// value becomes ±max unless it reaches the next binade's midpoint (E4M3FN: 480 <= |y| < 496 gives
// ±448, not NaN), the boundary ONNX Runtime 1.30's CPU Cast misplaces (docs/research/served-attention.md).
struct Fp8QuantizeOverflowLate : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    const double y = to_double(x / lit<T>(static_cast<double>(scale)));
    const double top = fp8_max(s.format), q = top - fp8_decode(s.format, s.format == Fp8Format::e4m3fn ? 0x7d : 0x7a);
    if (!s.saturating && std::isfinite(y) && std::fabs(y) < top + 1.5 * q) {
      Fp8Spec sat = s;
      sat.saturating = true;
      return fp8_encode(sat, y);
    }
    return fp8_encode(s, y);
  }
};

// Round to nearest with ties away from zero (C's round(), or adding half a quantum and truncating)
// instead of to even: wrong only at an exact midpoint between two codes whose even neighbour is the
// one nearer zero (at the top of E4M3FN, 464 = 448 + 16: 448 to even, the overflow rule away).
struct Fp8QuantizeTiesAway : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    const double y = to_double(x / lit<T>(static_cast<double>(scale)));
    if (!std::isfinite(y) || y == 0) return fp8_encode(s, y);
    // y a boundary between two codes (the codes of the doubles beside it differ): the one away from zero.
    const double away = std::nextafter(y, std::copysign(std::numeric_limits<double>::infinity(), y));
    if (fp8_encode(s, std::nextafter(y, 0.0)) != fp8_encode(s, away)) return fp8_encode(s, away);
    return fp8_encode(s, y);
  }
};
// Truncation toward zero instead of round-to-nearest-even (a mantissa shift without rounding).
struct Fp8QuantizeTruncates : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    const double y = to_double(x / lit<T>(static_cast<double>(scale)));
    const std::uint8_t c = fp8_encode(s, y);
    const double r = fp8_decode(s.format, c);
    if (!std::isfinite(y) || !std::isfinite(r) || std::fabs(r) <= std::fabs(y)) return c;
    // Rounded away from zero: step one code toward zero (codes of one sign are ordered by magnitude).
    return (c & 0x7fu) == 0 ? c : static_cast<std::uint8_t>(c - 1);
  }
};

// E4M3 clamped to ±240, the largest finite of the IEEE-like E4M3 variant (whose exponent 1111 is
// reserved), before the conversion: values in (240, 448] lost. E5M2 right.
struct Fp8QuantizeE4m3Max240 : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    double y = to_double(x / lit<T>(static_cast<double>(scale)));
    if (s.format == Fp8Format::e4m3fn && s.saturating && std::isfinite(y)) y = std::fmax(-240.0, std::fmin(240.0, y));
    return fp8_encode(s, y);
  }
};

// Saturation as fmin(fmax(y, −max), max): fmax(NaN, −max) is −max, so a NaN is stored as −max.
struct Fp8QuantizeNanClamped : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) {
    double y = to_double(x / lit<T>(static_cast<double>(scale)));
    if (s.saturating) y = std::fmin(std::fmax(y, -fp8_max(s.format)), fp8_max(s.format));
    return fp8_encode(s, y);
  }
};

// The scale multiplied instead of divided (the dequantization's direction used to quantize).
struct Fp8QuantizeMultiplies : Fp8Steps {
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) { return fp8_encode(s, to_double(x * lit<T>(static_cast<double>(scale)))); }
};

}  // namespace attncheck::kernels::broken
