"""attncheck.audit() with the real CLI: verdicts, counterexamples as arrays, replay calls, errors."""
import numpy as np
import pytest

import attncheck


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def softmax_without_max(x):
    e = np.exp(x)
    return e / e.sum()


def test_a_correct_kernel_passes(cli):
    result = attncheck.audit(softmax, kind="softmax", dtype="f32", cases=30,
                             tests=["FALSIFY-SM-001", "FALSIFY-SM-004", "AUDIT-NAN-001", "AUDIT-MASK-001"])
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == {"FALSIFY-SM-001", "FALSIFY-SM-004", "AUDIT-NAN-001", "AUDIT-MASK-001"}
    assert result.exit_status == 0 and not result.failures
    assert result.report["schema"] == "attncheck-audit/1"


def test_a_wrong_kernel_fails_with_its_counterexample(cli):
    result = attncheck.audit(softmax_without_max, kind="softmax", dtype="bf16", cases=30, tests=["FALSIFY-SM-004"])
    assert not result.passed and result.exit_status == 1
    check = result.check("FALSIFY-SM-004", "bf16@f32")
    assert check.verdict == "FAIL"
    assert "Input:" in check.counterexample
    assert check.values["input"].dtype == np.float32 and check.values["input"].size >= 1
    assert np.isnan(check.values["kernel"]).any() or np.isinf(check.values["kernel"]).any()
    assert check.replay.startswith("attncheck.audit(softmax_without_max, kind='softmax', dtype='bf16@f32', "
                                   "tests=['FALSIFY-SM-004']")
    assert "Replay: attncheck.audit(" in check.describe()
    # The replay call reproduces the verdict.
    again = attncheck.audit(softmax_without_max, kind="softmax", dtype="bf16@f32", tests=["FALSIFY-SM-004"],
                            dtypes=["bf16@f32"], seed=result.report["seed"], cases=30)
    assert again.check("FALSIFY-SM-004").counterexample == check.counterexample


def test_a_failure_says_its_cause_and_figures_first(cli):
    # A softmax 0.1 % too large: every sum misses 1 by far more than its rounding allowance.
    result = attncheck.audit(lambda x: softmax(x) * np.float32(1.001), kind="softmax", dtype="f32", cases=30,
                             tests=["FALSIFY-SM-001"])
    check = result.check("FALSIFY-SM-001", "f32")
    assert check.verdict == "FAIL"
    # The likely cause is the contract's if_fails, as `attncheck show` prints it.
    import subprocess
    show = subprocess.run([cli, "show", "FALSIFY-SM-001"], stdout=subprocess.PIPE, text=True).stdout
    assert check.likely_cause and ("if it fails: " + check.likely_cause) in show
    # The figures agree with the counterexample: its printed ratio is counterexample_ratio, and the
    # largest seen is at least that.
    printed = check.counterexample.split("; ratio ")[-1].split(")")[0]
    assert check.counterexample_ratio > 1 and "%.4g" % check.counterexample_ratio == printed
    assert check.worst_ratio >= check.counterexample_ratio
    text = check.describe()
    assert "  Likely cause: " + check.likely_cause in text
    assert "shrunk counterexample " + printed in text or printed + " in the shrunk counterexample" in text
    assert text.index("Likely cause") < text.index("Counterexample (shrunk):") < text.index("Replay:")
    # RapidCheck's draw log: in the JSON's counterexample, in describe(verbose=True) only.
    assert "  Drawn " in check.counterexample
    assert "Drawn " not in text and "Drawn " in check.describe(verbose=True)


def test_several_kernels_and_a_declining_one(cli):
    def declines_long_rows(x):
        if x.size > 8:
            raise attncheck.Declined(3)
        return softmax(x)

    result = attncheck.audit(kernels={"softmax:f32": declines_long_rows, "log_softmax:f64": lambda x: x - np.log(
        np.sum(np.exp(x - x.max()))) - x.max()}, cases=20, tests=["FALSIFY-SM-001", "FALSIFY-SM-009"])
    assert {(c.test, c.dtype) for c in result.ran} >= {("FALSIFY-SM-001", "f32")}
    assert result.check("FALSIFY-SM-001", "f32").row["declined"] > 0


