#!/usr/bin/env python3
"""End-to-end tests of attncheck's report files (tests/reports.cmake runs each mode as a CTest).

  schema       real gate and audit JSON reports validate against docs/report-schema.json, and
               their counterexample_values are the exact values of the printed bit patterns
  determinism  same seed and inputs with --no-timings: byte-identical JSON (gate and audit)
  agree        a failing audit's JSON, JUnit, SARIF, Markdown and HTML name the same checks, verdicts,
               counterexample values and replay commands; the SARIF has the 2.1.0 structure and
               points at the line of the contract YAML that states each obligation
  terminal     colours only on a terminal and never with NO_COLOR, a progress line on a terminal
               (none with --quiet or into a pipe), an aligned table, the summary line last
  sigint       SIGINT during a gate run: exit 130, a message, what finished, no report file; SIGTERM
               during an audit: stopped within seconds, nothing written
               and no temporary file left

Usage: check_reports.py MODE --cli PATH --source DIR --testlib PATH
"""
import argparse
import html
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAILED: " + what, file=sys.stderr)
    return cond


def run(args, expect=None):
    p = subprocess.run([ARGS.cli, "--contracts", os.path.join(ARGS.source, "contracts")] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-4000:], p.stderr[-4000:], sep="\n", file=sys.stderr)
        check(False, "exit status %d, expected %d: %s" % (p.returncode, expect, " ".join(args)))
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


# A gate run that fails (a mutant), a small passing gate, and an audit of a broken kernel with
# N/A rows, failing FALSIFY-* checks and a failing AUDIT-* obligation.
GATE_SUBSET = ["gate", "--contract", "softmax-kernel-v1", "--dtype", "f32,f64", "--cases", "20", "--seed", "0x5eed2026"]
GATE_MUTANT = ["gate", "--test", "FALSIFY-SM-001,FALSIFY-SM-004", "--dtype", "f32", "--cases", "50",
               "--mutant", "softmax_no_max_subtraction"]


def audit_args():
    lib = ARGS.testlib
    # attention-scaling-v1 brings the accuracy checks of the audited entropy and attention kernels
    # (FALSIFY-ASCL-008/009), whose samples give their per-kernel plots in the HTML report.
    return ["audit", "--lib", lib, "--kernel", "softmax:f32:bug_softmax_no_max_f32",
            "--kernel", "entropy:f32:bug_entropy_nan_swallowed_f32", "--kernel", "softmax:f64:ok_softmax_f64",
            "--kernel", "attention:f64:ok_attention_f64",
            "--contract", "softmax-kernel-v1", "--contract", "attention-scaling-v1", "--cases", "40", "--seed", "0x5eed"]


def decode(bits, dtype):
    v = int(bits, 16)
    if dtype == "f64":
        return struct.unpack("<d", struct.pack("<Q", v))[0]
    if dtype == "f32":
        return struct.unpack("<f", struct.pack("<I", v))[0]
    if dtype.startswith("bf16"):  # bf16@bf16 and bf16@f32 store bf16
        return struct.unpack("<f", struct.pack("<I", v << 16))[0]
    return struct.unpack("<e", struct.pack("<H", v))[0]


def same_value(hexfloat, value):
    if math.isnan(value):
        return "nan" in hexfloat
    return float.fromhex(hexfloat) == value and math.copysign(1, float.fromhex(hexfloat)) == math.copysign(1, value)


def check_values(report, name):
    """Every failing result's counterexample_values decode its bits exactly; at least one has some."""
    seen = 0
    for r in report["results"]:
        for v in r["counterexample_values"]:
            check(len(v["bits"]) == len(v["values"]) > 0, name + ": bits and values pair up")
            for b, h in zip(v["bits"], v["values"]):
                check(same_value(h, decode(b, r["dtype"])), "%s: %s %s is %s, not %r" % (name, r["test"], b, h, decode(b, r["dtype"])))
                check(b in r["counterexample"], name + ": bits come from the counterexample text")
                seen += 1
        if r["verdict"] == "PASS":
            check(r["counterexample_values"] == [], name + ": a pass has no counterexample values")
    check(seen > 0, name + ": a failing report carries counterexample values")


