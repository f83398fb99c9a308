// attncheck: thresholds of the real exp/log, axiom instantiation on a formula, and the exhaustive
// validation of the axioms against the functions the concrete kernels call.
#include "attncheck/bmc/axioms.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {

// Values of a W-bit format in numeric order: key(bits) is monotone in the value for every
// non-NaN pattern (the usual sign-magnitude to two's-order map); -0 comes right before +0.
template <class C>
struct ordered {
  static constexpr int width = scalar_traits<C>::bit_width;
  static constexpr std::uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
  static constexpr std::uint64_t sign = 1ull << (width - 1);
  static std::uint64_t key(std::uint64_t b) { return (b & sign) ? (~b & mask) : (b | sign); }
  static std::uint64_t bits(std::uint64_t k) { return (k & sign) ? (k & ~sign) : (~k & mask); }
  static C value_at(std::uint64_t k) { return scalar_traits<C>::from_bits(bits(k)); }
  static std::uint64_t key_of(C x) { return key(scalar_traits<C>::bits(x)); }
  static C inf() { return lit<C>(std::numeric_limits<double>::infinity()); }
};

// First key in [lo, hi] where pred holds, pred monotone (false...true); hi + 1 if none.
template <class P>
std::uint64_t first_true(std::uint64_t lo, std::uint64_t hi, P pred) {
  std::uint64_t a = lo, b = hi + 1;
  while (a < b) {
    const std::uint64_t mid = a + (b - a) / 2;
    if (pred(mid)) b = mid; else a = mid + 1;
  }
  return a;
}

}  // namespace

template <class C>
exp_thresholds find_exp_thresholds(C (*exp_fn)(C)) {
  using O = ordered<C>;
  const std::uint64_t lo = O::key_of(-O::inf()), hi = O::key_of(O::inf());
  const auto ex = [&](std::uint64_t k) { return exp_fn(O::value_at(k)); };
  const std::uint64_t k_ovf = first_true(lo, hi, [&](std::uint64_t k) { return is_inf(ex(k)); });
  const std::uint64_t k_pos = first_true(lo, hi, [&](std::uint64_t k) { return to_double(ex(k)) > 0; });
  return {to_double(O::value_at(k_ovf)), to_double(O::value_at(k_pos - 1))};
}

template <class C>
log_thresholds find_log_thresholds(C (*log_fn)(C)) {
  const C tiny = lit<C>(format_of<C>.denorm_min), big = lit<C>(format_of<C>.max_finite);
  return {to_double(log_fn(tiny)), to_double(log_fn(big))};
}

log_tangent log_tangent_at(int k, double log_rel) {
  // Rounded up (towards +inf) from long double: the right-hand side only grows, so the axiom
  // stays a consequence of the tangent inequality and log's error bound.
  const auto up = [](long double v) {
    const double d = static_cast<double>(v);
    return static_cast<long double>(d) >= v ? d : std::nextafter(d, std::numeric_limits<double>::infinity());
  };
  const long double scale = 1.0L + static_cast<long double>(log_rel);
  return {k, up(scale / k), up((std::log(static_cast<long double>(k)) - 1) * scale)};
}

std::string log_tangent_name(int k) {
  return fmt::format("0 < x <= 1 => -x log(x) <= (1/{0} + x (ln {0} - 1))(1 + log_rel)", k);
}

template exp_thresholds find_exp_thresholds<f16>(f16 (*)(f16));
template exp_thresholds find_exp_thresholds<bf16>(bf16 (*)(bf16));
template exp_thresholds find_exp_thresholds<float>(float (*)(float));
template log_thresholds find_log_thresholds<f16>(f16 (*)(f16));
template log_thresholds find_log_thresholds<bf16>(bf16 (*)(bf16));
template log_thresholds find_log_thresholds<float>(float (*)(float));