def test_a_kernel_that_raises_on_some_inputs_fails_with_its_message(cli):
    def broken(x):
        if x.size > 3:
            raise ValueError("boom")
        return softmax(x)

    result = attncheck.audit(broken, kind="softmax", dtype="f32", cases=5, tests=["FALSIFY-SM-001"])
    check = result.check("FALSIFY-SM-001")
    assert check.verdict == "FAIL" and "kernel raised ValueError: boom" in check.counterexample
    # A fault of the call, not an accuracy failure: the contract's cause is not given as its cause.
    assert "not an accuracy failure" in check.likely_cause


def test_a_kernel_that_raises_on_any_input_is_a_setup_error_said_at_once(cli):
    import time

    def attention(q, k, v):  # attention_v2's kernels take (q, k, v, problem)
        return q

    start = time.monotonic()
    with pytest.raises(attncheck.AttncheckError) as e:
        attncheck.audit(attention, kind="attention_v2", dtype="f32")
    assert time.monotonic() - start < 30
    said = str(e.value)
    assert "exited with status 2" in said and "the Python kernels given to attncheck.audit()" in said
    assert "kernel raised TypeError: " in said and "takes 3 positional arguments but 4 were given" in said
    assert "kernels.sock" not in said  # the relay's plumbing is not shown


