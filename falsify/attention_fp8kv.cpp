// attncheck: falsification tests of attention-fp8kv-v1 (contracts/attention-fp8kv-v1.yaml): an
// FP8 KV cache (kernels/attention_fp8kv.hpp). Obligations: FP8-BND-001 attention over the codes
// within the derived allowance of the exact attention of the dequantized values decode(code) ·
// scale (the dequantization's rounding in the bound), FP8-RND-001 the cache write correctly
// rounded (round to nearest even after the quotient's own rounding), FP8-OVF-001 beyond the
// format's range and for ±inf the declared rule (saturate to ±max, or NaN / ±inf), NaN only from
// NaN: never a silent NaN.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/attention_row_judge.hpp"
#include "attncheck/property/gen/attention_fp8kv.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using gen::blocks_of;

using gen::codes_text;

// ---- FP8-BND-001: attention over the codes within the allowance of the dequantized exact value ----
struct Fp8001 {
  static constexpr const char* id = "FALSIFY-FP8-001";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title =
      "attention over an FP8 KV cache is within the derived allowance of the exact attention of decode(code) · scale";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto fc = gen::fp8_case<T>();
    const auto out = fc.run(ks);
    // The kernel sees each key and value as decode(code) · scale rounded in its arithmetic (or the
    // scale applied to a sum: the same bound, proofs/attention_fp8kv.tex): one rounding of the
    // scale into the arithmetic and one of the product, γ₂.
    auto md = bounds::model_of<T>();
    md.input_rel = bounds::gamma(2, md.u);
    // And absolutely: η/2 where the product underflows, plus (1 + u)·max|D|·η/2 where a scale is
    // subnormal in the arithmetic (possible in 16-bit arithmetic only).
    double smallest = std::numeric_limits<double>::infinity();
    for (float x : fc.sc.k) smallest = std::min(smallest, static_cast<double>(x));
    for (float x : fc.sc.v) smallest = std::min(smallest, static_cast<double>(x));
    const auto a = md.arithmetic();
    const bool subnormal_scale = smallest < static_cast<double>(a.eta) / static_cast<double>(a.u) / 2;  // below 2^(emin): η = 2^(emin−p+1), u = 2^−p
    md.input_abs = a.eta / 2 * (1 + (subnormal_scale ? (1 + a.u) * kernels::fp8_max(fc.spec.format) : 0));
    const auto kb = blocks_of(ks, fc.c.tiling);
    const auto& s = fc.c.p.shape;
    std::vector<double> q(fc.c.q.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = to_double(fc.c.q[i]);
    const std::string dt(dtype_name(dtype_of<T>()));
    for (std::size_t b = 0; b < s.batch; ++b)
      for (std::size_t h = 0; h < s.heads; ++h)
        for (std::size_t i = 0; i < s.n; ++i) {
          const auto ex = bounds::attention_row_allowance(fc.c.p, q, fc.kx, fc.vx, b, h, i, kb, md);
          const double lse = out.lse.empty() ? 0 : static_cast<double>(out.lse[s.lse_at(b, h, i)]);
          judge_attention_row<T>(id, ex, out.o.data() + s.o_at(b, i, h), s.dv, out.lse.empty() ? nullptr : &lse, ks.attention_fp8kv_masked,
                                 "attention_fp8kv<" + dt + ">, row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " +
                                     std::to_string(i) + "), " + fc.describe(),
                                 "", [&](Report<T>& r) { r.input("q", fc.c.q).line("k codes: " + codes_text(fc.k8)).line("v codes: " + codes_text(fc.v8)); });
        }
  }
  static inline const bool registered = property::register_property<Fp8001>();
};

// ---- FP8-RND-001 and FP8-OVF-001: the cache write ------------------------------------------------
// Whether v is a value of the arithmetic the kernel at T computes in (T's own, or f32 for 16-bit
// storage with f32 arithmetic), exactly.
template <class T>
bool in_arithmetic(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return true;
  } else {
    if (std::is_same_v<T, float> || current_arithmetic() == Arithmetic::f32) return static_cast<double>(static_cast<float>(v)) == v;
    return to_double(lit<T>(v)) == v;
  }
}

// Whether the kernel's quotient is x / scale itself, however it forms it: the scale a power of two
// whose reciprocal is a value of the arithmetic too, and y = x / scale one (exact: y · scale gives x
// back, and y is neither rounded into the arithmetic nor a double subnormal). Then dividing, and
// multiplying by 1 / scale (vLLM's inverted scale), both give y with no rounding. At any other scale
// a kernel that multiplies by the rounded reciprocal legitimately differs from the division by one
// rounding, which the allowance below admits.
template <class T>
bool quotient_exact(double x, float scale, double y) {
  int e = 0;
  const double s = scale;
  if (!std::isfinite(y) || std::frexp(s, &e) != 0.5) return false;
  if (y == 0 ? x != 0 : std::fpclassify(y) != FP_NORMAL) return false;
  return std::fma(y, s, -x) == 0 && in_arithmetic<T>(s) && in_arithmetic<T>(1 / s) && in_arithmetic<T>(y);
}

