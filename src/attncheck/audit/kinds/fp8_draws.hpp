// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call attention_fp8kv and kv_quantize (fp8.cpp), registered in draws_registry.hpp.
#pragma once

#include <cstdio>

#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// An FP8 KV cache (attention_fp8kv) for the obligations every kind has: draw_batched's problem
// (with unmasked, every row sees every key) with its keys and values written to codes as the
// contract's generator writes them (gen::fp8_case_of: E4M3FN or E5M2, per-tensor or per-head
// scales, a saturating writer: every code is finite).
template <class T>
gen::Fp8Case<T> draw_fp8kv(bool unmasked = false) {
  return gen::fp8_case_of(draw_batched<T>(unmasked));
}

// The kernel's o of an FP8 case; its LSE into *lse when lse is not null (asked: a kernel declared
// without the LSE is given NULL by the audited slot).
template <class T>
std::vector<T> run_fp8kv(const gen::Fp8Case<T>& fc, const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) {
  const auto& sh = fc.c.p.shape;
  std::vector<T> o(sh.o_size());
  if (lse) lse->assign(sh.lse_size(), lse_t<T>(0));
  ks.attention_fp8kv(fc.c.p, fc.spec, fc.sc, {}, fc.c.q.data(), fc.k8.data(), fc.v8.data(), o.data(), lse ? lse->data() : nullptr);
  return o;
}

// An FP8 code row for a report line.
inline std::string code_row(const std::vector<std::uint8_t>& c) { return gen::codes_text(c); }

template <class T>
std::vector<std::string> fp8_lines(const gen::Fp8Case<T>& fc) {
  return {"k codes: " + code_row(fc.k8), "v codes: " + code_row(fc.v8)};
}

// The cache write (kv_quantize): a row of the contract's generator (gen::fp8_write_case: a drawn
// format, overflow rule and scale; in range, or with values beyond the range and special values).
template <class T>
std::vector<std::uint8_t> run_write(const gen::Fp8WriteCase<T>& wc, const KernelSet<T>& ks) {
  std::vector<std::uint8_t> codes(wc.x.size(), 0);
  ks.fp8_quantize(wc.spec, wc.x.data(), wc.x.size(), wc.scale, codes.data());
  return codes;
}

template <class T>
DrawnCall<T> attention_fp8kv_call(Kind, const KernelSet<T>& ks) {  // o, as attention_v2's (the LSE asked too), over the dequantized codes
  Drawn<T> d;
  const auto fc = draw_fp8kv<T>();
  d.inputs = {{"q", fc.c.q}};
  d.lines = fp8_lines(fc);
  d.shape = fc.describe();
  return {d, [fc, &ks] {
            std::vector<lse_t<T>> l;
            return run_fp8kv(fc, ks, &l);
          }};
}

