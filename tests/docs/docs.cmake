# attncheck: tests of the contract graph, the generated contract pages and the HTML report
# (included from the top-level CMakeLists.txt). Label `cli`: they run the real binary.
set(ATTNCHECK_EXPECT bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/expect.sh)
set(ATTNCHECK_BUNDLED --contracts ${CMAKE_CURRENT_SOURCE_DIR}/contracts)
set(ATTNCHECK_FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures)

# attncheck graph: the bundled DAG in each format, and refusals of a cycle and unknown names.
add_test(NAME cli.graph.text COMMAND ${ATTNCHECK_EXPECT} 0
         "(^|\n)softmax-kernel-v1\n(.*\n)*attention-scaling-v1 -> softmax-kernel-v1, qk-norm-v1\n"
         -- $<TARGET_FILE:attncheck_cli> ${ATTNCHECK_BUNDLED} graph)
add_test(NAME cli.graph.dot COMMAND ${ATTNCHECK_EXPECT} 0
         "\"softmax-filtering-bound-v1\" -> \"spectral-bounds-v1\";"
         -- $<TARGET_FILE:attncheck_cli> ${ATTNCHECK_BUNDLED} graph --format dot)
add_test(NAME cli.graph.mermaid COMMAND ${ATTNCHECK_EXPECT} 0
         "^graph LR\n(.*\n)*    log_sum_exp_v1\\[\"log-sum-exp-v1\"\\] --> softmax_lipschitz_v1\\[\"softmax-lipschitz-v1\"\\]"
         -- $<TARGET_FILE:attncheck_cli> ${ATTNCHECK_BUNDLED} graph --format mermaid)
add_test(NAME cli.graph.cycle COMMAND ${ATTNCHECK_EXPECT} 2
         "dependency cycle: cycle-a-v1 -> cycle-b-v1 -> cycle-a-v1"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${ATTNCHECK_FIXTURES}/cycle graph)
add_test(NAME cli.graph.unknown COMMAND ${ATTNCHECK_EXPECT} 2
         "depends_on names missing-v1, which is not in"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${ATTNCHECK_FIXTURES}/crossfile graph)
# A legacy (Rust-format) file only gets a warning from the loader for an unknown dependency; the
# graph refuses it itself.
add_test(NAME cli.graph.unknown-legacy COMMAND ${ATTNCHECK_EXPECT} 2
         "qk-norm-v1 .* depends on 'rmsnorm-kernel-v1', which is not loaded"
         -- $<TARGET_FILE:attncheck_cli> --contracts ${ATTNCHECK_FIXTURES}/interop graph --format dot)
set_tests_properties(cli.graph.text cli.graph.dot cli.graph.mermaid cli.graph.cycle cli.graph.unknown
                     cli.graph.unknown-legacy PROPERTIES LABELS cli)

# A real gate run against a wrong kernel (it must fail), whose JSON report feeds the docs status
# test and the HTML report tests. Small: four contracts (those whose checks record the per-case
# samples every plot needs), 30 cases, about 10 s.
set(ATTNCHECK_DOCS_WORK ${CMAKE_CURRENT_BINARY_DIR}/docs-tests)
file(MAKE_DIRECTORY ${ATTNCHECK_DOCS_WORK})
add_test(NAME cli.report.gate-json COMMAND ${ATTNCHECK_EXPECT} 1 "(^|\n)[0-9]+ passed, [1-9][0-9]* failed"
         -- $<TARGET_FILE:attncheck_cli> ${ATTNCHECK_BUNDLED} gate --contract softmax-kernel-v1
            --contract softmax-filtering-bound-v1 --contract softmax-lipschitz-v1 --contract attention-scaling-v1
            --mutant softmax_sum_skips_last --cases 30 --no-timings
            --json ${ATTNCHECK_DOCS_WORK}/gate.json --html ${ATTNCHECK_DOCS_WORK}/gate.html)
set_tests_properties(cli.report.gate-json PROPERTIES FIXTURES_SETUP attncheck-gate-json)

