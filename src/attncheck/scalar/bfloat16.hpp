// attncheck: emulated bfloat16 (1 sign, 8 exponent, 7 fraction bits), round-to-nearest-even.
#pragma once

#include <cstdint>
#include <cstring>

namespace attncheck {

// g++ 12 has no __bf16 on x86 (and no <stdfloat>), so bfloat16 is emulated: every operation is
// done in float and rounded once to bfloat16. float carries 24 >= 2*8+2 significand bits, so
// +, -, *, / and sqrt rounded this way are correctly rounded in bfloat16 (no double rounding).
class bfloat16 {
 public:
  constexpr bfloat16() = default;
  bfloat16(float f) : bits_(round_from_float(f)) {}  // NOLINT: implicit, like a built-in float
  bfloat16(double d) : bfloat16(narrow_to_float_for_bf16(d)) {}
  bfloat16(int i) : bfloat16(static_cast<float>(i)) {}
  bfloat16(unsigned long n) : bfloat16(static_cast<double>(n)) {}

  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 r;
    r.bits_ = b;
    return r;
  }
  std::uint16_t bits() const { return bits_; }

  operator float() const {  // NOLINT: exact widening
    std::uint32_t u = static_cast<std::uint32_t>(bits_) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }

  friend bfloat16 operator+(bfloat16 a, bfloat16 b) { return bfloat16(float(a) + float(b)); }
  friend bfloat16 operator-(bfloat16 a, bfloat16 b) { return bfloat16(float(a) - float(b)); }
  friend bfloat16 operator*(bfloat16 a, bfloat16 b) { return bfloat16(float(a) * float(b)); }
  friend bfloat16 operator/(bfloat16 a, bfloat16 b) { return bfloat16(float(a) / float(b)); }
  friend bfloat16 operator-(bfloat16 a) { return from_bits(static_cast<std::uint16_t>(a.bits_ ^ 0x8000u)); }
  bfloat16& operator+=(bfloat16 o) { return *this = *this + o; }
  bfloat16& operator-=(bfloat16 o) { return *this = *this - o; }
  bfloat16& operator*=(bfloat16 o) { return *this = *this * o; }
  bfloat16& operator/=(bfloat16 o) { return *this = *this / o; }
  friend bool operator<(bfloat16 a, bfloat16 b) { return float(a) < float(b); }
  friend bool operator>(bfloat16 a, bfloat16 b) { return float(a) > float(b); }
  friend bool operator<=(bfloat16 a, bfloat16 b) { return float(a) <= float(b); }
  friend bool operator>=(bfloat16 a, bfloat16 b) { return float(a) >= float(b); }
  friend bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
  friend bool operator!=(bfloat16 a, bfloat16 b) { return float(a) != float(b); }

 private:
  // Round-to-nearest-even on the 16 dropped bits; NaN stays NaN (quiet bit forced so that
  // truncation cannot turn a NaN into an infinity).
  static std::uint16_t round_from_float(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
    std::uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return static_cast<std::uint16_t>(u >> 16);
  }
  // double -> float -> bfloat16 could round twice; instead round the double to 8 significant bits
  // directly by truncating to float toward zero and keeping a sticky bit, which preserves RNE.
  static float narrow_to_float_for_bf16(double d);

  std::uint16_t bits_ = 0;
};

inline float bfloat16::narrow_to_float_for_bf16(double d) {
  float f = static_cast<float>(d);
  if (!(f == f) || static_cast<double>(f) == d) return f;
  // f is d rounded to nearest float; if that rounding moved it, replace f by the float toward
  // zero from d with the lowest bit set (sticky), so the later 24->8 bit rounding sees that the
  // discarded part is non-zero and never lands on an exact tie by accident.
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
  double ad = d < 0 ? -d : d;
  if (af > ad) u -= 1;  // step toward zero (magnitude)
  u |= 1u;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace attncheck
