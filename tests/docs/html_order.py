"""Checks the reading order of a rendered attncheck HTML report (the DOM Chromium dumped):
   html_order.py DOM.html
A failing report opens on its failures: the first failure's block with its replay line, then (with
several failures) the table of all of them and the other blocks, then the verdict table, then the
plots; every plot says which question it answers.
Prints what is out of order and exits 1; prints the order it saw and exits 0 otherwise."""
import re
import sys

dom = open(sys.argv[1], encoding="utf-8").read()


def at(pattern):
    m = re.search(pattern, dom)
    return m.start() if m else -1


problems = []
verdicts, plots = at(r'<h2 id="verdicts"'), at(r'<h2 id="plots"')
if verdicts < 0 or plots < 0:
    problems.append("no verdict table or no plots section")
elif not verdicts < plots:
    problems.append("the plots come before the verdict table")
failures = at(r'<h2 id="failures"')
if "<span class=\"fail\">0 failed</span>" not in dom:
    summary, first_block = at(r'<table class="failure-summary"'), at(r'<section class="failure"')
    replay = at(r'<p>Replay:</p>')
    order = [("the failures heading", failures), ("the first failure block", first_block), ("a replay line", replay)]
    if summary >= 0 or len(re.findall(r'<section class="failure"', dom)) > 1:
        order.append(("the failure summary", summary))
    order += [("the verdict table", verdicts), ("the plots", plots)]
    for (name_a, a), (name_b, b) in zip(order, order[1:]):
        if a < 0:
            problems.append(name_a + " is missing from a failing report")
        elif b >= 0 and not a < b:
            problems.append(name_a + " does not come before " + name_b)
figures = len(re.findall(r'<figure class="plot"', dom))
questions = len(re.findall(r'<figure class="plot"[^>]*>\s*<p class="question">[^<]+</p>', dom))
if figures != questions:
    problems.append("%d of %d plots say which question they answer" % (questions, figures))
if problems:
    for p in problems:
        print("html_order: " + p, file=sys.stderr)
    sys.exit(1)
print("order: failures (the first block with its replay line, then the summary), verdicts, plots (%d, each with its question)" % figures)