def test_cli_replay_lines_replay_from_a_shell(cli):
    import shlex
    import subprocess

    result = attncheck.audit(softmax_without_max, kind="softmax", dtype="f32", cases=20, tests=["FALSIFY-SM-001"])
    check = result.check("FALSIFY-SM-001", "f32")
    assert check.verdict == "FAIL"
    assert "python3" in check.cli_replay or " -m attncheck serve softmax:f32=" in check.cli_replay
    assert "kernels.sock" not in check.cli_replay
    words = shlex.split(check.cli_replay)
    assert words[0] == "attncheck"
    again = subprocess.run([cli] + words[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert again.returncode == 1, again.stdout
    assert "FAIL FALSIFY-SM-001 [f32]" in again.stdout
    # A lambda cannot be imported by name: no CLI line, the Python replay is the one.
    result = attncheck.audit(lambda x: softmax_without_max(x), kind="softmax", dtype="f32", cases=20, tests=["FALSIFY-SM-001"])
    assert result.check("FALSIFY-SM-001", "f32").cli_replay == ""


def test_usage_errors_raise(cli):
    with pytest.raises(attncheck.AttncheckError, match="unknown test ID"):
        attncheck.audit(softmax, kind="softmax", dtype="f32", tests=["FALSIFY-NO-SUCH"])
    with pytest.raises(ValueError, match="unknown dtype"):
        attncheck.audit(softmax, kind="softmax", dtype="f8")
    with pytest.raises(TypeError):
        attncheck.audit()


def test_without_the_cli_the_error_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNCHECK_CLI", str(tmp_path / "no-such-attncheck"))
    with pytest.raises(attncheck.CLINotFoundError, match="cmake --install"):
        attncheck.audit(softmax, kind="softmax", dtype="f32")
    with pytest.raises(FileNotFoundError):
        attncheck.list_checks("softmax", "f32")


def test_list_checks(cli):
    checks = attncheck.list_checks("softmax", "f32")
    assert ("FALSIFY-SM-004", "f32") in checks and ("AUDIT-MASK-001", "f32") in checks


def test_list_checks_of_attention_v2_are_version_2s(cli):
    checks = attncheck.list_checks("attention_v2", "f32")
    ids = {t for t, _ in checks}
    assert {"FALSIFY-ATTK-001", "FALSIFY-ATTK-002", "AUDIT-ATTB-001", "AUDIT-SAFE-001"} <= ids
    assert not any(t.startswith(("AUDIT-ATT-", "FALSIFY-EXPR-")) or t in ("FALSIFY-AEQ-004", "FALSIFY-ASCL-009") for t in ids)
    without_lse = {t for t, _ in attncheck.list_checks("attention_v2", "f32", no_lse=True)}
    assert "FALSIFY-ATTK-002" not in without_lse and "FALSIFY-ATTK-001" in without_lse


def attention_v2(q, k, v, p):
    """A user's NumPy attention of ABI version 2 (q B n H d, k B m H_kv d, v B m H_kv dv; float64 inside)."""
    B, n, H, d = q.shape
    m, Hkv, dv = k.shape[1], k.shape[2], v.shape[3]
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    diag = i + (m - n if p.alignment == "bottom_right" else 0)
    vis = np.ones((n, m), dtype=bool)
    if p.causal:
        vis &= j <= diag
    if p.window_left >= 0:
        vis &= j >= diag - p.window_left
    if p.window_right >= 0:
        vis &= j <= diag + p.window_right
    o = np.zeros((B, n, H, dv))
    lse = np.full((B, H, n), -np.inf)
    for b in range(B):
        for h in range(H):
            g = h // (H // Hkv)
            s = q[b, :, h].astype(np.float64) @ k[b, :, g].astype(np.float64).T * p.scale
            if p.softcap > 0:
                s = p.softcap * np.tanh(s / p.softcap)
            if p.alibi_slopes is not None:
                s = s - p.alibi_slopes[h] * np.abs(diag - j)
            s = np.where(vis, s, -np.inf)
            seen = vis.any(axis=1)
            mx = np.where(seen, s.max(axis=1, initial=-np.inf), 0.0)
            e = np.exp(s - mx[:, None])
            total = e.sum(axis=1)
            o[b, :, h] = np.where(seen[:, None], (e @ v[b, :, g].astype(np.float64)) / np.where(seen, total, 1.0)[:, None], 0.0)
            lse[b, h] = np.where(seen, mx + np.log(np.where(seen, total, 1.0)), -np.inf)
    return o.astype(q.dtype), (lse.astype(q.dtype) if p.want_lse else None)


def test_attention_of_abi_version_2(cli):
    attention = attention_v2
    shape = "B=1,H=4,Hkv=2,n=40,m=70,d=16,causal=br,window=20:0"
    tests = ["AUDIT-SAFE-001", "AUDIT-ATTB-001", "AUDIT-ATTB-002", "FALSIFY-ATTK-002"]
    result = attncheck.audit(attention, kind="attention_v2", dtype="f32", masked="zeros", cases=10, tests=tests,
                             attention_shapes=[shape])
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)
    assert "--abi" in result.command and "--attention-shape" in result.command

    def lse_in_log2(q, k, v, p):  # FlashAttention 3 works in base 2 inside; the ABI's LSE is natural
        o, lse = attention(q, k, v, p)
        return o, (None if lse is None else lse * np.log2(np.e))

    bad = attncheck.audit(lse_in_log2, kind="attention_v2", dtype="f32", masked="zeros", cases=10,
                          tests=["FALSIFY-ATTK-002"], attention_shapes=[shape])
    check = bad.check("FALSIFY-ATTK-002", "f32")
    assert check.verdict == "FAIL", bad.summary()
    assert "attention_shapes=['%s']" % shape in check.replay
    with pytest.raises(TypeError, match="cannot be audited in one run"):
        attncheck.audit(kernels={"attention_v2:f32": attention, "attention:f32": attention})


def test_attention_backward(cli):
    """kind="attention_backward" (exec kind 9): the NumPy reference of examples/python passes, the same
    kernel without the D term fails the accuracy and adjointness checks."""
    import functools
    import os
    import sys

    # The example itself (examples/python/numpy_attention_backward.py): this checkout's, or where
    # $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a copy of these tests).
    examples = os.environ.get("ATTNCHECK_EXAMPLES",
                              os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples"))
    sys.path.insert(0, os.path.join(examples, "python"))
    from numpy_attention_backward import attention_backward

    tests = ["FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-004", "AUDIT-NAN-001"]
    result = attncheck.audit(attention_backward, kind="attention_backward", dtype="f32", cases=20, tests=tests)
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)
    bad = attncheck.audit(functools.partial(attention_backward, omit_delta=True), kind="attention_backward", dtype="f32",
                          cases=20, tests=tests[:2])
    assert bad.check("FALSIFY-ATTBWD-001", "f32").verdict == "FAIL", bad.summary()
    assert bad.check("FALSIFY-ATTBWD-004", "f32").verdict == "FAIL", bad.summary()


def _merge_example():
    """examples/python/numpy_attention_merge.py's attention_merge: this checkout's, or where
    $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a copy of these tests)."""
    import os
    import sys

    examples = os.environ.get("ATTNCHECK_EXAMPLES",
                              os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples"))
    sys.path.insert(0, os.path.join(examples, "python"))
    from numpy_attention_merge import attention_merge
    return attention_merge


def test_attention_merge_call_and_result_frames():
    """Exec kind 10 without the CLI: the merge block's partial LSEs reach the kernel as float32,
    o_parts in its shape, and the RESULT carries o and, only when asked, the LSE part."""
    import struct

    from attncheck.protocol import handle_call

    attention_merge = _merge_example()
    S, R, dv = 2, 3, 2
    o_parts = np.arange(S * R * dv, dtype="<f4")
    lse_parts = np.array([0.5, -np.inf, -np.inf, 1.0, -np.inf, 2.0], dtype="<f4")  # row 1: every split empty
    for asked in (0, R):
        payload = (struct.pack("<BBBBIQQQQQQ", 10, 3, 0, 0, 1, S, R, 0, dv, 0, R * dv) +
                   struct.pack("<QQ", asked, S * R) + lse_parts.tobytes() +
                   struct.pack("<Q", o_parts.size) + o_parts.tobytes())
        seen = {}

        def kernel(op, lp):
            seen["shapes"] = (op.shape, lp.shape, lp.dtype)
            return attention_merge(op, lp)

        res = handle_call(payload, {("attention_merge", "f32"): kernel})
        status, _, count = struct.unpack_from("<iIQ", res, 0)
        assert seen["shapes"] == ((S, R, dv), (S, R), np.float32)
        assert status == 0 and count == R * dv
        o = np.frombuffer(res[16:16 + 4 * R * dv], dtype="<f4").reshape(R, dv)
        (lse_count,) = struct.unpack_from("<Q", res, 16 + 4 * R * dv)
        assert lse_count == asked and len(res) == 16 + 4 * R * dv + 8 + 4 * asked
        assert np.all(o[1] == 0)  # no split saw a key of row 1
        assert np.allclose(o[2], o_parts.reshape(S, R, dv)[1, 2])  # one split saw row 2's keys: its O
        w = np.exp(np.array([0.5, 1.0]) - np.log(np.exp(0.5) + np.exp(1.0)))
        assert np.allclose(o[0], w @ o_parts.reshape(S, R, dv)[:, 0])
        if asked:
            lse = np.frombuffer(res[16 + 4 * R * dv + 8:], dtype="<f4")
            assert lse[1] == -np.inf and lse[2] == 2.0 and np.isclose(lse[0], np.log(np.exp(0.5) + np.exp(1.0)))


def test_attention_merge(cli):
    """kind="attention_merge" (exec kind 10): the NumPy reference merge of examples/python passes the
    obligations every kind has; declared without LSE (no_lse) it passes them too."""
    attention_merge = _merge_example()
    tests = ["AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001"]
    result = attncheck.audit(attention_merge, kind="attention_merge", dtype="f32", cases=20, tests=tests)
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)
    no_lse = attncheck.audit(lambda op, lp: (attention_merge(op, lp)[0], None), kind="attention_merge", dtype="bf16",
                             cases=20, tests=tests, no_lse=True)
    assert no_lse.passed, no_lse.summary()
    assert {c.test for c in no_lse.ran} == set(tests)


def _varlen_example():
    """examples/python/numpy_attention_varlen.py's attention_varlen: this checkout's, or where
    $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a copy of these tests)."""
    import os
    import sys

    examples = os.environ.get("ATTNCHECK_EXAMPLES",
                              os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples"))
    sys.path.insert(0, os.path.join(examples, "python"))
    from numpy_attention_varlen import attention_varlen
    return attention_varlen


def test_attention_varlen_call_and_result_frames():
    """Exec kind 11 without the CLI: the attention block and the varlen block's offsets reach the
    kernel (int32, B + 1 each; q, k, v packed by token), each sequence attends to its own keys only
    with its own causal alignment, and the RESULT carries o and, only when asked, the LSE (H x total_q)."""
    import struct

    from attncheck.protocol import handle_call

    attention_varlen = _varlen_example()
    # B = 3 sequences (n_b, m_b) = (2, 3), (0, 2), (2, 1); H = H_kv = 1, d = dv = 1; causal bottom-right:
    # the third sequence's first query (c = 0 + 1 - 2 = -1) sees no key.
    cu_q, cu_k = np.array([0, 2, 2, 4], dtype="<i4"), np.array([0, 3, 5, 6], dtype="<i4")
    q = np.ones(4, dtype="<f4")
    k = np.array([0.0, 1.0, 2.0, 30.0, 40.0, 0.5], dtype="<f4")
    v = np.array([1.0, 2.0, 3.0, 100.0, 200.0, 7.0], dtype="<f4")
    for asked in (0, 4):
        payload = (struct.pack("<BBBBIQQQQQQ", 11, 3, 1, 0, 3, 2, 3, 1, 1, 0, 4) +
                   struct.pack("<QQQdB3xIqqd", 3, 1, 1, 1.0, 1, 0, -1, -1, 0.0) + struct.pack("<Q", asked) +
                   struct.pack("<Q", 4) + cu_q.tobytes() + cu_k.tobytes() +
                   b"".join(struct.pack("<Q", a.size) + a.tobytes() for a in (q, k, v)))
        seen = {}

        def kernel(qq, kk, vv, cq, ck, p):
            seen["shapes"] = (qq.shape, kk.shape, vv.shape, list(cq), list(ck), cq.dtype, p.batch, p.n, p.m, p.want_lse)
            return attention_varlen(qq, kk, vv, cq, ck, p)

        res = handle_call(payload, {("attention_varlen", "f32"): kernel})
        status, _, count = struct.unpack_from("<iIQ", res, 0)
        assert seen["shapes"] == ((4, 1, 1), (6, 1, 1), (6, 1, 1), [0, 2, 2, 4], [0, 3, 5, 6], np.int32, 3, 2, 3, asked > 0)
        assert status == 0 and count == 4
        o = np.frombuffer(res[16:16 + 16], dtype="<f4")
        (lse_count,) = struct.unpack_from("<Q", res, 32)
        assert lse_count == asked and len(res) == 32 + 8 + 4 * asked
        # Sequence 0 (n 2, m 3, c(i) = i + 1): query 0 sees keys 0, 1; query 1 all three.
        w0 = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
        w1 = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
        assert np.allclose(o[0], w0 @ [1.0, 2.0]) and np.allclose(o[1], w1 @ [1.0, 2.0, 3.0])
        # Sequence 2 (n 2, m 1): query 0 sees nothing (0, LSE -inf), query 1 its one key (never
        # sequence 1's keys 30, 40 with values 100, 200).
        assert o[2] == 0 and o[3] == 7.0
        if asked:
            lse = np.frombuffer(res[40:], dtype="<f4")
            assert lse[2] == -np.inf and lse[3] == 0.5 and np.isclose(lse[1], np.log(np.exp([0.0, 1.0, 2.0]).sum()))


def test_attention_varlen(cli):
    """kind="attention_varlen" (exec kind 11): the NumPy reference of examples/python passes the
    obligations every kind has; declared without LSE (no_lse) it passes them too."""
    attention_varlen = _varlen_example()
    tests = ["AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001"]
    result = attncheck.audit(attention_varlen, kind="attention_varlen", dtype="f32", cases=20, tests=tests)
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)
    no_lse = attncheck.audit(lambda q, k, v, cq, ck, p: (attention_varlen(q, k, v, cq, ck, p)[0], None),
                             kind="attention_varlen", dtype="bf16", cases=20, tests=tests, no_lse=True)
    assert no_lse.passed, no_lse.summary()
    assert {c.test for c in no_lse.ran} == set(tests)
    # Packed = dense bit for bit where declared (packing_invariant): the reference computes each
    # sequence with numpy_attention.py's dense attention, so beside it FALSIFY-VARLEN-003 holds it
    # to the dense bits. A varlen path that computes in float64 and rounds once is within the
    # bound, but not the dense kernel's bits: it passes undeclared and fails declared.
    import numpy as np
    from numpy_attention import attention

    def wider(q, k, v, cq, ck, p):
        o, lse = attention_varlen(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), cq, ck, p)
        return o.astype(np.float32), (None if lse is None else lse.astype(np.float32))

    def pair(varlen, claim):
        return attncheck.audit(kernels={"attention_v2:f32": attention, "attention_varlen:f32": varlen}, cases=20,
                               masked="zeros", tests=["FALSIFY-VARLEN-003"], packing_invariant=claim)
    declared = pair(attention_varlen, True)
    assert declared.passed, declared.summary()
    assert "--packing-invariant" in declared.command
    assert [c.verdict for c in declared.ran] == ["PASS"]
    assert pair(wider, False).passed
    claimed = pair(wider, True)
    assert [c.verdict for c in claimed.ran] == ["FAIL"], claimed.summary()

