// attncheck benchmarks: the shapes the two sized-audit benchmarks time (audit_attention.cpp, the
// forward; audit_attention_backward.cpp, the backward), their names, and their registration: one
// iteration each, in seconds. The target shape is the second.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "attncheck/kernels/attention_problem.hpp"

namespace attncheck::bench {

inline std::string shape_name(const kernels::AttentionShape& s) {
  return std::to_string(s.batch) + ":" + std::to_string(s.heads) + ":" + std::to_string(s.kv_heads) + ":" + std::to_string(s.n) + ":" +
         std::to_string(s.m) + ":" + std::to_string(s.d);
}

// The problem both benchmarks audit at a shape: scale 1/sqrt(d), causal bottom-right.
inline kernels::AttentionProblem causal_problem(const kernels::AttentionShape& shape) {
  kernels::AttentionProblem p;
  p.shape = shape;
  p.scale = 1 / std::sqrt(static_cast<double>(shape.d));
  p.mask.causal = true;
  p.mask.alignment = kernels::Alignment::bottom_right;
  return p;
}

// Registers prefix + "B:H:H_kv:n:m:d/causal_bottom_right" for each shape, timing body(state, shape).
template <class Body>
bool register_sized_audits(const std::string& prefix, Body body) {
  for (const kernels::AttentionShape s : {kernels::AttentionShape{1, 8, 2, 1024, 1024, 128, 128}, kernels::AttentionShape{1, 32, 8, 4096, 4096, 128, 128}})
    benchmark::RegisterBenchmark((prefix + shape_name(s) + "/causal_bottom_right").c_str(), [s, body](benchmark::State& st) { body(st, s); })
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  return true;
}

}  // namespace attncheck::bench
