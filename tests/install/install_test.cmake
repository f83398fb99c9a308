# The steps of tests/install/install.cmake, run with cmake -P:
#   -DSTEP=install  -DBUILD=<attncheck build> -DOUT=<dir>: install into OUT/staging, move it to
#                   OUT/prefix, check the layout, `attncheck --version` and a gate from there.
#   -DSTEP=deb -DBUILD=<attncheck build> -DOUT=<dir>: the .deb (CPack), its fields, the gate from it.
#   -DSTEP=python -DSOURCE=<python/> -DPYTHON=<python3> -DOUT=<dir>: the Python package's wheel and suite.
#   -DSTEP=consumer -DSOURCE=<examples/consumer> -DREADME=<README.md> -DOUT=<dir>: copy the example
#                   out of the source tree, configure it with CMAKE_PREFIX_PATH=OUT/prefix only,
#                   build it, run its CTest tests, check the expected verdicts and report files, and
#                   run the README's CLI lines in its build.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

function(expect haystack needle what)
  string(FIND "${haystack}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected '${needle}' in:\n${haystack}")
  endif()
endfunction()

# An installed attncheck's `show` and `coverage` tell the truth about the tree they run in (issue
# 48): the proofs the contracts name are there (share/attncheck/proofs), no path of the build that
# made it is printed, and `coverage` assesses with the record installed beside it (exit 0) or says
# plainly that the install carries none, where the proofs are and how to assess them (exit 3),
# never "missing" (exit 1). Both states are checked: as installed (with a record if the build's
# proof tests ran before the install) and with the record taken away.
function(expect_truthful bin data)
  run(${bin} show SM-BND-001)
  expect("${out}" "proof     proofs/softmax_kernel.tex:" "installed show: the proof's line")
  expect("${out}" "\\label{SM-BND-001}" "installed show: the proof's label")
  # (OUT may lie inside BUILD: the paths a build tree's binary would print are named exactly.)
  set(build_paths "${BUILD}/proofs" "${BUILD}/bmc-report.json" "${BUILD}/contracts")
  foreach(wrong "missing" "not found" ${build_paths})
    string(FIND "${out}" "${wrong}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "installed show says '${wrong}':\n${out}")
    endif()
  endforeach()
  foreach(state installed no-record)
    if(state STREQUAL "no-record")
      file(REMOVE_RECURSE ${data}/proofs-record)
    endif()
    execute_process(COMMAND ${bin} coverage RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    foreach(wrong ${build_paths})
      string(FIND "${out}${err}" "${wrong}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "installed coverage (${state}) names the build tree's ${wrong}:\n${out}${err}")
      endif()
    endforeach()
    if(rc EQUAL 3)
      expect("${out}" "this installed attncheck carries" "installed coverage (${state}), not assessed")
      expect("${out}" "Its proofs are in ${data}/proofs." "installed coverage (${state}): where the proofs are")
      expect("${out}" " with a gap" "installed coverage (${state}): the summary")
      expect("${out}" "(0 with a gap" "installed coverage (${state}): no gap claimed")
    elseif(rc EQUAL 0 AND state STREQUAL "installed")
      expect("${out}" "proofs record: ${data}/proofs-record" "installed coverage: the record installed")
    else()
      message(FATAL_ERROR "installed coverage (${state}): exit ${rc}, expected 3 (no record) or 0 (a record):\n${out}${err}")
    endif()
  endforeach()
endfunction()

set(prefix ${OUT}/prefix)
# No setting may point the installed CLI back into the source tree.
unset(ENV{ATTNCHECK_CONTRACTS})

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${OUT}/staging ${prefix})  # only its own: the deb step runs beside it in OUT
  run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${OUT}/staging)
  file(RENAME ${OUT}/staging ${prefix})  # relocated: nothing may remember the install prefix
  foreach(f bin/attncheck share/attncheck/contracts/softmax-kernel-v1.yaml share/attncheck/docs/audit.md
            include/attncheck/abi.h lib/cmake/attncheck/attncheckConfig.cmake
            lib/cmake/attncheck/attncheckConfigVersion.cmake lib/cmake/attncheck/attncheckTargets.cmake
            lib/cmake/attncheck/AttncheckAudit.cmake)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
  file(GLOB core ${prefix}/lib*/libattncheck_core.a ${prefix}/lib/*/libattncheck_core.a)
  if(NOT core)
    message(FATAL_ERROR "not installed: libattncheck_core.a")
  endif()
  run(${prefix}/bin/attncheck --version)
  expect("${out}" "contracts: ${prefix}/share/attncheck/contracts (installed" "attncheck --version")
  run(${prefix}/bin/attncheck gate --contract softmax-kernel-v1 --dtype f32 --cases 20 -q)
  expect("${out}" " passed, 0 failed" "installed gate")
  expect_truthful(${prefix}/bin/attncheck ${prefix}/share/attncheck)
elseif(STEP STREQUAL "consumer")
  set(src ${OUT}/consumer-src)
  set(bin ${OUT}/consumer-build)
  file(REMOVE_RECURSE ${src} ${bin})
  file(COPY ${SOURCE}/ DESTINATION ${src})
  # Configured without a warning: attncheck_add_audit warns of a test named in TESTS that it does
  # not register (the example once named version 1's AUDIT-ATT-001 beside version-2 kernels).
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${src} -B ${bin} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR err MATCHES "CMake Warning")
    message(FATAL_ERROR "configuring examples/consumer: exit ${rc}, or a warning:\n${out}\n${err}")
  endif()
  file(READ ${bin}/CMakeCache.txt cache)
  expect("${cache}" "attncheck_DIR:PATH=${prefix}/" "the package found")
  run(${CMAKE_COMMAND} --build ${bin})
  run(${CMAKE_COMMAND} -E env CTEST_OUTPUT_ON_FAILURE=1 ${CMAKE_CTEST_COMMAND} --test-dir ${bin} -j 2)
  expect("${out}" "100% tests passed" "the consumer's tests")
  expect("${out}" "softmax_audit:FALSIFY-SM-004:f32" "one test per check")
  expect("${out}" "naive_audit:FALSIFY-SM-004:f32" "the failing kernel's check")
  expect("${out}" "gate:FALSIFY-SM-001:f32" "attncheck_add_gate")
  # ABI 2: version 2's checks are registered (and pass), version 1's and, under NO_LSE, the LSE's are not.
  expect("${out}" "attention_audit:FALSIFY-ATTK-001:f32" "attncheck_add_audit ABI 2")
  expect("${out}" "attention_audit:AUDIT-ATTB-001:f32" "attncheck_add_audit ABI 2")
  expect("${out}" "attention_audit:AUDIT-SAFE-001:f32" "attncheck_add_audit ABI 2")
  foreach(absent "attention_audit:AUDIT-ATT-001" "attention_audit:FALSIFY-ATTK-002")
    string(FIND "${out}" "${absent}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "attncheck_add_audit ABI 2 NO_LSE registered ${absent} (a version-1 check, or the LSE's under NO_LSE):\n${out}")
    endif()
  endforeach()
  # A test named in TESTS that does not apply is said, not silently dropped: a project naming version
  # 1's AUDIT-ATT-001 beside a version-2 attention kernel is warned at configure time.
  file(REMOVE_RECURSE ${OUT}/tests-warning)
  file(WRITE ${OUT}/tests-warning/src/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.25)\nproject(tests_warning C)\nenable_testing()\nfind_package(attncheck REQUIRED)\n"
       "attncheck_add_audit(NAME w LIB ${OUT}/tests-warning/none.so KERNELS attention:f32:k ABI 2 NO_LSE\n"
       "                    TESTS FALSIFY-ATTK-001 AUDIT-ATT-001)\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${OUT}/tests-warning/src -B ${OUT}/tests-warning/build -DCMAKE_PREFIX_PATH=${prefix}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE wout ERROR_VARIABLE werr)
  string(REGEX REPLACE "[ \n]+" " " werr "${werr}")
  expect("${werr}" "TESTS names AUDIT-ATT-001, which does not apply to the kernels given" "attncheck_add_audit's warning")
  string(FIND "${werr}" "TESTS names FALSIFY-ATTK-001" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "attncheck_add_audit warned of FALSIFY-ATTK-001, which applies:\n${werr}")
  endif()
  # The failing kernel's check really failed: its output has the verdict and the replay command.
  run(${CMAKE_CTEST_COMMAND} --test-dir ${bin} -R naive_audit -V)
  expect("${out}" "FAIL FALSIFY-SM-004 [f32]" "the failing kernel's verdict")
  expect("${out}" "Replay: attncheck audit --lib" "the replay command")
  # The README's CLI lines, as written, with the installed attncheck first on PATH and PREFIX set
  # to the prefix, in this build with the example's softmax.c beside it: the compile line builds
  # ./libmykernels.so (as the example's CMake does), the attncheck lines pass.
  file(READ ${README} readme)
  string(REGEX MATCH "<!-- ci: cli[^>]*-->[ \n]*```sh\n([^`]*)```" block "${readme}")
  if(NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "README.md has no '<!-- ci: cli -->' block")
  endif()
  string(REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    file(COPY ${src}/softmax.c DESTINATION ${bin})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=${prefix}/bin:$ENV{PATH} PREFIX=${prefix} sh -c "${line}"
                    WORKING_DIRECTORY ${bin} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "the README's line '${line}' failed (${rc}):\n${out}\n${err}")
    endif()
    if(line MATCHES "^attncheck ")
      expect("${out}" " passed, 0 failed" "the README's line '${line}'")
    endif()
  endforeach()
  # The report files of the passing audit: every check passed.
  file(READ ${bin}/softmax_audit.xml junit)
  expect("${junit}" "failures=\"0\"" "softmax_audit.xml")
  expect("${junit}" "FALSIFY-SM-004" "softmax_audit.xml")
  if(NOT EXISTS ${bin}/softmax_audit.sarif)
    message(FATAL_ERROR "softmax_audit.sarif was not written")
  endif()
elseif(STEP STREQUAL "deb")
  # -DBUILD=<attncheck build>: the .deb made by CPack, its control fields, and the gate run from
  # its files (extracted into a directory: installing it with dpkg -i would change the machine).
  set(root ${OUT}/deb-root)
  file(REMOVE_RECURSE ${OUT}/deb ${root})
  execute_process(COMMAND ${CMAKE_CPACK_COMMAND} -G DEB -B ${OUT}/deb --config ${BUILD}/CPackConfig.cmake
                  WORKING_DIRECTORY ${BUILD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cpack failed (${rc}):\n${out}\n${err}")
  endif()
  file(GLOB deb ${OUT}/deb/attncheck_*.deb)
  if(NOT deb)
    message(FATAL_ERROR "no .deb in ${OUT}/deb:\n${out}")
  endif()
  run(dpkg-deb --field ${deb} Package Version Depends Recommends)
  set(fields "${out}")
  foreach(lib libc6 libstdc++6 libyaml-cpp0.7 libfmt9 libz3-4 libmpfr6)
    expect("${fields}" "${lib} (" "Depends")
  endforeach()
  expect("${fields}" "Recommends: gnuplot-nox" "Recommends")
  run(dpkg-deb --extract ${deb} ${root})
  foreach(f usr/bin/attncheck usr/share/attncheck/contracts/softmax-kernel-v1.yaml usr/include/attncheck/abi.h
            usr/lib/cmake/attncheck/attncheckConfig.cmake)
    if(NOT EXISTS ${root}/${f})
      message(FATAL_ERROR "not in the .deb: ${f}")
    endif()
  endforeach()
  run(${root}/usr/bin/attncheck --version)
  expect("${out}" "contracts: ${root}/usr/share/attncheck/contracts (installed" "the packaged attncheck --version")
  run(${root}/usr/bin/attncheck gate --contract softmax-kernel-v1 --dtype f32 --cases 20 -q)
  expect("${out}" " passed, 0 failed" "the packaged gate")
  expect_truthful(${root}/usr/bin/attncheck ${root}/usr/share/attncheck)
elseif(STEP STREQUAL "python")
  # -DSOURCE=<python/> -DPYTHON=<python3>: a wheel built offline with Debian's setuptools, installed
  # into a directory of its own, and the package's pytest suite (with the plugin, found through
  # its entry point) run against the installed CLI.
  set(src ${OUT}/python-src)
  set(site ${OUT}/python-site)
  file(REMOVE_RECURSE ${src} ${site} ${OUT}/python-wheel ${OUT}/python-tmp)
  file(COPY ${SOURCE}/ DESTINATION ${src} PATTERN build EXCLUDE PATTERN *.egg-info EXCLUDE PATTERN __pycache__ EXCLUDE)
  set(pip ${PYTHON} -m pip --disable-pip-version-check --no-input)
  run(${pip} wheel --no-build-isolation --no-deps --no-index -w ${OUT}/python-wheel ${src})
  file(GLOB wheel ${OUT}/python-wheel/attncheck-*-py3-none-any.whl)
  if(NOT wheel)
    message(FATAL_ERROR "no pure-Python wheel was built: ${out}")
  endif()
  run(${pip} install --no-build-isolation --no-deps --no-index --target ${site} ${wheel})
  foreach(f attncheck/py.typed attncheck/pytest_plugin.py)
    if(NOT EXISTS ${site}/${f})
      message(FATAL_ERROR "not in the installed package: ${f}")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${OUT}/python-tmp)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${site} PYTHONDONTWRITEBYTECODE=1
                          ATTNCHECK_CLI=${prefix}/bin/attncheck PATH=${prefix}/bin:$ENV{PATH} ATTNCHECK_EXAMPLES=${SOURCE}/../examples
                          ${PYTHON} -m pytest -p no:cacheprovider -rs -q --attncheck-cases 30
                          --basetemp=${OUT}/python-tmp/pytest ${src}/tests
                  WORKING_DIRECTORY ${OUT}/python-tmp RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the python package's pytest suite failed (${rc})")
  endif()
  # Only the torch tests may be skipped, and only without torch.
  execute_process(COMMAND ${PYTHON} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
  if(no_torch EQUAL 0 AND out MATCHES "skipped")
    message(FATAL_ERROR "tests were skipped although torch and the CLI are installed")
  endif()
elseif(STEP STREQUAL "readme-venv")
  # -DSOURCE=<checkout> -DPYTHON=<python3>: the README's pytest way in, as written: a fresh
  # `python3 -m venv --system-site-packages`, the README's `pip install ...` line run there (on a
  # copy of python/), then its pytest line on the README's example (python/tests/test_readme.py),
  # with the venv first on PATH as `activate` puts it. (Written `pytest ...`, the shell found
  # /usr/bin/pytest, which does not see the venv's plugin: "unrecognized arguments".)
  file(READ ${SOURCE}/README.md readme)
  string(REGEX MATCH "`(pip install [^`]*)`" _ "${readme}")
  set(pip_line "${CMAKE_MATCH_1}")
  string(REGEX MATCH "`([^`]*pytest -k [^`]*)`" _ "${readme}")
  set(pytest_line "${CMAKE_MATCH_1}")
  if(NOT pip_line OR NOT pytest_line)
    message(FATAL_ERROR "the README's pip or pytest line was not found")
  endif()
  set(work ${OUT}/readme-venv)
  file(REMOVE_RECURSE ${work})
  file(MAKE_DIRECTORY ${work})
  file(COPY ${SOURCE}/python DESTINATION ${work} PATTERN build EXCLUDE PATTERN *.egg-info EXCLUDE PATTERN __pycache__ EXCLUDE)
  file(COPY ${SOURCE}/python/tests/test_readme.py DESTINATION ${work}/tests)
  run(${PYTHON} -m venv --system-site-packages ${work}/venv)
  foreach(line "${pip_line} --disable-pip-version-check --no-index" "${pytest_line} -p no:cacheprovider tests/test_readme.py")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=${work}/venv/bin:${prefix}/bin:$ENV{PATH} VIRTUAL_ENV=${work}/venv
                            PYTHONDONTWRITEBYTECODE=1 bash -c "${line}"
                    WORKING_DIRECTORY ${work} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "the README's line failed in a fresh venv (exit ${rc}): ${line}\n${out}\n${err}")
    endif()
  endforeach()
  expect("${out}" "1 passed" "the README's pytest line: the one FALSIFY-SM-004 item")
else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
