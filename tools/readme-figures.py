#!/usr/bin/env python3
"""The command transcripts in README.md and docs/*.md, produced by running the commands.

    tools/readme-figures.py [--update] [--build DIR] [--root DIR] [--only NAME]...

Each transcript sits between two marker comments in its Markdown file:

    <!-- figures: NAME (tools/readme-figures.py) -->
    ```
    ...
    ```
    <!-- /figures: NAME -->

For each NAME below, this script runs the real command (from a scratch directory in which `build`
is the build tree, so the paths printed are the ones the documents show), cuts the excerpt the
document shows by a fixed rule, and compares it with the committed block. Without --update it
prints a diff and exits 1 when any block differs; with --update it rewrites the blocks. Nothing
compared is a time or an absolute path (it does depend on Debian 12's libm and Z3, as the
verdicts do): gate and audit run with the default seed (printed in the transcript) and
--no-timings, paths are relative to the scratch directory, and bmc (which has no --no-timings) has
its time cells masked in the comparison (--update leaves a block alone when only they differ). A command that exits with another status than the one listed fails the script.
Run by CTest as docs.figures (labels docs and cli; needs the targets attncheck_cli,
attncheck_audit_testkernels and softmax_ulp_figures; ~15 s CPU, 12-20 s wall on a loaded 2-core
machine). To refresh after a change: build, then `tools/readme-figures.py --update --build DIR`.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

ELIDED = "..."


def program(argv):
    """The program and its arguments: `build/attncheck ARGV...`, or ARGV itself when ARGV[0] is
    another program of the build tree (`build/NAME`)."""
    return argv if argv[0].startswith("build/") else ["build/attncheck"] + argv


def run(build, argv, want_status):
    """Runs the program of ARGV (see program) in a scratch directory where `build` is the build tree."""
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(os.path.abspath(build), os.path.join(scratch, "build"))
        # No ATTNCHECK_* setting of the caller (ATTNCHECK_CASES, ATTNCHECK_CONTRACTS, ...) may change
        # what is printed: the documents show the defaults.
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNCHECK_")}
        env.update(NO_COLOR="1", TERM="dumb")
        p = subprocess.run(program(argv), cwd=scratch, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if p.returncode != want_status:
        sys.exit(f"readme-figures: `{' '.join(program(argv))}` exited {p.returncode}, expected "
                 f"{want_status}:\n{p.stdout}")
    return p.stdout.rstrip("\n").split("\n")


def command_line(argv):
    return "$ " + " ".join(program(argv))


def summary(lines):
    found = [l for l in lines if re.match(r"^\d+ passed, \d+ failed, \d+ skipped$", l)]
    if len(found) != 1:
        sys.exit("readme-figures: no summary line in the output")
    return found[0]


def table_end(lines):
    """Index after the verdict table (header, rule, rows): the first blank line after the rule."""
    rule = next(i for i, l in enumerate(lines) if re.match(r"^-+(  -+)+$", l))
    return next((i for i in range(rule, len(lines)) if not lines[i].strip()), len(lines)), rule


def gate_contract(lines, argv):
    """The header, the table's header and first three rows, the reference-values line, the first
    note, the summary."""
    _, rule = table_end(lines)
    out = [command_line(argv)] + lines[:rule + 4] + [ELIDED]
    out += [l for l in lines if l.startswith("Reference values:")] + [ELIDED]
    notes = [l for l in lines if l.startswith("note:")]
    if notes:
        out += notes[:1] + [ELIDED]
    return out + ["", summary(lines)]


def first_failure(lines):
    """The first FAIL block, from its FAIL line to its Replay line."""
    start = next(i for i, l in enumerate(lines) if l.startswith("FAIL "))
    end = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("Replay:"))
    return lines[start:end + 1]


def gate_mutant(lines, argv):
    """The first failure, the line that says which test caught the mutant, the summary."""
    caught = [l for l in lines if l.startswith("mutant ")]
    return [command_line(argv), ELIDED] + first_failure(lines) + [ELIDED] + caught + ["", summary(lines)]


def audit_failure(lines, argv):
    """The failure, printed first, up to its "Found after" line, then its Replay line; the summary."""
    fail = first_failure(lines)
    found = next(i for i, l in enumerate(fail) if l.lstrip().startswith("Found after"))
    tail = [fail[-1]] if found + 2 == len(fail) else ["  " + ELIDED, fail[-1]]
    return [command_line(argv), ELIDED] + fail[:found + 1] + tail + [ELIDED, summary(lines)]


def shown_argv(argv):
    return " ".join(a for a in argv if a != "--no-timings")


def gate_count(lines, argv):
    """The README's gate example with the number of checks the run made, every one passed."""
    s = summary(lines)
    passed, failed = (int(x) for x in re.match(r"^(\d+) passed, (\d+) failed", s).groups())
    if failed:
        sys.exit(f"readme-figures: `{command_line(argv)}` had failures: {s}")
    return [f"build/attncheck {shown_argv(argv).ljust(50)}  # {passed} checks, every one PASS"]


def must_fail(lines, argv):
    """The README's mutant example: the run exited 1 (checked by run) and says the mutant was caught."""
    if not any(re.match(r"^mutant \S+ was caught by ", l) for l in lines):
        sys.exit(f"readme-figures: `{command_line(argv)}` does not say the mutant was caught")
    return [f"build/attncheck {shown_argv(argv)}   # must FAIL"]


