// attncheck audit: a kind is its descriptor. The dry run of docs/architecture.md ("Kernel kinds"):
// a trivial kind `scale` (y = x · 2, elementwise), described and registered here only, is spelt,
// named, framed by the exec codec and called through the library backend's generic call path
// without a line of its own anywhere else in src/attncheck/audit/.
#include <algorithm>
#include <cstring>

#include <doctest/doctest.h>

#include "attncheck/audit/kinds/registry.hpp"
#include "attncheck/audit/properties_obligations.hpp"
#include "attncheck/audit/protocol.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {
constexpr auto scale = static_cast<Kind>(200);  // a number no built-in kind has

// The descriptor: everything the kind is.
constinit const KindDescriptor scale_kind{
    .kind = scale,
    .name = "scale",
    .smallest_call = [](Call& c) {
      c.n = 1;
      c.inputs = {zero_elements(c, 1)};
      c.output_count = 1;
    },
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(d, [&]<class T, class>() { return reinterpret_cast<int (*)(const T*, T*, std::size_t)>(fn)(a.in<T>(0), a.out<T>(0), a.r.n); });
    }};

// The registration line.
void register_scale() {
  static const bool registered = (register_kind(scale_kind), true);
  (void)registered;
}

int scale_f32(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * 2;
  return 0;
}
}  // namespace

TEST_CASE("a kind registered by its descriptor alone is spelt, named, framed and called like the built-in ones") {
  register_scale();
  CHECK(parse_kind("scale") == scale);
  CHECK(kind_name(scale) == "scale");
  CHECK_FALSE(abi2_only(scale));
  CHECK_FALSE(takes_problem(scale));
  CHECK(output_size(scale, Dtype::f64) == 8);
  CHECK(registered_kinds().back() == scale);

  // The exec codec frames it from the descriptor: one input array, no block.
  Call c;
  c.kind = scale;
  c.dtype = Dtype::f32;
  descriptor_of(scale).smallest_call(c);
  const auto frame = protocol::encode_call(c);
  const Call back = protocol::decode_call({frame.begin() + protocol::header_bytes, frame.end()});
  CHECK(back.kind == scale);
  CHECK(back.n == 1);
  CHECK(back.inputs == c.inputs);

  // The library backend's call of its signature, on a request laid out as the backend lays it out.
  alignas(64) unsigned char region[128] = {};
  const float x[2] = {1.5f, -3.0f};
  std::memcpy(region, x, sizeof x);
  LibraryRequest r{};
  r.n = 2;
  r.in_off[0] = 0;
  r.out_off[0] = 64;
  r.outputs = 1;
  REQUIRE(descriptor_of(scale).invoke(reinterpret_cast<void*>(&scale_f32), LibraryArgs{r, region}, Dtype::f32) == 0);
  float y[2];
  std::memcpy(y, region + 64, sizeof y);
  CHECK(y[0] == 3.0f);
  CHECK(y[1] == -6.0f);
}

TEST_CASE("a registered kind's number or spelling cannot be taken twice, and unregistered numbers are refused on the wire") {
  register_scale();
  KindDescriptor again = scale_kind;
  CHECK_THROWS_AS(register_kind(again), std::logic_error);
  again.kind = static_cast<Kind>(201);
  CHECK_THROWS_AS(register_kind(again), std::logic_error);  // the name `scale` is taken
  CHECK(find_kind(202) == nullptr);
  CHECK(kind_name(static_cast<Kind>(202)) == "?");  // named as before the registry, never a throw
  CHECK_FALSE(takes_problem(static_cast<Kind>(202)));
  std::vector<unsigned char> payload(4 + 4 + 6 * 8, 0);
  payload[0] = 202;
  CHECK_THROWS_AS(protocol::decode_call(payload), protocol::ProtocolError);
}

TEST_CASE("every built-in kind has a complete descriptor, in abi.h's order") {
  std::uint8_t code = 1;
  for (Kind k : registered_kinds()) {
    if (k == scale) continue;
    const auto& d = descriptor_of(k);
    CHECK(static_cast<std::uint8_t>(d.kind) == code++);
    CHECK(static_cast<bool>(d.smallest_call));
    CHECK(static_cast<bool>(d.invoke));
    CHECK(d.wire_inputs <= d.call_inputs);
  }
  CHECK(code == 15);
}

TEST_CASE("every built-in kind has the draws of the obligations every kind has, and a test's kind has none") {
  std::vector<Kind> builtin;
  for (Kind k : registered_kinds())
    if (k != scale) builtin.push_back(k);
  CHECK(obligations::kinds_with_draws() == builtin);
  const auto every = obligations::kinds_with_draws();
  CHECK(std::find(every.begin(), every.end(), scale) == every.end());
}
