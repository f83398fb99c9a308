// attncheck: a seeded standard-normal stream for the statistical obligations.
#pragma once

#include <cmath>
#include <cstdint>

namespace attncheck::gen {

// splitmix64 feeding Box–Muller, written out so that the stream is the same on every platform
// and standard library (std::normal_distribution is implementation-defined). The variates are
// doubles; the statistical tests treat them as the reference N(0, 1) sample.
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t seed) : state_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = (static_cast<double>(bits() >> 11) + 0.5) * 0x1p-53;  // in (0, 1)
    const double u2 = static_cast<double>(bits() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

 private:
  std::uint64_t bits() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace attncheck::gen