def _paged_example():
    """examples/python/numpy_attention_paged.py's attention_paged: this checkout's, or where
    $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a copy of these tests)."""
    _varlen_example()  # puts examples/python on the path
    from numpy_attention_paged import attention_paged
    return attention_paged


def test_attention_paged_call_and_result_frames():
    """Exec kind 12 without the CLI: the attention block and the paged block reach the kernel (the
    caches shaped (num_pages, page_size, H_kv, width), the page table as int32 arrays and on the
    problem), each sequence attends to the keys its block table names and to nothing else (NaN in
    every slot no sequence owns changes nothing), and the RESULT carries o and, only when asked, the
    LSE (H x total_q)."""
    import struct

    from attncheck.protocol import handle_call

    attention_paged = _paged_example()
    # B = 2 sequences (n_b, m_b) = (1, 3), (1, 1) in pages of 2 tokens; 4 pages: sequence 0 in pages
    # 2 then 0 (its second page half filled), sequence 1 in page 3, page 1 unused; the table is 3 wide
    # (its spare entries name page 1). H = H_kv = 1, d = dv = 1; not causal.
    nan = np.nan
    cu_q, used = np.array([0, 1, 2], dtype="<i4"), np.array([3, 1], dtype="<i4")
    table = np.array([[2, 0, 1], [3, 1, 1]], dtype="<i4")
    q = np.ones(2, dtype="<f4")
    k = np.array([2.0, nan, nan, nan, 0.0, 1.0, 5.0, nan], dtype="<f4")  # page p holds tokens 2p, 2p + 1
    v = np.array([30.0, nan, nan, nan, 10.0, 20.0, 7.0, nan], dtype="<f4")
    for asked in (0, 2):
        payload = (struct.pack("<BBBBIQQQQQQ", 12, 3, 0, 0, 3, 1, 3, 1, 1, 0, 2) +
                   struct.pack("<QQQdB3xIqqd", 2, 1, 1, 1.0, 0, 0, -1, -1, 0.0) + struct.pack("<Q", asked) +
                   struct.pack("<QQQ", 2, 4, 3) +
                   b"".join(struct.pack("<Q", a.size) + a.tobytes() for a in (cu_q, used, table)) +
                   b"".join(struct.pack("<Q", a.size) + a.tobytes() for a in (q, k, v)))
        seen = {}

        def kernel(qq, kc, vc, cq, su, bt, p):
            seen["shapes"] = (qq.shape, kc.shape, vc.shape, list(cq), list(su), bt.tolist(), bt.dtype, p.page_size,
                              p.num_pages, p.pages_per_sequence, p.batch, p.n, p.m, p.want_lse)
            return attention_paged(qq, kc, vc, cq, su, bt, p)

        res = handle_call(payload, {("attention_paged", "f32"): kernel})
        status, _, count = struct.unpack_from("<iIQ", res, 0)
        assert seen["shapes"] == ((2, 1, 1), (4, 2, 1, 1), (4, 2, 1, 1), [0, 1, 2], [3, 1], [[2, 0, 1], [3, 1, 1]], np.int32,
                                  2, 4, 3, 2, 1, 3, asked > 0)
        assert status == 0 and count == 2
        o = np.frombuffer(res[16:16 + 8], dtype="<f4")
        (lse_count,) = struct.unpack_from("<Q", res, 24)
        assert lse_count == asked and len(res) == 24 + 8 + 4 * asked
        # Sequence 0's keys in logical order: page 2's two (k 0, 1; v 10, 20), then page 0's first (k 2; v 30).
        w = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
        assert np.isclose(o[0], w @ [10.0, 20.0, 30.0]) and o[1] == 7.0
        if asked:
            lse = np.frombuffer(res[32:], dtype="<f4")
            assert np.isclose(lse[0], np.log(np.exp([0.0, 1.0, 2.0]).sum())) and lse[1] == 5.0


