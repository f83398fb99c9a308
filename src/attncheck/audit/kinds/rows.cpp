// attncheck audit: the kinds of ABI version 1 over one row or one small matrix: softmax,
// log_softmax, entropy, softmax_jvp, scores and rmsnorm (abi.h).
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

namespace {
constexpr auto zeros = zero_elements;

void one_element(Call& c) {  // x of one element +0
  c.n = 1;
  c.inputs = {zeros(c, 1)};
  c.output_count = 1;
}
}  // namespace

extern const KindDescriptor softmax_kind, log_softmax_kind, entropy_kind, softmax_jvp_kind, scores_kind, rmsnorm_kind;

constinit const KindDescriptor softmax_kind{
    .kind = Kind::softmax,
    .name = "softmax",
    .smallest_call = one_element,
    .call_inputs = 1,
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(
          d, [&]<class T, class S>() { return reinterpret_cast<int (*)(const T*, T*, std::size_t)>(fn)(a.in<T>(0), a.out<T>(0), a.r.n); });
    }};
constinit const KindDescriptor log_softmax_kind{
    .kind = Kind::log_softmax,
    .name = "log_softmax",
    .smallest_call = one_element,
    .call_inputs = 1,
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(
          d, [&]<class T, class S>() { return reinterpret_cast<int (*)(const T*, T*, std::size_t)>(fn)(a.in<T>(0), a.out<T>(0), a.r.n); });
    }};
constinit const KindDescriptor entropy_kind{
    .kind = Kind::entropy,
    .name = "entropy",
    .smallest_call = one_element,
    .call_inputs = 1,
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(
          d, [&]<class T, class S>() { return reinterpret_cast<int (*)(const T*, std::size_t, T*)>(fn)(a.in<T>(0), a.r.n, a.out<T>(0)); });
    }};

constinit const KindDescriptor softmax_jvp_kind{.kind = Kind::softmax_jvp,
                                                .name = "softmax_jvp",
                                                .wire_inputs = 2,  // x, dx
                                                .smallest_call =
                                                    [](Call& c) {
                                                      c.n = 1;
                                                      c.inputs = {zeros(c, 1), zeros(c, 1)};
                                                      c.output_count = 1;
                                                    },
                                                .call_inputs = 2,
                                                .invoke =
                                                    [](void* fn, const LibraryArgs& a, Dtype d) {
                                                      return with_abi_types(d, [&]<class T, class S>() {
                                                        return reinterpret_cast<int (*)(const T*, const T*, std::size_t, T*)>(fn)(
                                                            a.in<T>(0), a.in<T>(1), a.r.n, a.out<T>(0));
                                                      });
                                                    }};

constinit const KindDescriptor scores_kind{
    .kind = Kind::scores,
    .name = "scores",
    .wire_inputs = 2,  // q, k
    .smallest_call =
        [](Call& c) {
          c.n = c.m = c.d = 1;
          c.inputs = {zeros(c, 1), zeros(c, 1)};
          c.output_count = 1;
        },
    .call_inputs = 2,
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(const T*, const T*, std::size_t, std::size_t, std::size_t, T*)>(fn)(
                a.in<T>(0), a.in<T>(1), a.r.n, a.r.m, a.r.d, a.out<T>(0));
          });
        }};

constinit const KindDescriptor rmsnorm_kind{.kind = Kind::rmsnorm,
                                            .name = "rmsnorm",
                                            .wire_inputs = 2,  // x, w
                                            .smallest_call =
                                                [](Call& c) {
                                                  c.d = 1;
                                                  c.eps = 1.0 / 1024;  // a power of two: exact in every S
                                                  c.inputs = {zeros(c, 1), zeros(c, 1)};
                                                  c.output_count = 1;
                                                },
                                            .call_inputs = 2,
                                            .invoke =
                                                [](void* fn, const LibraryArgs& a, Dtype d) {
                                                  return with_abi_types(d, [&]<class T, class S>() {
                                                    return reinterpret_cast<int (*)(const T*, const T*, std::size_t, S, T*)>(fn)(
                                                        a.in<T>(0), a.in<T>(1), a.r.d, static_cast<S>(a.r.eps), a.out<T>(0));
                                                  });
                                                }};

}  // namespace attncheck::audit
