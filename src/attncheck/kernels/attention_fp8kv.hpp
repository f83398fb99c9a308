// attncheck: attention over an FP8 KV cache (vLLM's kv_cache_dtype="fp8", FlashAttention 3's and
// FlashInfer's FP8 paths, ONNX Runtime's k_scale/v_scale): keys and values stored as OCP FP8 codes
// (E4M3, the "fn" variant: no infinities, one NaN pattern, largest finite 448; or E5M2, IEEE-like,
// largest finite 57344) with scales per tensor or per key/value head, dequantized as
// k = decode(code) · k_scale in the arithmetic; and the cache write that makes the codes,
// code = RN_fp8(x / scale), whose overflow either saturates to ±max or gives NaN (E4M3) / ±inf
// (E5M2), as the writer declares. The attention is attention_batched.hpp on the dequantized
// values: one source. The 8-bit formats are scalar/fp8.hpp's, which the model checker also uses.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/kernels/attention_batched.hpp"
#include "attncheck/scalar/fp8.hpp"

namespace attncheck::kernels {

// The formats of an FP8 cache, and whether its writer saturates (ONNX's Cast saturate=1, PyTorch's
// and most libraries' scaled conversions) or follows OCP's non-saturating conversion.
enum class Fp8Format { e4m3fn, e5m2 };
struct Fp8Spec {
  Fp8Format format = Fp8Format::e4m3fn;
  bool saturating = true;
  std::string describe() const {
    return std::string(format == Fp8Format::e4m3fn ? "e4m3fn" : "e5m2") + (saturating ? " saturating" : " non-saturating");
  }
};

inline double fp8_max(Fp8Format f) { return f == Fp8Format::e4m3fn ? e4m3_spec::max_finite : e5m2_spec::max_finite; }
inline double fp8_decode(Fp8Format f, std::uint8_t code) { return f == Fp8Format::e4m3fn ? e4m3::decode(code) : e5m2::decode(code); }

// E5M2 with OCP's saturating conversion: beyond ±57344 after rounding, and ±infinity, become ±57344.
struct e5m2sat_spec : e5m2_spec {
  static constexpr const char* name = "e5m2sat";
  static constexpr bool saturating = true;
};

// The correctly rounded code of the real x (round to nearest, ties to even, then the declared
// overflow rule; NaN stays NaN, the sign of zero is kept).
inline std::uint8_t fp8_encode(Fp8Spec s, double x) {
  if (s.format == Fp8Format::e4m3fn) return s.saturating ? e4m3sat(x).bits() : e4m3(x).bits();
  return s.saturating ? float8<e5m2sat_spec>(x).bits() : e5m2(x).bits();
}

// Scales per tensor (one value) or per key/value head (H_kv values), as float (every library's).
struct Fp8Scales {
  std::vector<float> k, v;
  bool per_head() const { return k.size() > 1; }
  std::string describe() const {
    std::string r = per_head() ? "per-head scales k [" : "per-tensor scales k [";
    for (std::size_t i = 0; i < k.size(); ++i) r += (i ? ", " : "") + std::to_string(k[i]);
    r += "], v [";
    for (std::size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
    return r + "]";
  }
};

// The FP8 steps, static so that a broken kernel (broken_attention_fp8kv.hpp) replaces one: how a
// code is decoded, which scale a key/value head uses, how a value is dequantized and quantized.
struct Fp8Steps {
  static double decode(Fp8Format f, std::uint8_t code) { return fp8_decode(f, code); }
  static float k_scale(const Fp8Scales& s, std::size_t g) { return s.k[s.per_head() ? g : 0]; }
  static float v_scale(const Fp8Scales& s, std::size_t g) { return s.v[s.per_head() ? g : 0]; }
  // k = decode(code) · scale, rounded once in T (the decoded value and, in f32 or wider, the scale
  // are exact in T).
  template <Scalar T>
  static T dequantize(double decoded, float scale) { return lit<T>(decoded) * lit<T>(static_cast<double>(scale)); }
  // code = RN_fp8(fl_T(x / scale)) under the declared overflow rule.
  template <Scalar T>
  static std::uint8_t quantize(Fp8Spec s, T x, float scale) { return fp8_encode(s, to_double(x / lit<T>(static_cast<double>(scale)))); }
};

// The cache write: codes of n values x, all with the one scale.
template <Scalar T, class F = Fp8Steps>
void fp8_quantize(Fp8Spec s, const T* x, std::size_t n, float scale, std::uint8_t* codes) {
  for (std::size_t i = 0; i < n; ++i) codes[i] = F::template quantize<T>(s, x[i], scale);
}

// O and (when lse is not null) the LSE of attention_batched over the dequantized cache: q is
// B × n × H × d in T, k8 and v8 the codes in k's and v's layouts (B × m × H_kv × width).
template <Scalar T, class Steps = AttentionSteps, class F = Fp8Steps>
void attention_fp8kv(const AttentionProblem& p, Fp8Spec fmt, const Fp8Scales& sc, const T* q, const std::uint8_t* k8, const std::uint8_t* v8,
                     T* o, T* lse, Tiling tiling = {}) {
  const auto& sh = p.shape;
  std::vector<T> k(sh.batch * sh.m * sh.kv_heads * sh.d), v(sh.batch * sh.m * sh.kv_heads * sh.dv);
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t j = 0; j < sh.m; ++j)
      for (std::size_t g = 0; g < sh.kv_heads; ++g) {
        for (std::size_t t = 0; t < sh.d; ++t)
          k[sh.k_at(b, j, g) + t] = F::template dequantize<T>(F::decode(fmt.format, k8[sh.k_at(b, j, g) + t]), F::k_scale(sc, g));
        for (std::size_t t = 0; t < sh.dv; ++t)
          v[sh.v_at(b, j, g) + t] = F::template dequantize<T>(F::decode(fmt.format, v8[sh.v_at(b, j, g) + t]), F::v_scale(sc, g));
      }
  attention_batched<T, Steps>(p, q, k.data(), v.data(), o, lse, tiling);
}

}  // namespace attncheck::kernels
