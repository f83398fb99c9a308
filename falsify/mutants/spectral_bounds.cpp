// attncheck: wrong SVD and truncation kernels that the spectral-bounds-v1 tests must catch.
#include <algorithm>
#include <vector>

#include "falsify/svd_kernels.hpp"

namespace attncheck::mutants {
namespace {
using falsify::LinalgKernels;

// The attention kernels stay the reference: these mutants only replace linear-algebra kernels.
#define ATTNCHECK_LINALG_ONLY \
  template <class T>          \
  static void apply(KernelSet<T>&) {}

// Reports the squared column norms: the sqrt forgotten.
struct SvdNoSqrt {
  static constexpr const char* name = "svd_no_sqrt";
  static constexpr const char* description = "singular values reported as squared column norms";
  static std::vector<std::string> caught_by() {
    return {"FALSIFY-SPEC-001", "FALSIFY-SPEC-002", "FALSIFY-SPEC-005", "FALSIFY-SPEC-006", "FALSIFY-SFB-002"};
  }
  ATTNCHECK_LINALG_ONLY
  template <class T>
  static void apply_linalg(LinalgKernels<T>& l) {
    l.svd = [](const linalg::Matrix<T>& a) {
      auto d = linalg::jacobi_svd<T>(a);
      for (T& s : d.s) s = s * s;
      return d;
    };
  }
};

// One sweep of rotations, then declared converged: the columns are not yet orthogonal.
struct SvdOneSweep {
  static constexpr const char* name = "svd_one_sweep";
  static constexpr const char* description = "Jacobi stops after one sweep and claims convergence";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SPEC-002", "FALSIFY-SPEC-004"}; }
  ATTNCHECK_LINALG_ONLY
  template <class T>
  static void apply_linalg(LinalgKernels<T>& l) {
    l.svd = [](const linalg::Matrix<T>& a) {
      auto d = linalg::jacobi_svd<T>(a, 1);
      d.converged = true;
      return d;
    };
  }
};

// Singular values (and their vectors) in ascending order.
struct SvdAscending {
  static constexpr const char* name = "svd_ascending";
  static constexpr const char* description = "singular values sorted ascending";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SPEC-002", "FALSIFY-SPEC-003"}; }
  ATTNCHECK_LINALG_ONLY
  template <class T>
  static void apply_linalg(LinalgKernels<T>& l) {
    l.svd = [](const linalg::Matrix<T>& a) {
      auto d = linalg::jacobi_svd<T>(a);
      std::reverse(d.s.begin(), d.s.end());
      for (auto* f : {&d.w, &d.v})
        for (std::size_t r = 0; r < f->rows; ++r) std::reverse(f->a.begin() + r * f->cols, f->a.begin() + (r + 1) * f->cols);
      return d;
    };
  }
};

// A "rank-revealing" shortcut: the smallest singular value is reported as 0.
struct SvdDropsSmallest {
  static constexpr const char* name = "svd_drops_smallest";
  static constexpr const char* description = "the smallest singular value is reported as 0";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SPEC-001", "FALSIFY-SPEC-002"}; }
  ATTNCHECK_LINALG_ONLY
  template <class T>
  static void apply_linalg(LinalgKernels<T>& l) {
    l.svd = [](const linalg::Matrix<T>& a) {
      auto d = linalg::jacobi_svd<T>(a);
      if (d.s.size() > 1) d.s.back() = lit<T>(0);
      return d;
    };
  }
};

// Off by one: the rank-(k−1) truncation keeps k terms.
struct TruncateKeepsK {
  static constexpr const char* name = "svd_truncate_keeps_one_more";
  static constexpr const char* description = "the rank-(k-1) truncation keeps k terms";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SPEC-004"}; }
  ATTNCHECK_LINALG_ONLY
  template <class T>
  static void apply_linalg(LinalgKernels<T>& l) {
    l.truncate = [](const linalg::Svd<T>& d, std::size_t k) { return linalg::truncate<T>(d, k + 1); };
  }
};

#undef ATTNCHECK_LINALG_ONLY

const bool registered = falsify::register_linalg_mutant<SvdNoSqrt>() && falsify::register_linalg_mutant<SvdOneSweep>() &&
                        falsify::register_linalg_mutant<SvdAscending>() && falsify::register_linalg_mutant<SvdDropsSmallest>() &&
                        falsify::register_linalg_mutant<TruncateKeepsK>();

}  // namespace
}  // namespace attncheck::mutants
