// attncheck: reading a number a user wrote (a flag's value, a bindings file's entry, an
// --attention-shape word) strictly: the whole text and nothing else.
#pragma once

#include <charconv>
#include <string_view>
#include <system_error>

namespace attncheck {

// The whole of v as a number of type N (std::from_chars: no sign for unsigned, no spaces, no '+',
// no trailing text); false, and out untouched, otherwise.
template <class N>
bool parse_whole(std::string_view v, N& out) {
  N x{};
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || v.empty()) return false;
  out = x;
  return true;
}

}  // namespace attncheck
