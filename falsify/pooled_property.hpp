// attncheck: registration of a property that also judges the run as a whole, e.g. a statistical
// test pooled over all its cases (FALSIFY-ASCL-001). Besides check<T>, P declares
//   template <class T> static void start_run();                  before the first case
//   template <class T> static void finish_run(property::Outcome&);  after a run whose cases all passed
// finish_run may add findings and turn the verdict to fail with its report as the counterexample.
// Everything else is property::register_property's: the same kernels, runner, seed and replay.
#pragma once

#include <utility>
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::falsify {

template <class P>
bool register_pooled_property(std::source_location where = std::source_location::current()) {
  property::PropertyInfo info;
  info.where = where;
  info.id = P::id;
  info.title = P::title;
  info.dtypes = {all_dtypes.begin(), all_dtypes.end()};
  info.run = [](Dtype d, const property::RunParams& params, property::Outcome& out) {
    visit_dtype(d, [&]<class T>() {
      const KernelSet<T> ks = property::kernels_under_test<T>(params);
      P::template start_run<T>();
      property::detail::run_rapidcheck([&ks] { P::template check<T>(ks); }, params, out);
      if (out.verdict == property::Verdict::pass) P::template finish_run<T>(out);
    });
  };
  property::add_property(std::move(info));
  return true;
}

}  // namespace attncheck::falsify
