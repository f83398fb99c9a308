/* attncheck audit tests: f16 and bf16 values as their 16 bits (include/attncheck/abi.h), for the C
 * test kernels: exact widening to float, rounding to nearest even (a NaN stays a quiet NaN), a
 * value rounded to the format and back, and a row widened into a new float array (NULL when out
 * of memory; the caller frees it). */
#ifndef ATTNCHECK_TESTS_BITS16_H
#define ATTNCHECK_TESTS_BITS16_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline float from_bf16(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static inline float from_f16(uint16_t b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return (float)h;
}
static inline uint16_t to_f16(float f) {
  const _Float16 h = (_Float16)f;
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}
static inline float round_bf16(float x) { return from_bf16(to_bf16(x)); }
static inline float round_f16(float x) { return from_f16(to_f16(x)); }

static inline float* widen16(const uint16_t* x, size_t count, float (*from)(uint16_t)) {
  float* r = (float*)malloc((count ? count : 1) * sizeof(float));
  if (r)
    for (size_t i = 0; i < count; ++i) r[i] = from(x[i]);
  return r;
}

#endif