namespace {

template <class C>
void instantiate_for(session& s, std::vector<z3::expr>& out) {
  using V = sym<C>;
  static const exp_thresholds et = find_exp_thresholds<C>();
  static const log_thresholds lt = find_log_thresholds<C>();
  std::vector<const uf_application*> exps, logs;
  for (const uf_application& a : s.applications())
    if (a.ebits == V::ebits && a.sbits == V::sbits)
      (a.which == uf_application::fn::exp ? exps : logs).push_back(&a);
  const auto push = [&](int, const char*, const sym_bool& b) { out.push_back(b.expr()); };
  for (const uf_application* a : exps) for_each_exp_axiom(V(a->arg), V(a->result), et, push);
  for (const uf_application* a : logs) for_each_log_axiom(V(a->arg), V(a->result), lt, push);
  for (int k : s.log_tangents()) {
    const log_tangent t = log_tangent_at(k, scalar_traits<C>::log_rel);
    for (const uf_application* a : logs) out.push_back(log_tangent_axiom(V(a->arg), V(a->result), t).expr());
  }
  for (std::size_t i = 0; i < exps.size(); ++i)
    for (std::size_t j = 0; j < exps.size(); ++j)
      if (i != j) out.push_back(exp_monotone(V(exps[i]->arg), V(exps[i]->result), V(exps[j]->arg), V(exps[j]->result)).expr());
  for (std::size_t i = 0; i < logs.size(); ++i)
    for (std::size_t j = 0; j < logs.size(); ++j)
      if (i != j) out.push_back(log_monotone(V(logs[i]->arg), V(logs[i]->result), V(logs[j]->arg), V(logs[j]->result)).expr());
}

template <class C>
bool is_sort(const uf_application& a) {
  return a.ebits == sort_of<C>::ebits && a.sbits == sort_of<C>::sbits;
}

}  // namespace

std::vector<z3::expr> instantiate_axioms(session& s) {
  for (const uf_application& a : s.applications())
    if (!is_sort<f16>(a) && !is_sort<bf16>(a) && !is_sort<float>(a))
      throw std::runtime_error(fmt::format(
          "{} on a {}-bit format: its axioms are validated only for f16, bf16 and f32 (every input); "
          "an unvalidated stub is not allowed",
          a.which == uf_application::fn::exp ? "exp" : "log", a.ebits + a.sbits));
  for (int k : s.log_tangents())
    if (k < 1 || k > log_tangent_max)
      throw std::runtime_error(fmt::format("the log tangent axiom at 1/{} is not validated (only k = 1..{})", k,
                                           log_tangent_max));
  std::vector<z3::expr> out;
  instantiate_for<f16>(s, out);
  instantiate_for<bf16>(s, out);
  instantiate_for<float>(s, out);
  return out;
}