def test_attention_paged(cli):
    """kind="attention_paged" (exec kind 12): the NumPy reference of examples/python passes the
    obligations every kind has and the contract's; declared without LSE (no_lse) it passes them too."""
    attention_paged = _paged_example()
    tests = ["AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001", "FALSIFY-PAGED-003"]
    result = attncheck.audit(attention_paged, kind="attention_paged", dtype="f32", cases=20, tests=tests)
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)
    no_lse = attncheck.audit(lambda q, kc, vc, cq, su, bt, p: (attention_paged(q, kc, vc, cq, su, bt, p)[0], None),
                             kind="attention_paged", dtype="bf16", cases=20, tests=tests, no_lse=True)
    assert no_lse.passed, no_lse.summary()
    assert {c.test for c in no_lse.ran} == set(tests)
    # Split-KV decoding and page-size invariance declared (splits, page_size_invariant): the
    # reference splits when told (FALSIFY-PAGED-005) and gathers before it attends (PAGED-002).
    told = []
    declared = attncheck.audit(lambda q, kc, vc, cq, su, bt, p: told.append(p.num_splits) or attention_paged(q, kc, vc, cq, su, bt, p),
                               kind="attention_paged", dtype="f32", cases=20, splits=3, page_size_invariant=True,
                               tests=["FALSIFY-PAGED-002", "FALSIFY-PAGED-005"])
    assert declared.passed, declared.summary()
    assert {c.test for c in declared.ran} == {"FALSIFY-PAGED-002", "FALSIFY-PAGED-005"}
    assert max(told) == 3 and min(told) == 0  # told at most 3 parts; unsplit in FALSIFY-PAGED-002
    assert "--page-size-invariant" in " ".join(declared.command) and "--splits" in declared.command


