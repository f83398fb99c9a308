// attncheck: the linear-algebra kernels under test (Jacobi SVD and its truncation) and their
// mutants. property::KernelSet holds the attention kernels; the SVD is selected here by the kernel
// set's name, which the registry sets to the mutant's name: a mutant registered with
// register_linalg_mutant<M>() is a regular property::register_mutant<M>() (so falsify_test and the
// gate run it and demand that its caught_by tests fail) whose effect lives in LinalgKernels.
// (If KernelSet gains svd/truncate slots, these move there and this header goes away.)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/linalg/svd.hpp"

namespace attncheck::falsify {

template <class T>
struct LinalgKernels {
  std::function<linalg::Svd<T>(const linalg::Matrix<T>&)> svd = [](const linalg::Matrix<T>& a) { return linalg::jacobi_svd<T>(a); };
  std::function<linalg::Matrix<T>(const linalg::Svd<T>&, std::size_t)> truncate = linalg::truncate<T>;
};

struct LinalgMutant {
  std::string name;
  std::function<void(LinalgKernels<float>&)> f32;
  std::function<void(LinalgKernels<double>&)> f64;
};

inline std::vector<LinalgMutant>& linalg_mutants() {
  static std::vector<LinalgMutant> v;
  return v;
}

// The linear-algebra kernels that go with the kernel set k (reference unless k is a linalg mutant).
template <class T>
LinalgKernels<T> linalg_for(const KernelSet<T>& k) {
  LinalgKernels<T> l;
  for (const auto& m : linalg_mutants())
    if (m.name == k.name) {
      if constexpr (std::is_same_v<T, float>) m.f32(l);
      else if constexpr (std::is_same_v<T, double>) m.f64(l);
    }
  return l;
}

// M: as for property::register_mutant, plus `template <class T> static void apply_linalg(LinalgKernels<T>&)`.
template <class M>
bool register_linalg_mutant() {
  linalg_mutants().push_back({M::name, [](LinalgKernels<float>& l) { M::template apply_linalg<float>(l); },
                              [](LinalgKernels<double>& l) { M::template apply_linalg<double>(l); }});
  return property::register_mutant<M>();
}

}  // namespace attncheck::falsify
