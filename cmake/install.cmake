# Install rules and the CMake package (included from the top-level CMakeLists.txt):
# `cmake --install build --prefix P` lays out
#   P/bin/attncheck                       the CLI; it reads P/share/attncheck/contracts (src/cli/util.cpp)
#   P/share/attncheck/contracts, docs     the bundled contracts and the docs the CLI points into
#   P/share/attncheck/proofs              the proofs the contracts name (LaTeX, Coq, notes)
#   P/share/attncheck/proofs-record, bmc-report.json   what this build's proof and bmc tests
#                                         checked, when they ran before the install (`coverage`)
#   P/include/attncheck/abi.h, ...        the C ABI header, the library's headers
#   P/lib/libattncheck_{core,property,bmc,audit}.a   the library, in its layers (CMakeLists.txt)
#   P/lib/cmake/attncheck/                attncheckConfig.cmake (+ Version, exported targets,
#                                         AttncheckAudit.cmake: attncheck_add_audit, attncheck_add_gate)
# docs/consumers.md describes the package; tests/install/install.cmake tests it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ATTNCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/attncheck)
set(ATTNCHECK_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/attncheck)

# The exported names (EXPORT_NAME, set where each target is defined): attncheck::attncheck (the
# CLI), attncheck::abi; with COMPONENTS core, attncheck::kernels, attncheck::core, attncheck::property,
# attncheck::bmc and attncheck::audit.
install(TARGETS attncheck_cli attncheck_abi EXPORT attncheckTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS attncheck_kernels attncheck_core attncheck_property attncheck_bmc attncheck_audit EXPORT attncheckCoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT attncheckTargets NAMESPACE attncheck:: DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)
install(EXPORT attncheckCoreTargets NAMESPACE attncheck:: DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)

install(FILES include/attncheck/abi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attncheck COMPONENT dev)
install(DIRECTORY src/attncheck/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attncheck COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(DIRECTORY contracts/ DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/contracts COMPONENT runtime)
install(DIRECTORY docs/ DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/docs COMPONENT runtime)
# The proofs the contracts name (LaTeX, the Coq sources, the bounds' notes: about 0.4 MB of text),
# so that `show` points at them and `coverage` compares the record with them; and the records of
# this build, when its tests made them (`ctest -L proofs`: what pdflatex and coqc checked; CTest
# bmc.contract-bounds: the harness verdicts). An install made before those tests carries no record:
# `coverage` then says the proofs are not assessed and how to assess them (src/cli/coverage_cmd.cpp).
install(DIRECTORY proofs/ DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/proofs COMPONENT runtime
        FILES_MATCHING PATTERN "*.tex" PATTERN "*.sty" PATTERN "*.v" PATTERN "_CoqProject" PATTERN "*.md")
install(DIRECTORY ${ATTNCHECK_PROOFS_OUT}/pdf/checked OPTIONAL DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/proofs-record/pdf
        COMPONENT runtime)
install(DIRECTORY ${ATTNCHECK_PROOFS_OUT}/coq/checked OPTIONAL DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/proofs-record/coq
        COMPONENT runtime)
install(FILES ${ATTNCHECK_BMC_RECORD} OPTIONAL DESTINATION ${ATTNCHECK_INSTALL_DATADIR} COMPONENT runtime)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

# 0.x: a minor release may change the CMake API, so 0.1 is satisfied by 0.1.y only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/attncheckConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/attncheckConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfig.cmake
                              INSTALL_DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/AttncheckAudit.cmake
        DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)

# ==== The Debian package (CPack): `cpack -G DEB` in the build directory makes attncheck_<v>_<arch>.deb
# with everything above under /usr. dpkg-shlibdeps (dpkg-dev) writes Depends: from what the CLI
# links (libyaml-cpp, libfmt, libz3, libmpfr, libgmp, libstdc++, libc); the tools some commands
# run are Recommends/Suggests. The -dev packages that COMPONENTS core needs are Suggests: the CLI,
# the ABI header and attncheck_add_audit need none of them. tests/install/install.cmake builds
# it, checks its fields and runs the gate from its files.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attncheck)
set(CPACK_PACKAGE_VENDOR attncheck)
set(CPACK_PACKAGE_CONTACT "attncheck maintainers <attncheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "checks softmax and attention kernels against mathematical contracts")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "attncheck runs falsification tests of the mathematics of attention (softmax, scaling,
bounds, JVPs) against its reference kernels or against yours (a shared library with a C ABI, or
any program speaking its exec protocol), at f32, f64, f16 and bf16. This package has the CLI,
the bundled contracts, the C ABI header, the library and a CMake package (attncheck_add_audit).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox")  # attncheck report --html: the plots
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "cvc5, gappa, libmpfr-dev, libgmp-dev, libboost-dev, libyaml-cpp-dev, libfmt-dev, librapidcheck-dev, libz3-dev")
set(CPACK_STRIP_FILES ON)
include(CPack)
