#!/usr/bin/python3
"""What a user would write today to falsify a float32 softmax: Hypothesis + mpmath + NumPy.

The same work as `attncheck gate --contract softmax-kernel-v1 --dtype f32 --test FALSIFY-SM-001
--test FALSIFY-SM-003 --test FALSIFY-SM-004 --cases N` (tools/bench-baseline.sh runs both):

  SM-001  the outputs sum to 1 within the normalisation bound  (n-1)u-type, exact sum (math.fsum)
  SM-003  order preservation: x_i > x_j => y_i >= y_j, ties give equal outputs
  SM-004  every output within the derived element-wise bound of the exact softmax, computed with
          mpmath at 113 bits (the issue's "113-bit reference")

Each property draws its own rows from a port of attncheck's row generator (falsify/gen/values.hpp:
the same nine row families with the same weights and lengths, rows of at most 4096 elements, 512
for SM-003), N examples each, with a fixed seed (derandomize=True) and no example database, so the
run is reproducible. The bounds are ports of src/attncheck/bounds/softmax.hpp, evaluated in mpmath.

The kernel under test is NumPy's float32 softmax with exp taken in float64 and rounded to float32
(NumPy's own float32 exp may err by more than 1 ulp, which the f32 error model does not allow).

Usage: softmax_hypothesis.py [N]   (default 10000). Prints the example counts and the wall time.
"""
import math
import sys
import time

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import mpmath

mpmath.mp.prec = 113

F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = 2.0 ** -149           # denorm_min of binary32 (eta in the error model)
U = 2.0 ** -24                   # unit roundoff of binary32
EXP_REL = 2 * U                  # src/attncheck/scalar/traits.hpp: 1 ulp <= 2u relative
SLACK = 1 + 2.0 ** -8            # src/attncheck/bounds/error_model.hpp: evaluation_slack


def softmax_f32(x):
    with np.errstate(over="ignore"):  # x_i - max may overflow to -inf: exp gives 0, as it should
        m = x.max()
        d = (x - m).astype(np.float32)
        e = np.exp(d.astype(np.float64)).astype(np.float32)
        return (e / e.sum(dtype=np.float32)).astype(np.float32)


# ---- generators: a port of falsify/gen/values.hpp for binary32 ---------------------------------
unit = st.integers(-(1 << 52), 1 << 52).map(lambda v: math.ldexp(v, -52))


def value(sigma):
    sub_max = (1 << 23) - 1
    return st.one_of(
        *([unit.map(lambda u: sigma * u)] * 50),
        *([st.integers(-4, 4).map(float)] * 10),
        *([st.sampled_from([0.0, -0.0])] * 4),
        *([st.tuples(st.integers(1, sub_max), st.booleans()).map(
            lambda kb: (-1 if kb[1] else 1) * kb[0] * F32_TINY)] * 4),
        *([st.tuples(unit, st.integers(-6, 6)).map(
            lambda ue: max(-F32_MAX, min(F32_MAX, ue[0] * 10.0 ** ue[1])))] * 6),
        *([unit.map(lambda u: F32_MAX * (0.5 + 0.5 * u if u >= 0 else -0.5 + 0.5 * u))] * 4),
    )


def sized(lo, hi, elem):
    return st.lists(elem, min_size=lo, max_size=hi)


def row(max_long=4096):
    big = min(F32_MAX * 0.5, 1e30)

    def negative(base):
        return sized(1, 30, unit.map(lambda u: max(base * (1 + 0.25 * abs(u)), -F32_MAX)))

    families = [
        (30, sized(1, 24, value(8))),
        (8, st.tuples(st.integers(1, 300), value(50)).map(lambda nc: [nc[1]] * nc[0])),
        (8, sized(2, 40, st.sampled_from([-1.0, 0.0, 2.0]))),
        (6, value(100).map(lambda c: [c])),
        # Long rows: a list strategy of 4096 elements overruns Hypothesis's example buffer, so a
        # user draws a seed and lets NumPy make the row (same distribution, same lengths).
        (4, st.tuples(st.integers(257, max_long), st.integers(0, 2**63 - 1)).map(
            lambda ns: list(10 * 1.7320508 * np.random.default_rng(ns[1]).uniform(-1, 1, ns[0])))),
        (8, st.sampled_from([-100.0, -1e4, -big, -F32_MAX]).flatmap(negative)),
        (8, sized(1, 30, unit.map(lambda u: F32_MAX * (0.75 + 0.25 * u)))),
        (8, sized(2, 128, unit.map(lambda u: 10 * 1.7320508 * u))),
        (4, sized(2, 64, unit.map(lambda u: 1e4 * 1.7320508 * u))),
    ]
    # Weighted choice the way Hypothesis users write it: an integer picks the family.
    total = sum(w for w, _ in families)

    def pick(k):
        for w, s in families:
            if k < w:
                return s
            k -= w
        raise AssertionError

    return st.integers(0, total - 1).flatmap(pick).map(
        lambda v: np.array([max(-F32_MAX, min(F32_MAX, t)) for t in v], dtype=np.float32))


