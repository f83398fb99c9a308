// attncheck: a set of kernels under test for one scalar type (the reference, a mutant, later a
// user's library), so that a property never names the implementation it checks.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/attention_hvp.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/position_encoding.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"

namespace attncheck {

template <class T>
struct KernelSet {
  std::string name = "reference";
  std::function<void(const T* x, T* y, std::size_t n)> softmax;
  std::function<void(const T* x, T* y, std::size_t n)> log_softmax;
  std::function<void(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s)> scores;
  std::function<void(const T* x, const T* w, std::size_t d, T eps, T* y)> rmsnorm;
  std::function<void(const T* x, const T* w, std::size_t h, std::size_t d, T eps, T* y)> rmsnorm_heads;
  std::function<T(const T* p, std::size_t n)> entropy;
  std::function<void(const T* q, const T* k, const T* v, std::size_t n, std::size_t m,
                     std::size_t d, std::size_t dv, bool causal, T* o)>
      attention;
  std::function<void(const T* x, const T* dx, std::size_t n, T* dy)> softmax_jvp;
  // aᵀ∇²L b for L = ⟨W, attention(Q, K, V)⟩ (w: n x dv), along directions a and b
  std::function<T(const T* q, const T* k, const T* v, const T* w, kernels::HeadDirection<T> a,
                  kernels::HeadDirection<T> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal)>
      attention_hvp;
  std::function<void(std::size_t t, std::size_t d, T* row)> position_encoding;  // one row of Φ
};

// The built-in reference kernels: the templates of src/attncheck/kernels at T.
template <class T>
KernelSet<T> reference_kernels() {
  KernelSet<T> k;
  k.softmax = kernels::softmax<T>;
  k.log_softmax = kernels::log_softmax<T>;
  k.scores = kernels::scores<T>;
  k.rmsnorm = kernels::rmsnorm<T>;
  k.rmsnorm_heads = kernels::rmsnorm_heads<T>;
  k.entropy = kernels::entropy<T>;
  k.attention = kernels::attention<T>;
  k.softmax_jvp = kernels::softmax_jvp<T>;
  k.attention_hvp = kernels::attention_hvp<T>;
  k.position_encoding = kernels::position_encoding<T>;
  return k;
}

// Kernel sets supplied by the caller for a run, at the scalar types it has them for (e.g. the
// kernels under `attncheck audit`): check::RunParams::kernels carries them to the properties in
// place of the reference or a mutant.
struct KernelSets {
  std::string name;  // what the reports call them
  std::tuple<std::optional<KernelSet<f16>>, std::optional<KernelSet<bf16>>, std::optional<KernelSet<float>>,
             std::optional<KernelSet<double>>>
      sets;
  template <class T>
  void set(KernelSet<T> k) { std::get<std::optional<KernelSet<T>>>(sets) = std::move(k); }
  template <class T>
  const KernelSet<T>* find() const {
    const auto& s = std::get<std::optional<KernelSet<T>>>(sets);
    return s ? &*s : nullptr;
  }
};

}  // namespace attncheck