// Unmasked, so every row (b, i, h) whose head reads key/value head g sees every key of batch b: a
// NaN code (E4M3FN 0x7f, E5M2 0x7e, either sign) in k[b][j][g][:] reaches every output of those
// rows and their LSE; one in v[b][j][g][c] reaches column c of those rows whose weight of key j is
// at least 2^-10 (a kernel may skip a key whose weight underflows).
template <class T>
NanCase<T> attention_fp8kv_nan(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  NanCase<T> r;
  auto fc = draw_fp8kv<T>(true);
  const auto& sh = fc.c.p.shape;
  const std::uint8_t code =
      static_cast<std::uint8_t>((fc.spec.format == kernels::Fp8Format::e4m3fn ? 0x7f : 0x7e) | (*rc::gen::arbitrary<bool>() ? 0x80 : 0));
  const std::size_t b = *rc::gen::inRange<std::size_t>(0, sh.batch), j = *rc::gen::inRange<std::size_t>(0, sh.m),
                    g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads);
  const bool in_k = *rc::gen::arbitrary<bool>();
  const std::size_t e = *rc::gen::inRange<std::size_t>(0, in_k ? sh.d : sh.dv);
  (in_k ? fc.k8[sh.k_at(b, j, g) + e] : fc.v8[sh.v_at(b, j, g) + e]) = code;
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", code);
  r.why = std::string(in_k ? "k" : "v") + "[" + std::to_string(b) + "][" + std::to_string(j) + "][" + std::to_string(g) + "][" +
          std::to_string(e) + "] is the NaN code " + hex + " (" + fc.describe() + ")";
  std::vector<lse_t<T>> l;
  r.y = run_fp8kv(fc, ks, pol.returns_lse ? &l : nullptr);
  r.inputs = {{"q", fc.c.q}};
  r.notes = fp8_lines(fc);
  for (std::size_t h = 0; h < sh.heads; ++h) {
    if (sh.kv_head(h) != g) continue;
    for (std::size_t i = 0; i < sh.n; ++i) {
      if (in_k) {
        for (std::size_t c = 0; c < sh.dv; ++c) r.must.push_back(sh.o_at(b, i, h) + c);
        if (!l.empty())
          lse_must_be_nan(k, "lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]",
                          static_cast<double>(l[sh.lse_at(b, h, i)]), r);
        continue;
      }
      // The weight of key j in row (b, i, h), from the dequantized keys in double (no mask,
      // soft-cap or ALiBi in an unmasked case).
      std::vector<double> sc(sh.m);
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t jj = 0; jj < sh.m; ++jj) {
        double dot = 0;
        for (std::size_t t = 0; t < sh.d; ++t) dot += to_double(fc.c.q[sh.q_at(b, i, h) + t]) * fc.kx[sh.k_at(b, jj, g) + t];
        sc[jj] = fc.c.p.scale * dot;
        top = std::max(top, sc[jj]);
      }
      double z = 0;
      for (double x : sc) z += std::exp(x - top);
      if (std::exp(sc[j] - top) / z >= 0x1p-10) r.must.push_back(sh.o_at(b, i, h) + e);
    }
  }
  RC_PRE(!r.must.empty());  // every row's weight of key j underflows: nothing a NaN value must reach
  return r;
}

// kv_quantize's output is codes, not T: AUDIT-SAFE-001 and -DET-001 draw and compare them here.
// A row in range, or with overflow and special values.
template <class T>
void kv_quantize_safe(Kind, const KernelSet<T>& ks) {
  run_write(gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>()), ks);
}

template <class T>
void kv_quantize_deterministic(Kind k, const KernelSet<T>& ks) {
  const auto wc = gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>());
  const auto a = run_write(wc, ks), b = run_write(wc, ks);
  if (a != b)
    Report<T>("AUDIT-DET-001", what<T>(k) + " gave different codes on the same input, " + wc.describe())
        .input("x", wc.x)
        .line("First codes:  " + code_row(a))
        .line("Second codes: " + code_row(b))
        .raise();
}

// The write of a NaN gives a NaN code (E4M3FN S.1111.111, E5M2 S.11111.xx with xx != 0), whatever
// the overflow rule: saturation clamps overflow, never NaN. Judged here (its output is codes): the
// case returned has no output of T.
template <class T>
NanCase<T> kv_quantize_nan(Kind k, const KernelSet<T>& ks, const Policy&) {
  auto wc = gen::fp8_write_case<T>(false);
  const std::size_t at = put_nan(wc.x);
  const auto codes = run_write(wc, ks);
  if (!std::isnan(kernels::fp8_decode(wc.spec.format, codes[at])))
    Report<T>("AUDIT-NAN-001", what<T>(k) + ", code " + std::to_string(at) + " of " + std::to_string(codes.size()) + ", " + wc.describe())
        .input("x", wc.x)
        .line("Codes: " + code_row(codes))
        .line("x[" + std::to_string(at) + "] is NaN and its code " + code_row({codes[at]}) + " decodes to " +
              decimal(kernels::fp8_decode(wc.spec.format, codes[at])) + " (" + wc.spec.describe() + "): expected a NaN code (" +
              (wc.spec.format == kernels::Fp8Format::e4m3fn ? "0x7f or 0xff" : "0x7d..0x7f or 0xfd..0xff") + ").")
        .raise();
  return {};
}

}  // namespace attncheck::audit::obligations