# attncheck docs: the committed pages match the YAML (and that check can fail); the status columns.
add_test(NAME cli.docs.pages-match-yaml COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_pages.sh
         $<TARGET_FILE:attncheck_cli> ${CMAKE_CURRENT_SOURCE_DIR}/contracts ${CMAKE_CURRENT_SOURCE_DIR}/docs/contracts)
add_test(NAME cli.docs.pages-catch-drift COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_pages_catches.sh
         $<TARGET_FILE:attncheck_cli> ${CMAKE_CURRENT_SOURCE_DIR}/contracts ${CMAKE_CURRENT_SOURCE_DIR}/docs/contracts)
add_test(NAME cli.docs.status COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_status.sh
         $<TARGET_FILE:attncheck_cli> ${CMAKE_CURRENT_SOURCE_DIR}/contracts ${ATTNCHECK_DOCS_WORK}/gate.json)
set_tests_properties(cli.docs.status PROPERTIES FIXTURES_REQUIRED attncheck-gate-json)
set_tests_properties(cli.docs.pages-match-yaml cli.docs.pages-catch-drift cli.docs.status PROPERTIES LABELS cli)

# attncheck report --html: rendered from the real report, opened in headless Chromium.
# Every plot the page must show: the summary plots, per kernel the error histogram (and, for row
# kernels and attention, error against |x_i - max x| or the query's score spread; for entropy, against H), the Lipschitz cone, entropy against β and the
# softmax-filtering bound's per-case tightness.
set(ATTNCHECK_PLOTS plot-tightness-per-obligation plot-tightness-per-format plot-softmax-filtering-bound
    plot-error-histogram-softmax plot-error-vs-gap-softmax plot-error-histogram-scores
    plot-error-histogram-log-softmax plot-error-vs-gap-log-softmax
    plot-error-histogram-softmax-jvp plot-error-vs-gap-softmax-jvp
    plot-error-histogram-entropy plot-error-vs-entropy-entropy plot-error-histogram-attention plot-error-vs-gap-attention
    plot-lipschitz-cone plot-entropy-vs-beta plot-sfb-tightness-distribution)
list(LENGTH ATTNCHECK_PLOTS ATTNCHECK_PLOT_COUNT)
add_test(NAME cli.report.html COMMAND ${ATTNCHECK_EXPECT} 0 "wrote .*report.html \\([0-9]+ results, ${ATTNCHECK_PLOT_COUNT} plots\\)"
         -- $<TARGET_FILE:attncheck_cli> report --from ${ATTNCHECK_DOCS_WORK}/gate.json
            --html ${ATTNCHECK_DOCS_WORK}/report.html)
set_tests_properties(cli.report.html PROPERTIES FIXTURES_REQUIRED attncheck-gate-json FIXTURES_SETUP attncheck-report-html)
add_test(NAME cli.report.chromium COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_html.sh
         ${ATTNCHECK_DOCS_WORK}/report.html ${ATTNCHECK_PLOTS})
add_test(NAME cli.report.chromium-catches COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_html_catches.sh
         ${ATTNCHECK_DOCS_WORK}/report.html ${ATTNCHECK_PLOTS})
set_tests_properties(cli.report.chromium cli.report.chromium-catches PROPERTIES FIXTURES_REQUIRED attncheck-report-html)
# gate --html renders the page from the run's own JSON: it must be the page `report --html` makes
# from that JSON, byte for byte (so the HTML and the JSON of a run always agree).
add_test(NAME cli.report.gate-html-agrees COMMAND ${CMAKE_COMMAND} -E compare_files
         ${ATTNCHECK_DOCS_WORK}/gate.html ${ATTNCHECK_DOCS_WORK}/report.html)
set_tests_properties(cli.report.gate-html-agrees PROPERTIES FIXTURES_REQUIRED "attncheck-gate-json;attncheck-report-html" LABELS cli)
# Bad input: a file that is not a report, a missing file, no gnuplot (the page is still written).
add_test(NAME cli.report.not-a-report COMMAND ${ATTNCHECK_EXPECT} 2 "has schema '', not attncheck-gate/N"
         -- $<TARGET_FILE:attncheck_cli> report --from ${CMAKE_CURRENT_SOURCE_DIR}/contracts/qk-norm-v1.yaml
            --html ${ATTNCHECK_DOCS_WORK}/not-a-report.html)