# ---- bounds: ports of src/attncheck/bounds/softmax.hpp -----------------------------------------
def gamma(k):
    ku = k * U
    return ku / (1 - ku) if ku < 1 else math.inf


def normalisation_bound(n):
    g = gamma(max(n - 1, 0))
    if g >= 1:
        return math.inf
    return (max((1 + U) / (1 - g) - 1, 1 - (1 - U) / (1 + g)) + n * F32_TINY) * SLACK


def exact_softmax(x):
    xs = [mpmath.mpf(float(v)) for v in x]
    m = max(xs)
    gap = [m - v for v in xs]
    e = [mpmath.exp(-g) for g in gap]
    s = mpmath.fsum(e)
    return [v / s for v in e], gap, [-g - mpmath.log(s) for g in gap]


def softmax_bound(p, gap, logp):
    n = len(p)
    g = gamma(max(n - 1, 0))
    wl = mpmath.fsum(mpmath.exp(lp - U * gp) for lp, gp in zip(logp, gap))
    wu = mpmath.fsum(mpmath.exp(lp + U * gp) for lp, gp in zip(logp, gap))
    sum_lo = max(0, (1 - EXP_REL) * wl - n * F32_TINY)
    sum_hi = (1 + EXP_REL) * wu + n * F32_TINY
    den_lo, den_hi = (1 - g) * sum_lo, (1 + g) * sum_hi
    lo, hi = [], []
    for pi, gp, lp in zip(p, gap, logp):
        a = U * gp
        num_hi = (mpmath.exp(lp + a) * (1 + EXP_REL) + F32_TINY) * (1 + U)
        num_lo = max(0, (mpmath.exp(lp - a) * (1 - EXP_REL) - F32_TINY) * (1 - U))
        h = num_hi / den_lo + F32_TINY if den_lo > 0 else mpmath.inf
        l = max(0, num_lo / den_hi - F32_TINY)
        hi.append(min(1, pi + max(0, h - pi) * SLACK))
        lo.append(max(0, pi - max(0, pi - l) * SLACK))
    return lo, hi


# ---- the three properties -------------------------------------------------------------------------
COUNT = {"SM-001": 0, "SM-003": 0, "SM-004": 0}


def sm001(x):
    COUNT["SM-001"] += 1
    y = softmax_f32(x)
    err = abs(math.fsum(float(v) for v in y) - 1)
    assert err <= normalisation_bound(len(x)), (x, y, err)


def sm003(x):
    COUNT["SM-003"] += 1
    y = softmax_f32(x)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    # Sorted by x: y never decreases, and equal x have equal y.
    assert np.all(ys[1:] >= ys[:-1]), (x, y)
    ties = xs[1:] == xs[:-1]
    assert np.all(ys[1:][ties] == ys[:-1][ties]), (x, y)


def sm004(x):
    COUNT["SM-004"] += 1
    y = softmax_f32(x)
    p, gap, logp = exact_softmax(x)
    lo, hi = softmax_bound(p, gap, logp)
    for i, v in enumerate(y):
        assert lo[i] <= mpmath.mpf(float(v)) <= hi[i], (x, y, i)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    cfg = settings(max_examples=n, deadline=None, derandomize=True, database=None,
                   suppress_health_check=list(HealthCheck))
    tests = [("SM-001", given(row())(sm001)), ("SM-003", given(row(512))(sm003)),
             ("SM-004", given(row())(sm004))]
    t0 = time.perf_counter()
    for name, t in tests:
        t1 = time.perf_counter()
        cfg(t)()
        print(f"  {name}: {COUNT[name]} examples, {time.perf_counter() - t1:.1f} s", flush=True)
    print(f"baseline total: {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