def _fp8_example():
    """examples/python/numpy_attention_fp8kv.py's kernels: this checkout's, or where
    $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a copy of these tests)."""
    _varlen_example()  # puts examples/python on the path
    from numpy_attention_fp8kv import attention_fp8kv, kv_quantize
    return attention_fp8kv, kv_quantize


def test_fp8_call_and_result_frames():
    """Exec kinds 13 and 14 without the CLI: kind 13's fp8 block reaches the kernel (the format on the
    problem, the scales as float32 arrays, k and v as uint8 codes in attention's shapes) and its RESULT
    carries o and, only when asked, the LSE; kind 14's block gives the kernel x, the scale (float32),
    the format and the rule, and its RESULT carries one byte per code."""
    import struct

    from attncheck.protocol import handle_call

    attention_fp8kv, kv_quantize = _fp8_example()
    # B = 1, H = 2, H_kv = 2 (per-head scales), n = 1, m = 2, d = dv = 1; not causal. E4M3FN codes:
    # k 0x38 = 1.0, 0x40 = 2.0 (head 0: keys 1 and 2 times 0.5), 0x48 = 4.0 and 0xb8 = -1.0 (head 1,
    # times 2); v 0x30 = 0.5, 0x38 = 1.0, 0x40 = 2.0, 0x44 = 3.0.
    q = np.array([1.0, 1.0], dtype="<f4")
    k = np.array([0x38, 0x48, 0x40, 0xB8], dtype=np.uint8)  # (m, H_kv): key 0 of heads 0 and 1, then key 1
    v = np.array([0x30, 0x40, 0x38, 0x44], dtype=np.uint8)
    k_scale, v_scale = np.array([0.5, 2.0], dtype="<f4"), np.array([1.0, 4.0], dtype="<f4")
    for asked in (0, 2):
        payload = (struct.pack("<BBBBIQQQQQQ", 13, 3, 0, 0, 3, 1, 2, 1, 1, 0, 2) +
                   struct.pack("<QQQdB3xIqqd", 1, 2, 2, 1.0, 0, 0, -1, -1, 0.0) + struct.pack("<Q", asked) +
                   struct.pack("<BBHI", 0, 0, 0, 2) + k_scale.tobytes() + v_scale.tobytes() +
                   b"".join(struct.pack("<Q", a.size) + a.tobytes() for a in (q, k, v)))
        seen = {}

        def kernel(qq, kk, vv, ks, vs, p):
            seen["shapes"] = (qq.shape, kk.shape, kk.dtype, vv.shape, list(ks), list(vs), p.format, p.want_lse)
            return attention_fp8kv(qq, kk, vv, ks, vs, p)

        res = handle_call(payload, {("attention_fp8kv", "f32"): kernel})
        status, _, count = struct.unpack_from("<iIQ", res, 0)
        assert seen["shapes"] == ((1, 1, 2, 1), (1, 2, 2, 1), np.uint8, (1, 2, 2, 1), [0.5, 2.0], [1.0, 4.0], "e4m3fn", asked > 0)
        assert status == 0 and count == 2
        o = np.frombuffer(res[16:24], dtype="<f4")
        # Head 0: keys 0.5 and 1.0, values 0.5 and 1.0; head 1: keys 8.0 and -2.0, values 8.0 and 12.0.
        w0, w1 = np.exp([0.5, 1.0]) / np.exp([0.5, 1.0]).sum(), np.exp([8.0, -2.0]) / np.exp([8.0, -2.0]).sum()
        assert np.allclose(o, [w0 @ [0.5, 1.0], w1 @ [8.0, 12.0]], rtol=1e-6)
        (lse_count,) = struct.unpack_from("<Q", res, 24)
        assert lse_count == asked and len(res) == 32 + 4 * asked
    x = np.array([3.0, 480.0, np.nan, -0.0], dtype="<f4")
    for sat, want in ((1, [0x4C, 0x7E, 0x7F, 0x80]), (0, [0x4C, 0x7F, 0x7F, 0x80])):
        payload = (struct.pack("<BBBBIQQQQQQ", 14, 3, 0, 0, 1, 4, 0, 0, 0, 0, 4) + struct.pack("<BBHI", 0, sat, 0, 1) +
                   struct.pack("<f", 0.5) + struct.pack("<Q", 4) + x.tobytes())
        seen = {}

        def quantize(xx, scale, fmt, saturating):
            seen["args"] = (xx.dtype, type(scale), float(scale), fmt, saturating)
            return kv_quantize(xx, scale, fmt, saturating)

        res = handle_call(payload, {("kv_quantize", "f32"): quantize})
        assert seen["args"] == (np.float32, np.float32, 0.5, "e4m3fn", bool(sat))
        status, _, count = struct.unpack_from("<iIQ", res, 0)
        assert status == 0 and count == 4 and list(res[16:]) == want  # 3 / 0.5 = 6: 0x4c; 960 overflows