add_test(NAME cli.report.missing COMMAND ${ATTNCHECK_EXPECT} 2 "cannot read the report"
         -- $<TARGET_FILE:attncheck_cli> report --from ${ATTNCHECK_DOCS_WORK}/no-such.json
            --html ${ATTNCHECK_DOCS_WORK}/missing.html)
add_test(NAME cli.report.no-gnuplot COMMAND ${ATTNCHECK_EXPECT} 2 "gnuplot not found"
         -- ${CMAKE_COMMAND} -E env ATTNCHECK_GNUPLOT=/nonexistent/gnuplot
            $<TARGET_FILE:attncheck_cli> report --from ${ATTNCHECK_DOCS_WORK}/gate.json
            --html ${ATTNCHECK_DOCS_WORK}/no-gnuplot.html)
set_tests_properties(cli.report.no-gnuplot PROPERTIES FIXTURES_REQUIRED attncheck-gate-json)
set_tests_properties(cli.report.gate-json cli.report.html cli.report.chromium cli.report.chromium-catches
                     cli.report.not-a-report cli.report.missing cli.report.no-gnuplot PROPERTIES LABELS cli)

# The README and docs/*.md: README under 15 KB (15,000 bytes), every relative link resolves, every repository
# path named in docs/architecture.md and README.md exists (tests/docs/check_docs.py); and the
# checker fails on planted faults. Label `docs`: no binary needed.
find_program(ATTNCHECK_DOCS_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ATTNCHECK_DOCS_PYTHON3)
  find_program(ATTNCHECK_DOCS_PYTHON3 NAMES python3)
endif()
add_test(NAME docs.links COMMAND ${ATTNCHECK_DOCS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py
         ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME docs.links-catch-faults COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs_catches.sh
         ${ATTNCHECK_DOCS_PYTHON3})
set_tests_properties(docs.links docs.links-catch-faults PROPERTIES LABELS docs)

# The command transcripts in README.md, docs/gate.md, docs/bmc.md, docs/formats.md and docs/audit.md are what the
# commands print: the test runs them (tools/readme-figures.py: two gate runs, eleven audits, two bmc
# runs, softmax_ulp_figures; seeds fixed, --no-timings, bmc's times masked; ~15 s CPU) and fails with the diff when a committed block differs. Refresh: tools/readme-figures.py
# --update --build BUILD_DIR. The check must be able to fail: a planted copy with one figure
# changed must be reported (only the audit figure runs, ~1 s).
# softmax_ulp_figures prints docs/formats.md's softmax-ulps block: the softmax allowance in ulps
# at every n <= 4096 (the same figures tests/mixed_bounds_test.cpp asserts).
add_executable(softmax_ulp_figures tools/softmax_ulp_figures.cpp)
target_link_libraries(softmax_ulp_figures PRIVATE attncheck::core)
add_test(NAME docs.figures COMMAND ${ATTNCHECK_DOCS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/readme-figures.py
         --build ${CMAKE_BINARY_DIR})
add_test(NAME docs.figures-catch-drift
         COMMAND bash -c "work=$(mktemp -d); trap 'rm -rf \"$work\"' EXIT; mkdir -p \"$work/docs\"; \
sed 's/^0 passed, 1 failed, 0 skipped$/1 passed, 0 failed, 0 skipped/' README.md > \"$work/README.md\"; \
cmp -s README.md \"$work/README.md\" && { echo 'the plant did not change README.md'; exit 1; }; \
out=$('${ATTNCHECK_DOCS_PYTHON3}' tools/readme-figures.py --build '${CMAKE_BINARY_DIR}' --root \"$work\" --only audit-failure); rc=$?; \
echo \"$out\"; [ $rc -eq 1 ] && echo \"$out\" | grep -q '^-1 passed, 0 failed, 0 skipped' && echo \"$out\" | grep -q -- '--update'"
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(docs.figures docs.figures-catch-drift PROPERTIES LABELS "docs;cli")
