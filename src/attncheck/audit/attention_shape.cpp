// attncheck audit: parsing and writing the --attention-shape word (attention_shape.hpp).
#include "attncheck/audit/attention_shape.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "attncheck/text/numbers.hpp"
#include "attncheck/text/parse_number.hpp"

namespace attncheck::audit {

namespace {

// The largest tensor attncheck builds for one problem, in elements: the sized audit keeps q, k, v,
// o (and a second o for determinism) at the storage format and the rows it samples in 200 bits;
// 2^28 elements are 2 GiB at f64 and cover the shapes kernels ship at (B·H = 64, n = 8192, d = 256
// is 2^27).
constexpr std::size_t max_tensor_elements = std::size_t{1} << 28;

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

bool to_size(std::string_view v, std::size_t& out) { return parse_whole(v, out); }
bool to_long(std::string_view v, long long& out) { return parse_whole(v, out) && out >= -1; }
bool to_double(std::string_view v, double& out) { return parse_whole(v, out) && std::isfinite(out); }

bool to_alignment(std::string_view v, kernels::Alignment& a) {
  if (v == "tl") return a = kernels::Alignment::top_left, true;
  if (v == "br") return a = kernels::Alignment::bottom_right, true;
  return false;
}

}  // namespace

std::string parse_attention_shape(std::string_view spec, SizedProblem& out) {
  std::map<std::string, std::string_view, std::less<>> kv;
  for (auto item : split(spec, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return "'" + std::string(item) + "' is not key=value (e.g. B=1,H=32,Hkv=8,n=4096,m=4096,d=128,causal=br)";
    const std::string key(item.substr(0, eq));
    static const char* known[] = {"B", "H", "Hkv", "n", "m", "d", "dv", "scale", "causal", "align", "window", "softcap", "alibi", "qk", "shift"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return key == k; }))
      return "unknown key '" + key + "' (known: B, H, Hkv, n, m, d, dv, scale, causal, align, window, softcap, alibi, qk, shift)";
    if (!kv.emplace(key, item.substr(eq + 1)).second) return "key '" + key + "' given twice";
  }
  for (const char* need : {"n", "m", "d"})
    if (!kv.count(need)) return std::string("missing ") + need + " (n, m and d are required)";

  kernels::AttentionProblem p;
  auto& s = p.shape;
  const std::pair<const char*, std::size_t*> sizes[] = {{"B", &s.batch}, {"H", &s.heads}, {"Hkv", &s.kv_heads}, {"n", &s.n},
                                                        {"m", &s.m},     {"d", &s.d},     {"dv", &s.dv}};
  s.kv_heads = 0, s.dv = 0;  // 0 = not given: H and d below
  for (auto [key, field] : sizes)
    if (auto it = kv.find(key); it != kv.end() && (!to_size(it->second, *field) || *field == 0))
      return std::string(key) + " = '" + std::string(it->second) + "': expected a positive integer";
  if (s.kv_heads == 0) s.kv_heads = s.heads;
  if (s.dv == 0) s.dv = s.d;
  if (s.heads % s.kv_heads != 0)
    return "H = " + std::to_string(s.heads) + " is not a multiple of Hkv = " + std::to_string(s.kv_heads);
  // In doubles: the products of sizes as large as from_chars reads would wrap in 64 bits.
  const double B = static_cast<double>(s.batch), H = static_cast<double>(s.heads), G = static_cast<double>(s.kv_heads);
  const double n = static_cast<double>(s.n), m = static_cast<double>(s.m), d = static_cast<double>(s.d), dv = static_cast<double>(s.dv);
  for (double elements : {B * n * H * d, B * m * G * d, B * m * G * dv, B * n * H * dv})
    if (elements > static_cast<double>(max_tensor_elements))
      return "a tensor of this shape has " + decimal(elements, 6) + " elements; attncheck builds at most 2^28 per tensor";