def test_fp8(cli):
    """kinds "attention_fp8kv" and "kv_quantize" (exec kinds 13 and 14): the NumPy reference of
    examples/python passes the obligations every kind has and the contract's; a writer that
    truncates fails FALSIFY-FP8-002."""
    attention_fp8kv, kv_quantize = _fp8_example()
    tests = ["AUDIT-SAFE-001", "AUDIT-DET-001", "AUDIT-NAN-001", "FALSIFY-FP8-001", "FALSIFY-FP8-002", "FALSIFY-FP8-003"]
    result = attncheck.audit(kernels={"attention_fp8kv:f32": attention_fp8kv, "kv_quantize:f32": kv_quantize}, cases=20, tests=tests)
    assert result.passed, result.summary()
    assert {c.test for c in result.ran} == set(tests)

    def truncating(x, scale, fmt, saturating):  # rounds |x / scale| toward zero to the code below
        codes = kv_quantize(x, scale, fmt, saturating)
        y = np.abs((x / x.dtype.type(scale)).astype(np.float64))
        from numpy_attention_fp8kv import TABLES
        value = np.abs(TABLES[fmt][codes])
        down = np.isfinite(value) & (value > y) & ((codes & 0x7F) > 0)
        return np.where(down, codes - 1, codes).astype(np.uint8)

    bad = attncheck.audit(truncating, kind="kv_quantize", dtype="f32", cases=40, tests=["FALSIFY-FP8-002"])
    assert not bad.passed and bad.check("FALSIFY-FP8-002").verdict == "FAIL"


