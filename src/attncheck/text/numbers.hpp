// attncheck: printing scalars and rows the way failure reports need them (bits first, then value).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

inline std::string hex_u64(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The bit pattern of x, zero-padded to the format's width: 0x3f800000 for 1.0f.
template <class T>
std::string bits_of(T x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", scalar_traits<T>::bit_width / 4,
                static_cast<unsigned long long>(scalar_traits<T>::bits(x)));
  return buf;
}

// A double printed with enough digits to round-trip (17 significant), or inf/nan/-0 as such.
inline std::string decimal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
inline std::string decimal(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

inline std::string decimal_long(long double v, int digits) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "%.*Lg", digits, v);
  return buf;
}

// How many entries of a row row_bits and row_values show by default: 48, or every entry while a
// replay runs (`attncheck audit --replay` prints a faulting input whole; FullRows below).
inline std::size_t& shown_row_entries() {
  static std::size_t n = 48;
  return n;
}
// While alive, rows are printed whole (a replay); restores the previous setting after.
struct FullRows {
  std::size_t saved = shown_row_entries();
  explicit FullRows(bool on = true) {
    if (on) shown_row_entries() = static_cast<std::size_t>(-1);
  }
  ~FullRows() { shown_row_entries() = saved; }
  FullRows(const FullRows&) = delete;
  FullRows& operator=(const FullRows&) = delete;
};

// Rows longer than `limit` are cut in the middle with the count of omitted entries; a shrunk
// counterexample is short, the long ones only appear in "largest error seen".
template <class T>
std::string row_bits(const std::vector<T>& x, std::size_t limit = shown_row_entries()) {
  std::string s = "[";
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x.size() > limit && i == limit / 2) {
      s += "... " + std::to_string(x.size() - limit) + " more, ";
      i = x.size() - limit / 2;
    }
    s += bits_of(x[i]);
    if (i + 1 < x.size()) s += ", ";
  }
  return s + "]";
}
template <class T>
std::string row_values(const std::vector<T>& x, std::size_t limit = shown_row_entries()) {
  std::string s = "[";
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x.size() > limit && i == limit / 2) {
      s += "... " + std::to_string(x.size() - limit) + " more, ";
      i = x.size() - limit / 2;
    }
    s += decimal(to_double(x[i]), 9);
    if (i + 1 < x.size()) s += ", ";
  }
  return s + "]";
}

}  // namespace attncheck