  p.scale = 1 / std::sqrt(static_cast<double>(s.d));
  if (auto it = kv.find("scale"); it != kv.end() && (!to_double(it->second, p.scale) || !(p.scale > 0)))
    return "scale = '" + std::string(it->second) + "': expected a positive finite number";
  if (auto it = kv.find("causal"); it != kv.end()) {
    if (it->second == "off") {
      p.mask.causal = false;
    } else if (to_alignment(it->second, p.mask.alignment)) {
      p.mask.causal = true;
    } else {
      return "causal = '" + std::string(it->second) + "': expected off, tl (top-left) or br (bottom-right)";
    }
  }
  if (auto it = kv.find("align"); it != kv.end()) {
    kernels::Alignment a{};
    if (!to_alignment(it->second, a)) return "align = '" + std::string(it->second) + "': expected tl or br";
    if (p.mask.causal && a != p.mask.alignment) return "align contradicts causal's alignment";
    p.mask.alignment = a;
  }
  if (auto it = kv.find("window"); it != kv.end()) {
    const auto lr = split(it->second, ':');
    if (lr.size() != 2 || !to_long(lr[0], p.mask.window_left) || !to_long(lr[1], p.mask.window_right))
      return "window = '" + std::string(it->second) + "': expected L:R, each -1 (unbounded) or a count >= 0";
  }
  if (auto it = kv.find("softcap"); it != kv.end() && (!to_double(it->second, p.softcap) || p.softcap < 0))
    return "softcap = '" + std::string(it->second) + "': expected a finite number >= 0 (0: off)";
  if (auto it = kv.find("alibi"); it != kv.end()) {
    if (it->second == "geo") {
      for (std::size_t h = 0; h < s.heads; ++h)
        p.alibi_slopes.push_back(std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(s.heads)));
    } else {
      for (auto v : split(it->second, '/')) {
        double slope = 0;
        if (!to_double(v, slope) || slope < 0) return "alibi slope '" + std::string(v) + "': expected a finite number >= 0";
        p.alibi_slopes.push_back(slope);
      }
      if (p.alibi_slopes.size() != s.heads)
        return "alibi: " + std::to_string(p.alibi_slopes.size()) + " slopes for H = " + std::to_string(s.heads) + " heads (or alibi=geo)";
    }
  }
  InputMagnitudes in;
  if (auto it = kv.find("qk"); it != kv.end()) {
    const auto lh = split(it->second, ':');
    if (lh.size() != 2 || !to_double(lh[0], in.qk_lo) || !to_double(lh[1], in.qk_hi) || !(in.qk_lo >= 0 && in.qk_lo <= in.qk_hi && in.qk_hi > 0))
      return "qk = '" + std::string(it->second) + "': expected LO:HI, magnitudes of the q and k elements, 0 <= LO <= HI, HI > 0";
  }
  if (auto it = kv.find("shift"); it != kv.end() && !to_double(it->second, in.shift))
    return "shift = '" + std::string(it->second) + "': expected a finite number (every score shifted by about it)";
  out.problem = std::move(p);
  out.inputs = in;
  return "";
}

std::string parse_attention_shape(std::string_view spec, kernels::AttentionProblem& out) {
  SizedProblem sp;
  if (std::string why = parse_attention_shape(spec, sp); !why.empty()) return why;
  if (sp.inputs.qk_hi > 0) return "qk: this caller keeps the problem alone and would lose the magnitudes (audit::SizedProblem keeps them)";
  if (sp.inputs.shift != 0) return "shift: this caller keeps the problem alone and would lose the shift (audit::SizedProblem keeps it)";
  out = std::move(sp.problem);
  return "";
}

std::string attention_shape_spec(const kernels::AttentionProblem& p) {
  const auto& s = p.shape;
  const auto al = [](kernels::Alignment a) { return a == kernels::Alignment::bottom_right ? "br" : "tl"; };
  std::string r = "B=" + std::to_string(s.batch) + ",H=" + std::to_string(s.heads) + ",Hkv=" + std::to_string(s.kv_heads) +
                  ",n=" + std::to_string(s.n) + ",m=" + std::to_string(s.m) + ",d=" + std::to_string(s.d) + ",dv=" + std::to_string(s.dv) +
                  ",scale=" + decimal(p.scale) + ",causal=" + (p.mask.causal ? al(p.mask.alignment) : "off") + ",align=" + al(p.mask.alignment) +
                  ",window=" + std::to_string(p.mask.window_left) + ":" + std::to_string(p.mask.window_right);
  if (p.softcap > 0) r += ",softcap=" + decimal(p.softcap);
  if (!p.alibi_slopes.empty()) {
    r += ",alibi=";
    for (std::size_t h = 0; h < p.alibi_slopes.size(); ++h) r += (h ? "/" : "") + decimal(p.alibi_slopes[h]);
  }
  return r;
}

std::string attention_shape_spec(const SizedProblem& p) {
  std::string r = attention_shape_spec(p.problem);
  if (p.inputs.qk_hi > 0) r += ",qk=" + decimal(p.inputs.qk_lo) + ":" + decimal(p.inputs.qk_hi);
  if (p.inputs.shift != 0) r += ",shift=" + decimal(p.inputs.shift);
  return r;
}

}  // namespace attncheck::audit
