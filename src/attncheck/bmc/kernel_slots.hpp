// attncheck: the kernels a harness calls, as replaceable slots, so that the same harness body can
// be run on a broken kernel (a mutant) to show that it finds the bug.
#pragma once

#include <cstddef>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"

namespace attncheck::bmc {

template <class T>
struct kernel_slots {
  T (*max_step)(T, T) = kernels::max_step<T>;
  T (*row_max)(const T*, std::size_t) = kernels::row_max<T>;
  T (*shifted_exp_step)(T, T) = kernels::shifted_exp_step<T>;
  void (*softmax)(const T*, T*, std::size_t) = kernels::softmax<T>;
  void (*scores)(const T*, const T*, std::size_t, std::size_t, std::size_t, T*) = kernels::scores<T>;
  void (*attention)(const T*, const T*, const T*, std::size_t, std::size_t, std::size_t, std::size_t, bool,
                    T*) = kernels::attention<T>;
  void (*rmsnorm)(const T*, const T*, std::size_t, T, T*) = kernels::rmsnorm<T>;
  T (*entropy_term)(T) = kernels::entropy_term<T>;
  T (*entropy)(const T*, std::size_t) = kernels::entropy<T>;
  void (*softmax_jvp)(const T*, const T*, std::size_t, T*) = kernels::softmax_jvp<T>;
};

}  // namespace attncheck::bmc
