// attncheck audit: what the audit's own obligations (AUDIT-*: properties_safety.cpp,
// properties_masked.cpp, properties_at_size.cpp) share: the draws of every kind's inputs, the calls
// that run them and the report helpers. Templates only, instantiated by those files.
#pragma once

#include "attncheck/audit/properties_obligations.hpp"
#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/audit/attention_backward_at_size.hpp"
#include "attncheck/audit/attention_backward_drift.hpp"
#include "attncheck/audit/attention_paged_at_size.hpp"

#include <cmath>
#include <limits>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/property/gen/attention_backward.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/gen/attention_fp8kv.hpp"
#include "attncheck/property/gen/attention_merge.hpp"
#include "attncheck/property/gen/attention_paged.hpp"
#include "attncheck/property/gen/gains.hpp"
#include "attncheck/property/property.hpp"
namespace attncheck::audit::obligations {

using property::draw_row;
using property::draw_vector;
using property::Report;
using property::follows_masked_policy;
using oracle::real;

template <class T>
bool is_nan(T v) { const double d = to_double(v); return d != d; }

template <class T>
std::string what(Kind k) { return std::string(kind_name(k)) + "<" + std::string(format_of<T>.name) + ">"; }

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (scalar_traits<T>::bits(a[i]) != scalar_traits<T>::bits(b[i])) return false;
  return true;
}

// A small attention problem of ABI version 2 (property/gen/attention_batched.hpp: B, H, H_kv,
// n != m, scale, both alignments, window, soft-cap, ALiBi), for the obligations every kind has
// (AUDIT-SAFE-001, -DET-001, -NAN-001). With unmasked, only the shape and scale vary and every
// row sees every key.
template <class T>
gen::BatchedCase<T> draw_batched(bool unmasked = false) {
  gen::BatchedLimits lim{.max_batch = 2, .max_heads = 6, .max_n = 5, .max_m = 5, .max_d = 8, .max_dv = 8};
  lim.masks = !unmasked;
  return gen::batched_case<T>(lim, false);
}

// One random call of kind k: the inputs (for the report) and the output.
template <class T>
struct Drawn {
  std::vector<std::pair<std::string, std::vector<T>>> inputs;
  std::string shape;
  std::vector<T> out;
  std::vector<std::string> lines;  // inputs that are not of T (FP8 codes), as report lines
};

// A random call of a kind: the drawn input and a function that calls the kernel on it (the
// AUDIT-SAFE-001 and AUDIT-DET-001 draws of each kind, kinds/*_draws.hpp).
template <class T>
using DrawnCall = std::pair<Drawn<T>, std::function<std::vector<T>()>>;

// A size drawn uniformly from lo..hi.
inline std::size_t size_in(int lo, int hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); }

// One AUDIT-NAN-001 case of a kind (kinds/*_draws.hpp): the kernel's output y on inputs holding a
// NaN, why (where the NaN is), and the outputs that must then be NaN (empty: every one).
template <class T>
struct NanCase {
  std::vector<std::pair<std::string, std::vector<T>>> inputs;
  std::vector<T> y;
  std::vector<std::size_t> must;
  std::string why;
  std::vector<std::string> notes;  // inputs that are not of T (FP8 codes), as report lines
};

template <class T>
T nan_value() { return T(std::numeric_limits<double>::quiet_NaN()); }

// Puts a NaN at a random element of v; returns its index.
template <class T>
std::size_t put_nan(std::vector<T>& v) {
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, v.size());
  v[at] = nan_value<T>();
  return at;
}

// Raises AUDIT-NAN-001 unless got (the LSE of the row `where` names) is NaN.
template <class T>
void lse_must_be_nan(Kind k, const std::string& where, double got, const NanCase<T>& c) {
  if (std::isnan(got)) return;
  Report<T> r("AUDIT-NAN-001", what<T>(k) + ", " + where);
  for (const auto& [name, v] : c.inputs) r.input(name, v);
  for (const auto& line : c.notes) r.line(line);
  r.line(c.why + ": expected NaN in the row's LSE, got " + decimal(got) + ".").raise();
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const Drawn<T>& d) {
  r.line("Shape: " + d.shape);
  for (const auto& [name, v] : d.inputs) r.input(name, v);
  for (const auto& l : d.lines) r.line(l);
  return r;
}

// Attention problems (property/gen/attention.hpp): shapes small enough to shrink to a readable
// counterexample.
using gen::AttentionCase;
template <class T>
AttentionCase<T> draw_attention(std::size_t min_m = 1) {
  return gen::attention_case<T>({.min_m = min_m});
}

}  // namespace attncheck::audit::obligations