def bias_finding(lines, argv):
    """The command and AUDIT-BIAS-001's finding line: the mean signed error and its threshold."""
    found = [l for l in lines if l.startswith("AUDIT-BIAS-001 [")]
    if len(found) != 1:
        sys.exit(f"readme-figures: `{command_line(argv)}` printed no AUDIT-BIAS-001 finding")
    return [command_line(argv), found[0]]


def full(lines, argv):
    """The command and everything it printed."""
    return [command_line(argv)] + lines


GATE_SM = ["gate", "--contract", "softmax-kernel-v1", "--no-timings"]
GATE_MUTANT = ["gate", "--test", "FALSIFY-SM-001", "--mutant", "softmax_no_max_subtraction", "--no-timings"]
AUDIT_BUG = ["audit", "--lib", "build/libattncheck_audit_testkernels.so", "--kernel",
             "softmax:f32:bug_softmax_no_max_f32", "--test", "FALSIFY-ASCL-004", "--no-timings"]
BMC_PROVED = ["bmc", "--harness", "KANI-ASCL-002", "--format", "f16", "--timeout", "300"]  # a loaded CI machine
BMC_MUTANT = ["bmc", "--harness", "KANI-SM-002", "--format", "f16", "--bound", "1", "--no-lemmas",
              "--mutant", "softmax_no_max_subtraction"]
SOFTMAX_ULPS = ["build/softmax_ulp_figures"]  # tools/softmax_ulp_figures.cpp


def bias(spec):
    return ["audit", "--lib", "build/libattncheck_audit_testkernels.so", "--kernel", spec, "--test", "AUDIT-BIAS-001",
            "--no-timings"]


# docs/audit.md's one copy of AUDIT-BIAS-001's measured means: correct kernels (exit 0), then
# biased ones (exit 1), and a kernel whose errors are large but unbiased (its bound fails, not this).
BIAS_RUNS = [(bias(s), status, bias_finding) for s, status in [
    ("softmax:f32:ok_softmax_f32", 0), ("softmax:f64:ok_softmax_f64", 0), ("log_softmax:f32:ok_log_softmax_f32", 0),
    ("softmax:bf16:f32math_softmax_bf16", 0), ("softmax:f16:f32math_softmax_f16", 0),
    ("log_softmax:bf16:f32math_log_softmax_bf16", 0),
    ("softmax:bf16:bug_softmax_truncated_bf16", 1), ("softmax:f32:bug_softmax_sum_rtz_f32", 1),
    ("softmax:bf16:bug_softmax_sum16_bf16", 1), ("softmax:f16:bug_softmax_sum16_f16", 0)]]

# bmc has no --no-timings: its time cells are masked before comparing (and kept as measured).
TIME_CELL = re.compile(r" +\d+\.\d\ds(?=  )")  # with its padding: the column is right-aligned

# (file, figure name, fenced-block language, [(command, its exit status, excerpt rule)], mask,
# separator): a block with several commands shows them one after the other, with the separator
# lines between them.
FIGURES = [
    ("README.md", "gate-count", "sh", [(GATE_SM, 0, gate_count), (GATE_MUTANT, 1, must_fail)], None, []),
    ("README.md", "audit-failure", "", [(AUDIT_BUG, 1, audit_failure)], None, []),
    ("docs/gate.md", "gate-contract", "", [(GATE_SM, 0, gate_contract)], None, []),
    ("docs/gate.md", "gate-mutant", "", [(GATE_MUTANT, 1, gate_mutant)], None, []),
    ("docs/formats.md", "softmax-ulps", "", [(SOFTMAX_ULPS, 0, full)], None, []),
    ("docs/audit.md", "bias-means", "", BIAS_RUNS, None, []),
    ("docs/bmc.md", "bmc-examples", "", [(BMC_PROVED, 0, full), (BMC_MUTANT, 1, full)], TIME_CELL, [""]),
]


def block_re(name):
    return re.compile(r"(<!-- figures: " + re.escape(name) + r" \(tools/readme-figures\.py\) -->\n)(.*?)"
                      r"(<!-- /figures: " + re.escape(name) + r" -->)", re.S)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update", action="store_true", help="rewrite the blocks instead of comparing")
    ap.add_argument("--build", default="build", help="the build tree holding attncheck (default: build)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="only this figure (repeatable)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the checkout whose documents are compared (default: this script's)")
    a = ap.parse_args()
    outputs, differs = {}, False
    for path, name, lang, parts, mask, separator in FIGURES:
        if a.only and name not in a.only:
            continue
        shown = []
        for argv, status, rule in parts:
            key = tuple(argv)
            if key not in outputs:
                outputs[key] = run(a.build, argv, status)
            shown += (separator if shown else []) + rule(outputs[key], argv)
        block = "```" + lang + "\n" + "\n".join(shown) + "\n```\n"
        full_path = os.path.join(a.root, path)
        text = open(full_path, encoding="utf-8").read()
        m = block_re(name).search(text)
        if not m:
            sys.exit(f"readme-figures: {path} has no figures block {name}")
        committed = m.group(2)
        same = (mask.sub(" <time>", committed) == mask.sub(" <time>", block)) if mask else committed == block
        if same:
            continue
        if a.update:
            text = text[:m.start(2)] + block + text[m.end(2):]
            open(full_path, "w", encoding="utf-8").write(text)
            print(f"readme-figures: updated {path} ({name})")
            continue
        differs = True
        sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), block.splitlines(True),
                                                   f"{path} (committed, {name})", f"{path} (the command's output)"))
    if differs:
        print("readme-figures: the documents differ from what the commands print; refresh them with\n"
              "  tools/readme-figures.py --update --build BUILD_DIR")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
