"""The pytest plugin, run in a pytest of its own (pytester): one item per check, -k selection,
--attncheck-cases/--attncheck-seed, the failure display."""
import textwrap

KERNELS = textwrap.dedent('''
    import numpy as np
    import attncheck

    @attncheck.kernel("softmax", "f32", tests=["FALSIFY-SM-001", "FALSIFY-SM-004", "AUDIT-NAN-001"])
    def good_softmax(x):
        e = np.exp(x - x.max())
        return e / e.sum()

    @attncheck.kernel("softmax", "f32", tests=["FALSIFY-SM-004"])
    def softmax_without_max(x):
        e = np.exp(x)
        return e / e.sum()

    def test_an_ordinary_test():
        assert good_softmax(np.zeros(2, dtype=np.float32)).tolist() == [0.5, 0.5]
''')


def test_one_item_per_check_and_the_failure_display(pytester, cli):
    pytester.makepyfile(test_kernels=KERNELS)
    result = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider", "--attncheck-cases", "20")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([
        "*good_softmax::FALSIFY-SM-001?f32? PASSED*",
        "*good_softmax::FALSIFY-SM-004?f32? PASSED*",
        "*good_softmax::AUDIT-NAN-001?f32? PASSED*",
        "*softmax_without_max::FALSIFY-SM-004?f32? FAILED*",
    ])
    result.stdout.fnmatch_lines(["*FAIL FALSIFY-SM-004 ?f32?  contract softmax-kernel-v1*",
                                 "*Counterexample (shrunk):*",
                                 "*Replay: attncheck.audit(softmax_without_max, kind='softmax', dtype='f32', "
                                 "tests=?'FALSIFY-SM-004'?, dtypes=?'f32'?, seed='0x5eed2026', cases=20)*"])


def test_k_selects_one_check_and_seed_is_passed(pytester, cli):
    pytester.makepyfile(test_kernels=KERNELS)
    result = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider", "-k", "good_softmax and FALSIFY-SM-004",
                                           "--attncheck-cases", "10", "--attncheck-seed", "0x1234")
    result.assert_outcomes(passed=1, deselected=4)


def test_collect_only_lists_the_checks(pytester, cli):
    pytester.makepyfile(test_kernels=KERNELS)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*good_softmax::FALSIFY-SM-001?f32?", "*softmax_without_max::FALSIFY-SM-004?f32?"])


def test_without_the_cli_collection_says_how_to_install_it(pytester, tmp_path):
    pytester.makepyfile(test_kernels=KERNELS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--attncheck-cli", str(tmp_path / "missing"))
    result.stdout.fnmatch_lines(["*attncheck command-line program was not found*"])
    assert result.ret != 0
