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


def test_several_kernels_and_a_declining_one(cli):
    def declines_long_rows(x):
        if x.size > 8:
            raise attncheck.Declined(3)
        return softmax(x)

    result = attncheck.audit(kernels={"softmax:f32": declines_long_rows, "log_softmax:f64": lambda x: x - np.log(
        np.sum(np.exp(x - x.max()))) - x.max()}, cases=20, tests=["FALSIFY-SM-001", "FALSIFY-SM-009"])
    assert {(c.test, c.dtype) for c in result.ran} >= {("FALSIFY-SM-001", "f32")}
    assert result.check("FALSIFY-SM-001", "f32").row["declined"] > 0


def test_a_kernel_that_raises_is_a_crash_not_a_hang(cli):
    def broken(x):
        raise ValueError("boom")

    result = attncheck.audit(broken, kind="softmax", dtype="f32", cases=5, tests=["FALSIFY-SM-001"])
    check = result.check("FALSIFY-SM-001")
    assert check.verdict in ("FAIL", "ERROR") and "exited" in (check.counterexample + check.message)


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