def softmax_flushing(x):
    """A correct softmax in float32 whose weights below the smallest normal are 0 (flush-to-zero)."""
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(), dtype=np.float32)
    y = (e / e.sum(dtype=np.float32)).astype(np.float32)
    y[np.abs(y) < np.finfo(np.float32).tiny] = 0
    return y


def test_flush_to_zero_is_declared_with_subnormals(cli):
    tests = ["FALSIFY-SM-004", "AUDIT-MASK-002"]
    ieee = attncheck.audit(softmax_flushing, kind="softmax", dtype="f32", cases=200, tests=tests)
    assert not ieee.passed
    assert "Flushes subnormal results to zero" in ieee.summary() + str(ieee.report)
    flush = attncheck.audit(softmax_flushing, kind="softmax", dtype="f32", cases=200, tests=tests, subnormals="flush")
    assert flush.passed, flush.summary()


def test_attention_varlen_supports(cli):
    """supports= is the CLI's --supports: a kernel that declines ALiBi and non-causal problems (as
    ONNX Runtime's GroupQueryAttention) is sent none of them when it declares so, as a dict or as
    words, and every check passes (AUDIT-NAN-001 on causal masks)."""
    attention_varlen = _varlen_example()

    def causal_only(q, k, v, cq, ck, p):
        if p.alibi_slopes is not None or not p.causal:
            raise attncheck.Declined(3)
        return attention_varlen(q, k, v, cq, ck, p)

    tests = ["AUDIT-SAFE-001", "AUDIT-NAN-001"]
    for supports in ({"alibi": False, "non_causal": False}, ["alibi=no", "non_causal=no"]):
        result = attncheck.audit(causal_only, kind="attention_varlen", dtype="f32", cases=20, tests=tests, supports=supports)
        assert result.exit_status == 0, result.output
        assert "--supports" in result.command and "non_causal=no" in result.command
        assert {(c.test, c.verdict) for c in result.checks if c.test in tests} == {("AUDIT-SAFE-001", "PASS"), ("AUDIT-NAN-001", "PASS")}