def mode_schema(tmp):
    import jsonschema  # Debian: python3-jsonschema (tools/install-deps.sh)
    with open(os.path.join(ARGS.source, "docs", "report-schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    reports = {}
    for name, args, status in [("gate", GATE_SUBSET, 0), ("gate-mutant", GATE_MUTANT, 1), ("audit", audit_args(), 1),
                               ("audit-no-timings", audit_args() + ["--no-timings"], 1)]:
        path = os.path.join(tmp, name + ".json")
        run(args + ["--json", path], expect=status)
        report = json.loads(read(path))
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
        for e in errors[:10]:
            check(False, "%s: %s at %s" % (name, e.message[:300], "/".join(map(str, e.path))))
        check(report["schema_version"] == 7, name + ": schema_version 7")
        check(("timings" in report) == ("no-timings" not in name), name + ": timings present exactly without --no-timings")
        reports[name] = report
    # The schema must be able to fail: a report with an undocumented key or a wrong type is refused.
    bad = dict(reports["gate"], undocumented=1)
    check(not validator.is_valid(bad), "the schema refuses an undocumented key")
    bad = json.loads(json.dumps(reports["gate"]))
    bad["results"][0]["cases"] = "20"
    check(not validator.is_valid(bad), "the schema refuses a wrong type")
    # Generator coverage (schema_version 5): softmax rows name their regions, counts within draws.
    rows = [c for r in reports["gate"]["results"] for c in r["coverage"] if c["generator"] == "row"]
    check(rows and all(0 <= x["count"] <= c["draws"] for c in rows for x in c["regions"]),
          "gate: the softmax checks' row coverage, each count at most the draws")
    check(any(x["region"] == "max in [-104,-5] (needs max subtraction)" and x["count"] > 0 for c in rows for x in c["regions"]),
          "gate: rows with a maximum in [-104, -5] were drawn")
    check_values(reports["gate-mutant"], "gate-mutant")
    check_values(reports["audit"], "audit")
    run_meta = reports["gate"]["run"]
    check(run_meta["command"] == "gate" and reports["audit"]["run"]["command"] == "audit", "run.command")
    check(any(c["id"] == "softmax-kernel-v1" and c["file"] == "contracts/softmax-kernel-v1.yaml" for c in run_meta["contracts"]),
          "run.contracts names the contract and its file relative to the repository")
    for dep in ["compiler", "boost", "mpfr", "yaml-cpp", "z3"]:
        check(dep in run_meta["dependencies"], "run.dependencies has " + dep)
    sm = [o for o in reports["gate"]["obligations"] if o["id"] == "SM-INV-001"]
    check(len(sm) == 1 and sm[0]["verdict"] == "PASS" and sm[0]["location"]["line"] > 0, "per-obligation verdict and line")


def mode_determinism(tmp):
    for name, args in [("gate", GATE_SUBSET), ("audit", audit_args())]:
        a, b = os.path.join(tmp, name + "-a.json"), os.path.join(tmp, name + "-b.json")
        pa = run(args + ["--no-timings", "--json", a])
        pb = run(args + ["--no-timings", "--json", b])
        check(pa.returncode == pb.returncode, name + ": same exit status")
        check(pa.stdout == pb.stdout, name + ": same text report")
        ja, jb = read(a), read(b)
        check(ja == jb, name + ": byte-identical JSON with the same seed and --no-timings")
        check(b'"timings"' not in ja, name + ": --no-timings leaves the timings out")
        if ja != jb:
            for la, lb in zip(ja.decode().splitlines(), jb.decode().splitlines()):
                if la != lb:
                    print("first difference:\n" + la[:400] + "\n" + lb[:400], file=sys.stderr)
                    break
    # And it can fail: another seed gives another report.
    c = os.path.join(tmp, "gate-c.json")
    run([x if x != "0x5eed2026" else "0x4321" for x in GATE_SUBSET] + ["--no-timings", "--json", c])
    check(read(c) != read(os.path.join(tmp, "gate-a.json")), "another seed changes the report")


def strip_md(s):
    return s.replace("**", "").replace("`", "").strip()


def mode_agree(tmp):
    paths = {k: os.path.join(tmp, "report." + k) for k in ["json", "xml", "sarif", "md", "html"]}
    p = run(audit_args() + ["--json", paths["json"], "--junit", paths["xml"], "--sarif", paths["sarif"],
                            "--markdown", paths["md"], "--html", paths["html"]], expect=1)
    report = json.loads(read(paths["json"]))
    # A check is (test, dtype, kind): an AUDIT-* obligation runs once per kernel kind, and the
    # other reports name the kind in the contract column ("audit:softmax").
    def key(r):
        kind = r["kinds"][0] if r["contract"] == "audit" else ""
        return (r["test"], r["dtype"], kind)

    def kind_of(contract):
        return contract.split(":", 1)[1] if contract.startswith("audit:") else ""

    ran = {key(r): r for r in report["results"] if r["verdict"] != "N/A"}
    na = {key(r) for r in report["results"] if r["verdict"] == "N/A"}
    check(len(ran) + len(na) == len(report["results"]), "checks are told apart by test, dtype and kind")
    failing = {k: r for k, r in ran.items() if r["verdict"] != "PASS"}
    check(len(failing) >= 3 and len(ran) > len(failing) and na, "the audit has failures, passes and N/A checks")
    check(any(t.startswith("AUDIT-") for t, _, _ in failing), "an AUDIT-* obligation fails")
    check(any(t.startswith("FALSIFY-") for t, _, _ in failing), "a contract test fails")

    # Terminal: the summary line counts what the JSON counts.
    s = report["summary"]
    check(p.stdout.rstrip().endswith("%d passed, %d failed, %d skipped" % (s["passed"], s["failed"], s["not_applicable"])),
          "the text summary line agrees with the JSON summary")

    # JUnit: one testcase per check, the same verdicts, the counterexample and the replay line.
    suite = ET.parse(paths["xml"]).getroot().find("testsuite")
    check(suite.get("name") == "attncheck audit", "JUnit suite is named attncheck audit")
    junit = {}
    for tc in suite.findall("testcase"):
        m = re.fullmatch(r"(\S+)\[(\w+)\]", tc.get("name"))
        child = next(iter(tc), None)
        verdict = "PASS" if child is None else "N/A" if child.tag == "skipped" else child.get("type")
        junit[(m.group(1), m.group(2), kind_of(tc.get("classname")))] = (verdict, (child.text or "") if child is not None else "")
    check(set(junit) == set(ran) | na, "JUnit has one testcase per check, N/A ones included")
    for k, r in ran.items():
        check(junit.get(k, ("?",))[0] == r["verdict"], "JUnit verdict of %s" % (k,))
    for k in na:
        check(junit.get(k, ("?",))[0] == "N/A", "JUnit skips N/A %s" % (k,))
    check(int(suite.get("failures")) + int(suite.get("errors")) == len(failing), "JUnit failure count")

    # SARIF 2.1.0: the required structure (the official schema cannot be downloaded here).
    sarif = json.loads(read(paths["sarif"]))
    check(sarif.get("version") == "2.1.0" and "sarif-schema-2.1.0" in sarif.get("$schema", ""), "SARIF version and $schema")
    check(isinstance(sarif.get("runs"), list) and len(sarif["runs"]) == 1, "SARIF has one run")
    run0 = sarif["runs"][0]
    driver = run0["tool"]["driver"]
    check(driver["name"] == "attncheck" and isinstance(driver.get("rules"), list), "SARIF tool.driver.name and rules")
    rule_ids = [r["id"] for r in driver["rules"]]
    base = run0.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri", "")
    check(base.startswith("file:///") and base.endswith("/"), "SARIF SRCROOT is a file URI ending in /")
    sarif_checks = {}
    for res in run0["results"]:
        check(res["ruleId"] in rule_ids and rule_ids[res["ruleIndex"]] == res["ruleId"], "SARIF ruleId is a rule")
        check(res["level"] in ("error", "warning", "note", "none"), "SARIF level")
        check(isinstance(res["message"]["text"], str) and res["message"]["text"], "SARIF message.text")
        check(len(res["locations"]) == 1, "SARIF result has a location")
        loc = res["locations"][0]["physicalLocation"]
        uri, line = loc["artifactLocation"]["uri"], loc["region"]["startLine"]
        check(line >= 1, "SARIF region.startLine")
        # The line states the obligation: the YAML's "id: X" or docs/audit.md's "**X**".
        path = os.path.join(ARGS.source, uri) if loc["artifactLocation"].get("uriBaseId") == "SRCROOT" else uri
        with open(path) as f:
            text_line = f.read().splitlines()[line - 1]
        check(res["ruleId"] in text_line, "SARIF %s points at %s:%d, which states it (%r)" % (res["ruleId"], uri, line, text_line))
        props = res["properties"]
        k = (props["test"], props["dtype"], kind_of(props["contract"]))
        sarif_checks[k] = props
        r = ran.get(k)
        if check(r is not None, "SARIF result %s is a check of the JSON" % (k,)):
            check(res["ruleId"] in r["obligations"], "SARIF rule is an obligation of the check")
            check(props["verdict"] == r["verdict"], "SARIF verdict of %s" % (k,))
            check(props["counterexample_values"] == r["counterexample_values"], "SARIF counterexample values of %s" % (k,))
            check(props["replay"] == r["replay"], "SARIF replay of %s" % (k,))
    check(set(sarif_checks) == set(failing), "SARIF has exactly the failing checks")

    # Markdown: the failure table, and per failure the exact values and the replay command.
    md = read(paths["md"]).decode()
    check(("%d passed, %d failed, %d skipped" % (s["passed"], s["failed"], s["not_applicable"])) in md, "Markdown counts")
    md_fail = set()
    section = md.split("### Failures", 1)[1].split("<details><summary>All", 1)[0] if "### Failures" in md else ""
    for line in section.splitlines():
        cells = [strip_md(c) for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0] in ("FAIL", "ERROR", "GAVE-UP"):
            md_fail.add((cells[3], cells[4], kind_of(cells[1]), cells[0]))
    check(md_fail == {k + (r["verdict"],) for k, r in failing.items()}, "Markdown failure table = JSON failures")
    blocks = re.split(r"^#### ", section, flags=re.M)[1:]
    for (t, d, kind), r in failing.items():
        block = next((b for b in blocks if b.startswith("%s %s [%s] — %s" % (r["verdict"], t, d, "audit:" + kind if kind else r["contract"]))), "")
        check(block, "Markdown has a section for %s [%s]" % (t, d))
        check(r["replay"] in block, "Markdown replay of %s [%s]" % (t, d))
        for v in r["counterexample_values"]:
            check(", ".join(v["values"]) in block, "Markdown exact values of %s [%s]" % (t, d))
        junit_body = junit.get((t, d, kind), ("", ""))[1]
        check(r["replay"] in junit_body, "JUnit replay of %s [%s]" % (t, d))
        for v in r["counterexample_values"]:
            check(", ".join(v["values"]) in junit_body, "JUnit exact values of %s [%s]" % (t, d))
    # Markdown's full table lists every check that ran, with the JSON's verdict.
    full = md.split("<details><summary>All", 1)[1]
    md_all = set()
    for line in full.splitlines():
        cells = [strip_md(c) for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0] in ("PASS", "FAIL", "ERROR", "GAVE-UP"):
            md_all.add((cells[3], cells[4], kind_of(cells[1]), cells[0]))
    check(md_all == {k + (r["verdict"],) for k, r in ran.items()}, "Markdown full table = JSON checks that ran")

    # HTML: the verdict table has every result with its verdict, each failure has a section with
    # its counterexample and replay command, and the per-kernel plots of the audited softmax are
    # drawn from the JSON's samples.
    page = read(paths["html"]).decode()
    text = html.unescape(page)
    rows = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td><td>(?:<a [^>]*>)?([^<]*)(?:</a>)?</td><td>([^<]*)</td>"
                      r"<td class=\"[a-z]+\">([^<]*)</td>", page)
    check(sorted((html.unescape(t), d, v) for _, t, d, v in rows) ==
          sorted((r["test"], r["dtype"], r["verdict"]) for r in report["results"]), "HTML verdict table = JSON results")
    heads = set(re.findall(r'<section class="failure" id="[^"]*">\n<h3><span class="fail">([^<]*)</span> (\S+) \[(\w+)\]</h3>', page))
    check(heads == {(r["verdict"], t, d) for (t, d, _), r in failing.items()}, "HTML failure sections = JSON failures")
    for (t, d, kind), r in failing.items():
        check(r["replay"] in text, "HTML replay of %s [%s]" % (t, d))
        for v in r["counterexample_values"]:
            for b in v["bits"]:
                check(b in text, "HTML counterexample bits of %s [%s]" % (t, d))
    sampled = {x["subject"] for r in report["results"] for x in r["samples"] if x["series"] in ("error", "error-vs-gap")}
    check("softmax" in sampled, "the audit's JSON samples the softmax kernel's errors")
    for kernel in sampled:
        check('id="plot-error-histogram-%s"' % kernel in page, "HTML error histogram of the audited %s" % kernel)
    check('id="plot-error-vs-gap-softmax"' in page, "HTML error against |x_i - max x| of the audited softmax")
    # The audited entropy and attention kernels: their accuracy checks against the oracle sample
    # each error with its allowance and its x (H(p); the query's score spread), and the page plots both.
    for kernel, second in (("entropy", "plot-error-vs-entropy-entropy"), ("attention", "plot-error-vs-gap-attention")):
        check(kernel in sampled, "the audit's JSON samples the %s kernel's errors" % kernel)
        check('id="%s"' % second in page, "HTML %s of the audited %s" % (second, kernel))


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def run_on_tty(args, env_extra):
    """Runs the CLI with stdout and stderr on a pseudo-terminal; returns (status, output)."""
    import pty
    import fcntl
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))  # wide enough for a whole progress line
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    # The line appears from the first check on (not after a second), whatever the machine's speed.
    env.update({"TERM": "xterm", "ATTNCHECK_PROGRESS_AFTER_MS": "0"}, **env_extra)
    p = subprocess.Popen([ARGS.cli, "--contracts", os.path.join(ARGS.source, "contracts")] + args,
                         stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(), out.decode(errors="replace").replace("\r\n", "\n")


def check_table(text, name):
    """The table's columns line up: every row has its verdict where the header has 'verdict'."""
    lines = text.splitlines()
    head = next((i for i, l in enumerate(lines) if l.startswith("contract ") and "verdict" in l), None)
    if not check(head is not None, name + ": a table header"):
        return
    col = lines[head].index("verdict")
    check(set(lines[head + 1]) <= {"-", " "}, name + ": a rule under the header")
    rows = 0
    for l in lines[head + 2:]:
        if not l.strip():
            break
        rows += 1
        check(re.match(r"(PASS|FAIL|ERROR|GAVE-UP)\b", l[col:]) is not None, name + ": verdict column aligned in %r" % l)
    check(rows > 0, name + ": table rows")


def mode_terminal(tmp):
    # ATTNCHECK_PROGRESS_AFTER_MS=0 (run_on_tty) shows the progress line from the first check on.
    args = ["gate", "--contract", "softmax-kernel-v1", "--cases", "200"]
    status, out = run_on_tty(args, {})
    check(status == 0, "gate on a terminal passes")
    check("\x1b[32mPASS\x1b[0m" in out, "colour on a terminal")
    check(re.search(r"\[\d+/\d+\] softmax-kernel-v1 \S+ FALSIFY-SM-\d+ \[\w+\]  cases \d+/\d+  ETA ", out) is not None,
          "a progress line on a terminal")
    plain = ANSI.sub("", out.split("attncheck ", 1)[-1]) if "attncheck " in out else ANSI.sub("", out)
    check_table(plain, "terminal")
    check(re.search(r"\n\d+ passed, 0 failed, 0 skipped\n?$", ANSI.sub("", out)) is not None, "summary line last on a terminal")

    status, out = run_on_tty(args, {"NO_COLOR": "1"})
    check(not re.search(r"\x1b\[[0-9;]*m", out), "no colour with NO_COLOR")
    check("ETA" in out, "NO_COLOR keeps the progress line")

    status, out = run_on_tty(args + ["--quiet"], {})
    check("ETA" not in out and "\r" not in out, "no progress line with --quiet")
    check(not re.search(r"^contract +obligations +test", ANSI.sub("", out), re.M), "no table with --quiet")
    check(re.search(r"\d+ passed, 0 failed, 0 skipped", ANSI.sub("", out)) is not None, "--quiet keeps the summary line")

    p = run(["gate", "--contract", "softmax-kernel-v1", "--cases", "20"])
    check("\x1b" not in p.stdout and "\x1b" not in p.stderr, "no escape sequences into a pipe")
    check_table(p.stdout, "pipe")

    # A failing run: each failure is followed by its counterexample and replay command, before the
    # table; RapidCheck's draw log only with --verbose.
    p = run(GATE_MUTANT, expect=1)
    for block in re.split(r"\n(?=FAIL )", p.stdout)[1:]:
        check("Counterexample (shrunk):" in block and "Replay: attncheck gate " in block, "failure block has counterexample and replay")
        check(block.index("Counterexample (shrunk):") < block.index("Replay:"), "counterexample before the replay line")
    check(re.search(r"^FAIL ", p.stdout, re.M) and re.search(r"^contract +obligations +test", p.stdout, re.M)
          and p.stdout.index("\nFAIL ") < re.search(r"^contract +obligations +test", p.stdout, re.M).start(),
          "the failures come before the table")
    check("  Drawn " not in p.stdout, "no draw log without --verbose")
    check("  Drawn " in run(GATE_MUTANT + ["--verbose"], expect=1).stdout, "--verbose prints the draw log")
    check(re.search(r"\n\d+ passed, [1-9]\d* failed, 0 skipped\n$", p.stdout) is not None, "summary line of a failing run")


def mode_sigint(tmp):
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    reports = ["--json", os.path.join(out, "r.json"), "--junit", os.path.join(out, "r.xml"),
               "--sarif", os.path.join(out, "r.sarif"), "--markdown", os.path.join(out, "r.md")]
    # The whole gate takes minutes; interrupt it once a few checks have had time to finish.
    p = subprocess.Popen([ARGS.cli, "--contracts", os.path.join(ARGS.source, "contracts"), "gate"] + reports,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    check(p.poll() is None, "the gate is still running after 3 s")
    p.send_signal(signal.SIGINT)
    try:
        stdout, stderr = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
        check(False, "the gate stopped within 120 s of SIGINT")
    check(p.returncode == 128 + signal.SIGINT, "exit status 130 after SIGINT (got %s)" % p.returncode)
    check("interrupted" in stderr, "a message on stderr says it was interrupted")
    m = re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped\s*$", stdout)
    check(m is not None and int(m.group(3)) > 0, "the finished checks and the skipped count are printed")
    check(re.search(r"interrupted: \d+ of \d+ checks finished", stdout) is not None, "the note says how far it got")
    check(os.listdir(out) == [], "no report file and no temporary file is left (found %s)" % os.listdir(out))

    # The audit too: the check in progress is discarded, nothing is written.
    p = subprocess.Popen([ARGS.cli, "--contracts", os.path.join(ARGS.source, "contracts"), "audit", "--lib", ARGS.testlib,
                          "--kernel", "softmax:f32:ok_softmax_f32", "--kernel", "softmax:f64:ok_softmax_f64",
                          "--cases", "5000"] + reports, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    check(p.poll() is None, "the audit is still running after 3 s")
    p.send_signal(signal.SIGINT)
    try:
        a_out, a_err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        a_out, a_err = p.communicate()
        check(False, "the audit stopped within 120 s of SIGINT")
    check(p.returncode == 128 + signal.SIGINT, "audit: exit status 130 after SIGINT (got %s)" % p.returncode)
    check("interrupted" in a_err, "audit: a message on stderr says it was interrupted")
    check(os.listdir(out) == [], "audit: no report file and no temporary file is left (found %s)" % os.listdir(out))
    stdout += a_out
    stderr += a_err

    # SIGTERM (a CI job's timeout) stops at once: within seconds, exit 143, nothing written.
    p = subprocess.Popen([ARGS.cli, "--contracts", os.path.join(ARGS.source, "contracts"), "audit", "--lib", ARGS.testlib,
                          "--kernel", "softmax:f32:ok_softmax_f32", "--cases", "5000"] + reports,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    check(p.poll() is None, "the audit is still running after 3 s")
    p.send_signal(signal.SIGTERM)
    try:
        t_out, t_err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        t_out, t_err = p.communicate()
        check(False, "the audit stopped within 10 s of SIGTERM")
    check(p.returncode == -signal.SIGTERM, "SIGTERM: killed by SIGTERM, shell status 143 (got %s)" % p.returncode)
    check("terminated (SIGTERM)" in t_err, "SIGTERM: a message on stderr says so")
    check(os.listdir(out) == [], "SIGTERM: no report file and no temporary file is left (found %s)" % os.listdir(out))
    stderr += t_err
    if FAILURES:
        print(stdout[-3000:], stderr[-3000:], sep="\n", file=sys.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["schema", "determinism", "agree", "terminal", "sigint"])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--testlib", required=True)
    ARGS = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="attncheck-reports-") as tmp:
        globals()["mode_" + ARGS.mode](tmp)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        sys.exit(1)
    print("all checks passed")