template <class C>
validation_report validate_axioms(unsigned threads, unary_fn<C> exp_fn, unary_fn<C> log_fn) {
  using O = ordered<C>;
  const auto t0 = std::chrono::steady_clock::now();
  const exp_thresholds et = find_exp_thresholds<C>(exp_fn);
  const log_thresholds lt = find_log_thresholds<C>(log_fn);
  constexpr int n_exp = exp_axiom_count, n_log = log_axiom_count;
  // + the two monotonicity axioms, then the log tangents at 1/k (k = 1..log_tangent_max)
  constexpr int i_emono = n_exp + n_log, i_lmono = i_emono + 1, i_tangent = i_emono + 2;
  constexpr int n_all = i_tangent + log_tangent_max;
  std::vector<log_tangent> tangents;
  for (int k = 1; k <= log_tangent_max; ++k) tangents.push_back(log_tangent_at(k, scalar_traits<C>::log_rel));
  struct tally {
    std::uint64_t count[n_all] = {};
    std::uint64_t first[n_all] = {};
  };
  std::vector<tally> tallies(std::max(1u, threads));
  std::vector<std::string> names(n_all);
  {  // the axioms' names, in index order, from one evaluation
    const C z = lit<C>(0);
    for_each_exp_axiom(z, exp_fn(z), et, [&](int i, const char* name, bool) { names[i] = name; });
    for_each_log_axiom(z, log_fn(z), lt, [&](int i, const char* name, bool) { names[n_exp + i] = name; });
  }

  // Every bit pattern: unary axioms. Keys [0, 2^W): key k+1 is the next value after key k for
  // all non-NaN keys, so the monotonicity of consecutive values covers all pairs by transitivity.
  const std::uint64_t total = O::mask + 1;
  const std::uint64_t k_lo = O::key_of(-O::inf()), k_hi = O::key_of(O::inf());
  std::atomic<std::uint64_t> next{0};
  constexpr std::uint64_t chunk = 1u << 16;
  const auto work = [&](unsigned tid) {
    tally& t = tallies[tid];
    for (;;) {
      const std::uint64_t begin = next.fetch_add(chunk);
      if (begin >= total) break;
      const std::uint64_t end = std::min(total, begin + chunk);
      // The previous value's results are carried along (computed once at the chunk's start).
      C xp = O::value_at(begin > 0 ? begin - 1 : 0);
      C ep = exp_fn(xp), lp = log_fn(xp);
      for (std::uint64_t k = begin; k < end; ++k) {
        const std::uint64_t b = O::bits(k);
        const C x = scalar_traits<C>::from_bits(b);
        const C e = exp_fn(x), l = log_fn(x);
        const auto record = [&](int offset) {
          return [&, offset](int i, const char*, bool ok) {
            if (!ok && t.count[offset + i]++ == 0) t.first[offset + i] = b;
          };
        };
        for_each_exp_axiom(x, e, et, record(0));
        for_each_log_axiom(x, l, lt, record(n_exp));
        // The tangent axioms are implications from 0 < x <= 1: only those inputs can break them
        // (a quarter of the patterns; this keeps the 2^32-input f32 run short).
        if (to_double(x) > 0 && to_double(x) <= 1)
          for (int j = 0; j < log_tangent_max; ++j)
            if (!bool(log_tangent_axiom(x, l, tangents[j])) && t.count[i_tangent + j]++ == 0) t.first[i_tangent + j] = b;
        if (k > k_lo && k <= k_hi) {  // monotone from the previous value
          if (!bool(exp_monotone(xp, ep, x, e)) && t.count[i_emono]++ == 0) t.first[i_emono] = b;
          if (!bool(log_monotone(xp, lp, x, l)) && t.count[i_lmono]++ == 0) t.first[i_lmono] = b;
        }
        xp = x;
        ep = e;
        lp = l;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < tallies.size(); ++i) pool.emplace_back(work, i);
  work(0);
  for (auto& th : pool) th.join();
  names[i_emono] = exp_monotone_name;
  names[i_lmono] = log_monotone_name;
  for (int j = 0; j < log_tangent_max; ++j) names[i_tangent + j] = log_tangent_name(j + 1);
  // -0 and +0 compare equal, so x1 = +0 <= x2 = -0 is a pair too: check that direction once.
  {
    const C pz = lit<C>(0.0), nz = C(-pz);
    if (!bool(exp_monotone(pz, exp_fn(pz), nz, exp_fn(nz)))) tallies[0].count[i_emono]++;
    if (!bool(log_monotone(pz, log_fn(pz), nz, log_fn(nz)))) tallies[0].count[i_lmono]++;
  }

  validation_report r;
  r.format = std::string(format_of<C>.name);
  r.inputs = total;
  r.axioms_checked = names;
  for (int i = 0; i < n_all; ++i) {
    axiom_failure f;
    f.function = i < n_exp || i == i_emono ? "exp" : "log";
    f.axiom = names[i];
    for (const tally& t : tallies)
      if (t.count[i]) {
        if (f.count == 0) f.first_bits = t.first[i];
        f.count += t.count[i];
      }
    if (f.count) r.failures.push_back(f);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

template validation_report validate_axioms<f16>(unsigned, unary_fn<f16>, unary_fn<f16>);
template validation_report validate_axioms<bf16>(unsigned, unary_fn<bf16>, unary_fn<bf16>);
template validation_report validate_axioms<float>(unsigned, unary_fn<float>, unary_fn<float>);

}  // namespace attncheck::bmc
