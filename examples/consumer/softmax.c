/* examples/consumer: the kernels of a project that uses attncheck from its installed CMake package
 * (CMakeLists.txt beside this file). Each kernel has the C ABI of <attncheck/abi.h>. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <attncheck/abi.h>

/* softmax in f32: subtract the row's max, exponentiate, normalise. */
int my_softmax(const float* x, float* y, size_t n) {
  if (n == 0) return 0;
  float m = x[0], s = 0;
  for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; ++i) {
    y[i] = expf(x[i] - m);
    s += y[i];
  }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* bf16 values travel as their 16 bits: widen to f32 exactly, round back to nearest even. */
static float from_bf16(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)((u >> 16) | 0x40); /* NaN stays a quiet NaN */
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* softmax of bf16 storage in f32 arithmetic, each output rounded once (as PyTorch's CPU kernel). */
int my_softmax_bf16(const attncheck_bf16_bits* x, attncheck_bf16_bits* y, size_t n) {
  if (n == 0) return 0;
  float m = from_bf16(x[0]), s = 0;
  for (size_t i = 1; i < n; ++i) m = from_bf16(x[i]) > m ? from_bf16(x[i]) : m;
  for (size_t i = 0; i < n; ++i) s += expf(from_bf16(x[i]) - m);
  for (size_t i = 0; i < n; ++i) y[i] = to_bf16(expf(from_bf16(x[i]) - m) / s);
  return 0;
}

/* The classic bug: no max subtraction, so exp overflows for large entries (inf / inf = NaN). */
int naive_softmax(const float* x, float* y, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) {
    y[i] = expf(x[i]);
    s += y[i];
  }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}