// The kernel forms y = x / scale in its arithmetic and rounds y to the format. Where that quotient
// is exact (quotient_exact), the code must be the correctly rounded code of y, ties to even, with
// no slack: at an exact midpoint between two codes only the even one. Elsewhere the quotient has
// relative error <= γ₂ (the scale rounded into the arithmetic, then the quotient; or the
// reciprocal, then the product) plus the subnormal granule; rounding is monotone, so the code must
// lie between the codes of the smallest and largest y that error admits (the correctly rounded
// code of x / scale itself when no tie or boundary is that close). At ±inf and NaN the code is the
// declared rule's exactly; ±0 are not told apart (a zero of either sign passes).
template <class T>
void judge_write(const char* id, const gen::Fp8WriteCase<T>& wc, const std::vector<std::uint8_t>& codes) {
  const auto md = bounds::model_of<T>().arithmetic();
  const double rho = static_cast<double>(bounds::gamma(2, md.u));
  const auto f = wc.spec.format;
  for (std::size_t i = 0; i < wc.x.size(); ++i) {
    const double x = to_double(wc.x[i]), got = kernels::fp8_decode(f, codes[i]);
    const double y = x / static_cast<double>(wc.scale);
    bool ok;
    std::string expected;
    if (!std::isfinite(y)) {
      const std::uint8_t want = kernels::fp8_encode(wc.spec, y);
      const double w = kernels::fp8_decode(f, want);
      ok = std::isnan(w) ? std::isnan(got) : got == w;
      expected = "code " + codes_text({want}) + " = " + decimal(w);
    } else if (quotient_exact<T>(x, wc.scale, y)) {
      const std::uint8_t want = kernels::fp8_encode(wc.spec, y);
      const double w = kernels::fp8_decode(f, want);
      ok = std::isnan(w) ? std::isnan(got) : got == w;
      // A boundary between two codes (an exact midpoint: the scale is a power of two) is a tie.
      const bool tie = y != 0 && kernels::fp8_encode(wc.spec, std::nextafter(y, 0.0)) !=
                                     kernels::fp8_encode(wc.spec, std::nextafter(y, std::copysign(INFINITY, y)));
      expected = "code " + codes_text({want}) + " = " + decimal(w) + " exactly (x / scale is exact in the arithmetic" +
                 (tie ? ", and a tie between two codes: to even" : "") + ")";
    } else {
      const double slack = rho * std::fabs(y) + static_cast<double>(md.eta);
      const std::uint8_t lo = kernels::fp8_encode(wc.spec, y - slack), hi = kernels::fp8_encode(wc.spec, y + slack);
      const double a = kernels::fp8_decode(f, lo), b = kernels::fp8_decode(f, hi);
      // A NaN end (a non-saturating E4M3 overflow) admits NaN and everything from the other end on.
      const bool nan_ok = std::isnan(a) || std::isnan(b);
      ok = std::isnan(got) ? nan_ok : ((std::isnan(a) || got >= a) && (std::isnan(b) || got <= b));
      expected = a == b || (std::isnan(a) && std::isnan(b)) ? "code " + codes_text({lo}) + " = " + decimal(a)
                                                             : "a code from " + decimal(a) + " to " + decimal(b) + " (a tie or boundary within the quotient's error)";
    }
    if (!ok)
      Report<T>(id, wc.describe() + ", value " + std::to_string(i))
          .input("x", wc.x)
          .line("x / scale:  " + decimal(y))
          .line("Kernel:     code " + codes_text({codes[i]}) + " = " + decimal(got))
          .line("Expected:   " + expected + " (" + wc.spec.describe() + ")")
          .raise();
  }
}

template <class T>
std::vector<std::uint8_t> write(const KernelSet<T>& ks, const gen::Fp8WriteCase<T>& wc) {
  std::vector<std::uint8_t> codes(wc.x.size(), 0);
  ks.fp8_quantize(wc.spec, wc.x.data(), wc.x.size(), wc.scale, codes.data());
  return codes;
}

struct Fp8002 {
  static constexpr const char* id = "FALSIFY-FP8-002";
  static constexpr const char* title = "the cache write rounds x / scale to the nearest FP8 value, ties to even (values in range)";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto wc = gen::fp8_write_case<T>(false);
    judge_write(id, wc, write(ks, wc));
  }
  static inline const bool registered = property::register_property<Fp8002>();
};

struct Fp8003 {
  static constexpr const char* id = "FALSIFY-FP8-003";
  static constexpr const char* title =
      "beyond the FP8 range and at ±inf the cache write saturates or gives NaN/±inf as declared; NaN only from NaN";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto wc = gen::fp8_write_case<T>(true);
    judge_write(id, wc, write(ks, wc));
  }
  static inline const bool registered = property::register_property<Fp8003>();
};

}  // namespace
}  // namespace attncheck::falsify
